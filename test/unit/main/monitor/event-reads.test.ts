// What an order event costs the store: a synced new order is announced by its key, without
// reading the order back (every receiver queries what it shows), and a verified webhook
// that moves an order reads it once, its order:changed carrying the row as written.
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { OrderMonitor } from '../../../../src/main/monitor/order-monitor'
import { toContractRow } from '../../../../src/main/order-rows'
import type { SqlValue } from '../../../../src/main/store/sql'
import { at, onramp } from './fake-history'
import { MonitorWorld } from './monitor-world'

const POLL = 30_000

let world: MonitorWorld
let monitor: OrderMonitor
/** Statements that read one order (by type and id), as run on the store's connection. */
let orderReads: string[]

beforeEach(() => {
  world = new MonitorWorld('event-reads')
  for (let i = 1; i <= 20; i++) world.fake.put(1, 1, onramp(i, at(i)))
  monitor = world.monitor({ historyPollMs: POLL, watchPollMs: 10_000 })
  orderReads = []
  const sql = world.store.database.sql
  for (const method of ['get', 'value', 'all'] as const) {
    const run = sql[method].bind(sql) as (q: string, ...p: SqlValue[]) => unknown
    ;(sql as unknown as Record<string, unknown>)[method] = (q: string, ...p: SqlValue[]) => {
      if (/^\s*SELECT\b[\s\S]*\bFROM orders WHERE type = \? AND order_id = \?/.test(q)) orderReads.push(q)
      return run(q, ...p)
    }
  }
})

afterEach(async () => {
  await monitor.stop()
  world.close()
})

describe('order events and the reads they cost', () => {
  it('announces each order a sync creates by its key alone, reading none of them back', async () => {
    monitor.start()
    await world.clock.advance(0)
    for (let i = 101; i <= 150; i++) world.fake.put(1, 1, onramp(i, at(1000 + i)))
    world.events.length = 0
    orderReads = []
    await world.clock.advance(POLL)
    const created = world.of('order:created')
    expect(created).toEqual(Array.from({ length: 50 }, (_, i) => ({ type: 1, orderId: 101 + i })))
    // The page's own writes read what they write over (one column, per record); nothing reads a whole order.
    expect(orderReads.filter((q) => /^\s*SELECT \* FROM orders/.test(q))).toEqual([])
  })

  it('reads a webhook’s order once for a whole record that moves it, and sends the row as written', async () => {
    await monitor.syncNow()
    world.events.length = 0
    orderReads = []
    expect(monitor.ingestWebhook(1, { ...onramp(3, at(3), 2), transactionHash: '0xfeed' })).toBe('status')
    expect(orderReads).toHaveLength(1)
    const [changed] = world.of('order:changed')
    expect(changed!.row).toEqual(toContractRow(world.store.orders.get(1, 3)!, false))
    expect(changed!.row).toMatchObject({ status: 2, transactionHash: '0xfeed' })
  })

  it('reads a webhook’s order once for a status alone that moves it, and sends the row as written', async () => {
    await monitor.syncNow()
    world.store.watches.add(1, 4)
    world.events.length = 0
    orderReads = []
    expect(monitor.ingestWebhookStatus(1, 4, 2, { merchantRecognitionId: 'm-4' })).toBe('status')
    expect(orderReads).toHaveLength(1)
    const [changed] = world.of('order:changed')
    expect(changed!.row).toEqual(toContractRow(world.store.orders.get(1, 4)!, true))
    expect(changed!.row).toMatchObject({ status: 2, statusConfirmedBy: 'webhook', watched: true })
  })
})
