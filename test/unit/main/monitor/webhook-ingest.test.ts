// The webhook fast path (webhook-ingest.ts) through the order monitor, over a fake service,
// a real database and the real body parser: which webhook is the order held under its id
// (sameOrder, also on its own), what a body that is no whole record may write, and that a
// status it wrote never outlasts the service's own record.
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { OrderMonitor } from '../../../../src/main/monitor/order-monitor'
import { sameOrder, type HeldIdentity } from '../../../../src/main/monitor/webhook-ingest'
import { readIdentity } from '../../../../src/main/webhooks/body-identity'
import { ingestInto, parseRecord } from '../../../../src/main/webhooks/inbox'
import { offramp } from '../store/order-fixtures'
import { at, onramp } from './fake-history'
import { MonitorWorld } from './monitor-world'

let world: MonitorWorld
let monitor: OrderMonitor
let warnings: string[]

beforeEach(() => {
  world = new MonitorWorld('webhook-ingest')
  warnings = []
  for (let i = 1; i <= 30; i++) world.fake.put(1, 1, onramp(i, at(i), i % 3 === 0 ? 4 : 0))
  monitor = world.monitor({ historyPollMs: 30_000, watchPollMs: 10_000 })
})

afterEach(async () => {
  await monitor.stop()
  world.close()
})

/** The scopes history was asked about (type:fiat), each once. */
const scopesAsked = () => [...new Set(world.fake.calls.map((c) => `${c.type}:${c.fiatType}`))]

/** A verified body as the inbox hands it on: parsed by the real reader, applied by ingestInto. */
function deliver(body: Record<string, unknown>): string {
  const parsed = parseRecord(body)
  if (!parsed.ok) throw new Error(parsed.error)
  return ingestInto(monitor, parsed.value, { warn: (m) => warnings.push(m) })
}

/** The service's record of an order as a webhook body that is no whole record (one amount the schema refuses). */
const partialBody = (orderId: number, status: number, over: Record<string, unknown> = {}): Record<string, unknown> => {
  const { updatedAt: _dropped, ...rest } = onramp(orderId, at(orderId), status)
  return { ...rest, actualCryptoAmount: '', ...over }
}

