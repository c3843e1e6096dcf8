// Bad input over HTTP. The webhook inbox (the real one, started by the services for the
// sandbox profile, with the sandbox delivering to it) is fed forged signatures, replays,
// bodies that do not match their signed payload, oversized and malformed bodies, and
// slow senders, requests from a web page (Origin), a flood and a pile of held connections
// from one address, while real deliveries keep arriving: each attack gets the right
// status, nothing unverified is ever treated as verified (no verified row, no order change
// from it) nor stored beyond its first 2 KiB, and every real delivery is acknowledged at
// its first attempt (the sandbox, like the live service, counts an answer later than 5 s
// as failed and would retry). The attacks come from other loopback addresses than the
// sandbox's (127.0.0.1), as they would from other hosts. The browser
// harness refuses requests without its token, with a foreign Origin or a foreign Host.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { request as httpRequest } from 'node:http'
import { connect, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createServices, type Services } from '../../src/main/services'
import { startWebHarness, type WebHarness } from '../../src/web/server'
import type { Sandbox } from '../../src/sandbox'
import type { WebhookDelivery } from '../../src/shared/ipc/contract'
import { encodePayload, signPayload } from '../../src/shared/api/signature'
import { statusInfo } from '../../src/shared/domain/status'
import { diffAgainstTruth, lossesOf, recordScenario, scopesHeld, spiedHandlers, until } from './support'
import { localhostLookup } from '../support/localhost-names'

/** Every scope the sandbox holds orders in, once it has started (the app syncs them all). */
let SCOPES: { type: 1 | 2; fiatType: number }[] = []
const WRONG_SECRET = 'not-the-secret-of-this-profile-0123456789'

let dir: string
let services: Services
let sb: Sandbox
let inboxUrl: URL
let harness: WebHarness
let cookie = ''
const harnessReached: string[] = []
/** Attacks sent, by kind, with the statuses they got. */
const attacks = new Map<string, number[]>()
/** Payload headers of deliveries that are authentic (sent by the sandbox, or signed here with the real secret on purpose). */
const legitPayloads = new Set<string>()
/** Every 'webhook:delivery' event the services emitted. */
const deliveryEvents: WebhookDelivery[] = []

/**
 * The attackers' addresses: each request from the next of 250 loopback addresses, so the
 * per-source caps (tested on their own below) do not decide the statuses checked here.
 */
let nextAttacker = 0
const attacker = () => `127.0.3.${(nextAttacker++ % 250) + 1}`

interface RawResponse {
  status: number
  text: string
}

/** One HTTP request with full control of the headers (Host included). */
function raw(
  url: URL,
  o: { method?: string; headers?: Record<string, string>; body?: string | Buffer; path?: string; from?: string }
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        path: o.path ?? url.pathname + url.search,
        method: o.method ?? 'POST',
        headers: o.headers,
        setHost: o.headers?.host === undefined,
        ...(o.from ? { localAddress: o.from, agent: false } : {}),
        lookup: localhostLookup
      },
      (res) => {
        const chunks: Buffer[] = []
        res.on('data', (c: Buffer) => chunks.push(c))
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }))
        res.on('error', reject)
      }
    )
    req.on('error', reject)
    req.end(o.body)
  })
}

function note(kind: string, status: number): void {
  const list = attacks.get(kind) ?? []
  list.push(status)
  attacks.set(kind, list)
}

const json = { 'content-type': 'application/json' }
const signedHeaders = (payload: string, signature: string) => ({ ...json, 'x-service-payload': payload, 'x-service-signature': signature })

/** A webhook body claiming something about a real order (what a forger would send). */
function forgedBody(orderId: number): Record<string, unknown> {
  const o = sb.control.order(orderId)!
  return {
    ...o.record,
    status: o.type === 1 ? -1 : -4,
    updatedAt: '2099-01-01T00:00:00.000Z',
    ...(o.type === 2 ? { eventType: 'offramp' } : {})
  }
}

