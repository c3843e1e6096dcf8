// The browser harness's HTTP front (src/web/server.ts) over loopback with stand-in
// handlers: the token-for-cookie exchange, the 401/403/415/404/413 refusals, the
// invalid-input envelope, the answers' Server-Timing, Server-Sent Events, static files confined to their root, the
// CSP on HTML, and CSV exports downloaded by their name only.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { request, type IncomingHttpHeaders } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { bindProblem, startWebHarness, type WebHarness } from '../../../src/web/server'
import { localhostLookup } from '../../support/localhost-names'
import { channelNames, type ContractHandlers, type EventName } from '../../../src/shared/ipc/contract'
import { syncState } from '../../support/sync-state'

const TOKEN = 'test-token-0123456789abcdef'
const EXPORT = 'rampdesk-orders-2026-11-25T14-30-00-000Z.csv'
const SECRET_TEXT = 'outside-the-root-do-not-serve'

let base: string
let harness: WebHarness
/** The session cookie the token was exchanged for (name=value). */
let session = ''
let emit: (event: EventName, payload: unknown) => void = () => undefined
let unsubscribed = false
const calls: Array<{ channel: string; input: unknown }> = []

const SYNC_STATE = syncState({ lastSuccessAt: 1 })
const SLOW_CHANNEL_MS = 40

function handlers(): ContractHandlers {
  const out: Record<string, (i: unknown) => Promise<unknown>> = {}
  for (const c of channelNames) {
    out[c] = async (input) => {
      calls.push({ channel: c, input })
      if (c === 'settings:get') return { theme: 'dark' }
      if (c === 'sync:state') return { states: [SYNC_STATE] }
      // A channel that takes its time, for the answer's Server-Timing.
      if (c === 'config:get') await new Promise((r) => setTimeout(r, SLOW_CHANNEL_MS))
      if (c === 'orders:get')
        throw Object.assign(new Error('the service refused the request'), { kind: 'api', code: 417, retryable: false })
      return { ok: true }
    }
  }
  return out as unknown as ContractHandlers
}

interface Answer {
  status: number
  headers: IncomingHttpHeaders
  body: string
}

/** A raw request (node:http lets the test set Host and send paths no URL parser would). */
function send(
  method: string,
  path: string,
  o: { headers?: Record<string, string>; body?: string | Buffer; cookie?: boolean } = {}
): Promise<Answer> {
  const url = new URL(harness.url)
  const headers: Record<string, string> = {
    host: url.host,
    ...(o.cookie === false ? {} : { cookie: session }),
    ...o.headers
  }
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, method, path, headers, lookup: localhostLookup }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }))
      res.on('error', reject)
    })
    req.on('error', reject)
    if (o.body !== undefined) req.end(o.body)
    else req.end()
  })
}

const rpc = (channel: string, body: unknown, headers: Record<string, string> = {}) =>
  send('POST', `/rpc/${channel}`, {
    headers: { 'content-type': 'application/json', origin: base.replace(/\/$/, ''), ...headers },
    body: JSON.stringify(body)
  })

let root: string
let dir: string

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rampdesk-web-'))
  root = join(dir, 'static')
  await mkdir(join(root, 'assets'), { recursive: true })
  await writeFile(join(root, 'index.html'), '<!doctype html><title>Rampdesk</title><script type="module" src="/assets/app.js"></script>')
  await writeFile(join(root, 'assets', 'app.js'), 'console.log("app")')
  await writeFile(join(dir, 'secret.txt'), SECRET_TEXT)
  // A sibling folder whose name starts with the root's: a prefix check without the separator would let it through.
  await mkdir(join(dir, 'static-evil'), { recursive: true })
  await writeFile(join(dir, 'static-evil', 'x.txt'), SECRET_TEXT)
  await mkdir(join(dir, 'exports'), { recursive: true })
  await writeFile(join(dir, 'exports', EXPORT), '"Order id"\r\n"1"\r\n')
  await writeFile(join(dir, 'exports', 'rampdesk.db'), SECRET_TEXT)
  harness = await startWebHarness({
    exportDir: join(dir, 'exports'),
    handlers: handlers(),
    subscribe: (l) => {
      emit = l
      return () => {
        unsubscribed = true
      }
    },
    staticDir: root,
    token: TOKEN
  })
  base = harness.url
  const login = await send('GET', `/?token=${TOKEN}`, { cookie: false })
  session = String(login.headers['set-cookie']).split(';')[0]!
})
afterAll(async () => {
  await harness?.close()
  expect(unsubscribed).toBe(true)
  await rm(dir, { recursive: true, force: true })
})

