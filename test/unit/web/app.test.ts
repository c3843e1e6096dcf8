// startWebApp (src/web/app.ts) end to end over loopback, with a stand-in renderer
// folder: the printed URL's token buys the cookie, the contract answers over HTTP on the
// embedded sandbox, events stream, and close() removes the temporary data directory.
import { existsSync } from 'node:fs'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { request } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { request as undiciRequest } from 'undici'
import { startWebApp, type WebApp } from '../../../src/web/app'
import { localhostDispatcher, localhostLookup } from '../../support/localhost-names'

let staticDir: string
let app: WebApp

beforeAll(async () => {
  staticDir = await mkdtemp(join(tmpdir(), 'rampdesk-static-'))
  await writeFile(join(staticDir, 'index.html'), '<!doctype html><title>Rampdesk</title>')
  app = await startWebApp({ staticDir, sandbox: { orders: 20, autoGenerate: false, seed: 3 } })
})
afterAll(async () => {
  await app?.close()
  await rm(staticDir, { recursive: true, force: true })
})

/** A request as a browser would send it: the per-launch *.localhost name resolved to loopback. */
const get = (url: string, o: Parameters<typeof undiciRequest>[1] = {}) => undiciRequest(url, { ...o, dispatcher: localhostDispatcher })

async function cookie(): Promise<string> {
  const r = await get(app.openUrl)
  await r.body.dump()
  expect(r.statusCode).toBe(303)
  return String(r.headers['set-cookie']).split(';')[0]!
}

describe('startWebApp', () => {
  it('serves the contract over HTTP on the embedded sandbox once the token was exchanged', async () => {
    expect(app.openUrl.startsWith(app.url)).toBe(true)
    expect(new URL(app.url).hostname).toMatch(/^rd[0-9a-f]{20}\.localhost$/)
    expect(app.harness.listenUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/)
    const c = await cookie()
    const r = await get(`${app.url}rpc/app:info`, {
      method: 'POST',
      headers: { cookie: c, 'content-type': 'application/json', origin: app.url.replace(/\/$/, '') },
      body: '{}'
    })
    const env = (await r.body.json()) as { ok: boolean; value: { shell: string; profile: { kind: string } } }
    expect(env.ok).toBe(true)
    expect(env.value.shell).toBe('web')
    expect(env.value.profile.kind).toBe('sandbox')
    const page = await get(app.url, { headers: { cookie: c } })
    expect(page.statusCode).toBe(200)
    expect(await page.body.text()).toContain('<title>Rampdesk</title>')
  })

  it('refuses an address beyond loopback before it starts anything', async () => {
    await expect(startWebApp({ staticDir, host: '0.0.0.0' })).rejects.toThrow(/--allow-remote/)
  })

  it('streams the services’ events to the browser', async () => {
    const c = await cookie()
    const url = new URL(app.url)
    const frame = await new Promise<string>((resolve, reject) => {
      const req = request(
        { host: url.hostname, port: url.port, path: '/events', headers: { host: url.host, cookie: c }, lookup: localhostLookup },
        (res) => {
          let text = ''
          let asked = false
          res.setEncoding('utf8')
          res.on('data', (chunk: string) => {
            text += chunk
            if (!asked) {
              asked = true
              // Re-activating the profile emits profile:changed through the harness.
              void app.services.handlers['profiles:switch']({ id: 'sandbox' })
            }
            const m = /event: profile:changed\ndata: (.*)\n\n/.exec(text)
            if (m) {
              req.destroy()
              resolve(m[1]!)
            }
          })
        }
      )
      req.on('error', reject)
      req.end()
    })
    expect(JSON.parse(frame)).toMatchObject({ id: 'sandbox', kind: 'sandbox' })
  })

  it('close() stops everything and removes the temporary data directory', async () => {
    const other = await startWebApp({ staticDir, sandbox: { orders: 5, autoGenerate: false } })
    expect(existsSync(other.dataDir)).toBe(true)
    const sandboxUrl = other.services.sandbox()!.url
    await other.close()
    expect(existsSync(other.dataDir)).toBe(false)
    await expect(get(other.url)).rejects.toThrow()
    await expect(fetch(`${sandboxUrl}/__sandbox/info`)).rejects.toThrow()
  })
})
