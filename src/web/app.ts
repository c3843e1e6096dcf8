// The whole app in a browser: the services on the embedded sandbox (or a given data
// directory), served through the web harness. Used by `npm run web`, the Playwright
// e2e suite and the renderer benchmarks.
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createServices, type Services, type ServicesOptions } from '../main/services'
import { bindProblem, startWebHarness, type WebHarness } from './server'
import { buildRenderer } from './build-renderer'
import pkg from '../../package.json' with { type: 'json' }

export interface WebAppOptions {
  port?: number
  /** The address to bind (default 127.0.0.1); one beyond loopback needs allowRemote. */
  host?: string
  allowRemote?: boolean
  /** Persistent data directory; default a fresh temporary one, removed on close. */
  dataDir?: string
  /** Options for the embedded sandbox of the sandbox profile. */
  sandbox?: ServicesOptions['sandbox']
  /** Skip building the renderer (it must already be in staticDir). */
  staticDir?: string
  services?: Partial<ServicesOptions>
}

export interface WebApp {
  url: string
  openUrl: string
  harness: WebHarness
  services: Services
  dataDir: string
  close(): Promise<void>
}

export async function startWebApp(opts: WebAppOptions = {}): Promise<WebApp> {
  // Before anything starts: a refused address must not cost a renderer build and a sandbox.
  const problem = bindProblem(opts.host ?? '127.0.0.1', opts.allowRemote ?? false)
  if (problem) throw new Error(problem)
  const staticDir = opts.staticDir ?? (await buildRenderer({ quiet: true }))
  const temp = !opts.dataDir
  const dataDir = opts.dataDir ?? (await mkdtemp(join(tmpdir(), 'rampdesk-web-')))
  // A failure half-way (a port in use, a sandbox that cannot start) must not leave the
  // services running or a temporary data directory behind.
  let services: Services | null = null
  let harness: WebHarness
  const exportDir = opts.services?.exportDir ?? join(dataDir, 'exports')
  try {
    services = await createServices({
      dataDir,
      exportDir,
      version: pkg.version,
      shellKind: 'web',
      sandbox: opts.sandbox,
      ...opts.services
    })
    await services.start()
    harness = await startWebHarness({
      handlers: services.handlers,
      subscribe: services.subscribe,
      staticDir,
      host: opts.host,
      port: opts.port,
      allowRemote: opts.allowRemote,
      exportDir,
      signIn: services.signInReturn
    })
    services.signInReturn.setRedirectUri(harness.signInRedirectUri)
  } catch (e) {
    await services?.close().catch(() => undefined)
    if (temp) await rm(dataDir, { recursive: true, force: true })
    throw e
  }
  const started = services
  return {
    url: harness.url,
    openUrl: harness.openUrl,
    harness,
    services: started,
    dataDir,
    async close() {
      await harness.close()
      await started.close()
      if (temp) await rm(dataDir, { recursive: true, force: true })
    }
  }
}
