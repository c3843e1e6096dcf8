// POST /webhook on the hub, fed by the sandbox's real deliveries: verified as the desktop
// inbox verifies (the same code), stored, pushed to every desktop's stream, applied to
// the hub's orders at once, and with --forward-to relayed to the merchant's existing
// receiver (the signature's headers, the body and content type byte for byte), whose answer
// is logged; a receiver that fails is tried again until it takes the delivery. A forged
// delivery is refused and never relayed.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { request } from 'undici'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { statusInfo } from '../../../src/shared/domain/status'
import type { WebhookDelivery } from '../../../src/shared/ipc/contract'
import { startHubFixture, waitUntil, type HubFixture } from './support'

interface Received {
  headers: IncomingHttpHeaders
  body: string
}

let f: HubFixture
let receiver: Server
const received: Received[] = []
let receiverStatus = 200
let admin: string
let operator: string
let viewer: string

beforeAll(async () => {
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') })
      res.writeHead(receiverStatus, { 'content-type': 'text/plain' }).end(receiverStatus === 200 ? 'thanks from the merchant' : 'down')
    })
  })
  await new Promise<void>((ok) => receiver.listen(0, '127.0.0.1', ok))
  const port = (receiver.address() as AddressInfo).port
  f = await startHubFixture({
    sandbox: { webhookMaxTrials: 2, webhookBackoffMs: 50, webhookBackoffMaxMs: 100 },
    hub: { forwardTo: `http://127.0.0.1:${port}/merchant/hook` }
  })
  admin = await f.addOperator('ada', 'admin')
  operator = await f.addOperator('otto', 'operator')
  viewer = await f.addOperator('vera', 'viewer')
  await f.call(admin, 'webhooks:setUrl', { url: f.hub.webhookUrl() })
})
afterAll(async () => {
  await f?.close()
  await new Promise<void>((ok) => receiver?.close(() => ok()))
})

