import { createServer, type Server } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import { MockAgent, errors } from 'undici'
import type { MockInterceptor } from 'undici/types/mock-interceptor'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { Transport, wasNeverSent } from '../../../../src/main/api/transport'
import pkg from '../../../../package.json' with { type: 'json' }

const ORIGIN = 'https://api.test'

function mocked(reply: MockInterceptor.MockReplyOptionsCallback) {
  const agent = new MockAgent()
  agent.disableNetConnect()
  agent
    .get(ORIGIN)
    .intercept({ path: () => true, method: () => true })
    .reply(reply)
    .persist()
  return agent
}

const failWith = (e: Error) =>
  mocked(() => {
    throw e
  })

describe('Transport on a MockAgent', () => {
  test('returns status, lower-cased headers, body text and the parsed Date; sends our User-Agent', async () => {
    let seen: Record<string, string> = {}
    const agent = mocked((req) => {
      seen = req.headers as unknown as Record<string, string>
      return {
        statusCode: 201,
        data: `{"path":"${req.path}"}`,
        responseOptions: { headers: { Date: 'Sat, 21 Nov 2026 19:00:00 GMT', 'X-A': 'b' } }
      }
    })
    const t = new Transport({ dispatcher: agent })
    const res = await t.request({ method: 'POST', url: `${ORIGIN}/service/api/x?q=1`, headers: { Accept: 'application/json' }, body: '{}' })
    expect(res).toEqual({
      status: 201,
      headers: expect.objectContaining({ date: 'Sat, 21 Nov 2026 19:00:00 GMT', 'x-a': 'b' }),
      bodyText: '{"path":"/service/api/x?q=1"}',
      date: Date.UTC(2026, 10, 21, 19)
    })
    expect(seen['User-Agent']).toBe(`rampdesk/${pkg.version}`)
    expect(seen.Accept).toBe('application/json')
  })

  test('no Date header, no date', async () => {
    const t = new Transport({ dispatcher: mocked(() => ({ statusCode: 200, data: '' })) })
    expect((await t.request({ method: 'GET', url: `${ORIGIN}/` })).date).toBeUndefined()
  })

  test('a body past maxResponseBytes fails with too_large', async () => {
    const t = new Transport({ dispatcher: mocked(() => ({ statusCode: 200, data: 'x'.repeat(1_001) })), maxResponseBytes: 1_000 })
    await expect(t.request({ method: 'GET', url: `${ORIGIN}/`, endpoint: 'bankDetails' })).rejects.toMatchObject({
      kind: 'too_large',
      endpoint: 'bankDetails'
    })
    const ok = new Transport({ dispatcher: mocked(() => ({ statusCode: 200, data: 'x'.repeat(1_000) })), maxResponseBytes: 1_000 })
    expect((await ok.request({ method: 'GET', url: `${ORIGIN}/` })).bodyText).toHaveLength(1_000)
  })

  test.each([
    ['connect timeout', new errors.ConnectTimeoutError(), 'timeout', true],
    ['headers timeout', new errors.HeadersTimeoutError(), 'timeout', false],
    ['body timeout', new errors.BodyTimeoutError(), 'timeout', false],
    ['connection refused', Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }), 'network', true],
    ['connection reset', Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }), 'network', false],
    ['socket closed', new errors.SocketError('other side closed'), 'network', false],
    ['aborted', new errors.RequestAbortedError(), 'aborted', false]
  ] as const)('%s -> %s (never sent: %s)', async (_name, cause, kind, neverSent) => {
    const t = new Transport({ dispatcher: failWith(cause) })
    const e = await t.request({ method: 'POST', url: `${ORIGIN}/`, body: '{}', endpoint: 'limits' }).catch((x: unknown) => x)
    expect(e).toMatchObject({ name: 'ApiError', kind, endpoint: 'limits' })
    expect(wasNeverSent(e)).toBe(neverSent)
  })

  test('an already aborted signal fails with aborted', async () => {
    const t = new Transport({ dispatcher: mocked(() => ({ statusCode: 200, data: '' })) })
    const ac = new AbortController()
    ac.abort()
    await expect(t.request({ method: 'GET', url: `${ORIGIN}/`, signal: ac.signal })).rejects.toMatchObject({ kind: 'aborted' })
  })
})

describe('Transport on real sockets (127.0.0.1)', () => {
  let server: Server
  let origin: string
  const sockets = new Set<Socket>()
  const remotePorts: number[] = []

  beforeAll(async () => {
    server = createServer((req, res) => {
      remotePorts.push(req.socket.remotePort ?? 0)
      if (req.url === '/hang') return // never answers: headers timeout
      if (req.url === '/huge') {
        // Chunked, no Content-Length: only counting the stream can catch it.
        res.writeHead(200)
        const chunk = 'y'.repeat(64 * 1024)
        let n = 0
        const pump = () => {
          while (n++ < 64) if (!res.write(chunk)) return void res.once('drain', pump)
          res.end()
        }
        return pump()
      }
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ method: req.method, ua: req.headers['user-agent'] }))
    })
    server.on('connection', (s) => {
      sockets.add(s)
      s.on('close', () => sockets.delete(s))
    })
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  })

  afterAll(async () => {
    for (const s of sockets) s.destroy()
    await new Promise((r) => server.close(r))
  })

  test('keeps the connection alive across requests to one origin, and close() ends it', async () => {
    const t = new Transport({ connections: 1 })
    const before = remotePorts.length
    for (let i = 0; i < 3; i++) expect((await t.request({ method: 'POST', url: `${origin}/ok`, body: '{}' })).status).toBe(200)
    const used = remotePorts.slice(before)
    expect(new Set(used).size).toBe(1)
    await t.close()
    const fresh = new Transport()
    expect(JSON.parse((await fresh.request({ method: 'GET', url: `${origin}/ok` })).bodyText)).toEqual({
      method: 'GET',
      ua: `rampdesk/${pkg.version}`
    })
    await fresh.close()
  })

  test('a server that never answers runs into the headers timeout', async () => {
    const t = new Transport({ headersTimeoutMs: 100 })
    await expect(t.request({ method: 'GET', url: `${origin}/hang` })).rejects.toMatchObject({ kind: 'timeout' })
    await t.close()
  })

  test('a chunked body past the cap is cut off with too_large', async () => {
    const t = new Transport({ maxResponseBytes: 256 * 1024 })
    await expect(t.request({ method: 'GET', url: `${origin}/huge` })).rejects.toMatchObject({ kind: 'too_large' })
    await t.close()
  })

  test('a closed port is refused before anything is sent', async () => {
    const probe = createServer()
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r))
    const port = (probe.address() as AddressInfo).port
    await new Promise((r) => probe.close(r))
    const t = new Transport()
    const e = await t.request({ method: 'POST', url: `http://127.0.0.1:${port}/`, body: '{}' }).catch((x: unknown) => x)
    expect(e).toMatchObject({ kind: 'network' })
    expect(wasNeverSent(e)).toBe(true)
    await t.close()
  })
})
