// A follower hub copies the leader's order rows into its own order database. A leader of a
// newer version sends columns this hub does not have yet (a rolling upgrade): the row is
// copied without them, not refused every round. The leader's confirmations travel apart.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type pg from 'pg'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { openPool } from '../../../../src/hub/pg/pg-connection'
import { migrate } from '../../../../src/hub/pg/pg-migrations'
import { PgOrderFeed, upsertOrder } from '../../../../src/hub/pg/pg-order-feed'
import { openLocalStore, type LocalStore } from '../../../../src/main/store/local-store'
import { onramp } from '../../main/store/order-fixtures'
import { postgresUnavailable, startPostgres, type PgCluster } from '../../../support/postgres-cluster'
import { oneFiat } from '../../../../src/shared/domain/fiat-scope'

let dir: string
let store: LocalStore

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rampdesk-feed-'))
  store = openLocalStore(dir)
})
afterEach(() => {
  store.close()
  rmSync(dir, { recursive: true, force: true })
})

describe('upsertOrder (a leader row onto this hub)', () => {
  it("copies a row with a column this hub's orders table lacks, leaving that column out", () => {
    store.orders.applyHistoryPage({ type: 1, fiatType: 1, records: [onramp({ orderId: 7, status: 0 })] as never })
    const { id: _id, ...row } = store.database.sql.get<Record<string, string | number | null>>('SELECT * FROM orders WHERE order_id = 7')!
    upsertOrder(store.database.sql, { ...row, status: 4, a_column_of_a_newer_hub: 'x' })
    expect(store.orders.get(1, 7)!.status).toBe(4)
    upsertOrder(store.database.sql, { ...row, order_id: 8, a_column_of_a_newer_hub: 'x' })
    expect(store.orders.get(1, 8)).toBeDefined()
  })
})