describe('ingestWebhook (a whole record)', () => {
  it('applies a known order at once with source webhook and emits the change', async () => {
    await monitor.syncNow()
    const rec = { ...onramp(1, at(7000), 5), transactionHash: '0xfeed' }
    expect(monitor.ingestWebhook(1, rec)).toBe('status')
    expect(world.store.orders.get(1, 1)).toMatchObject({ status: 5, statusSource: 'webhook', transactionHash: '0xfeed' })
    expect(world.of('order:changed').map((c) => [c.row.orderId, c.oldStatus, c.newStatus, c.terminal])).toEqual([[1, 0, 5, true]])
    expect(world.of('order:terminal')[0]).toMatchObject({ source: 'webhook', status: 5 })
    // The webhook's later updatedAt is not kept (the live notes: internal, due to go).
    expect(world.store.orders.get(1, 1)!.updatedAt).toBe(at(1))
    // A replay of the snapshot the order was synced from does not move the status back:
    // at equal updatedAt the webhook's later observation of the status stands.
    expect(monitor.ingestWebhook(1, onramp(1, at(1), 0))).toBe('updated')
    expect(world.store.orders.get(1, 1)!.status).toBe(5)
    // An older body never moves a terminal status.
    expect(monitor.ingestWebhook(1, onramp(1, at(0), 0))).toBe('stale')
    // The next sync reconciles quietly once the service reports the same.
    world.fake.change(1, 1, 1, 5, at(7000))
    world.events.length = 0
    await monitor.syncNow()
    expect(world.of('order:changed')).toHaveLength(0)
    expect(world.store.orders.get(1, 1)!.status).toBe(5)
  })

  it('shows a completion webhook at once when its body updatedAt is older than the order held (the field the live notes say not to rely on)', async () => {
    await monitor.syncNow()
    // A poll saw the order withdrawing at updatedAt at(7000).
    world.fake.change(1, 1, 2, 14, at(7000))
    await monitor.syncNow()
    expect(world.store.orders.get(1, 2)).toMatchObject({ status: 14, updatedAt: at(7000) })
    // The completion webhook's body carries a lagging updatedAt.
    expect(monitor.ingestWebhook(1, onramp(2, at(6000), 4))).toBe('status')
    expect(world.store.orders.get(1, 2)).toMatchObject({ status: 4, statusSource: 'webhook', updatedAt: at(7000) })
    expect(world.of('order:terminal').map((t) => [t.row.orderId, t.status, t.source])).toEqual([[2, 4, 'webhook']])
    // Its own date says it is older than the snapshot held: it does not stand over that
    // snapshot. History at the same updatedAt has the last word, and the
    // service's next change brings the completion.
    await monitor.resyncAll()
    expect(world.store.orders.get(1, 2)!.status).toBe(14)
    world.fake.change(1, 1, 2, 4, at(7100))
    await monitor.syncNow()
    expect(world.store.orders.get(1, 2)).toMatchObject({ status: 4, updatedAt: at(7100) })
  })

  it('writes nothing over a held order when the webhook is another order under the same id (a dummy, the other type)', async () => {
    await monitor.syncNow()
    const held = world.store.orders.get(1, 1)!
    // A dummy webhook's made-up order numbered 1: another fiat, wallet, creation.
    const dummy = { ...onramp(1, at(9000), 4, 2, '2026-11-24T10:00:00.000Z'), walletAddress: '0xdummy' }
    expect(monitor.ingestWebhook(1, dummy)).toBe('mismatch')
    // An order created at another time, with no wallet or merchant id to say it is the same one.
    const other = { ...onramp(1, at(9000), 4), createdAt: '2023-05-05T00:00:00.000Z', walletAddress: null, merchantRecognitionId: null }
    expect(monitor.ingestWebhook(1, other)).toBe('mismatch')
    expect(monitor.ingestWebhook(1, { ...onramp(1, at(9000), 4), coinId: 99 })).toBe('mismatch')
    expect(world.store.orders.get(1, 1)).toEqual(held)
    expect(world.of('order:changed')).toHaveLength(0)
    // The same order, its creation written another way and its wallet in other case: applied.
    const same = { ...onramp(1, at(9000), 5), createdAt: '2022-01-01T00:00:00Z', walletAddress: held.walletAddress!.toUpperCase() }
    expect(monitor.ingestWebhook(1, same)).toBe('status')
    expect(world.store.orders.get(1, 1)!.status).toBe(5)
  })

  it('compares the fiat of an offramp order held only when its record named one (not the scope it was filed under)', () => {
    // An offramp record that names no fiat, listed in the scope of fiat 1.
    world.store.orders.applyHistoryPage({ type: 2, fiatType: 1, records: [offramp({ orderId: 70, status: 0 })] })
    expect(world.store.orders.get(2, 70)!.fiatType).toBe(1)
    // The body names its true fiat, 3: the 1 held was the scope's guess.
    expect(monitor.ingestWebhook(2, offramp({ orderId: 70, status: 1, fiatType: 3, updatedAt: '2024-03-02T10:06:00.000Z' }))).toBe('status')
    // A record that named fiat 1 is another order when a body says 3.
    world.store.orders.applyHistoryPage({ type: 2, fiatType: 1, records: [offramp({ orderId: 71, status: 0, fiatType: 1 })] })
    expect(monitor.ingestWebhook(2, offramp({ orderId: 71, status: 1, fiatType: 3 }))).toBe('mismatch')
  })

  it("keeps the order's updatedAt, not the webhook's, so the history answers after it are not set aside", async () => {
    await monitor.syncNow()
    const before = world.store.orders.get(1, 1)!.updatedAt
    // The body's updatedAt (internal, due to go) far ahead of the service's record.
    expect(monitor.ingestWebhook(1, onramp(1, '2099-01-01T00:00:00.000Z', 5))).toBe('status')
    expect(world.store.orders.get(1, 1)).toMatchObject({ status: 5, updatedAt: before })
    // The service's record, changed since (a refund), reaches the order through history.
    world.fake.change(1, 1, 1, 15, at(7000))
    await monitor.syncNow()
    expect(world.store.orders.get(1, 1)).toMatchObject({ status: 15, updatedAt: at(7000) })
  })

  it('does not invent an order it has not synced; it asks for a sync instead', async () => {
    monitor.start()
    await world.clock.advance(0)
    world.fake.calls.length = 0
    expect(monitor.ingestWebhook(1, onramp(424242, at(9000), 5))).toBe('unknown')
    expect(world.store.orders.get(1, 424242)).toBeUndefined()
    await world.clock.advance(0)
    expect(scopesAsked()).toEqual(['1:1'])
  })
})

