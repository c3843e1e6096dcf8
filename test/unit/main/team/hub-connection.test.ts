// A desktop's line to a team of several hubs (HubConnection with fallbackUrls), against two
// plain HTTP servers standing in for hubs, each recording what it was sent:
//   - the event stream moves to the next hub when the one in use stops answering, naming
//     the last event id it saw (Last-Event-ID), and says which hub it is on;
//   - a call whose connection is refused goes to the next hub at once, and the next calls stay there;
//   - a read that broke after it was sent is asked again of the next hub; an action is not
//     (it may have been carried out), and says so as a network error;
//   - with one hub, nothing changes;
//   - a sign-in that could not be renewed just now is the line down for a while, not a missing token.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { HubConnection } from '../../../../src/main/team/hub-connection'
import { SignInError } from '../../../../src/main/team/oidc-sign-in'

interface FakeHub {
  url: string
  server: Server
  /** What was asked: method, path and Last-Event-ID. */
  seen: Array<{ path: string; lastEventId: string | undefined }>
  /** Answers rpc calls (default: {ok:true,value:{hub:url}}). */
  onRpc?: (req: IncomingMessage, res: ServerResponse) => void
  streams: ServerResponse[]
  stop(): Promise<void>
}

const hubs: FakeHub[] = []
const connections: HubConnection[] = []
afterEach(async () => {
  for (const c of connections.splice(0)) await c.close()
  for (const h of hubs.splice(0)) await h.stop()
})

async function fakeHub(): Promise<FakeHub> {
  const hub: FakeHub = {
    url: '',
    seen: [],
    streams: [],
    server: createServer((req, res) => {
      const path = req.url ?? '/'
      hub.seen.push({ path, lastEventId: req.headers['last-event-id'] as string | undefined })
      if (path === '/events') {
        res.writeHead(200, { 'content-type': 'text/event-stream' })
        res.write(`: hello\n\nid: 7\nevent: budget:changed\ndata: {"entries":[]}\n\n`)
        hub.streams.push(res)
        return
      }
      req.resume()
      if (hub.onRpc) return hub.onRpc(req, res)
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: true, value: { hub: hub.url } }))
    }),
    async stop() {
      hub.server.closeAllConnections()
      await new Promise<void>((ok) => hub.server.close(() => ok()))
    }
  }
  await new Promise<void>((ok) => hub.server.listen(0, '127.0.0.1', ok))
  hub.url = `http://127.0.0.1:${(hub.server.address() as AddressInfo).port}`
  hubs.push(hub)
  return hub
}

function connect(urls: string[], onHub: string[] = [], events: unknown[] = []): HubConnection {
  const c = new HubConnection({
    hubUrl: urls[0]!,
    fallbackUrls: urls.slice(1),
    token: async () => 'rdh_test',
    minRetryMs: 50,
    maxRetryMs: 200,
    connectTimeoutMs: 1_000,
    onHubChange: (url) => void onHub.push(url),
    onEvent: (event, payload) => void events.push({ event, payload })
  })
  connections.push(c)
  return c
}

async function until(cond: () => boolean, ms = 5_000): Promise<void> {
  const end = Date.now() + ms
  while (!cond()) {
    if (Date.now() > end) throw new Error('timed out')
    await new Promise((r) => setTimeout(r, 10))
  }
}

