// The webhook inbox over real loopback HTTP with a real profile database: what it
// accepts, what it refuses with which status, what it stores, and that nothing
// unverified is ever handed on.
import { createHash } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { request as httpRequest } from 'node:http'
import { connect } from 'node:net'
import { Readable } from 'node:stream'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { request } from 'undici'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { encodePayload, signPayload } from '../../../../src/shared/api/signature'
import type { WebhookDelivery } from '../../../../src/shared/ipc/contract'
import { openLocalStore, type LocalStore } from '../../../../src/main/store/local-store'
import {
  bindWarning,
  MAX_BODY_BYTES,
  startInbox,
  toContractDelivery,
  UNVERIFIED_HEAD_BYTES,
  type RunningInbox,
  type WebhookRecord
} from '../../../../src/main/webhooks/inbox'
import { hmacHex, LOGGED_FORM, SENDER_FORMS, signedWebhook, type SenderForm } from '../../../support/webhook-senders'

const SECRET = 'inbox-test-secret-123'
/** The service's clock as the inbox sees it (payload timestamps are checked against it). */
const NOW = 1_700_000_000_000

const onrampRecord = (over: Record<string, unknown> = {}) => ({
  orderId: 4242,
  walletAddress: '0x1111111111111111111111111111111111111111',
  coinId: 54,
  fiatType: 1,
  expectedPrice: 85.1,
  fiatAmount: 1000,
  expectedCryptoAmount: 11.2,
  actualPrice: 85.2,
  actualCryptoAmount: 11.18,
  kycNeeded: 0,
  createdAt: '2025-01-02T03:04:05.000Z',
  updatedAt: '2025-01-02T03:14:05.000Z',
  status: 5,
  referenceId: 'ref-1',
  chainId: 1,
  onRampFee: 2.5,
  gasFee: 0.1,
  clientFee: 0,
  gatewayFee: 5,
  transactionHash: '0xabc',
  merchantRecognitionId: 'm-1',
  ...over
})

const offrampRecord = (over: Record<string, unknown> = {}) => ({
  orderId: 77,
  coinId: 54,
  chainId: 1,
  walletAddress: '0x2222222222222222222222222222222222222222',
  expectedPrice: 84,
  expectedQuantity: 10,
  actualPrice: 84,
  actualQuantity: 10,
  actualFiatAmount: 830,
  onrampFee: 1,
  clientFee: 0,
  gatewayFee: 5,
  tdsFee: 8.4,
  merchantRecognitionId: 'm-2',
  paymentType: 2,
  fiatType: 1,
  createdAt: '2025-01-02T03:04:05.000Z',
  updatedAt: '2025-01-02T04:04:05.000Z',
  status: 7,
  transactionHash: '0xdef',
  eventType: 'offramp',
  coinCode: 'usdt',
  network: 'bep20',
  statusDescription: 'webhook sent',
  ...over
})

function signed(body: unknown, secret = SECRET, timestamp = NOW) {
  const payload = encodePayload(timestamp, body)
  return { payload, signature: signPayload(payload, secret) }
}

let dir: string
let store: LocalStore
let inbox: RunningInbox
let passed: WebhookRecord[]
let events: WebhookDelivery[]
let secret: string | null
let serviceClock: number

async function post(body: string, headers: Record<string, string>) {
  const res = await request(inbox.url, { method: 'POST', body, headers })
  const text = await res.body.text()
  return { status: res.statusCode, json: JSON.parse(text) as { ok: boolean; reason: string } }
}

function sendSigned(record: unknown, opts: { secret?: string; bodyOverride?: string; timestamp?: number } = {}) {
  const s = signed(record, opts.secret ?? SECRET, opts.timestamp)
  return post(opts.bodyOverride ?? JSON.stringify(record), {
    'content-type': 'application/json',
    'x-service-payload': s.payload,
    'x-service-signature': s.signature
  })
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'rampdesk-inbox-'))
})

afterAll(() => {
  rmSync(dir, { recursive: true, force: true })
})

beforeEach(async () => {
  store = openLocalStore(join(dir, String(Math.random()).slice(2)))
  passed = []
  events = []
  secret = SECRET
  serviceClock = NOW + 1_000
  inbox = await startInbox({
    serviceNow: () => serviceClock,
    getSecret: async () => secret,
    deliveries: store.webhookDeliveries,
    onVerified: (w) => {
      passed.push(w)
    },
    onDelivery: (d) => events.push(d)
  })
})

afterEach(async () => {
  await inbox.close()
  store.close()
})

