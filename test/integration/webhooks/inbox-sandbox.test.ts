// The webhook inbox fed by the sandbox's real webhooks over loopback: setWebhookUrl to the
// inbox, complete orders, see the deliveries verified and the monitor's fast path applied
// before any sync, in every payload form the sandbox can sign (compact, Python's spaced,
// PHP's escaped slashes, the body alone), offramp bodies with their live extras; then replays and tampering built from the sandbox's own deliveries,
// a receiver holding the wrong secret, oversized and malformed bodies. Nothing unverified
// may ever reach the monitor.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { request } from 'undici'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ApiClient } from '../../../src/main/api/client'
import { OrderMonitor, type MonitorEvents } from '../../../src/main/monitor/order-monitor'
import { openLocalStore, type LocalStore } from '../../../src/main/store/local-store'
import { ingestInto, startInbox, type RunningInbox, type WebhookRecord } from '../../../src/main/webhooks/inbox'
import { startSandbox, type DeliveryRecord, type Sandbox, type TruthOrder, type WebhookPayloadForm } from '../../../src/sandbox'
import { WEBHOOK_PAYLOAD_FORMS } from '../../../src/sandbox/signing'
import { encodePayload, signPayload } from '../../../src/shared/api/signature'
import { statusInfo } from '../../../src/shared/domain/status'
import type { WebhookDelivery } from '../../../src/shared/ipc/contract'
import { signedWebhook } from '../../support/webhook-senders'

let sandbox: Sandbox
let dir: string
let store: LocalStore
let client: ApiClient
let monitor: OrderMonitor
let inbox: RunningInbox
const passed: Array<{ webhook: WebhookRecord; outcome: string }> = []
const deliveries: WebhookDelivery[] = []
const events: Array<{ event: keyof MonitorEvents; payload: unknown }> = []

const of = <E extends keyof MonitorEvents>(e: E) => events.filter((x) => x.event === e).map((x) => x.payload as MonitorEvents[E])

function complete(o: TruthOrder): TruthOrder {
  let last = o
  while (!statusInfo(o.type, last.status).terminal) last = sandbox.control.advanceOrder(o.orderId)
  return last
}

async function post(url: string, body: string | Buffer, headers: Record<string, string>) {
  const res = await request(url, { method: 'POST', body, headers })
  const text = await res.body.text()
  return { status: res.statusCode, text }
}

const lastDeliveryFor = (orderId: number): DeliveryRecord =>
  sandbox.control
    .listDeliveries()
    .filter((d) => d.orderId === orderId)
    .at(-1)!

beforeAll(async () => {
  sandbox = await startSandbox({
    orders: 300,
    autoGenerate: false,
    seed: 11,
    webhookMaxTrials: 3,
    webhookBackoffMs: 50,
    webhookBackoffMaxMs: 200
  })
  dir = mkdtempSync(join(tmpdir(), 'rampdesk-inbox-it-'))
  store = openLocalStore(dir)
  client = new ApiClient({
    profileId: 'it',
    baseUrl: sandbox.url,
    serviceName: sandbox.serviceName,
    apiKey: sandbox.apiKey,
    getSecret: async () => sandbox.apiSecret
  })
  monitor = new OrderMonitor({
    client,
    store,
    fiatTypes: [1],
    historyPollMs: 3_600_000,
    watchPollMs: 3_600_000,
    onEvent: (event, payload) => events.push({ event, payload })
  })
  monitor.on('order:terminal', (p) => events.push({ event: 'order:terminal', payload: p }))
  inbox = await startInbox({
    serviceName: sandbox.serviceName,
    // As the profile session wires it: payload timestamps against the client's estimate of the service clock.
    serviceNow: () => client.clock.now(),
    getSecret: async () => sandbox.apiSecret,
    deliveries: store.webhookDeliveries,
    onVerified: (webhook) => passed.push({ webhook, outcome: ingestInto(monitor, webhook) }),
    onDelivery: (d) => deliveries.push(d)
  })
  await client.setWebhookUrl({ webhookUrl: inbox.url })
  await monitor.syncNow()
}, 60_000)