describe('the per-launch host name', () => {
  it('is <random>.localhost on the bound port, new at each launch, and the only Host that passes', async () => {
    expect(harness.hostname).toMatch(/^rd[0-9a-f]{20}\.localhost$/)
    expect(base).toBe(`http://${harness.hostname}:${harness.port}/`)
    expect(harness.listenUrl).toBe(`http://127.0.0.1:${harness.port}/`)
    expect(harness.remoteUrl).toBeNull()
    const other = await startWebHarness({ handlers: handlers(), subscribe: () => () => undefined, staticDir: root })
    expect(other.hostname).not.toBe(harness.hostname)
    await other.close()
    // The loopback names a cookie for "127.0.0.1" or "localhost" would be shared with: refused, cookie or not.
    for (const host of [`127.0.0.1:${harness.port}`, `localhost:${harness.port}`, `[::1]:${harness.port}`, harness.hostname])
      expect((await send('GET', '/', { headers: { host } })).status, host).toBe(403)
  })

  it('refuses to bind beyond loopback unless allowed, and a wildcard even then', async () => {
    const start = (host: string, allowRemote?: boolean) =>
      startWebHarness({ handlers: handlers(), subscribe: () => () => undefined, staticDir: root, host, allowRemote })
    for (const host of ['0.0.0.0', '::', '192.0.2.10', 'example.test']) await expect(start(host), host).rejects.toThrow(/--allow-remote/)
    await expect(start('0.0.0.0', true)).rejects.toThrow(/give the one address browsers will use/)
    expect(bindProblem('127.0.0.1', false)).toBeNull()
    expect(bindProblem('::1', false)).toBeNull()
    expect(bindProblem('192.0.2.10', true)).toBeNull()
  })
})