describe('ingestWebhookStatus (a body that is no whole record)', () => {
  it('moves a known open order to the status when the fields it gives agree, and never moves a terminal one', async () => {
    await monitor.syncNow()
    expect(world.store.orders.get(1, 1)!.status).toBe(0)
    expect(deliver(partialBody(1, 15))).toBe('status')
    expect(world.store.orders.get(1, 1)).toMatchObject({ status: 15, statusSource: 'webhook' })
    expect(world.of('order:changed').map((c) => [c.row.orderId, c.oldStatus, c.newStatus, c.terminal])).toEqual([[1, 0, 15, true]])
    expect(world.of('order:terminal')[0]).toMatchObject({ source: 'webhook', status: 15 })
    expect(deliver(partialBody(1, 15))).toBe('unchanged')
    // Undated: a late delivery of another terminal status cannot be told from a newer one.
    expect(deliver(partialBody(1, 4))).toBe('stale')
    expect(world.store.orders.get(1, 1)!.status).toBe(15)
    expect(world.of('order:changed')).toHaveLength(1)
  })

  it('a dummy that is no whole record cannot pin an open order to a wrong terminal status', async () => {
    await monitor.syncNow()
    expect(world.store.orders.get(1, 11)).toMatchObject({ status: 0, updatedAt: at(11) })
    // A made-up order numbered 11: its createdAt written as SQL writes it, another wallet.
    const dummy = partialBody(11, 4, { createdAt: '2026-11-24 10:00:00', walletAddress: '0xdummy', merchantRecognitionId: null })
    expect(deliver(dummy)).toBe('mismatch')
    expect(warnings).toEqual([expect.stringContaining('is another order')])
    expect(world.store.orders.get(1, 11)!.status).toBe(0)
    expect(world.of('order:changed')).toHaveLength(0)
    // A body of the order itself whose few readable fields agree is applied...
    expect(deliver(partialBody(11, 4, { createdAt: '2022-01-01 00:00:00' }))).toBe('status')
    expect(world.store.orders.get(1, 11)).toMatchObject({ status: 4, statusSource: 'webhook' })
    // ...but the service's record of equal updatedAt says otherwise, and history has the last word.
    world.events.length = 0
    await monitor.resyncAll()
    expect(world.store.orders.get(1, 11)).toMatchObject({ status: 0, statusSource: 'sync' })
    expect(world.of('order:changed').map((c) => [c.row.orderId, c.oldStatus, c.newStatus])).toEqual([[11, 4, 0]])
  })

  it('applies nothing from a body that says nothing of which order it is, and asks the service for the status at once', async () => {
    monitor.start()
    await world.clock.advance(0)
    // The service has moved order 13 on; the webhook body is its id and a wrong status.
    world.fake.change(1, 1, 13, 2, at(7000))
    world.fake.statusCalls.length = 0
    expect(deliver({ orderId: 13, status: 4 })).toBe('checking')
    expect(warnings).toEqual([expect.stringContaining('says nothing of which order it is')])
    expect(world.store.orders.get(1, 13)!.status).toBe(0)
    await world.clock.advance(0)
    expect(world.fake.statusCalls).toEqual([{ type: 1, orderId: 13, priority: 'background' }])
    expect(world.store.orders.get(1, 13)).toMatchObject({ status: 2, statusSource: 'watch' })
    expect(world.of('order:changed').map((c) => [c.row.orderId, c.oldStatus, c.newStatus])).toEqual([[13, 0, 2]])
    // The service cannot say (417): the scope is synced instead.
    world.fake.remove(1, 1, 14)
    world.fake.calls.length = 0
    expect(deliver({ orderId: 14, status: 4 })).toBe('checking')
    await world.clock.advance(0)
    expect(scopesAsked()).toEqual(['1:1'])
    // Coin and chain alone, which most orders share, say no more of which order it is.
    world.fake.statusCalls.length = 0
    expect(world.store.orders.get(1, 16)!.status).toBe(0)
    expect(deliver({ orderId: 16, status: 4, coinId: 54, chainId: 1 })).toBe('checking')
    expect(world.store.orders.get(1, 16)!.status).toBe(0)
  })

  it('does not invent an order it has not synced; it asks for a sync of that type instead', async () => {
    monitor.start()
    await world.clock.advance(0)
    world.fake.calls.length = 0
    expect(monitor.ingestWebhookStatus(1, 424242, 5, {})).toBe('unknown')
    expect(world.store.orders.get(1, 424242)).toBeUndefined()
    await world.clock.advance(0)
    expect(scopesAsked()).toEqual(['1:1'])
  })
})