afterAll(async () => {
  await inbox?.close()
  await monitor?.stop()
  await client?.close()
  store?.close()
  await sandbox?.close()
  if (dir) rmSync(dir, { recursive: true, force: true })
})

// Before the clock test below: it leaves the monitor's history cursor 20 min ahead of the
// sandbox's clock, so orders created after it are not synced before their webhooks arrive.
describe('inbox fed by the sandbox in every payload form it can send (the webhookPayloadForm reading)', () => {
  const LOGGED: Record<WebhookPayloadForm, string> = {
    compact: 'timestamp+body (compact)',
    spaced: 'timestamp+body (spaced)',
    slashEscaped: 'timestamp+body (slash-escaped)',
    bodyOnly: 'body only'
  }

  for (const form of WEBHOOK_PAYLOAD_FORMS) {
    it(`${form}: onramp and offramp completions verified over the header bytes, logged as ${LOGGED[form]}, applied`, async () => {
      sandbox.control.setReadings({ webhookPayloadForm: form })
      try {
        // A slash and a non-ASCII letter, so that every form writes the payload differently.
        const on = sandbox.control.createOrder({
          type: 1,
          fiatType: 1,
          path: 'completed',
          merchantRecognitionId: `shop/Zürich-${form}`,
          hold: true
        })
        const off = sandbox.control.createOrder({ type: 2, path: 'completed', merchantRecognitionId: `shop/Zürich-${form}`, hold: true })
        await monitor.syncNow()
        const done = [complete(on), complete(off)]
        await sandbox.control.deliveriesIdle()

        for (const o of done) {
          const sent = lastDeliveryFor(o.orderId)
          expect([sent.attempt, sent.ok, sent.httpStatus]).toEqual([1, true, 200])
          const d = deliveries.find((x) => x.orderId === o.orderId)!
          expect(d).toMatchObject({ verified: true, replay: false, orderType: o.type, status: o.status, payloadForm: LOGGED[form] })
          expect(d.notes).toEqual(form === 'bodyOnly' ? ['no timestamp: replay window not applied'] : [])
          expect(store.orders.get(o.type, o.orderId)).toMatchObject({ status: o.status, statusSource: 'webhook' })
        }
        // The offramp body's live extras are kept with the order (the order detail lists every field).
        const offRow = store.orders.get(2, off.orderId)!
        expect(offRow.record).toMatchObject({
          eventType: 'offramp',
          coinCode: expect.any(String),
          network: expect.any(String),
          statusDescription: expect.any(String),
          merchantRecognitionId: `shop/Zürich-${form}`
        })
      } finally {
        sandbox.control.setReadings({ webhookPayloadForm: 'compact' })
      }
    })
  }
})

