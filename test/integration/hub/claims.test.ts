// Claims and notes on the only hub of its data directory: kept in hub.db, copied into its
// order database (copied again at a start when it lacks them), and sent to its desktops.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { EventPayload, OrderClaim, OrderNote } from '../../../src/shared/ipc/contract'
import { startHubFixture, waitUntil, type HubFixture } from './support'

describe('claims and notes on a hub with hub.db', () => {
  let f: HubFixture
  beforeAll(async () => {
    f = await startHubFixture({ sandbox: { orders: 3, seed: 5 } })
  })
  afterAll(() => f?.close())

  it('keeps them in hub.db, sends them to desktops, and copies them from hub.db again at a start', async () => {
    const ana = await f.addOperator('ana', 'operator')
    const order = f.sandbox.control.createOrder({ type: 2, fiatType: 1, hold: true })
    await f.hub.session().monitor.syncNow()
    await waitUntil(() => f.hub.session().store.orders.get(2, order.orderId) !== undefined, 10_000, 'the order')
    const ref = { type: 2, orderId: order.orderId }
    const stream = f.stream(ana)
    await waitUntil(() => stream.states.some((x) => x.connected), 5_000, 'the stream')
    await f.call(ana, 'orders:claim', { ...ref, action: 'claim' })
    const note = await f.call<OrderNote>(ana, 'orders:note', { ...ref, text: 'Asked the customer for another bank' })
    const unknown = await f.rpc(ana, 'orders:note', { type: 2, orderId: 987654321, text: 'lost' })
    expect(unknown.json?.error?.message).toBe('This order is not in the database')
    await stream.waitFor('order:handling', (p: EventPayload<'order:handling'>) => p.note?.id === note.id, 2_000)
    await stream.close()
    // The order database holds a copy only: emptied, the hub copies hub.db's entries again at start.
    f.hub.session().store.database.sql.exec('DELETE FROM order_handling; DELETE FROM order_claims')
    await f.stopHub()
    await f.startHub()
    const token = await f.addOperator('vic', 'viewer')
    const got = await f.call<{ claim: OrderClaim; notes: OrderNote[] }>(token, 'orders:get', ref)
    expect(got.claim.operator).toBe('ana')
    expect(got.notes.map((n) => [n.author, n.text])).toEqual([['ana', 'Asked the customer for another bank']])
    // A viewer reads them, and may neither claim nor note.
    expect((await f.rpc(token, 'orders:claim', { ...ref, action: 'release' })).status).toBe(403)
    expect((await f.rpc(token, 'orders:note', { ...ref, text: 'mine' })).status).toBe(403)
    expect((await f.call<{ notes: unknown[] }>(token, 'orders:get', ref)).notes).toHaveLength(1)
  })
})
