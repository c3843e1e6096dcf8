// startWebApp (src/web/app.ts) end to end over loopback, with a stand-in renderer
// folder: the printed URL's token buys the cookie, the contract answers over HTTP on the
// embedded sandbox, events stream, and close() removes the temporary data directory.
import { existsSync } from 'node:fs'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { request } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startWebApp, type WebApp } from '../../../src/web/app'

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

async function cookie(): Promise<string> {
  const r = await fetch(app.openUrl, { redirect: 'manual' })
  expect(r.status).toBe(303)
  const set = r.headers.get('set-cookie') ?? ''
  return set.split(';')[0]!
}

describe('startWebApp', () => {
  it('serves the contract over HTTP on the embedded sandbox once the token was exchanged', async () => {
    expect(app.openUrl.startsWith(app.url)).toBe(true)
    expect(new URL(app.url).hostname).toBe('127.0.0.1')
    const c = await cookie()
    const r = await fetch(`${app.url}rpc/app:info`, {
      method: 'POST',
      headers: { cookie: c, 'content-type': 'application/json', origin: app.url.replace(/\/$/, '') },
      body: '{}'
    })
    const env = (await r.json()) as { ok: boolean; value: { shell: string; profile: { kind: string } } }
    expect(env.ok).toBe(true)
    expect(env.value.shell).toBe('web')
    expect(env.value.profile.kind).toBe('sandbox')
    const page = await fetch(app.url, { headers: { cookie: c } })
    expect(page.status).toBe(200)
    expect(await page.text()).toContain('<title>Rampdesk</title>')
  })

  it('streams the services’ events to the browser', async () => {
    const c = await cookie()
    const url = new URL(app.url)
    const frame = await new Promise<string>((resolve, reject) => {
      const req = request({ host: url.hostname, port: url.port, path: '/events', headers: { host: url.host, cookie: c } }, (res) => {
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
      })
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
    await expect(fetch(other.url)).rejects.toThrow()
    await expect(fetch(`${sandboxUrl}/__sandbox/info`)).rejects.toThrow()
  })
})