describe('token exchange and cookie', () => {
  it('/?token= sets an HttpOnly SameSite=Strict session cookie that is not the token, and redirects without the token', async () => {
    const r = await send('GET', `/?token=${TOKEN}&view=orders`, { cookie: false })
    expect(r.status).toBe(303)
    expect(r.headers.location).toBe('/?view=orders')
    const cookie = String(r.headers['set-cookie'])
    const id = /^rampdesk_session=([\w-]+);/.exec(cookie)?.[1] ?? ''
    expect(id).toMatch(/^[\w-]{43}$/)
    expect(cookie).not.toContain(TOKEN)
    // Each exchange opens its own session; the token itself is no cookie.
    expect(`rampdesk_session=${id}`).not.toBe(session)
    expect((await send('GET', '/', { headers: { cookie: `rampdesk_session=${id}` } })).status).toBe(200)
    expect((await send('GET', '/', { headers: { cookie: `rampdesk_session=${TOKEN}` } })).status).toBe(401)
    expect((await send('GET', '/', { headers: { cookie: `rampdesk_token=${TOKEN}` } })).status).toBe(401)
    expect(cookie).toMatch(/;\s*HttpOnly/)
    expect(cookie).toMatch(/;\s*SameSite=Strict/)
    expect(cookie).toMatch(/;\s*Path=\//)
    const plain = await send('GET', `/?token=${TOKEN}`, { cookie: false })
    expect(plain.headers.location).toBe('/')
  })

  it('a wrong token gets 401 and no cookie', async () => {
    const r = await send('GET', '/?token=nope', { cookie: false })
    expect(r.status).toBe(401)
    expect(r.headers['set-cookie']).toBeUndefined()
  })

  it('requests without the cookie (or with a wrong one) get 401', async () => {
    expect((await send('GET', '/', { cookie: false })).status).toBe(401)
    expect((await send('GET', '/events', { cookie: false })).status).toBe(401)
    const before = calls.length
    expect(
      (await send('POST', '/rpc/settings:get', { cookie: false, headers: { 'content-type': 'application/json' }, body: '{}' })).status
    ).toBe(401)
    expect((await send('GET', '/', { cookie: false, headers: { cookie: 'rampdesk_session=wrong' } })).status).toBe(401)
    expect(calls.length).toBe(before)
  })
})

describe('guards', () => {
  it('a foreign Host header gets 403 (DNS rebinding), even with the cookie', async () => {
    const r = await send('GET', '/', { headers: { host: `evil.test:${harness.port}` } })
    expect(r.status).toBe(403)
    const rpcr = await send('POST', '/rpc/settings:get', { headers: { host: 'evil.test', 'content-type': 'application/json' }, body: '{}' })
    expect(rpcr.status).toBe(403)
  })

  it('a foreign Origin on POST gets 403; the own origin passes', async () => {
    const before = calls.length
    expect((await rpc('settings:get', {}, { origin: 'https://evil.test' })).status).toBe(403)
    expect((await rpc('settings:get', {}, { origin: 'null' })).status).toBe(403)
    expect(calls.length).toBe(before)
    const ok = await rpc('settings:get', {})
    expect(ok.status).toBe(200)
    expect(JSON.parse(ok.body)).toEqual({ ok: true, value: { theme: 'dark' } })
    // Another loopback origin on the same port is another site: refused.
    for (const origin of [`http://localhost:${harness.port}`, `http://127.0.0.1:${harness.port}`])
      expect((await rpc('settings:get', {}, { origin })).status, origin).toBe(403)
  })

  it('non-JSON bodies get 415', async () => {
    const r = await send('POST', '/rpc/settings:get', {
      headers: { 'content-type': 'text/plain', origin: base.replace(/\/$/, '') },
      body: '{}'
    })
    expect(r.status).toBe(415)
    const form = await send('POST', '/rpc/settings:get', { headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'a=1' })
    expect(form.status).toBe(415)
  })

  it('an unknown channel gets 404 with an unknown_channel envelope', async () => {
    const r = await rpc('nope:nothing', {})
    expect(r.status).toBe(404)
    expect(JSON.parse(r.body)).toMatchObject({ ok: false, error: { kind: 'unknown_channel' } })
    expect((await rpc('__proto__', {})).status).toBe(404)
    expect((await rpc('constructor', {})).status).toBe(404)
  })

  it('an oversized body gets 413', async () => {
    const huge = JSON.stringify({ payload: 'x'.repeat(3 * 1024 * 1024), signature: 'y' })
    const r = await send('POST', '/rpc/webhooks:verify', {
      headers: { 'content-type': 'application/json', origin: base.replace(/\/$/, '') },
      body: huge
    })
    expect(r.status).toBe(413)
    expect(JSON.parse(r.body)).toMatchObject({ ok: false, error: { kind: 'invalid_input' } })
    // Without a Content-Length (chunked), the limit holds as the body streams in.
    const chunked = await send('POST', '/rpc/webhooks:verify', {
      headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
      body: huge
    })
    expect(chunked.status).toBe(413)
    // The listener still serves after it.
    expect((await rpc('settings:get', {})).status).toBe(200)
  })

  it('GET on an rpc channel gets 405', async () => {
    const r = await send('GET', '/rpc/settings:get')
    expect(r.status).toBe(405)
    expect(r.headers.allow).toBe('POST')
  })
})

describe('rpc envelopes', () => {
  it('invalid input answers an invalid_input envelope naming the field, without calling the handler', async () => {
    const before = calls.length
    const r = await rpc('orders:query', { filter: { type: 9 }, offset: 0, limit: 10 })
    expect(r.status).toBe(200)
    const env = JSON.parse(r.body)
    expect(env.ok).toBe(false)
    expect(env.error.kind).toBe('invalid_input')
    expect(env.error.message).toContain('filter.type')
    const notJson = await send('POST', '/rpc/settings:get', { headers: { 'content-type': 'application/json' }, body: '{not json' })
    expect(JSON.parse(notJson.body)).toMatchObject({ ok: false, error: { kind: 'invalid_input' } })
    expect(calls.length).toBe(before)
  })

  it('a handler’s failure travels as the error half of the envelope', async () => {
    const r = await rpc('orders:get', { type: 1, orderId: 5 })
    expect(r.status).toBe(200)
    expect(JSON.parse(r.body)).toEqual({
      ok: false,
      error: { kind: 'api', message: 'the service refused the request', code: 417, retryable: false }
    })
    expect(calls.at(-1)).toEqual({ channel: 'orders:get', input: { type: 1, orderId: 5 } })
  })
})

describe('Server-Timing', () => {
  it('an answer says how long its channel took (app) and the harness in all, the channel included', async () => {
    const r = await rpc('config:get', {})
    expect(r.status).toBe(200)
    const timing = String(r.headers['server-timing'])
    const dur = (name: string) => Number(new RegExp(`${name};dur=([0-9.]+)`).exec(timing)?.[1] ?? NaN)
    expect(timing).toMatch(/^app;dur=[0-9.]+, harness;dur=[0-9.]+$/)
    // Timers fire up to a ms early; the channel's wait is in app, and app within harness.
    expect(dur('app')).toBeGreaterThanOrEqual(SLOW_CHANNEL_MS - 1)
    expect(dur('harness')).toBeGreaterThanOrEqual(dur('app'))
    expect(dur('harness')).toBeLessThan(10_000)
  })
})

describe('events', () => {
  it('/events streams contract events as Server-Sent Events, after the sync states as they are when it opens', async () => {
    const url = new URL(harness.url)
    const frames = await new Promise<string>((resolve, reject) => {
      const req = request(
        { host: url.hostname, port: url.port, path: '/events', headers: { host: url.host, cookie: session }, lookup: localhostLookup },
        (res) => {
          expect(res.statusCode).toBe(200)
          expect(res.headers['content-type']).toBe('text/event-stream')
          let text = ''
          res.setEncoding('utf8')
          res.on('data', (c: string) => {
            text += c
            // What happened before the stream opened reached no window: the stream starts with the sync states.
            if (text.includes('event: sync:state\n') && !text.includes('ticker:tick'))
              emit('ticker:tick', { fiatType: 1, rows: [], nextRefreshAt: null })
            if (text.includes('\n\nevent: ticker:tick\n') || /event: ticker:tick\ndata: .*\n\n/.test(text)) {
              req.destroy()
              resolve(text)
            }
          })
        }
      )
      req.on('error', reject)
      req.end()
    })
    expect(frames).toMatch(/event: ticker:tick\ndata: \{"fiatType":1,"rows":\[\],"nextRefreshAt":null\}\n\n/)
    expect(frames.indexOf(`event: sync:state\ndata: ${JSON.stringify(SYNC_STATE)}\n\n`)).toBeGreaterThan(-1)
    expect(frames.indexOf('event: sync:state')).toBeLessThan(frames.indexOf('event: ticker:tick'))
  })
})

describe('static files', () => {
  it('serves the renderer with a CSP and framing refused', async () => {
    const r = await send('GET', '/')
    expect(r.status).toBe(200)
    expect(r.headers['content-type']).toBe('text/html; charset=utf-8')
    const csp = String(r.headers['content-security-policy'])
    expect(csp).toContain("default-src 'none'")
    expect(csp).toContain("script-src 'self'")
    expect(csp).toContain("frame-ancestors 'none'")
    expect(csp).not.toContain('unsafe-inline')
    expect(r.headers['x-frame-options']).toBe('DENY')
    expect(r.headers['x-content-type-options']).toBe('nosniff')
    const js = await send('GET', '/assets/app.js')
    expect(js.status).toBe(200)
    expect(js.headers['content-type']).toBe('text/javascript; charset=utf-8')
  })

  it('cannot be made to read outside the root', async () => {
    const attempts = [
      '/../secret.txt',
      '/assets/../../secret.txt',
      '/%2e%2e/secret.txt',
      '/%2e%2e%2fsecret.txt',
      '/..%2fsecret.txt',
      '/assets/..%2f..%2fsecret.txt',
      '/..%5csecret.txt',
      '/%2e%2e/static-evil/x.txt',
      '/../static-evil/x.txt',
      `/${encodeURIComponent(join(dir, 'secret.txt'))}`,
      '//etc/passwd',
      '/%00/secret.txt',
      '/%E0%A4%A'
    ]
    for (const path of attempts) {
      const r = await send('GET', path)
      expect(r.body, path).not.toContain(SECRET_TEXT)
      expect(r.body, path).not.toContain('root:')
      expect([400, 404], `${path} answered ${r.status}`).toContain(r.status)
    }
  })
})

describe('CSV exports', () => {
  it('hands an export to the browser as a download, by its name, to a session only', async () => {
    const r = await send('GET', `/exports/${EXPORT}`)
    expect(r.status).toBe(200)
    expect(r.body).toBe('"Order id"\r\n"1"\r\n')
    expect(r.headers['content-type']).toBe('text/csv; charset=utf-8')
    expect(r.headers['content-disposition']).toBe(`attachment; filename="${EXPORT}"`)
    expect(r.headers['x-content-type-options']).toBe('nosniff')
    expect((await send('GET', `/exports/${EXPORT}`, { cookie: false })).status).toBe(401)
  })

  it('serves nothing else of the folder or beyond it, and no export that is not there', async () => {
    for (const path of [
      '/exports/rampdesk.db',
      '/exports/../secret.txt',
      '/exports/%2e%2e%2fsecret.txt',
      '/exports/..%2fstatic%2findex.html',
      `/exports/${EXPORT.replace('orders', 'onramp')}`,
      `/exports/${encodeURIComponent(join(dir, 'exports', EXPORT))}`
    ]) {
      const r = await send('GET', path)
      expect(r.body, path).not.toContain(SECRET_TEXT)
      expect([400, 404], `${path} answered ${r.status}`).toContain(r.status)
    }
  })
})