describe('startInbox', () => {
  it('binds 127.0.0.1 on a random port by default, without a warning', () => {
    expect(inbox.host).toBe('127.0.0.1')
    expect(inbox.port).toBeGreaterThan(0)
    expect(inbox.url).toBe(`http://127.0.0.1:${inbox.port}/webhook`)
    expect(inbox.warning).toBeNull()
  })

  it('warns when asked to bind beyond loopback', () => {
    expect(bindWarning('0.0.0.0')).toMatch(/beyond this computer/)
    expect(bindWarning('192.168.1.4')).not.toBeNull()
    expect(bindWarning('::1')).toBeNull()
    expect(bindWarning('localhost')).toBeNull()
  })

  it('accepts a signed onramp webhook, stores it verified and hands the parsed record on', async () => {
    const r = await sendSigned(onrampRecord())
    expect(r.status).toBe(200)
    expect(passed).toHaveLength(1)
    expect(passed[0]).toMatchObject({ type: 1, record: { orderId: 4242, onrampFee: '2.5' } })
    expect(passed[0]).not.toHaveProperty('statusOnly')
    expect(events).toHaveLength(1)
    expect(events[0]).toMatchObject({ verified: true, orderId: 4242, orderType: 1, status: 5, duplicate: false, reason: 'verified' })
    const { rows } = store.webhookDeliveries.list()
    expect(rows).toHaveLength(1)
    expect(rows[0]).toMatchObject({ verified: true, orderId: 4242, orderType: 1, orderStatus: 5 })
    // The secret is never stored anywhere in the row.
    expect(JSON.stringify(rows[0])).not.toContain(SECRET)
  })

  it('recognises an offramp webhook by eventType', async () => {
    const r = await sendSigned(offrampRecord())
    expect(r.status).toBe(200)
    expect(passed.map((p) => [p.type, p.record.orderId, p.record.status])).toEqual([[2, 77, 7]])
  })

  it('refuses a byte-identical repeat of an accepted delivery as a replay (403), logs it and hands it on once', async () => {
    const rec = onrampRecord()
    const s = signed(rec)
    const headers = { 'content-type': 'application/json', 'x-service-payload': s.payload, 'x-service-signature': s.signature }
    expect((await post(JSON.stringify(rec), headers)).status).toBe(200)
    const again = await post(JSON.stringify(rec), headers)
    expect(again.status).toBe(403)
    expect(again.json.reason).toMatch(/^replay refused: this exact signed payload was already accepted/)
    const third = await post(JSON.stringify(rec), headers)
    expect(third.status).toBe(403)
    expect(passed).toHaveLength(1)
    expect(events.map((e) => [e.verified, e.replay])).toEqual([
      [true, false],
      [false, true],
      [false, true]
    ])
    // Repeats of one replay share a row, counted.
    const { rows } = store.webhookDeliveries.list()
    expect(rows.map((r) => [r.verified, r.replay, r.timesReceived])).toEqual([
      [false, true, 2],
      [true, false, 1]
    ])
    expect(toContractDelivery(rows[0]!)).toMatchObject({ replay: true, duplicate: true, orderId: 4242 })
  })

  it('recognises a retry signed afresh with a new attempt count as a duplicate', async () => {
    expect((await sendSigned(onrampRecord({ webhookTrials: 1 }), { timestamp: 1_700_000_000_000 })).status).toBe(200)
    const again = await sendSigned(onrampRecord({ webhookTrials: 2 }), { timestamp: 1_700_000_002_000 })
    expect(again.status).toBe(200)
    expect(passed).toHaveLength(1)
    expect(store.webhookDeliveries.list().rows[0]!.timesReceived).toBe(2)
    // A real change of the order is not a duplicate.
    expect((await sendSigned(onrampRecord({ status: 16, updatedAt: '2025-01-02T03:20:00.000Z' }))).status).toBe(200)
    expect(passed).toHaveLength(2)
  })

  it('refuses a wrong signature with 401, stores it unverified and never hands it on', async () => {
    const r = await sendSigned(onrampRecord(), { secret: 'someone-elses-secret' })
    expect(r.status).toBe(401)
    expect(passed).toHaveLength(0)
    expect(events[0]).toMatchObject({ verified: false, orderId: 4242 })
    expect(events[0]!.reason).toMatch(/signature/)
    const { rows } = store.webhookDeliveries.list()
    expect(rows[0]!.verified).toBe(false)
  })

  it('refuses a genuine signature over a different JSON body (400): stored unverified, nothing handed on', async () => {
    const rec = onrampRecord()
    const r = await sendSigned(rec, { bodyOverride: JSON.stringify({ ...rec, status: -1 }) })
    expect(r.status).toBe(400)
    expect(r.json.reason).toBe(
      'signature genuine, but the JSON body differs from the order record the signature covers at status (the body has -1, the signed record 5; a body the signature does not vouch for): not applied'
    )
    expect(passed).toHaveLength(0)
    expect(events[0]).toMatchObject({ verified: false, payloadForm: 'timestamp+body (compact)' })
    expect(store.webhookDeliveries.list().rows[0]).toMatchObject({ verified: false, orderStatus: -1 })
  })

  it('a forged JSON body does not use up the payload it rides on: the genuine body still verifies once', async () => {
    const rec = onrampRecord()
    const s = signed(rec)
    const headers = { 'content-type': 'application/json', 'x-service-payload': s.payload, 'x-service-signature': s.signature }
    expect((await post(JSON.stringify({ ...rec, status: -1 }), headers)).status).toBe(400)
    expect((await post(JSON.stringify(rec), headers)).status).toBe(200)
    // Inside the window the same payload again is an exact repeat, whatever body rides on it.
    expect((await post(JSON.stringify(rec), headers)).status).toBe(403)
    expect((await post(JSON.stringify({ ...rec, status: -1 }), headers)).status).toBe(400)
    expect(passed.map((p) => p.record.status)).toEqual([5])
  })

  it('refuses a body that names a member twice, even when its last value equals the signed one', async () => {
    const rec = onrampRecord()
    const r = await sendSigned(rec, { bodyOverride: JSON.stringify(rec).replace(/^\{/, '{"status":-1,') })
    expect(r.status).toBe(400)
    expect(r.json.reason).toMatch(/names a member twice/)
    expect(passed).toHaveLength(0)
  })

  it('a body equal to the signed record by value verifies, whatever its member order or spacing', async () => {
    const rec = onrampRecord()
    const reordered = Object.fromEntries(Object.entries(rec).reverse())
    const r = await sendSigned(rec, { bodyOverride: JSON.stringify(reordered, null, 2) })
    expect(r.status).toBe(200)
    expect(passed.map((p) => p.record.orderId)).toEqual([4242])
  })

  it('refuses missing headers with 401', async () => {
    const rec = onrampRecord()
    const s = signed(rec)
    expect((await post(JSON.stringify(rec), { 'content-type': 'application/json' })).status).toBe(401)
    expect((await post(JSON.stringify(rec), { 'content-type': 'application/json', 'x-service-payload': s.payload })).status).toBe(401)
    expect((await post(JSON.stringify(rec), { 'content-type': 'application/json', 'x-service-signature': s.signature })).status).toBe(401)
    expect(passed).toHaveLength(0)
    // Every one is stored; the two identical refusals (no payload header, same body) share a row.
    const { rows } = store.webhookDeliveries.list()
    expect(rows.reduce((n, r) => n + r.timesReceived, 0)).toBe(3)
    expect(rows.every((r) => !r.verified)).toBe(true)
  })

  it('refuses malformed JSON (400) and a non-JSON content type (415)', async () => {
    const s = signed({})
    const h = { 'x-service-payload': s.payload, 'x-service-signature': s.signature }
    expect((await post('{"orderId": 1,', { ...h, 'content-type': 'application/json' })).status).toBe(400)
    expect((await post('orderId=1', { ...h, 'content-type': 'application/x-www-form-urlencoded' })).status).toBe(415)
    expect((await post('[1,2]', { ...h, 'content-type': 'application/json' })).status).toBe(400)
    expect(passed).toHaveLength(0)
    expect(store.webhookDeliveries.list().rows.every((r) => !r.verified)).toBe(true)
  })

  it('refuses a body over 1 MiB with 413 without reading it, and stores the refusal', async () => {
    const big = JSON.stringify({ ...onrampRecord(), pad: 'x'.repeat(1024 * 1024) })
    const s = signed(JSON.parse(big))
    const r = await request(inbox.url, {
      method: 'POST',
      body: big,
      headers: { 'content-type': 'application/json', 'x-service-payload': s.payload, 'x-service-signature': s.signature }
    }).then(
      async (res) => ({ status: res.statusCode, text: await res.body.text() }),
      (e: unknown) => ({ status: -1, text: String(e) })
    )
    expect(r.status).toBe(413)
    expect(passed).toHaveLength(0)
    const row = store.webhookDeliveries.list().rows[0]!
    expect(row.verified).toBe(false)
    expect(row.reason).toMatch(/larger than/)
  })

  it('refuses a chunked body that grows past 1 MiB with 413', async () => {
    const chunks = async function* () {
      for (let i = 0; i < 20; i++) yield Buffer.alloc(128 * 1024, 0x20)
    }
    const r = await request(inbox.url, {
      method: 'POST',
      body: Readable.from(chunks()),
      headers: { 'content-type': 'application/json' }
    }).then(
      async (res) => ({ status: res.statusCode, text: await res.body.text() }),
      (e: unknown) => ({ status: -1, text: String(e) })
    )
    expect(r.status).toBe(413)
  })

  it('answers GET with 405 and stores nothing', async () => {
    const res = await request(inbox.url, { method: 'GET' })
    await res.body.text()
    expect(res.statusCode).toBe(405)
    expect(res.headers.allow).toBe('POST')
    expect(store.webhookDeliveries.list().total).toBe(0)
  })

  it('answers 503 and hands nothing on when no secret is stored', async () => {
    secret = null
    const r = await sendSigned(onrampRecord())
    expect(r.status).toBe(503)
    expect(passed).toHaveLength(0)
    expect(store.webhookDeliveries.list().rows[0]!.verified).toBe(false)
  })

  it('refuses a genuine signature over a payload that is no order record (400): stored unverified, not handed on', async () => {
    const r = await sendSigned({ hello: 'world' })
    expect(r.status).toBe(400)
    expect(passed).toHaveLength(0)
    expect(events[0]!.verified).toBe(false)
    expect(events[0]!.reason).toMatch(/^signature genuine, but the signed payload is not an order record/)
  })

  it('answers 408 to a sender that stalls mid-body, well within 5 s', async () => {
    const slow = await startInbox({ getSecret: () => SECRET, deliveries: store.webhookDeliveries, receiveTimeoutMs: 300 })
    try {
      const answer = await new Promise<string>((resolve, reject) => {
        const sock = connect(slow.port, '127.0.0.1', () => {
          sock.write('POST /webhook HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"orderId":')
        })
        let got = ''
        sock.on('data', (d) => (got += d.toString()))
        sock.on('close', () => resolve(got))
        sock.on('error', reject)
      })
      expect(answer).toMatch(/^HTTP\/1\.1 408/)
      expect(store.webhookDeliveries.list().rows[0]!.reason).toMatch(/not received within/)
    } finally {
      await slow.close()
    }
  })
})

describe('tolerant like the service', () => {
  const NOW = 1_700_000_000_000

  it.each(SENDER_FORMS)('verifies a %s payload, logs its form and applies the order', async (form) => {
    const rec = onrampRecord({ walletAddress: 'https://wallet.example/0x11', merchantRecognitionId: 'café/1' })
    const w = signedWebhook(rec, { secret: SECRET, timestamp: NOW, form })
    const r = await post(w.body, w.headers)
    expect(r.status).toBe(200)
    expect(passed.map((p) => p.record.orderId)).toEqual([4242])
    expect(events[0]).toMatchObject({ verified: true, reason: 'verified', payloadForm: LOGGED_FORM[form] })
    expect(store.webhookDeliveries.list().rows[0]!.payloadForm).toBe(LOGGED_FORM[form])
  })

  it('reads the header names from the profile’s service name, never a fixed word', async () => {
    const recon = await startInbox({
      serviceName: 'recon',
      serviceNow: () => serviceClock,
      getSecret: () => SECRET,
      deliveries: store.webhookDeliveries,
      onVerified: (w) => passed.push(w)
    })
    try {
      const w = signedWebhook(onrampRecord(), { secret: SECRET, timestamp: NOW, serviceName: 'recon' })
      expect(Object.keys(w.headers)).toContain('x-recon-payload')
      const res = await request(recon.url, { method: 'POST', body: w.body, headers: w.headers })
      await res.body.text()
      expect(res.statusCode).toBe(200)
      // The neutral word is just another header to a white-label inbox.
      const other = signedWebhook(onrampRecord({ orderId: 1 }), { secret: SECRET, timestamp: NOW })
      const res2 = await request(recon.url, { method: 'POST', body: other.body, headers: other.headers })
      await res2.body.text()
      expect(res2.statusCode).toBe(401)
      expect(passed.map((p) => p.record.orderId)).toEqual([4242])
    } finally {
      await recon.close()
    }
  })

  it('parses an offramp body with eventType, coinCode, network and statusDescription as an offramp order', async () => {
    const w = signedWebhook(offrampRecord(), { secret: SECRET, timestamp: NOW, form: 'spaced' })
    expect((await post(w.body, w.headers)).status).toBe(200)
    expect(passed).toHaveLength(1)
    const p = passed[0]!
    expect(p.type).toBe(2)
    expect(p.record).toMatchObject({
      orderId: 77,
      status: 7,
      eventType: 'offramp',
      coinCode: 'usdt',
      network: 'bep20',
      statusDescription: 'webhook sent'
    })
    expect(events[0]).toMatchObject({ orderType: 2, status: 7 })
  })

  it('reads eventType in any case, and an offramp body without one by its fields, with a note', async () => {
    const upper = signedWebhook(offrampRecord({ orderId: 78, eventType: 'OffRamp' }), { secret: SECRET, timestamp: NOW })
    expect((await post(upper.body, upper.headers)).status).toBe(200)
    const { eventType: _drop, ...noEvent } = offrampRecord({ orderId: 79 })
    const bare = signedWebhook(noEvent, { secret: SECRET, timestamp: NOW + 1 })
    expect((await post(bare.body, bare.headers)).status).toBe(200)
    expect(passed.map((p) => [p.type, p.record.orderId])).toEqual([
      [2, 78],
      [2, 79]
    ])
    expect(events.map((e) => e.orderType)).toEqual([2, 2])
    expect(events[0]!.notes).toEqual([])
    expect(events[1]!.notes).toEqual(['no eventType: read as an offramp order by its fields'])

    // A body that says onramp is held to the onramp record: never read as an offramp one.
    const says = signedWebhook(offrampRecord({ orderId: 80, eventType: 'onramp' }), { secret: SECRET, timestamp: NOW + 2 })
    expect((await post(says.body, says.headers)).status).toBe(200)
    expect(passed[2]).toMatchObject({ type: 1, record: { orderId: 80, status: 7 }, statusOnly: true })
  })

  it('applies the status alone of a body that is no whole record (no updatedAt), with a note', async () => {
    const { updatedAt: _on, ...onramp } = onrampRecord({ orderId: 91, status: 15 })
    const { updatedAt: _off, ...offramp } = offrampRecord({ orderId: 92, status: '19' })
    for (const [i, body] of [onramp, offramp].entries()) {
      const w = signedWebhook(body, { secret: SECRET, timestamp: NOW + i })
      expect((await post(w.body, w.headers)).status).toBe(200)
    }
    // With what each body says of which order it is, for the monitor to compare with the order held.
    const identity = { createdAt: '2025-01-02T03:04:05.000Z', coinId: 54, chainId: 1, fiatType: 1 }
    expect(passed).toEqual([
      {
        type: 1,
        record: { orderId: 91, status: 15 },
        statusOnly: true,
        identity: { ...identity, walletAddress: '0x1111111111111111111111111111111111111111', merchantRecognitionId: 'm-1' }
      },
      {
        type: 2,
        record: { orderId: 92, status: 19 },
        statusOnly: true,
        identity: { ...identity, walletAddress: '0x2222222222222222222222222222222222222222', merchantRecognitionId: 'm-2' }
      }
    ])
    expect(events.map((e) => [e.orderType, e.orderId, e.status, e.verified, e.reason])).toEqual([
      [1, 91, 15, true, 'verified'],
      [2, 92, 19, true, 'verified']
    ])
    expect(events[0]!.notes).toEqual([expect.stringMatching(/^not a whole order record \(updatedAt: .*\): its status alone is applied$/)])
    // Without an order id or a status there is nothing to apply.
    const w = signedWebhook({ orderId: 93, note: 'hello' }, { secret: SECRET, timestamp: NOW + 5 })
    expect((await post(w.body, w.headers)).json.reason).toMatch(/^signature genuine, but the signed payload is not an order record/)
    expect(passed).toHaveLength(2)
  })

  it('refuses a genuine signature over a payload that is not base64 JSON: the JSON body it does not cover is not applied', async () => {
    const payload = 'v1.opaque-token.' + 'a'.repeat(20)
    const w = signedWebhook(onrampRecord(), { secret: SECRET, timestamp: NOW, payload })
    const r = await post(w.body, w.headers)
    expect(r.status).toBe(400)
    expect(r.json.reason).toMatch(/the signed payload is not base64 JSON, so it carries no order record/)
    expect(passed).toHaveLength(0)
    expect(events[0]).toMatchObject({ verified: false, payloadForm: 'not base64 JSON' })
  })

  it('never takes the order from the JSON body when the signed payload decodes to something else (a captured API request)', async () => {
    // What the merchant's own client signs for a history request, with the same secret.
    const requestPayload = Buffer.from(JSON.stringify({ timestamp: NOW, body: { type: 1, fiatType: '1', page: 1 } })).toString('base64')
    const r = await post(JSON.stringify(onrampRecord({ status: -1 })), {
      'content-type': 'application/json',
      'x-service-payload': requestPayload,
      'x-service-signature': hmacHex(requestPayload, SECRET)
    })
    expect(r.status).toBe(400)
    expect(passed).toHaveLength(0)
    expect(events[0]).toMatchObject({ verified: false, payloadForm: 'timestamp+body (compact)' })
    expect(events[0]!.reason).toMatch(/signed payload is not an order record.*: not applied$/)
  })

  it('a retry signed afresh in another form is still the same delivery, applied once', async () => {
    const a = signedWebhook(onrampRecord({ webhookTrials: 1 }), { secret: SECRET, timestamp: NOW, form: 'compact' })
    const b = signedWebhook(onrampRecord({ webhookTrials: 2 }), { secret: SECRET, timestamp: NOW + 2_000, form: 'spaced' })
    expect((await post(a.body, a.headers)).status).toBe(200)
    const again = await post(b.body, b.headers)
    expect([again.status, again.json.reason]).toEqual([200, 'verified (duplicate: already received)'])
    expect(passed).toHaveLength(1)
  })
})

describe('replay window', () => {
  const MIN = 60_000
  const send = (rec: Record<string, unknown>, timestamp: number, form: SenderForm = 'compact') => {
    const w = signedWebhook(rec, { secret: SECRET, timestamp, form })
    return post(w.body, w.headers)
  }

  it('refuses a payload signed more than 5 min before the service clock (401), logged as a replay', async () => {
    serviceClock = NOW + 5 * MIN + 1_000
    const r = await send(onrampRecord(), NOW)
    expect(r.status).toBe(401)
    expect(r.json.reason).toMatch(/^replay refused: the signed payload is 5\.0 min old, beyond the 5\.0 min window/)
    expect(passed).toHaveLength(0)
    expect(events[0]).toMatchObject({ verified: false, replay: true, payloadForm: 'timestamp+body (compact)', orderId: 4242 })
    expect(store.webhookDeliveries.list().rows[0]).toMatchObject({ verified: false, replay: true })
  })

  it('refuses a payload dated more than 5 min ahead of the service clock (401)', async () => {
    serviceClock = NOW - 6 * MIN
    const r = await send(onrampRecord(), NOW)
    expect(r.status).toBe(401)
    expect(r.json.reason).toMatch(/ahead of the service's clock/)
    expect(passed).toHaveLength(0)
  })

  it('accepts payloads inside the window either way, judged by the service clock, not the local one', async () => {
    // The local clock is years away from NOW; the service's (skew-corrected) clock is what counts.
    serviceClock = NOW
    expect((await send(onrampRecord({ orderId: 1 }), NOW - 4 * MIN)).status).toBe(200)
    expect((await send(onrampRecord({ orderId: 2 }), NOW + 4 * MIN)).status).toBe(200)
    expect(Math.abs(Date.now() - NOW)).toBeGreaterThan(24 * 3_600_000)
    expect(passed.map((p) => p.record.orderId)).toEqual([1, 2])
  })

  it('answers a legitimate retry (signed afresh, webhookTrials + 1) 200 as a duplicate and applies it once', async () => {
    expect((await send(onrampRecord({ webhookTrials: 1 }), NOW)).status).toBe(200)
    serviceClock = NOW + 30_000
    const retry = await send(onrampRecord({ webhookTrials: 2 }), NOW + 30_000)
    expect([retry.status, retry.json.reason]).toEqual([200, 'verified (duplicate: already received)'])
    expect(passed).toHaveLength(1)
    expect(events.map((e) => [e.verified, e.duplicate, e.replay])).toEqual([
      [true, false, false],
      [true, true, false]
    ])
  })

  it('lets exactly one of identical payloads arriving together through', async () => {
    const w = signedWebhook(onrampRecord(), { secret: SECRET, timestamp: NOW })
    const answers = await Promise.all([post(w.body, w.headers), post(w.body, w.headers), post(w.body, w.headers)])
    expect(answers.map((a) => a.status).sort()).toEqual([200, 403, 403])
    expect(passed).toHaveLength(1)
  })

  it('a signature in capitals is the same payload: no way around the repeat check', async () => {
    const w = signedWebhook(onrampRecord(), { secret: SECRET, timestamp: NOW })
    expect((await post(w.body, w.headers)).status).toBe(200)
    const upper = { ...w.headers, 'x-service-signature': w.headers['x-service-signature']!.toUpperCase() }
    expect((await post(w.body, upper)).status).toBe(403)
  })

  it('accepts a body-only payload (no timestamp) with a note, and answers its repeat as a duplicate', async () => {
    serviceClock = NOW + 365 * 24 * 60 * MIN
    const w = signedWebhook(onrampRecord(), { secret: SECRET, timestamp: 0, form: 'bodyOnly' })
    expect((await post(w.body, w.headers)).status).toBe(200)
    const again = await post(w.body, w.headers)
    expect([again.status, again.json.reason]).toEqual([200, 'verified (duplicate: already received)'])
    expect(passed).toHaveLength(1)
    expect(events[0]).toMatchObject({
      verified: true,
      replay: false,
      payloadForm: 'body only',
      notes: ['no timestamp: replay window not applied']
    })
  })
})

describe('under abuse', () => {
  /** One request from a chosen loopback address, on its own connection; resolves with the answer. */
  function postFrom(localAddress: string, target: RunningInbox, body: string, headers: Record<string, string>) {
    return new Promise<{ status: number; headers: Record<string, unknown>; text: string }>((resolve, reject) => {
      const req = httpRequest(
        { host: '127.0.0.1', port: target.port, path: '/webhook', method: 'POST', headers, localAddress, agent: false },
        (res) => {
          let text = ''
          res.on('data', (c: Buffer) => (text += c.toString()))
          res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }))
        }
      )
      req.on('error', reject)
      req.end(body)
    })
  }
  /** A raw connection from a chosen address that sends `data` and collects whatever comes back until it closes. */
  function rawFrom(localAddress: string, target: RunningInbox, data: string) {
    const sock = connect({ host: '127.0.0.1', port: target.port, localAddress })
    let got = ''
    sock.on('data', (d) => (got += d.toString()))
    sock.on('error', () => undefined)
    const closed = new Promise<string>((resolve) => sock.on('close', () => resolve(got)))
    sock.on('connect', () => sock.write(data))
    return { sock, closed, answer: () => got }
  }
  const w = () => signedWebhook(onrampRecord(), { secret: SECRET, timestamp: NOW })

  it('refuses a request with an Origin header (403) before its body is read, and stores nothing', async () => {
    const c = rawFrom(
      '127.0.0.1',
      inbox,
      'POST /webhook HTTP/1.1\r\nHost: x\r\nOrigin: https://evil.example\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"orderId":'
    )
    // Answered although 99,989 bytes of the body never come.
    const answer = await c.closed
    expect(answer).toMatch(/^HTTP\/1\.1 403 /)
    expect(answer).toMatch(/connection: close/i)
    expect(answer).toMatch(/web page/)
    const fetchMeta = await post(w().body, { ...w().headers, 'sec-fetch-site': 'cross-site' }).catch(() => ({ status: -1 }))
    expect(fetchMeta.status).toBe(403)
    expect(store.webhookDeliveries.list().total).toBe(0)
    expect(events).toHaveLength(0)
    expect(inbox.refusals()).toEqual({ rate: 0, connections: 0, origin: 2 })
  })

  it('caps a flood from one source (429, connection: close) while another source is still served', async () => {
    const capped = await startInbox({
      serviceNow: () => serviceClock,
      getSecret: () => SECRET,
      deliveries: store.webhookDeliveries,
      onVerified: (x) => passed.push(x),
      limits: { burst: 5, perSecond: 0.001 }
    })
    try {
      const flood: number[] = []
      for (let i = 0; i < 12; i++)
        flood.push((await postFrom('127.0.0.2', capped, `{"junk":${i}}`, { 'content-type': 'application/json' })).status)
      expect(flood.slice(0, 5)).toEqual([401, 401, 401, 401, 401])
      expect(new Set(flood.slice(5))).toEqual(new Set([429]))
      const refusedOne = await postFrom('127.0.0.2', capped, '{}', { 'content-type': 'application/json' })
      expect(refusedOne.headers.connection).toBe('close')
      expect(Number(refusedOne.headers['retry-after'])).toBeGreaterThan(0)
      // Only what got past the cap was stored.
      expect(store.webhookDeliveries.list().rows.reduce((n, r) => n + r.timesReceived, 0)).toBe(5)

      const real = w()
      expect((await postFrom('127.0.0.3', capped, real.body, real.headers)).status).toBe(200)
      expect(passed).toHaveLength(1)
      expect(capped.refusals().rate).toBe(8)
    } finally {
      await capped.close()
    }
  })

  it('caps the sockets one source holds open (503 at connect) while another source is still served', async () => {
    const capped = await startInbox({
      serviceNow: () => serviceClock,
      getSecret: () => SECRET,
      deliveries: store.webhookDeliveries,
      onVerified: (x) => passed.push(x),
      limits: { maxSockets: 3 }
    })
    const partial = 'POST /webhook HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n'
    const held = [0, 1, 2].map(() => rawFrom('127.0.0.4', capped, partial))
    try {
      // Connections are accepted in order: once these three are connected, the inbox counts them before the next.
      await Promise.all(held.map((h) => new Promise((r) => h.sock.once('connect', r))))
      const extra = rawFrom('127.0.0.4', capped, partial)
      const answer = await extra.closed
      expect(answer).toMatch(/^HTTP\/1\.1 503 /)
      expect(answer).toMatch(/connection: close/i)
      expect(answer).toMatch(/more than 3 open connections/)

      const real = w()
      expect((await postFrom('127.0.0.5', capped, real.body, real.headers)).status).toBe(200)
      expect(capped.refusals().connections).toBe(1)

      // One of the held sockets goes away: the source may connect again once the inbox has seen it close.
      held[0]!.sock.destroy()
      await held[0]!.closed
      let again = 503
      for (let i = 0; i < 100 && again === 503; i++) {
        again = (await postFrom('127.0.0.4', capped, '{}', { 'content-type': 'application/json' })).status
        if (again === 503) await new Promise((r) => setTimeout(r, 20))
      }
      expect(again).toBe(401)
    } finally {
      for (const h of held) h.sock.destroy()
      await capped.close()
    }
  })

  it('stores an unverified 1 MiB body as its first 2 KiB, hash and length; the event carries no more', async () => {
    const pad = 'x'.repeat(MAX_BODY_BYTES - 64)
    const text = JSON.stringify({ ...{ orderId: 5, status: -1 }, pad }).padEnd(MAX_BODY_BYTES, ' ')
    expect(Buffer.byteLength(text)).toBe(MAX_BODY_BYTES)
    const s = signed({ orderId: 5 }, 'not-the-secret')
    const r = await post(text, { 'content-type': 'application/json', 'x-service-payload': s.payload, 'x-service-signature': s.signature })
    expect(r.status).toBe(401)
    const sha = createHash('sha256').update(text).digest('hex')
    const row = store.webhookDeliveries.list().rows[0]!
    // Too large to be read for what it claims without a valid signature: no order id in the log.
    expect(row).toMatchObject({ verified: false, bodyBytes: MAX_BODY_BYTES, bodySha256: sha, bodyTruncated: true, orderId: null })
    expect(Buffer.byteLength(row.body)).toBeLessThanOrEqual(UNVERIFIED_HEAD_BYTES)
    expect(text.startsWith(row.body)).toBe(true)
    const ev = events[0]!
    expect(ev).toMatchObject({ verified: false, bodyBytes: MAX_BODY_BYTES, bodySha256: sha, bodyTruncated: true })
    expect(JSON.stringify(ev).length).toBeLessThan(8 * 1024)
    expect(toContractDelivery(row).body).toBe(ev.body)
  })

  it('parses nothing of an unsigned body beyond 16 KiB: a stranger’s deeply nested megabyte costs no parsing', async () => {
    const nested = '['.repeat(200_000) + ']'.repeat(200_000)
    const body = `{"a":${nested}}`
    const s = signed({ orderId: 5 }, 'not-the-secret')
    const parse = JSON.parse
    let parsed = 0
    JSON.parse = ((text: string, ...rest: []) => {
      if (text.length > 16 * 1024) parsed++
      return parse(text, ...rest) as unknown
    }) as typeof JSON.parse
    try {
      const r = await post(body, { 'content-type': 'application/json', 'x-service-payload': s.payload, 'x-service-signature': s.signature })
      expect(r.status).toBe(401)
    } finally {
      JSON.parse = parse
    }
    expect(parsed).toBe(0)
  })

  it('keeps only the head of a huge payload header that does not verify', async () => {
    const junkPayload = 'A'.repeat(200_000)
    const r = await post('{}', { 'content-type': 'application/json', 'x-service-payload': junkPayload, 'x-service-signature': 'ab' })
    expect(r.status).toBe(401)
    expect(events[0]!.payload).toHaveLength(UNVERIFIED_HEAD_BYTES)
  })

  it('keeps the whole body of a verified delivery, with its hash', async () => {
    const rec = onrampRecord({ merchantRecognitionId: 'm'.repeat(10_000) })
    const sent = signedWebhook(rec, { secret: SECRET, timestamp: NOW })
    expect((await post(sent.body, sent.headers)).status).toBe(200)
    expect(events[0]).toMatchObject({ verified: true, body: sent.body, bodyTruncated: false, bodyBytes: Buffer.byteLength(sent.body) })
    expect(events[0]!.bodySha256).toBe(createHash('sha256').update(sent.body).digest('hex'))
  })
})