// The leader's writes that only confirm a status (every history poll confirms every open
// order it did not change) or note a check reach the followers as one compact entry, not
// as a new version of every open order's row; any other change is still a row version.
describe.skipIf(postgresUnavailable !== null)('PgOrderFeed: rows and confirmations, leader to follower', () => {
  const N = 40
  let cluster: PgCluster
  let pool: pg.Pool
  let follower: LocalStore
  let followerDir: string
  beforeAll(async () => {
    cluster = await startPostgres()
  })
  afterAll(async () => {
    await cluster?.stop()
  })
  beforeEach(async () => {
    pool = openPool({ url: await cluster.createDatabase() })
    await migrate(pool)
    followerDir = mkdtempSync(join(tmpdir(), 'rampdesk-feed-follower-'))
    follower = openLocalStore(followerDir)
  })
  afterEach(async () => {
    follower.close()
    rmSync(followerDir, { recursive: true, force: true })
    await pool.end()
  })

  const rowVersions = async () =>
    (await pool.query<{ n: number; top: number }>('SELECT COUNT(*)::int AS n, COALESCE(MAX(version), 0)::int AS top FROM order_rows'))
      .rows[0]!
  const portable = (s: LocalStore) =>
    s.database.sql.all<Record<string, unknown>>('SELECT * FROM orders ORDER BY type, order_id').map(({ id: _id, ...row }) => row)
  /** The follower applies everything the database has; answers the types of the orders whose rows changed. */
  async function follow(feed: PgOrderFeed, from: number): Promise<{ at: number; types: number[] }> {
    const types = new Set<number>()
    let at = from
    for (let r = await feed.applyRows(at); r !== null; r = await feed.applyRows(at)) {
      at = r.version
      for (const t of r.types) types.add(t)
    }
    return { at, types: [...types] }
  }

  it('a poll that only confirms N open orders publishes no row version; a real change still publishes one', async () => {
    const leaderFeed = new PgOrderFeed(pool, () => store.database.sql)
    const followerFeed = new PgOrderFeed(pool, () => follower.database.sql)
    await leaderFeed.publishRows() // marking starts
    const records = Array.from({ length: N }, (_, i) => onramp({ orderId: 100 + i, status: 0, updatedAt: '2024-03-01T10:00:00.000Z' }))
    store.orders.applyHistoryPage({ type: 1, fiatType: 1, records } as never)
    expect(await leaderFeed.publishRows()).toBe(N)
    const first = await follow(followerFeed, 0)
    expect(first.types).toEqual([1])
    const published = await rowVersions()
    expect(published.n).toBe(N)

    // The poll: every open order unchanged since before it, confirmed at its start.
    expect(store.orders.confirmUnchanged(1, oneFiat(1), '2024-03-02T00:00:00.000Z', '2030-01-01T07:00:00.000Z')).toBe(N)
    // The sweep: one order asked, its check noted.
    store.orders.noteStatusCheck(1, 105, false, '2030-01-01T07:00:01.000Z')
    expect(await leaderFeed.publishRows()).toBe(0)
    expect(await rowVersions()).toEqual(published)
    expect(await leaderFeed.publishConfirmations()).toBe(N + 1)
    expect(await leaderFeed.publishConfirmations()).toBe(0)
    const entries = await pool.query<{ json: string }>('SELECT json FROM order_confirmations')
    expect(entries.rows).toHaveLength(1)
    expect(entries.rows[0]!.json.length).toBeLessThan(40 * N)
    const confirmed = await follow(followerFeed, first.at)
    expect(confirmed.types).toEqual([])
    expect(portable(follower)).toEqual(portable(store))
    expect(follower.orders.get(1, 130)!.statusConfirmedAt).toBe('2030-01-01T07:00:00.000Z')
    expect(follower.orders.get(1, 105)).toMatchObject({ statusCheckedAt: '2030-01-01T07:00:01.000Z', statusCheckFailures: 1 })

    // A change that is not a confirmation (a corrected amount: no event) is one row version.
    const amended = { ...(store.orders.get(1, 110)!.record as object), fiatAmount: '4321.5' }
    expect(store.orders.applyRecord(1, amended as never, 'webhook').kind).toBe('updated')
    expect(await leaderFeed.publishRows()).toBe(1)
    expect(await leaderFeed.publishConfirmations()).toBe(0)
    const after = await rowVersions()
    expect(after).toEqual({ n: N, top: expect.any(Number) as number })
    expect(after.top).toBeGreaterThan(published.top)
    const changed = await follow(followerFeed, confirmed.at)
    expect(changed.types).toEqual([1])
    expect(follower.orders.get(1, 110)!.fiatAmount).toBe('4321.5')
    expect(portable(follower)).toEqual(portable(store))
  })

  it('applies rows and confirmations in the order the leader published them: an older confirmation never undoes a newer row', async () => {
    const leaderFeed = new PgOrderFeed(pool, () => store.database.sql)
    const followerFeed = new PgOrderFeed(pool, () => follower.database.sql)
    await leaderFeed.publishRows()
    store.orders.applyHistoryPage({ type: 1, fiatType: 1, records: [onramp({ orderId: 7, status: 0 })] } as never)
    await leaderFeed.publishRows()
    expect(store.orders.confirmUnchanged(1, oneFiat(1), '2024-03-02T00:00:00.000Z', '2030-01-01T07:00:00.000Z')).toBe(1)
    expect(await leaderFeed.publishConfirmations()).toBe(1)
    // Then its status moves (confirmed by the watch that saw it, later).
    store.orders.applyStatus(1, 7, 1, 'watch', '2030-01-01T07:05:00.000Z')
    await leaderFeed.publishRows()
    await follow(followerFeed, 0)
    expect(follower.orders.get(1, 7)).toMatchObject({
      status: 1,
      statusConfirmedAt: '2030-01-01T07:05:00.000Z',
      statusConfirmedBy: 'orderStatus'
    })
    expect(portable(follower)).toEqual(portable(store))
  })

  it('goes on past a batch of confirmations that were all of orders deleted since: those marks are taken, not the end', async () => {
    const leaderFeed = new PgOrderFeed(pool, () => store.database.sql)
    const followerFeed = new PgOrderFeed(pool, () => follower.database.sql)
    await leaderFeed.publishRows()
    const records = [1, 2, 3].map((orderId) => onramp({ orderId, status: 0, updatedAt: '2024-03-01T10:00:00.000Z' }))
    store.orders.applyHistoryPage({ type: 1, fiatType: 1, records } as never)
    await leaderFeed.publishRows()
    const first = await follow(followerFeed, 0)
    expect(store.orders.confirmUnchanged(1, oneFiat(1), '2024-03-02T00:00:00.000Z', '2030-01-01T07:00:00.000Z')).toBe(3)
    // The first two marked orders are gone from the leader's copy before it publishes.
    store.database.sql.run('DELETE FROM orders WHERE type = 1 AND order_id IN (1, 2)')
    // A batch of two: both marks of deleted orders, taken (the feed's loop goes on), then the third.
    expect(await leaderFeed.publishConfirmations(2)).toBe(2)
    expect(await leaderFeed.publishConfirmations(2)).toBe(1)
    expect(await leaderFeed.publishConfirmations(2)).toBe(0)
    await follow(followerFeed, first.at)
    expect(follower.orders.get(1, 3)!.statusConfirmedAt).toBe('2030-01-01T07:00:00.000Z')
  })
})