/** Opens a connection that sends its request far too slowly; resolves with what the inbox answered. */
function slowSender(kind: 'headers' | 'body', from = attacker()): Promise<string> {
  return new Promise((resolve) => {
    const socket: Socket = connect({ port: Number(inboxUrl.port), host: inboxUrl.hostname, localAddress: from })
    let answer = ''
    const head = `POST ${inboxUrl.pathname} HTTP/1.1\r\nHost: ${inboxUrl.host}\r\nContent-Type: application/json\r\n`
    const timer = setInterval(() => {
      if (!socket.writable) return
      socket.write(kind === 'headers' ? 'X-Slow: 1\r\n' : ' ')
    }, 400)
    socket.on('connect', () => socket.write(kind === 'headers' ? head : `${head}Content-Length: 100000\r\n\r\n{`))
    socket.on('data', (c: Buffer) => (answer += c.toString()))
    socket.on('error', () => undefined)
    socket.on('close', () => {
      clearInterval(timer)
      resolve(answer)
    })
    // Our own bound: a sender the inbox never cuts off fails the test below with an empty answer.
    setTimeout(() => socket.destroy(), 15_000).unref()
  })
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'rampdesk-rel-http-'))
  services = await createServices({
    dataDir: join(dir, 'data'),
    exportDir: join(dir, 'exports'),
    version: '0.0.0-http',
    shellKind: 'web',
    sandbox: { seed: 12, orders: 200, autoGenerate: false }
  })
  await services.start()
  services.subscribe((event, payload) => {
    if (event === 'webhook:delivery') deliveryEvents.push(payload as WebhookDelivery)
  })
  sb = services.sandbox()!
  SCOPES = scopesHeld(sb.control.groundTruth())
  const h = services.handlers
  await h['settings:update']({ inbox: { enabled: true, host: '127.0.0.1', port: 0 } })
  const inbox = await h['webhooks:inbox']({})
  expect(inbox.listening).toBe(true)
  inboxUrl = new URL(inbox.url!)
  await h['webhooks:setUrl']({ url: inbox.url! })
  await until(async () => (await h['sync:state']({})).states.every((s) => s.lastSuccessAt !== null && !s.running), 'the first sync')

  const spied = spiedHandlers(services.handlers, harnessReached)
  const staticDir = join(dir, 'static')
  mkdirSync(staticDir)
  writeFileSync(join(staticDir, 'index.html'), '<!doctype html><title>harness</title>')
  harness = await startWebHarness({ handlers: spied, subscribe: services.subscribe, staticDir })
  const r = await raw(new URL(harness.openUrl), { method: 'GET' })
  expect(r.status).toBe(303)
}, 60_000)

afterAll(async () => {
  await harness?.close()
  await services?.close()
  rmSync(dir, { recursive: true, force: true })
})