describe('a connection to several hubs', () => {
  it('moves the event stream to the next hub when the one in use stops answering, naming the last event id', async () => {
    const a = await fakeHub()
    const b = await fakeHub()
    const onHub: string[] = []
    const events: unknown[] = []
    const c = connect([a.url, b.url], onHub, events)
    c.start()
    await until(() => c.connected && events.length === 1)
    expect(c.hubUrl).toBe(a.url)
    await a.stop()
    await until(() => b.seen.some((s) => s.path === '/events'))
    await until(() => c.connected)
    // A's stream gave id 7: B is asked to go on from there.
    expect(b.seen.find((s) => s.path === '/events')!.lastEventId).toBe('7')
    expect(c.hubUrl).toBe(b.url)
    expect(onHub).toEqual([b.url])
  })

  it('sends a call whose connection is refused to the next hub, and the next calls and the stream stay there', async () => {
    const a = await fakeHub()
    const b = await fakeHub()
    const deadUrl = a.url
    await a.stop()
    const onHub: string[] = []
    const c = connect([deadUrl, b.url], onHub)
    // An action, refused before it reached the hub: safe to send to the next.
    expect(await c.call('webhooks:resend', { type: 1, orderId: 1 })).toEqual({ ok: true, value: { hub: b.url } })
    expect(c.hubUrl).toBe(b.url)
    expect(await c.call('orders:watched', {})).toEqual({ ok: true, value: { hub: b.url } })
    c.start()
    await until(() => c.connected)
    expect(b.seen.map((s) => s.path)).toEqual(['/rpc/webhooks:resend', '/rpc/orders:watched', '/events'])
    expect(onHub).toEqual([b.url])
  })

  it('moves the stream along when a call moved: calls and stream stay on one hub', async () => {
    const a = await fakeHub()
    const b = await fakeHub()
    const c = connect([a.url, b.url])
    c.start()
    await until(() => c.connected && a.streams.length === 1)
    // A stops taking connections; its open stream goes on.
    a.server.close()
    expect(await c.call('orders:watched', {})).toEqual({ ok: true, value: { hub: b.url } })
    await until(() => b.seen.some((s) => s.path === '/events'))
    expect(b.seen.find((s) => s.path === '/events')!.lastEventId).toBe('7')
    await until(() => a.streams[0]!.closed)
    expect(c.connected).toBe(true)
  })

  it('asks the next hub again for a read that broke after it was sent, never for an action', async () => {
    const a = await fakeHub()
    const b = await fakeHub()
    // A takes the request and drops the connection without an answer.
    a.onRpc = (req, res) => res.socket?.destroy()
    const c = connect([a.url, b.url])
    expect(await c.call('orders:query', { filter: { type: 1 }, offset: 0, limit: 1 })).toEqual({ ok: true, value: { hub: b.url } })
    expect(c.hubUrl).toBe(b.url)
    const c2 = connect([a.url, b.url])
    const before = b.seen.length
    const action = await c2.call('webhooks:resend', { type: 1, orderId: 1 })
    expect(action).toMatchObject({
      ok: false,
      error: { kind: 'hub_unreachable', message: expect.stringContaining(`the team hub at ${a.url}`) }
    })
    expect(b.seen.length).toBe(before)
    expect(c2.hubUrl).toBe(a.url)
  })

  it('says every hub is unreachable when none answers', async () => {
    const a = await fakeHub()
    const b = await fakeHub()
    const urls = [a.url, b.url]
    await a.stop()
    await b.stop()
    const c = connect(urls)
    const r = await c.call('orders:watched', {})
    expect(r).toMatchObject({
      ok: false,
      error: { kind: 'hub_unreachable', retryable: true, message: expect.stringMatching(/and so is the other hub of this profile/) }
    })
  })

  it('with one hub, stays on it', async () => {
    const a = await fakeHub()
    const onHub: string[] = []
    const c = connect([a.url], onHub)
    c.start()
    await until(() => c.connected)
    const url = a.url
    await a.stop()
    await until(() => !c.connected)
    expect(await c.call('orders:watched', {})).toMatchObject({
      ok: false,
      error: { message: expect.stringMatching(new RegExp(`^the team hub at ${url} is unreachable \\(`)) }
    })
    expect(c.hubUrl).toBe(url)
    expect(onHub).toEqual([])
  })
})

describe('a hub that refuses the token', () => {
  /** A hub answering every request `status` with an error of `kind`, as the hub refuses a token. */
  async function refusing(status: number, kind: string): Promise<FakeHub> {
    const hub = await fakeHub()
    hub.server.removeAllListeners('request')
    hub.server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      req.resume()
      const body = JSON.stringify({
        ok: false,
        error: { kind, message: 'this operator token is unknown or was revoked; wait', retryable: false }
      })
      res.writeHead(status, { 'content-type': 'application/json', 'retry-after': '8' }).end(body)
    })
    return hub
  }

  it('takes a 429 that says the token is refused (a throttled client) as the 401 it stands for: access revoked, no retry', async () => {
    for (const status of [401, 429]) {
      const c = connect([(await refusing(status, 'unauthorized')).url])
      expect(await c.call('orders:watched', {})).toMatchObject({ ok: false, error: { kind: 'access_revoked', retryable: false } })
      c.start()
      await until(() => c.refused)
      expect(c.lastError).toMatch(/refused this operator token/)
    }
  })

  it('takes any other 429 as what it says, not as a refused token', async () => {
    const c = connect([(await refusing(429, 'rate_limited')).url])
    expect(await c.call('orders:watched', {})).toMatchObject({ ok: false, error: { kind: 'rate_limited' } })
    c.start()
    await until(() => c.lastError !== null)
    expect(c.refused).toBe(false)
  })
})

describe('a token that cannot be had for a call', () => {
  const withToken = (token: () => Promise<string>): HubConnection => {
    const c = new HubConnection({ hubUrl: 'http://127.0.0.1:9', token, onEvent: () => undefined })
    connections.push(c)
    return c
  }

  it('is the line down for a while, in the hub’s words, when the hub or its provider could not renew a sign-in just now', async () => {
    const words = 'Test IdP did not answer the hub. Try again in a minute; if it goes on, ask your team lead.'
    const env = await withToken(() => Promise.reject(new SignInError(words))).call('orders:query', {})
    expect(env).toEqual({ ok: false, error: { kind: 'hub_unreachable', message: words, retryable: true } })
  })

  it('is the line down for a while when the renewal never reached the hub', async () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' })
    const env = await withToken(() => Promise.reject(refused)).call('orders:query', {})
    expect(env.ok).toBe(false)
    expect(!env.ok && env.error.kind).toBe('hub_unreachable')
    expect(!env.ok && env.error.retryable).toBe(true)
  })

  it('is a missing credential when none is stored', async () => {
    const env = await withToken(() => Promise.reject(new Error('no operator token stored for this profile'))).call('orders:query', {})
    expect(!env.ok && env.error.kind).toBe('missing_secret')
  })
})