describe('inbox fed by the sandbox', () => {
  it('verifies a real onramp completion webhook and applies it through the monitor fast path before any sync', async () => {
    expect(sandbox.control.webhookUrl()).toBe(inbox.url)
    const o = sandbox.control.createOrder({ type: 1, fiatType: 1, hold: true })
    await monitor.syncNow()
    expect(store.orders.get(1, o.orderId)!.status).toBe(o.status)
    events.length = 0
    const done = complete(o)
    await sandbox.control.deliveriesIdle()

    const sent = lastDeliveryFor(o.orderId)
    expect([sent.ok, sent.httpStatus]).toEqual([true, 200])
    const d = deliveries.find((x) => x.orderId === o.orderId)!
    expect(d).toMatchObject({ verified: true, orderType: 1, status: done.status, duplicate: false, notes: [] })
    expect(d.payloadForm).toMatch(/^timestamp\+body \(/)
    expect(passed.find((p) => p.webhook.record.orderId === o.orderId)?.outcome).toBe('status')
    // Applied at once, with the webhook as its source, and emitted as a terminal change.
    expect(store.orders.get(1, o.orderId)).toMatchObject({ status: done.status, statusSource: 'webhook' })
    expect(of('order:changed').map((c) => [c.row.orderId, c.oldStatus, c.newStatus])).toEqual([[o.orderId, o.status, done.status]])
    expect(of('order:terminal')[0]).toMatchObject({ source: 'webhook', status: done.status })

    // The next sync reconciles with the service (which moved on to "webhook sent").
    await monitor.syncNow()
    const truth = sandbox.control.order(o.orderId)!
    expect(store.orders.get(1, o.orderId)!.status).toBe(truth.status)
    expect(store.webhookDeliveries.list({ orderId: o.orderId }).rows[0]).toMatchObject({ verified: true, orderType: 1 })
  })

  it('recognises an offramp completion webhook by its eventType', async () => {
    const o = sandbox.control.createOrder({ type: 2, fiatType: 1, hold: true })
    await monitor.syncNow()
    const done = complete(o)
    await sandbox.control.deliveriesIdle()
    const p = passed.find((x) => x.webhook.record.orderId === o.orderId)!
    expect([p.webhook.type, p.webhook.record.status, p.outcome]).toEqual([2, done.status, 'status'])
    expect(store.orders.get(2, o.orderId)).toMatchObject({ status: done.status, statusSource: 'webhook' })
  })

  it('stores a dummy webhook as verified but creates no order from it', async () => {
    const before = store.orders.count()
    await client.sendDummyWebhook()
    await sandbox.control.deliveriesIdle()
    const dummy = deliveries.filter((d) => d.orderId !== null && d.orderId >= 900_000_000).at(-1)!
    expect(dummy.verified).toBe(true)
    expect(passed.find((p) => p.webhook.record.orderId === dummy.orderId)?.outcome).toBe('unknown')
    expect(store.orders.count()).toBe(before)
  })

  it('refuses a byte-for-byte replay of a real delivery (403), and its payload with a tampered body (400); a re-signed retry is a duplicate (200)', async () => {
    const o = sandbox.control.createOrder({ type: 1, fiatType: 1, hold: true })
    await monitor.syncNow()
    complete(o)
    await sandbox.control.deliveriesIdle()
    const real = lastDeliveryFor(o.orderId)
    const handedOn = passed.length
    const rowsBefore = store.webhookDeliveries.list({ limit: 500 }).total

    const replay = await post(inbox.url, JSON.stringify(real.body), real.headers)
    expect(replay.status).toBe(403)
    expect(deliveries.at(-1)).toMatchObject({ verified: false, replay: true, orderId: o.orderId })
    expect(deliveries.at(-1)!.reason).toMatch(/already accepted/)

    const tampered = { ...(real.body as Record<string, unknown>), status: -1 }
    const forged = await post(inbox.url, JSON.stringify(tampered), real.headers)
    expect(forged.status).toBe(400)
    expect(JSON.parse(forged.text).reason).toMatch(/JSON body differs from the order record the signature covers/)
    expect(passed.length).toBe(handedOn)
    expect(store.orders.get(1, o.orderId)!.status).not.toBe(-1)

    // What the service does when our answer was lost: the same order, signed afresh with its
    // clock and webhookTrials + 1. Signed here with node:crypto, independent of the app's signer.
    const body = real.body as Record<string, unknown>
    const retry = signedWebhook(
      { ...body, webhookTrials: Number(body.webhookTrials ?? 1) + 1 },
      { secret: sandbox.apiSecret, timestamp: sandbox.control.serverNow(), serviceName: sandbox.serviceName }
    )
    const again = await post(inbox.url, retry.body, retry.headers)
    expect([again.status, JSON.parse(again.text).reason]).toEqual([200, 'verified (duplicate: already received)'])
    expect(passed.length).toBe(handedOn)
    // The replay refusals share a row; the retry counts on the original's.
    expect(store.webhookDeliveries.list({ limit: 500 }).total - rowsBefore).toBeLessThanOrEqual(2)
  })

  it('refuses an authentic payload signed 6 min ago, and one dated 6 min ahead (401)', async () => {
    const o = sandbox.control.groundTruth({ type: 1, fiatType: 1 })[0]!
    const handedOn = passed.length
    for (const offset of [-6 * 60_000, 6 * 60_000]) {
      const w = signedWebhook(o.record, { secret: sandbox.apiSecret, timestamp: sandbox.control.serverNow() + offset })
      const r = await post(inbox.url, w.body, w.headers)
      expect(r.status).toBe(401)
      expect(deliveries.at(-1)).toMatchObject({ verified: false, replay: true })
    }
    expect(passed.length).toBe(handedOn)
  })

  it('with the service clock 20 min ahead of ours, its deliveries are accepted against the corrected clock', async () => {
    sandbox.control.setClockOffset(20 * 60_000)
    try {
      // Any answer teaches the client the new offset (the first request is refused as too old, then re-signed).
      await monitor.syncNow()
      expect(Math.abs(client.clock.now() - sandbox.control.serverNow())).toBeLessThan(60_000)
      const o = sandbox.control.createOrder({ type: 1, fiatType: 1, hold: true })
      await monitor.syncNow()
      const done = complete(o)
      await sandbox.control.deliveriesIdle()
      const sent = lastDeliveryFor(o.orderId)
      expect([sent.attempt, sent.ok]).toEqual([1, true])
      expect(deliveries.find((d) => d.orderId === o.orderId)).toMatchObject({ verified: true, replay: false, status: done.status })
    } finally {
      sandbox.control.setClockOffset(0)
      await monitor.syncNow()
    }
  })

  it('a receiver holding the wrong secret refuses every attempt (401): the sandbox retries, nothing is handed on', async () => {
    const wrongPassed: WebhookRecord[] = []
    const wrong = await startInbox({
      serviceName: sandbox.serviceName,
      getSecret: () => 'not-the-sandbox-secret',
      deliveries: store.webhookDeliveries,
      onVerified: (w) => wrongPassed.push(w)
    })
    try {
      await client.sendDummyWebhook({ webhookUrl: wrong.url })
      await sandbox.control.deliveriesIdle()
      const attempts = sandbox.control.listDeliveries().filter((d) => d.url === wrong.url)
      expect(attempts.map((a) => a.httpStatus)).toEqual([401, 401, 401])
      expect(wrongPassed).toHaveLength(0)
      const rows = store.webhookDeliveries.list({ verified: false }).rows.filter((r) => r.reason?.startsWith('signature does not match'))
      expect(rows.reduce((n, r) => n + r.timesReceived, 0)).toBe(3)
    } finally {
      await wrong.close()
    }
  })

  it('refuses oversized (413), malformed (400), non-JSON (415) and unsigned (401) posts, and GET (405)', async () => {
    const handedOn = passed.length
    const payload = encodePayload(Date.now(), { orderId: 1 })
    const sig = signPayload(payload, sandbox.apiSecret)
    const signedHeaders = { 'content-type': 'application/json', 'x-service-payload': payload, 'x-service-signature': sig }

    const big = await post(inbox.url, Buffer.alloc(1024 * 1024 + 1, 0x20), { 'content-type': 'application/json' }).catch((e: unknown) => ({
      status: -1,
      text: String(e)
    }))
    expect(big.status).toBe(413)
    expect((await post(inbox.url, '{"orderId":', signedHeaders)).status).toBe(400)
    expect((await post(inbox.url, '<order/>', { ...signedHeaders, 'content-type': 'text/xml' })).status).toBe(415)
    expect((await post(inbox.url, JSON.stringify({ orderId: 1 }), { 'content-type': 'application/json' })).status).toBe(401)
    const get = await request(inbox.url, { method: 'GET' })
    await get.body.text()
    expect(get.statusCode).toBe(405)

    expect(passed.length).toBe(handedOn)
    // Every verified row in the log is one whose signature really was the sandbox's.
    const verified = store.webhookDeliveries.list({ verified: true, limit: 500 }).rows
    expect(verified.length).toBeGreaterThan(0)
    for (const r of verified) {
      expect(r.payloadHeader && signPayload(r.payloadHeader, sandbox.apiSecret)).toBe(r.headers['x-service-signature'])
    }
  })
})