describe('bad input over HTTP: the webhook inbox', () => {
  it('refuses every kind of bad delivery with the right status while real deliveries go through', async () => {
    const known = sb.control
      .groundTruth()
      .filter((o) => o.fiatType === 1)
      .slice(0, 20)
      .map((o) => o.orderId)
    // Slow senders first: they hold connections open for the whole barrage.
    const slow = [...Array.from({ length: 8 }, () => slowSender('body')), ...Array.from({ length: 8 }, () => slowSender('headers'))]

    // Real deliveries meanwhile: orders completing, a dummy, a resend.
    const completing = [
      ...Array.from({ length: 4 }, () => sb.control.createOrder({ type: 1, fiatType: 1, path: 'completed', hold: true }).orderId),
      ...Array.from({ length: 3 }, () => sb.control.createOrder({ type: 2, path: 'completed', hold: true }).orderId)
    ]
    await services.handlers['sync:now']({})
    await until(async () => (await services.handlers['sync:state']({})).states.every((s) => !s.running), 'a sync of the new orders')
    // Straight to the end with no sync in between: only the first and the terminal status can be seen.
    const unseen = new Map<number, Set<number>>()
    const real = (async () => {
      for (const id of completing) {
        const passed = new Set<number>()
        for (let o = sb.control.order(id)!; !statusInfo(o.type, o.status).terminal; o = sb.control.order(id)!) {
          if (o.status !== 0) passed.add(o.status)
          sb.control.advanceOrder(id)
        }
        unseen.set(id, passed)
      }
      await services.handlers['webhooks:sendDummy']({ target: 'inbox' })
      await services.handlers['webhooks:resend']({ orderId: completing[0]! })
    })()

    const target = inboxUrl
    /** One request to the inbox from the next attacker address. */
    const hit = (o: Parameters<typeof raw>[1]) => raw(target, { from: attacker(), ...o })
    // Forged signatures (another secret), for real orders, claiming failure far in the future.
    for (const id of known) {
      const body = forgedBody(id)
      const payload = encodePayload(Date.now(), body)
      note(
        'signed with another secret',
        (await hit({ headers: signedHeaders(payload, signPayload(payload, WRONG_SECRET)), body: JSON.stringify(body) })).status
      )
      note('no signature header', (await hit({ headers: { ...json, 'x-service-payload': payload }, body: JSON.stringify(body) })).status)
      note(
        'no payload header',
        (await hit({ headers: { ...json, 'x-service-signature': signPayload(payload, WRONG_SECRET) }, body: JSON.stringify(body) })).status
      )
    }
    // Authentic signature, other body: a captured payload with a swapped body. Refused 400
    // (the signature does not cover that body), stored unverified, nothing applied.
    for (const id of known.slice(0, 5)) {
      const o = sb.control.order(id)!
      const payload = encodePayload(Date.now(), o.record)
      legitPayloads.add(payload)
      note(
        'body differs from the signed payload',
        (await hit({ headers: signedHeaders(payload, signPayload(payload, sb.apiSecret)), body: JSON.stringify(forgedBody(id)) })).status
      )
    }
    // Authentic signature over a payload that is not base64 JSON: it carries no order, and the
    // JSON body is not covered by it. Refused 400, stored unverified, nothing applied.
    legitPayloads.add('%%%')
    note(
      'signed payload not decodable',
      (await hit({ headers: signedHeaders('%%%', signPayload('%%%', sb.apiSecret)), body: '{}' })).status
    )
    // Malformed and oversized bodies, wrong content type, wrong method.
    // Signed for real: the body is read only once the signature holds (an unsigned one is 401 unread).
    const genuine = signPayload('e30=', sb.apiSecret)
    note('body not JSON', (await hit({ headers: signedHeaders('e30=', genuine), body: '{"orderId": 1,' })).status)
    note('body a JSON array', (await hit({ headers: signedHeaders('e30=', genuine), body: '[1,2]' })).status)
    note('body not JSON, unsigned', (await hit({ headers: signedHeaders('e30=', 'ab'), body: '{"orderId": 1,' })).status)
    note(
      'content type not JSON',
      (await hit({ headers: { ...signedHeaders('e30=', 'ab'), 'content-type': 'text/plain' }, body: '{}' })).status
    )
    note('oversized (declared)', (await hit({ headers: json, body: Buffer.alloc(1024 * 1024 + 10, 0x20) })).status)
    note(
      'oversized (chunked)',
      (await hit({ headers: { ...json, 'transfer-encoding': 'chunked' }, body: Buffer.alloc(1024 * 1024 + 10, 0x20) })).status
    )
    note('GET', (await hit({ method: 'GET' })).status)

    // Arbitrary junk: any headers, any body; never signed with the real secret.
    const header = fc.stringMatching(/^[\x21-\x7e]{0,300}$/)
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          payload: fc.option(
            fc.oneof(
              header,
              fc.jsonValue().map((v) => encodePayload(Date.now(), v as Record<string, unknown>))
            ),
            { nil: undefined }
          ),
          signature: fc.option(fc.oneof(header, fc.stringMatching(/^[0-9a-f]{128}$/)), { nil: undefined }),
          body: fc.oneof(
            fc.string({ maxLength: 2000 }),
            fc.jsonValue().map((v) => JSON.stringify(v)),
            fc.constantFrom(...known).map((id) => JSON.stringify(forgedBody(id)))
          ),
          contentType: fc.option(
            fc.constantFrom(
              'application/json',
              'application/json; charset=utf-8',
              'text/plain',
              'application/x-www-form-urlencoded',
              'application/problem+json'
            ),
            { nil: undefined }
          )
        }),
        async (a) => {
          const headers: Record<string, string> = {}
          if (a.contentType) headers['content-type'] = a.contentType
          if (a.payload !== undefined) headers['x-service-payload'] = a.payload
          if (a.signature !== undefined) headers['x-service-signature'] = a.signature
          const r = await hit({ headers, body: a.body })
          note('arbitrary junk', r.status)
          expect([400, 401, 415]).toContain(r.status)
        }
      ),
      { numRuns: 150 }
    )

    // Signed with another secret, with a body just under the size cap: stored as its first 2 KiB.
    {
      const body = { ...forgedBody(known[0]!), pad: 'x'.repeat(1024 * 1024 - 4096) }
      const payload = encodePayload(Date.now(), body)
      note(
        'signed with another secret, 1 MiB body',
        (await hit({ headers: signedHeaders(payload, signPayload(payload, WRONG_SECRET)), body: JSON.stringify(body) })).status
      )
    }
    // From a web page: a browser adds Origin (and Sec-Fetch-Site) to a cross-site POST. Refused
    // unread, even carrying an authentic payload (a page may post one it got hold of), and not stored.
    {
      const o = sb.control.order(known[1]!)!
      const payload = encodePayload(Date.now(), o.record)
      const headers = signedHeaders(payload, signPayload(payload, sb.apiSecret))
      for (const origin of ['https://evil.example', 'null', `http://${target.host}`])
        note('from a web page (Origin header)', (await hit({ headers: { ...headers, origin }, body: JSON.stringify(o.record) })).status)
      note('from a web page (Origin header)', (await hit({ headers: { ...headers, 'sec-fetch-site': 'cross-site' }, body: '{}' })).status)
    }
    // A flood from one address: past its burst, refused 429 unread. Sent until the cap bites
    // (how many fit depends on how fast this machine sends them), then a few more.
    {
      const flooder = '127.0.0.66'
      let after = -1
      for (let i = 0; i < 2000 && after < 10; i++) {
        const r = await raw(target, { from: flooder, headers: json, body: `{"flood":${i}}` })
        note('flood from one address', r.status)
        if (r.status === 429 || after >= 0) after++
      }
    }
    // One address holding connections open: past its cap, answered 503 at connect; the ones
    // held get 408 when their headers never end. Real deliveries (a dummy) go through meanwhile.
    const holding = Array.from({ length: 40 }, () => slowSender('headers', '127.0.0.77'))
    await new Promise((r) => setTimeout(r, 500))
    await services.handlers['webhooks:sendDummy']({ target: 'inbox' })
    for (const answer of await Promise.all(holding))
      note('connections held open by one address', Number(/^HTTP\/1\.1 (\d{3}) /.exec(answer)?.[1] ?? 0))

    await real
    await sb.control.deliveriesIdle()
    // Replays of real deliveries, byte for byte, inside the window: refused as replays, never applied twice.
    const delivered = sb.control.listDeliveries()
    for (const d of delivered) legitPayloads.add(d.headers['x-service-payload']!)
    const eventsBefore = services.session().store.database.sql.value<number>('SELECT COUNT(*) FROM order_events') ?? 0
    for (const d of delivered.filter((x) => x.kind === 'order')) {
      const r = await hit({ headers: d.headers, body: JSON.stringify(d.body) })
      note('replay of a real delivery', r.status)
      expect(JSON.parse(r.text).reason).toMatch(/^replay refused: this exact signed payload was already accepted/)
    }
    const eventsAfter = services.session().store.database.sql.value<number>('SELECT COUNT(*) FROM order_events') ?? 0
    expect(eventsAfter).toBe(eventsBefore)

    const slowAnswers = await Promise.all(slow)

    // The right status for each kind.
    const expected: Record<string, number[]> = {
      'signed with another secret': [401],
      'no signature header': [401],
      'no payload header': [401],
      'body differs from the signed payload': [400],
      'signed payload not decodable': [400],
      'body not JSON': [400],
      'body a JSON array': [400],
      'body not JSON, unsigned': [401],
      'content type not JSON': [415],
      'oversized (declared)': [413],
      'oversized (chunked)': [413],
      GET: [405],
      'replay of a real delivery': [403],
      'signed with another secret, 1 MiB body': [401],
      'from a web page (Origin header)': [403],
      'flood from one address': [401, 429],
      'connections held open by one address': [408, 503]
    }
    for (const [kind, statuses] of Object.entries(expected)) {
      const got = attacks.get(kind) ?? []
      expect(got.length, kind).toBeGreaterThan(0)
      expect(new Set(got), kind).toEqual(new Set(statuses))
    }
    for (const a of slowAnswers) expect(a).toMatch(/^HTTP\/1\.1 408 /)
    const count = (kind: string, status: number) => (attacks.get(kind) ?? []).filter((x) => x === status).length
    expect(count('connections held open by one address', 503)).toBe(8)
    // Refused unread: counted for the operator, never stored.
    const inbox = await services.handlers['webhooks:inbox']({})
    expect(inbox.refused).toEqual({
      rate: count('flood from one address', 429),
      connections: 8,
      origin: attacks.get('from a web page (Origin header)')!.length
    })

    // Every real delivery was acknowledged at its first attempt, within the sender's 5 s.
    expect(delivered.length).toBeGreaterThanOrEqual(completing.length + 2)
    for (const d of delivered) {
      expect(d.attempt, `delivery ${d.id}`).toBe(1)
      expect(d.ok, `delivery ${d.id}: ${d.error ?? ''}`).toBe(true)
    }

    // Nothing unverified was treated as verified.
    const rows = services
      .session()
      .store.database.sql.all<{ verified: number; payload_header: string | null; reason: string }>(
        'SELECT verified, payload_header, reason FROM webhook_deliveries'
      )
    const verified = rows.filter((r) => r.verified === 1)
    for (const r of verified) expect(legitPayloads.has(r.payload_header ?? ''), `verified row ${r.reason}`).toBe(true)
    // Nothing unverified is kept, or sent to the window, beyond its first 2 KiB.
    const bounded = services.session().store.database.sql.all<{ body: number; payload: number | null; truncated: number; bytes: number }>(
      `SELECT length(CAST(body AS BLOB)) AS body, length(payload_header) AS payload, body_truncated AS truncated, body_bytes AS bytes
           FROM webhook_deliveries WHERE verified = 0`
    )
    for (const r of bounded) {
      expect(r.body).toBeLessThanOrEqual(2048)
      expect(r.payload ?? 0).toBeLessThanOrEqual(2048)
    }
    expect(bounded.some((r) => r.truncated === 1 && r.bytes > 1_000_000)).toBe(true)
    const unverifiedEvents = deliveryEvents.filter((d) => !d.verified)
    expect(unverifiedEvents.length).toBeGreaterThan(150)
    for (const d of unverifiedEvents) {
      expect(Buffer.byteLength(d.body)).toBeLessThanOrEqual(2048)
      expect(d.payload.length).toBeLessThanOrEqual(2048)
    }
    expect(rows.some((r) => r.reason.includes('web page'))).toBe(false)
    expect(rows.length - verified.length).toBeGreaterThan(150)
    const webhookEvents = services
      .session()
      .store.database.sql.all<{ order_id: number }>("SELECT order_id FROM order_events WHERE source = 'webhook'")
    const deliveredIds = new Set(delivered.map((d) => d.orderId))
    for (const e of webhookEvents) expect(deliveredIds.has(e.order_id), `webhook event for ${e.order_id}`).toBe(true)

    // And after a sync, the database is the ground truth: the forgeries changed nothing.
    await services.handlers['sync:now']({})
    await until(
      async () => (await services.handlers['sync:state']({})).states.every((s) => !s.running && s.lastError === null),
      'a clean sync'
    )
    const diff = diffAgainstTruth(services.session().store, sb.control.groundTruth(), SCOPES, unseen)
    const total = [...attacks.values()].reduce((n, l) => n + l.length, 0) + slowAnswers.length
    recordScenario({
      scenario: 'bad input over HTTP: webhook inbox',
      injected: [
        `${total} bad deliveries: ${[...attacks]
          .filter(([k]) => k !== 'replay of a real delivery')
          .map(([k, l]) => `${k} x${l.length}`)
          .join(', ')}, slow senders x${slowAnswers.length}`,
        `${attacks.get('replay of a real delivery')?.length ?? 0} byte-for-byte replays of real deliveries`,
        `${delivered.length} real deliveries from the sandbox meanwhile (orders completing, two dummies, a resend)`
      ],
      checked: [
        'status per kind: 401 bad or missing signature, 400 malformed, 415 not JSON, 413 oversized, 405 GET, 408 slow senders, 403 for byte-for-byte replays; a swapped JSON body under an authentic payload is answered 200 and the signed payload applied',
        "abuse: 403 unread for an Origin or Sec-Fetch-Site header (even over an authentic payload), 429 unread past one address's burst, 503 at connect past one address's 32 open connections; none of these stored, all counted in the inbox status",
        'unverified deliveries (a 1 MiB body among them) stored and sent to the window as at most their first 2 KiB, with length and SHA-256',
        'every real delivery acknowledged at its first attempt (the sender gives 5 s)',
        `no verified row but authentic ones (${verified.length} verified of ${rows.length} stored), no order change from a forged delivery, replays never applied`,
        `database = ground truth after a sync: ${diff.orders} orders, ${diff.transitions} transitions`
      ],
      lost: lossesOf(diff)
    })
    expect(lossesOf(diff)).toEqual([])
  }, 90_000)
})