describe('the hub’s webhook address', () => {
  it('is what webhooks:inbox tells every desktop', async () => {
    const inbox = await f.call<{ url: string; listening: boolean }>(viewer, 'webhooks:inbox')
    expect(inbox).toMatchObject({ listening: true, url: `${f.url}/webhook` })
  })

  it('verifies a completed order’s delivery, applies it, pushes it to desktops and relays it unchanged', async () => {
    const stream = f.stream(viewer)
    await waitUntil(() => stream.connection.connected)
    const order = f.sandbox.control.createOrder({ type: 1, fiatType: 1, hold: true })
    await f.call(admin, 'sync:now')
    // The hub syncs every scope the merchant has orders in (nine here), one at a time: the
    // order is known once its scope's turn came, and from then on a webhook is the fast path.
    await waitUntil(async () => (await f.call(viewer, 'orders:get', { type: 1, orderId: order.orderId })) !== null, 20_000, 'order synced')
    let last = order
    while (!statusInfo(1, last.status).terminal) last = f.sandbox.control.advanceOrder(order.orderId)
    await f.sandbox.control.deliveriesIdle()
    const delivery = (await stream.waitFor(
      'webhook:delivery',
      ((d: WebhookDelivery) => d.orderId === order.orderId) as never
    )) as WebhookDelivery
    expect(delivery).toMatchObject({ verified: true, orderType: 1, status: last.status })
    // The fast path: the hub's database has the final status without a sync.
    const got = await f.call<{ row: { status: number } }>(viewer, 'orders:get', { type: 1, orderId: order.orderId })
    expect(got.row.status).toBe(last.status)
    await f.hub.relay()!.idle()
    const sent = f.sandbox.control.listDeliveries().filter((d) => d.orderId === order.orderId && d.ok)
    expect(sent).toHaveLength(1)
    const relayed = received.filter((r) => r.body.includes(`"orderId":${order.orderId}`))
    expect(relayed).toHaveLength(1)
    const r = relayed[0]!
    expect(r.body).toBe(JSON.stringify(sent[0]!.body))
    // The signature's headers and the content type as sent, with the body's very bytes.
    for (const [k, v] of Object.entries(sent[0]!.headers))
      if (/^(x-service-(payload|signature)|content-type)$/i.test(k)) expect(r.headers[k.toLowerCase()]).toBe(v)
    expect(
      f.logs.some((l) =>
        /webhook relay of order \d+ status -?\d+ to http:\/\/127\.0\.0\.1:\d+\/merchant\/hook: HTTP 200: "thanks from the merchant"/.test(l)
      )
    ).toBe(true)

    // The same delivery captured and sent again: refused as a replay (one receiver keeps its
    // window for the hub's life), not applied twice and not relayed.
    const replay = await request(`${f.url}/webhook`, {
      method: 'POST',
      headers: sent[0]!.headers,
      body: JSON.stringify(sent[0]!.body),
      reset: true
    })
    await replay.body.dump()
    expect(replay.statusCode).toBe(403)
    await f.hub.relay()!.idle()
    expect(received.filter((x) => x.body.includes(`"orderId":${order.orderId}`))).toHaveLength(1)
    await stream.close()
  })

  it('relays dummy webhooks an operator sends to the hub, trying a receiver that fails again until it takes them', async () => {
    receiverStatus = 503
    const before = received.length
    const r = await f.call<{ sentTo: string }>(operator, 'webhooks:sendDummy', { target: 'inbox' })
    expect(r.sentTo).toBe(`${f.url}/webhook`)
    // Tried after 1 s and 2 s more: each attempt logged, with when the next one comes.
    await waitUntil(() => received.length >= before + 3, 15_000, 'three relay attempts')
    expect(f.logs.some((l) => /WARN webhook relay .*HTTP 503: "down" \(attempt 2\); trying again in 2 s/.test(l))).toBe(true)
    receiverStatus = 200
    await waitUntil(
      () => f.logs.some((l) => /INFO webhook relay .*HTTP 200: "thanks from the merchant" after [4-9] attempts/.test(l)),
      15_000
    )
    const attempts = received.slice(before)
    expect(new Set(attempts.map((a) => a.body)).size).toBe(1)
    expect(received.length - before).toBeGreaterThanOrEqual(4)
  })

  it('refuses a forged delivery and relays nothing of it', async () => {
    const before = received.length
    const body = JSON.stringify({ orderId: 100001, status: 5, updatedAt: new Date().toISOString() })
    const res = await request(`${f.url}/webhook`, {
      method: 'POST',
      // A connection that began with /webhook serves /webhook only: the calls below need another.
      reset: true,
      headers: {
        'content-type': 'application/json',
        'x-service-payload': Buffer.from(JSON.stringify({ timestamp: Date.now(), body: JSON.parse(body) })).toString('base64'),
        'x-service-signature': 'ab'.repeat(64)
      },
      body
    })
    expect(res.statusCode).toBe(401)
    await res.body.text()
    await f.hub.relay()!.idle()
    expect(received.length).toBe(before)
    const log = await f.call<{ rows: WebhookDelivery[] }>(viewer, 'webhooks:deliveries', { offset: 0, limit: 10 })
    expect(log.rows[0]).toMatchObject({ verified: false })
    // Logged as a refusal of this source: the first of the minute in full (here the replay
    // refused above), the rest counted into the minute's summary.
    expect(f.logs.some((l) => /WARN refused POST \/webhook \(order \d+ status -?\d+\): /.test(l))).toBe(true)
  })

  it('keeps the secret out of every log line', () => {
    for (const l of f.logs) expect(l).not.toContain(f.sandbox.apiSecret)
  })
})

describe('the hub’s metrics of webhooks', () => {
  it('count deliveries verified and refused, and each relay’s outcome', async () => {
    const text = await f.hub.metrics.render()
    const value = (series: string) =>
      Number(
        text
          .split('\n')
          .find((l) => l.startsWith(series + ' '))
          ?.split(' ')[1] ?? NaN
      )
    expect(value('rampdesk_hub_webhook_deliveries_total{verified="true"}')).toBeGreaterThanOrEqual(2)
    expect(value('rampdesk_hub_webhook_deliveries_total{verified="false"}')).toBeGreaterThanOrEqual(1)
    // The completed order relayed once; the dummy to a receiver answering 503 tried again until it took it.
    expect(value('rampdesk_hub_webhook_relays_total{outcome="relayed"}')).toBeGreaterThanOrEqual(2)
    expect(value('rampdesk_hub_webhook_relays_total{outcome="retrying"}')).toBeGreaterThanOrEqual(3)
    expect(value('rampdesk_hub_webhook_relays_total{outcome="failed"}')).toBe(0)
    expect(value('rampdesk_hub_webhook_kept_total{where="store"}')).toBeGreaterThanOrEqual(2)
  })
})