describe('sameOrder', () => {
  const held: HeldIdentity = {
    createdAt: '2024-03-01T10:00:00.123Z',
    coinId: 54,
    chainId: 1,
    walletAddress: '0xAbC1',
    merchantRecognitionId: 'MR-1',
    record: onramp(1, at(1))
  }
  const bare = { ...held, walletAddress: null, merchantRecognitionId: null }
  const body = (over: Record<string, unknown>) => readIdentity({ coinId: 54, chainId: 1, ...over })

  it('compares createdAt to the second (one writer keeps fractions, the other does not)', () => {
    expect(sameOrder(bare, body({ createdAt: '2024-03-01T10:00:00Z' }))).toBe(true)
    expect(sameOrder(bare, body({ createdAt: '2024-03-01T10:00:01Z' }))).toBe(true)
    expect(sameOrder(bare, body({ createdAt: '2024-03-01T10:00:02Z' }))).toBe(false)
  })

  it('reads a zoneless createdAt a zone offset apart (up to 14 h) as the same creation when another field agrees', () => {
    expect(sameOrder(bare, body({ createdAt: '2024-03-01T15:00:00' }))).toBe(true)
    expect(sameOrder(bare, body({ createdAt: '2024-03-01 15:30:00.123' }))).toBe(true)
    expect(sameOrder(bare, body({ createdAt: '2024-02-29T20:00:00' }))).toBe(true)
    // Not a zone offset, or written with a zone, or beyond 14 h, or nothing else to agree.
    expect(sameOrder(bare, body({ createdAt: '2024-03-01T15:07:00' }))).toBe(false)
    expect(sameOrder(bare, body({ createdAt: '2024-03-01T15:00:00Z' }))).toBe(false)
    expect(sameOrder(bare, body({ createdAt: '2024-03-02T01:00:00' }))).toBe(false)
    expect(sameOrder(bare, readIdentity({ createdAt: '2024-03-01T15:00:00' }))).toBe(false)
  })

  it('counts a createdAt apart as another order only when neither the wallet nor the merchant id agrees', () => {
    expect(sameOrder(held, body({ createdAt: '2023-01-01T00:00:00Z', walletAddress: '0xabc1' }))).toBe(true)
    expect(sameOrder(held, body({ createdAt: '2023-01-01T00:00:00Z', merchantRecognitionId: 'MR-1' }))).toBe(true)
    expect(sameOrder(held, body({ createdAt: '2023-01-01T00:00:00Z' }))).toBe(false)
    // A field that differs is another order, whatever else agrees.
    expect(sameOrder(held, body({ createdAt: '2024-03-01T10:00:00.123Z', walletAddress: '0xother', merchantRecognitionId: 'MR-1' }))).toBe(
      false
    )
  })

  it("compares the fiat only with the held record's own", () => {
    const { fiatType: _none, ...unnamed } = held.record
    expect(sameOrder({ ...held, record: unnamed as HeldIdentity['record'] }, body({ fiatType: 3 }))).toBe(true)
    expect(sameOrder(held, body({ fiatType: 3 }))).toBe(false)
    expect(sameOrder(held, body({ fiatType: '1' }))).toBe(true)
  })
})