describe('bad input over HTTP: the browser harness', () => {
  const url = () => new URL(harness.url)
  const ownOrigin = () => harness.url.replace(/\/$/, '')
  const rpc = (headers: Record<string, string>, channel = 'app:info') =>
    raw(url(), { path: `/rpc/${channel}`, headers: { 'content-type': 'application/json', ...headers }, body: '{}' })

  it('refuses requests without its token, with a foreign Origin or a foreign Host', async () => {
    const before = harnessReached.length
    const statuses: Record<string, number[]> = {}
    const add = (k: string, s: number) => (statuses[k] ??= []).push(s)

    // The cookie from the token exchange works (the control case).
    const set = await new Promise<string>((resolve, reject) => {
      const req = httpRequest(harness.openUrl, { method: 'GET', lookup: localhostLookup }, (res) => {
        res.resume()
        resolve(String(res.headers['set-cookie']))
      })
      req.on('error', reject)
      req.end()
    })
    cookie = /rampdesk_session=[^;]+/.exec(set)![0]
    expect((await rpc({ cookie, origin: ownOrigin() })).status).toBe(200)
    expect(harnessReached.length).toBe(before + 1)

    // No token, a wrong token, in every place a token could go.
    add('no token', (await rpc({ origin: ownOrigin() })).status)
    add('no token', (await raw(url(), { method: 'GET', path: '/' })).status)
    add('no token', (await raw(url(), { method: 'GET', path: '/events' })).status)
    add('no token', (await raw(url(), { method: 'GET', path: '/index.html' })).status)
    await fc.assert(
      fc.asyncProperty(
        fc.stringMatching(/^[A-Za-z0-9_-]{1,64}$/).filter((t) => t !== harness.token),
        async (t) => {
          add('wrong token', (await rpc({ cookie: `rampdesk_session=${t}` })).status)
          add('wrong token', (await rpc({ cookie: `rampdesk_session=${harness.token}` })).status)
          add('wrong token', (await raw(url(), { method: 'GET', path: `/?token=${t}` })).status)
          add('wrong token', (await raw(url(), { method: 'GET', path: `/rpc/app:info?token=${harness.token}` })).status)
        }
      ),
      { numRuns: 30 }
    )
    // A foreign Origin, with the right cookie.
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.webUrl().map((u) => new URL(u).origin),
          fc.constantFrom(
            'null',
            'http://127.0.0.1',
            'https://127.0.0.1:' + url().port,
            `http://127.0.0.1:${Number(url().port) + 1}`,
            'file://',
            `http://localhost:${url().port}`,
            `http://127.0.0.1:${url().port}`
          )
        ),
        async (origin) => {
          fc.pre(origin !== ownOrigin())
          add('foreign origin', (await rpc({ cookie, origin })).status)
        }
      ),
      { numRuns: 40 }
    )
    // A foreign Host (DNS rebinding), with the right cookie.
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.domain().map((d) => `${d}:${url().port}`),
          fc.domain(),
          fc.constantFrom(
            `127.0.0.1:${Number(url().port) + 1}`,
            '127.0.0.1',
            `127.0.0.1:${url().port}`,
            `localhost:${url().port}`,
            `0.0.0.0:${url().port}`,
            `[::1]:${url().port}`,
            url().hostname,
            `x${url().host}`,
            ''
          )
        ),
        async (host) => {
          add('foreign host', (await rpc({ cookie, origin: ownOrigin(), host })).status)
          add('foreign host', (await raw(url(), { method: 'GET', path: '/', headers: { cookie, host } })).status)
        }
      ),
      { numRuns: 40 }
    )

    expect(new Set(statuses['no token'])).toEqual(new Set([401]))
    expect(new Set(statuses['wrong token'])).toEqual(new Set([401]))
    expect(new Set(statuses['foreign origin'])).toEqual(new Set([403]))
    // An empty Host may be refused by Node's parser (400) before the harness sees it.
    for (const s of statuses['foreign host']!) expect([400, 403]).toContain(s)
    // None of them reached a handler.
    expect(harnessReached.length).toBe(before + 1)
    recordScenario({
      scenario: 'bad input over HTTP: browser harness',
      injected: Object.entries(statuses).map(([k, l]) => `${k} x${l.length}`),
      checked: [
        '401 without the token or with a wrong one (cookie, query, /rpc, /events, static files), and for the token itself sent as the session cookie',
        '403 for a foreign Origin or Host (fast-check origins and domains; 127.0.0.1 and localhost on its own port count as foreign: only its per-launch <random>.localhost name passes)',
        'no handler reached by any of them; the right cookie and Origin get 200'
      ],
      lost: []
    })
  })
})
