// One signed delivery, posted over a socket to the desktop's inbox (startInbox, with its
// monitor and profile database) and to a team hub's /webhook: the signature covers
// fiatAmount 1000.00000000000001, which JSON.parse reads as 1000. A body saying 1000 (what a
// relay that parses and writes JSON again would send on) is refused by both, named by
// field, and changes no order; the body byte for byte as signed is verified by both and
// applied. Both sides run the same rule (delivery-verdict.ts), so both are held to it here.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { request } from 'undici'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ApiClient } from '../../../src/main/api/client'
import { OrderMonitor } from '../../../src/main/monitor/order-monitor'
import { openLocalStore, type LocalStore } from '../../../src/main/store/local-store'
import { ingestInto, startInbox, type RunningInbox } from '../../../src/main/webhooks/inbox'
import type { TruthOrder } from '../../../src/sandbox'
import { statusInfo } from '../../../src/shared/domain/status'
import type { WebhookDelivery } from '../../../src/shared/ipc/contract'
import { hmacHex } from '../../support/webhook-senders'
import { startHubFixture, waitUntil, type HubFixture } from '../hub/support'

let f: HubFixture
let admin: string
let viewer: string
let dir: string
let store: LocalStore
let client: ApiClient
let monitor: OrderMonitor
let inbox: RunningInbox
const outcomes: string[] = []

beforeAll(async () => {
  f = await startHubFixture({ sandbox: { orders: 20, seed: 33, autoGenerate: false } })
  admin = await f.addOperator('ada', 'admin')
  viewer = await f.addOperator('vera', 'viewer')
  dir = mkdtempSync(join(tmpdir(), 'rampdesk-exact-it-'))
  store = openLocalStore(dir)
  client = new ApiClient({
    profileId: 'exact',
    baseUrl: f.sandbox.url,
    serviceName: f.sandbox.serviceName,
    apiKey: f.sandbox.apiKey,
    getSecret: async () => f.sandbox.apiSecret
  })
  monitor = new OrderMonitor({ client, store, fiatTypes: [1], historyPollMs: 3_600_000, watchPollMs: 3_600_000 })
  inbox = await startInbox({
    serviceName: f.sandbox.serviceName,
    serviceNow: () => client.clock.now(),
    getSecret: async () => f.sandbox.apiSecret,
    deliveries: store.webhookDeliveries,
    onVerified: (w) => void outcomes.push(ingestInto(monitor, w))
  })
}, 60_000)

afterAll(async () => {
  await inbox?.close()
  await monitor?.stop()
  await client?.close()
  store?.close()
  if (dir) rmSync(dir, { recursive: true, force: true })
  await f?.close()
})

async function post(url: string, body: string, headers: Record<string, string>) {
  const res = await request(url, { method: 'POST', body, headers })
  return { status: res.statusCode, reason: ((await res.body.json()) as { reason: string }).reason }
}

const hubStatus = async (o: TruthOrder) =>
  (await f.call<{ row: { status: number } } | null>(viewer, 'orders:get', { type: 1, orderId: o.orderId }))?.row.status

describe('a signed 1000.00000000000001 and a body of 1000, at the desktop inbox and at the hub', () => {
  it('both refuse the body 1000 and apply nothing; both verify and apply the body as signed', async () => {
    const o = f.sandbox.control.createOrder({ type: 1, fiatType: 1, hold: true })
    await monitor.syncNow()
    await f.call(admin, 'sync:now')
    await waitUntil(async () => (await hubStatus(o)) === o.status, 20_000, 'the hub knows the order')
    expect(store.orders.get(1, o.orderId)!.status).toBe(o.status)
    // The service's record of the order completed (status 5, "webhook sent"), while the
    // sandbox keeps the order held: only a delivery below can bring either side to 5.
    const COMPLETED = 5
    expect(statusInfo(1, COMPLETED).terminal).toBe(true)
    const serviceNow = f.sandbox.control.serverNow()
    const truth = f.sandbox.control.order(o.orderId)!.record
    const record = JSON.stringify({ ...truth, status: COMPLETED, updatedAt: new Date(serviceNow).toISOString() })
    expect(record).toMatch(/"fiatAmount":[-0-9.eE+]+/)
    const withAmount = (amount: string) => record.replace(/"fiatAmount":[-0-9.eE+]+/, `"fiatAmount":${amount}`)
    const signedRecord = withAmount('1000.00000000000001')
    expect(JSON.parse(signedRecord)).toEqual(JSON.parse(withAmount('1000')))
    const payload = Buffer.from(`{"timestamp":${serviceNow},"body":${signedRecord}}`, 'utf8').toString('base64')
    const headers = {
      'content-type': 'application/json',
      [`x-${f.sandbox.serviceName}-payload`]: payload,
      [`x-${f.sandbox.serviceName}-signature`]: hmacHex(payload, f.sandbox.apiSecret)
    }
    const mismatch =
      'signature genuine, but the JSON body differs from the order record the signature covers at fiatAmount ' +
      '(the body has 1000, the signed record 1000.00000000000001; a body the signature does not vouch for): not applied'

    const desktopRefused = await post(inbox.url, withAmount('1000'), headers)
    const hubRefused = await post(`${f.url}/webhook`, withAmount('1000'), headers)
    expect(desktopRefused).toEqual({ status: 400, reason: mismatch })
    expect(hubRefused).toEqual({ status: 400, reason: mismatch })
    expect(outcomes).toEqual([])
    expect(store.orders.get(1, o.orderId)!.status).toBe(o.status)
    expect(await hubStatus(o)).toBe(o.status)
    expect(store.webhookDeliveries.list().rows[0]).toMatchObject({ verified: false, orderId: o.orderId, reason: mismatch })
    const hubLog = await f.call<{ rows: WebhookDelivery[] }>(viewer, 'webhooks:deliveries', { offset: 0, limit: 10 })
    expect(hubLog.rows[0]).toMatchObject({ verified: false, orderId: o.orderId, reason: mismatch })

    // The same payload (a refused body does not use it up) with the body exactly as signed.
    const desktopVerified = await post(inbox.url, signedRecord, headers)
    const hubVerified = await post(`${f.url}/webhook`, signedRecord, headers)
    expect(desktopVerified).toEqual({ status: 200, reason: 'verified' })
    expect(hubVerified).toEqual({ status: 200, reason: 'verified' })
    expect(outcomes).toEqual(['status'])
    expect(store.orders.get(1, o.orderId)).toMatchObject({ status: COMPLETED, statusSource: 'webhook' })
    await waitUntil(async () => (await hubStatus(o)) === COMPLETED, 10_000, 'the hub applied the verified delivery')
    const hubLogAfter = await f.call<{ rows: WebhookDelivery[] }>(viewer, 'webhooks:deliveries', { offset: 0, limit: 10 })
    expect(hubLogAfter.rows[0]).toMatchObject({ verified: true, orderId: o.orderId, status: COMPLETED })
  })
})
