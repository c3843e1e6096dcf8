// The webhook fast path (webhook-ingest.ts) through the order monitor, over a fake service
// and a real database: which webhook is the order held under its id (sameOrder), and what
// a body that is no whole record may write.
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { OrderMonitor } from '../../../../src/main/monitor/order-monitor'
import { at, onramp } from './fake-history'
import { MonitorWorld } from './monitor-world'

let world: MonitorWorld
let monitor: OrderMonitor

beforeEach(() => {
  world = new MonitorWorld('webhook-ingest')
  for (let i = 1; i <= 30; i++) world.fake.put(1, 1, onramp(i, at(i), i % 3 === 0 ? 4 : 0))
  monitor = world.monitor({ historyPollMs: 30_000, watchPollMs: 10_000 })
})

afterEach(async () => {
  await monitor.stop()
  world.close()
})

/** The scopes history was asked about (type:fiat), each once. */
const scopesAsked = () => [...new Set(world.fake.calls.map((c) => `${c.type}:${c.fiatType}`))]

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
    // Its status stands over the snapshot it followed (the same updatedAt), as a whole record's does.
    await monitor.resyncAll()
    expect(world.store.orders.get(1, 2)!.status).toBe(4)
  })

  it('writes nothing over a held order when the webhook is another order under the same id (a dummy, the other type)', async () => {
    await monitor.syncNow()
    const held = world.store.orders.get(1, 1)!
    // A dummy webhook's made-up order numbered 1: another fiat, wallet, creation.
    const dummy = { ...onramp(1, at(9000), 4, 2, '2026-11-24T10:00:00.000Z'), walletAddress: '0xdummy' }
    expect(monitor.ingestWebhook(1, dummy)).toBe('mismatch')
    // An offramp order numbered 1 whose body (no eventType) reads as an onramp record.
    expect(monitor.ingestWebhook(1, { ...onramp(1, at(9000), 4), createdAt: '2023-05-05T00:00:00.000Z' })).toBe('mismatch')
    expect(monitor.ingestWebhook(1, { ...onramp(1, at(9000), 4), coinId: 99 })).toBe('mismatch')
    expect(world.store.orders.get(1, 1)).toEqual(held)
    expect(world.of('order:changed')).toHaveLength(0)
    // The same order, its creation written another way and its wallet in other case: applied.
    const same = { ...onramp(1, at(9000), 5), createdAt: '2022-01-01T00:00:00Z', walletAddress: held.walletAddress!.toUpperCase() }
    expect(monitor.ingestWebhook(1, same)).toBe('status')
    expect(world.store.orders.get(1, 1)!.status).toBe(5)
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
  it('moves a known open order to the status, with source webhook, and never moves a terminal one', async () => {
    await monitor.syncNow()
    expect(world.store.orders.get(1, 1)!.status).toBe(0)
    expect(monitor.ingestWebhookStatus(1, 1, 15)).toBe('status')
    expect(world.store.orders.get(1, 1)).toMatchObject({ status: 15, statusSource: 'webhook' })
    expect(world.of('order:changed').map((c) => [c.row.orderId, c.oldStatus, c.newStatus, c.terminal])).toEqual([[1, 0, 15, true]])
    expect(world.of('order:terminal')[0]).toMatchObject({ source: 'webhook', status: 15 })
    expect(monitor.ingestWebhookStatus(1, 1, 15)).toBe('unchanged')
    // Undated: a late delivery of another terminal status cannot be told from a newer one.
    expect(monitor.ingestWebhookStatus(1, 1, 4)).toBe('stale')
    expect(world.store.orders.get(1, 1)!.status).toBe(15)
    expect(world.of('order:changed')).toHaveLength(1)
  })

  it('does not invent an order it has not synced; it asks for a sync of that type instead', async () => {
    monitor.start()
    await world.clock.advance(0)
    world.fake.calls.length = 0
    expect(monitor.ingestWebhookStatus(1, 424242, 5)).toBe('unknown')
    expect(world.store.orders.get(1, 424242)).toBeUndefined()
    await world.clock.advance(0)
    expect(scopesAsked()).toEqual(['1:1'])
  })
})
