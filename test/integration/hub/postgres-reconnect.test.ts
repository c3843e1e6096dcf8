// Two hubs on one PostgreSQL database when the database drops every connection they hold (a
// restart, a failover of the database, an administrator's pg_terminate_backend): each hub's
// pool, its leader lock and its LISTEN connections come back on their own, one hub leads
// again, and operators, order events and notifications flow as before, with no restart.
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { statusInfo } from '../../../src/shared/domain/status'
import { inTransaction, openPool } from '../../../src/hub/pg/pg-connection'
import { postgresUnavailable } from '../../support/postgres-cluster'
import { startTwoHubs, waitUntil, type TwoHubs } from './support'

/** Each hub listens on at least two connections of its own: operators and watches, and order events. */
const MIN_LISTENERS_PER_HUB = 2

describe.skipIf(postgresUnavailable !== null)('two hubs on PostgreSQL when the database drops every connection', () => {
  let hubs: TwoHubs
  let admin: pg.Client
  const leaders = () => hubs.leaders()
  const follower = () => hubs.follower()

  /** The hubs' backends by application name. */
  async function backends(): Promise<Map<string, number>> {
    const r = await admin.query<{ name: string; n: number }>(
      `SELECT application_name AS name, COUNT(*)::int AS n FROM pg_stat_activity
       WHERE datname = current_database() AND pid <> pg_backend_pid() GROUP BY application_name`
    )
    return new Map(r.rows.map((x) => [x.name, x.n]))
  }

  beforeAll(async () => {
    hubs = await startTwoHubs({ sandbox: { orders: 30, seed: 5 } })
    admin = new pg.Client({ connectionString: hubs.url, application_name: 'the test' })
    await admin.connect()
  })
  afterAll(async () => {
    await admin?.end()
    await hubs?.close()
  })

  it('leads again, listens again and streams order changes after every backend is terminated', async () => {
    const viewer = await hubs.a.addOperator('nell', 'viewer')
    await waitUntil(() => leaders().length === 1, 15_000, 'one leader')
    await waitUntil(async () => (await follower().rpc(viewer, 'team:access')).status === 200, 3_000, 'the viewer on both hubs')
    const listening = async () => (await backends()).get('rampdesk-hub-listen') ?? 0
    await waitUntil(async () => (await listening()) >= 2 * MIN_LISTENERS_PER_HUB, 5_000, 'both hubs listening')
    // Every listener open (the count the same half a second apart): what must come back.
    let listeners = await listening()
    await waitUntil(
      async () => {
        await new Promise((r) => setTimeout(r, 500))
        const now = await listening()
        const steady = now === listeners
        listeners = now
        return steady
      },
      5_000,
      'the listeners steady'
    )
    const onFollower = follower().stream(viewer)
    await waitUntil(() => onFollower.states.some((x) => x.connected), 5_000, 'a stream on the follower')

    const killed = await admin.query<{ n: number }>(
      `SELECT COUNT(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity
       WHERE datname = current_database() AND pid <> pg_backend_pid()`
    )
    expect(killed.rows[0]!.n).toBeGreaterThanOrEqual(listeners + 2)
    const at = Date.now()

    // One leader again (the same or the other), each hub listening again on new connections.
    await waitUntil(() => leaders().length === 1, 15_000, 'one leader after the loss')
    await waitUntil(async () => (await listening()) === listeners, 10_000, `both hubs listening again (${listeners} connections)`)
    const back = Date.now() - at
    // Only one lock holder: the election connection of the leader, none of the follower.
    expect(leaders()).toHaveLength(1)

    // Operators and order events go on: an operator added on one hub is let in on the other,
    // and an order change synced by the leader reaches the follower's stream.
    const later = await hubs.a.addOperator('otto', 'viewer')
    await waitUntil(async () => (await hubs.b.rpc(later, 'team:access')).status === 200, 5_000, 'a new operator on the other hub')
    const order = hubs.sandbox.control.createOrder({ type: 1, fiatType: 1, hold: true })
    const row = (p: { row?: { orderId: number }; orderId?: number }) => p.row?.orderId ?? p.orderId
    await leaders()[0]!.hub.session().monitor.syncNow()
    await onFollower.waitFor('order:created', (p: { orderId: number }) => row(p) === order.orderId, 10_000)
    let last = order
    while (!statusInfo(1, last.status).terminal) last = hubs.sandbox.control.advanceOrder(order.orderId)
    await leaders()[0]!.hub.session().monitor.syncNow()
    await onFollower.waitFor(
      'order:changed',
      (p: { row: { orderId: number }; newStatus: number }) => p.row.orderId === order.orderId && p.newStatus === last.status,
      10_000
    )
    // Both hubs said what they lost, in the log a support engineer reads.
    for (const f of [hubs.a, hubs.b])
      expect(f.logs.join('\n')).toMatch(/notifications were lost|could not be exchanged|connection was lost/)
    console.log(`back after the loss of every connection: one leader and both hubs listening in ${back} ms`)
    await onFollower.close()
  }, 60_000)

  it('a transaction whose connection is lost fails as an error, not an uncaught exception, and the pool hands out a live connection next', async () => {
    const pool = openPool({ url: hubs.url }, 'rampdesk-hub-tx', 1)
    const uncaught: unknown[] = []
    const onUncaught = (e: unknown): void => void uncaught.push(e)
    process.on('uncaughtException', onUncaught)
    try {
      let release!: () => void
      const held = new Promise<void>((r) => (release = r))
      const tx = inTransaction(pool, async (c) => {
        const pid = (await c.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid
        // Lost between two statements: no query of its own is waiting for the error.
        await admin.query('SELECT pg_terminate_backend($1)', [pid])
        await held
        await c.query('SELECT 1')
      })
      await new Promise((r) => setTimeout(r, 300))
      release()
      await expect(tx).rejects.toThrow()
      // The only connection the pool may open was the one lost: the next query gets a new one.
      expect((await pool.query<{ n: number }>('SELECT 1 AS n')).rows[0]!.n).toBe(1)
      expect(uncaught).toEqual([])
    } finally {
      process.off('uncaughtException', onUncaught)
      await pool.end()
    }
  })
})
