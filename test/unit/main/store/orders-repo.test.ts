import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { Sql } from '../../../../src/main/store/sql'
import { openLocalStore, type LocalStore } from '../../../../src/main/store/local-store'
import { NO_FIAT } from '../../../../src/main/store/order-counts'
import type { OnrampOrder } from '../../../../src/shared/api/schemas'
import { offramp, onramp } from './order-fixtures'
import { oneFiat } from '../../../../src/shared/domain/fiat-scope'

let dir: string
let store: LocalStore
let clock: Date

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rampdesk-orders-'))
  clock = new Date('2024-05-01T00:00:00.000Z')
  store = openLocalStore(dir, { now: () => clock })
})
afterEach(() => {
  store.close()
  rmSync(dir, { recursive: true, force: true })
})

const tick = (ms = 1000): void => {
  clock = new Date(clock.getTime() + ms)
}

describe('applyHistoryPage', () => {
  it('stores new orders with every field, amounts as exact decimal strings, and a first-sighting event', () => {
    const a = onramp({ orderId: 1, status: 0 })
    const b = onramp({ orderId: 2, status: 4, actualCryptoAmount: 11.98, actualPrice: 83.41, updatedAt: '2024-03-01T10:05:00.000Z' })
    const r = store.orders.applyHistoryPage({ type: 1, fiatType: 1, records: [a, b] })
    expect(r.created.map((c) => [c.orderId, c.status])).toEqual([
      [1, 0],
      [2, 4]
    ])
    expect(r.statusChanged).toEqual([])
    expect(r.unchanged).toBe(0)

    const row = store.orders.get(1, 2)!
    expect(row).toMatchObject({
      type: 1,
      orderId: 2,
      status: 4,
      fiatType: 1,
      coinId: 54,
      chainId: 1,
      paymentType: 1,
      walletAddress: '0xAbC0000000000000000000000000000000000001',
      merchantRecognitionId: 'MR-1001',
      referenceId: 'UPI-REF-1',
      transactionHash: '0xdeadbeef01',
      fiatAmount: '1000',
      expectedCryptoAmount: '11.99',
      actualCryptoAmount: '11.98',
      actualPrice: '83.41',
      onrampFee: '0.008157600000000001',
      gasFee: '0.5',
      gatewayFee: '1.18',
      tdsFee: null,
      statusSource: 'sync',
      firstSeenAt: clock.toISOString(),
      lastChangedAt: clock.toISOString()
    })
    expect(row.record).toEqual(b)
    expect(store.orders.timeline(1, 2)).toEqual([
      {
        id: expect.any(Number),
        type: 1,
        orderId: 2,
        at: clock.toISOString(),
        orderUpdatedAt: b.updatedAt,
        oldStatus: null,
        newStatus: 4,
        source: 'sync'
      }
    ])
  })

  it('skips identical content, records status transitions and content-only updates, ignores older snapshots', () => {
    const v1 = onramp({ orderId: 7, status: 0 })
    store.orders.applyHistoryPage({ type: 1, fiatType: 1, records: [v1] })
    const firstChanged = store.orders.get(1, 7)!.lastChangedAt

    tick()
    // Same content with keys in another order: unchanged, not rewritten.
    const reordered = Object.fromEntries(Object.entries(v1).reverse()) as OnrampOrder
    const same = store.orders.applyHistoryPage({ type: 1, fiatType: 1, records: [reordered] })
    expect(same).toMatchObject({ created: [], statusChanged: [], updated: [], unchanged: 1, stale: 0 })
    expect(store.orders.get(1, 7)!.lastChangedAt).toBe(firstChanged)

    tick()
    const v2 = onramp({ orderId: 7, status: 2, updatedAt: '2024-03-01T10:01:00.000Z' })
    const moved = store.orders.applyHistoryPage({ type: 1, fiatType: 1, records: [v2] })
    expect(moved.statusChanged).toEqual([{ type: 1, orderId: 7, old: 0, new: 2 }])
    expect(store.orders.get(1, 7)!.lastChangedAt).toBe(clock.toISOString())

    tick()
    const v3 = onramp({ orderId: 7, status: 2, updatedAt: '2024-03-01T10:02:00.000Z', transactionHash: '0xfeed' })
    const touched = store.orders.applyHistoryPage({ type: 1, fiatType: 1, records: [v3] })
    expect(touched.updated.map((u) => u.orderId)).toEqual([7])
    expect(touched.statusChanged).toEqual([])
    expect(store.orders.get(1, 7)!.transactionHash).toBe('0xfeed')

    const old = store.orders.applyHistoryPage({ type: 1, fiatType: 1, records: [v1] })
    expect(old.stale).toBe(1)
    expect(store.orders.get(1, 7)!.status).toBe(2)

    expect(store.orders.timeline(1, 7).map((e) => [e.oldStatus, e.newStatus])).toEqual([
      [null, 0],
      [0, 2]
    ])
  })

  it('keeps onramp and offramp orders with the same id apart; offramp without fiatType takes the scope', () => {
    store.orders.applyHistoryPage({ type: 1, fiatType: 1, records: [onramp({ orderId: 5 })] })
    const r = store.orders.applyHistoryPage({ type: 2, fiatType: 3, records: [offramp({ orderId: 5 })] })
    expect(r.created).toHaveLength(1)
    const row = store.orders.get(2, 5)!
    expect(row).toMatchObject({
      type: 2,
      fiatType: 3,
      actualFiatAmount: '2091',
      expectedQuantity: '25.5',
      tdsFee: '20.91',
      onrampFee: '2.1'
    })
    expect(store.orders.get(1, 5)!.fiatType).toBe(1)
    expect(store.orders.count()).toBe(2)
  })

  it('is all or nothing: a page that fails part-way leaves no order and no cursor change', () => {
    store.orders.applyHistoryPage({ type: 1, fiatType: 1, records: [onramp({ orderId: 1 })] })
    const before = store.syncCursors.get(1, 1)
    const broken = { ...onramp({ orderId: 3 }), coinId: undefined } as unknown as OnrampOrder
    expect(() =>
      store.orders.applyHistoryPage({
        type: 1,
        fiatType: 1,
        records: [onramp({ orderId: 2, updatedAt: '2024-04-01T00:00:00.000Z' }), broken]
      })
    ).toThrow()
    expect(store.orders.get(1, 2)).toBeUndefined()
    expect(store.syncCursors.get(1, 1)).toEqual(before)
    expect(store.orders.count()).toBe(1)
  })
})

describe('exportRows', () => {
  it('keeps streaming while pages are committed between rows (an export awaits its file writes)', () => {
    store.orders.applyHistoryPage({ type: 1, fiatType: 1, records: Array.from({ length: 50 }, (_, i) => onramp({ orderId: i + 1 })) })
    const seen: number[] = []
    let n = 0
    for (const row of store.orders.exportRows({ type: 1, sort: { key: 'orderId', dir: 'asc' } })) {
      seen.push(row.orderId)
      if (++n % 10 === 0) {
        store.orders.applyHistoryPage({
          type: 1,
          fiatType: 1,
          records: [onramp({ orderId: 1000 + n, updatedAt: '2024-04-01T00:00:00.000Z' })]
        })
      }
    }
    expect(seen.slice(0, 50)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1))
    expect(store.orders.count(1)).toBe(55)
  })
})

describe('applyStatus and applyRecord', () => {
  it('records a watched status change, and a later snapshot with the same updatedAt does not revert it', () => {
    const v1 = onramp({ orderId: 11, status: 0 })
    store.orders.applyHistoryPage({ type: 1, fiatType: 1, records: [v1] })
    store.watches.add(1, 11)

    tick()
    const r = store.orders.applyStatus(1, 11, 2, 'watch')
    expect(r).toEqual({ known: true, change: { type: 1, orderId: 11, old: 0, new: 2 } })
    expect(store.orders.get(1, 11)).toMatchObject({ status: 2, statusSource: 'watch' })
    expect(store.orders.get(1, 11)!.record.status).toBe(2)
    expect(store.watches.get(1, 11)).toMatchObject({ lastStatus: 2, lastCheckedAt: clock.toISOString() })
    expect(store.orders.applyStatus(1, 11, 2, 'watch')).toEqual({ known: true, change: null })

    // The history page still carries the old snapshot (same updatedAt, old status).
    const stalePage = store.orders.applyHistoryPage({ type: 1, fiatType: 1, records: [v1] })
    expect(stalePage.statusChanged).toEqual([])
    expect(store.orders.get(1, 11)!.status).toBe(2)

    // A newer snapshot wins.
    const v2 = onramp({ orderId: 11, status: 4, updatedAt: '2024-03-01T11:00:00.000Z' })
    const newer = store.orders.applyHistoryPage({ type: 1, fiatType: 1, records: [v2] })
    expect(newer.statusChanged).toEqual([{ type: 1, orderId: 11, old: 2, new: 4 }])
    expect(store.orders.timeline(1, 11).map((e) => [e.oldStatus, e.newStatus, e.source])).toEqual([
      [null, 0, 'sync'],
      [0, 2, 'watch'],
      [2, 4, 'sync']
    ])
  })

  it('a verified webhook about an order marked gone clears the mark: its status alone, or its whole record', () => {
    store.orders.applyHistoryPage({
      type: 1,
      fiatType: 1,
      records: [onramp({ orderId: 41, status: 0 }), onramp({ orderId: 42, status: 0 })]
    })
    store.orders.markGone(1, 41)
    store.orders.markGone(1, 42)
    tick()
    store.orders.applyStatus(1, 41, 4, 'webhook', undefined, 'partial')
    expect(store.orders.get(1, 41)).toMatchObject({ status: 4, goneAt: null })
    store.orders.applyRecord(1, onramp({ orderId: 42, status: 4, updatedAt: '2024-03-01T12:00:00.000Z' }), 'webhook')
    expect(store.orders.get(1, 42)).toMatchObject({ status: 4, goneAt: null })
  })

  it('keeps the status of a watched order sync has not seen on the watch only', () => {
    store.watches.add(2, 77, 'customer call')
    expect(store.orders.applyStatus(2, 77, 5, 'watch')).toEqual({ known: false, change: null })
    expect(store.watches.get(2, 77)).toMatchObject({ label: 'customer call', lastStatus: 5 })
    expect(store.orders.get(2, 77)).toBeUndefined()
  })

  it('applies a full webhook record', () => {
    const created = store.orders.applyRecord(1, onramp({ orderId: 31, status: 4 }), 'webhook')
    expect(created.kind).toBe('created')
    const moved = store.orders.applyRecord(1, onramp({ orderId: 31, status: 5, updatedAt: '2024-03-01T12:00:00.000Z' }), 'webhook')
    expect(moved).toMatchObject({ kind: 'status', change: { old: 4, new: 5 } })
    expect(store.orders.applyRecord(1, onramp({ orderId: 31, status: 5, updatedAt: '2024-03-01T12:00:00.000Z' }), 'webhook').kind).toBe(
      'unchanged'
    )
    expect(store.orders.timeline(1, 31).map((e) => e.source)).toEqual(['webhook', 'webhook'])
  })

  it('lets a history snapshot of equal updatedAt undo a webhook status matched on a few fields, not one matched by a whole record', () => {
    const v1 = onramp({ orderId: 12, status: 2 })
    store.orders.applyHistoryPage({ type: 1, fiatType: 1, records: [v1] })
    // A body that was no whole record: its status alone, matched on the fields it gave.
    tick()
    store.orders.applyStatus(1, 12, 4, 'webhook', undefined, 'partial')
    expect(store.orders.get(1, 12)).toMatchObject({ status: 4, statusSource: 'webhook' })
    // The service's record, the same updatedAt: it is the service's word, so it stands.
    tick()
    expect(store.orders.applyHistoryPage({ type: 1, fiatType: 1, records: [v1] }).statusChanged).toEqual([
      { type: 1, orderId: 12, old: 4, new: 2 }
    ])
    expect(store.orders.get(1, 12)).toMatchObject({ status: 2, statusSource: 'sync' })
    // A whole record's webhook status (its updatedAt the order's) stands over the same snapshot, as a watch's does.
    tick()
    store.orders.applyStatus(1, 12, 4, 'webhook', undefined, 'whole')
    expect(store.orders.applyHistoryPage({ type: 1, fiatType: 1, records: [v1] }).statusChanged).toEqual([])
    expect(store.orders.get(1, 12)!.status).toBe(4)
    // So does one written by applyRecord (only whole records reach it).
    store.orders.applyHistoryPage({ type: 1, fiatType: 1, records: [onramp({ orderId: 13, status: 2 })] })
    store.orders.applyRecord(1, onramp({ orderId: 13, status: 4 }), 'webhook')
    expect(store.orders.applyHistoryPage({ type: 1, fiatType: 1, records: [onramp({ orderId: 13, status: 2 })] }).statusChanged).toEqual([])
    expect(store.orders.get(1, 13)!.status).toBe(4)
  })

  it('rejects an unknown order type', () => {
    expect(() => store.orders.applyStatus(3 as 1, 1, 1, 'watch')).toThrow(RangeError)
  })
})

describe('query totals', () => {
  it('keeps a total between writes and counts again after any write, by this connection or another', () => {
    store.orders.applyHistoryPage({ type: 1, fiatType: 1, records: [onramp({ orderId: 1, status: 0 }), onramp({ orderId: 2, status: 4 })] })
    const all = () => store.orders.query({ type: 1 }).total
    const done = () => store.orders.query({ type: 1, statuses: [4] }).total
    expect([all(), done(), all()]).toEqual([2, 1, 2])

    // A status change through this connection.
    tick()
    store.orders.applyStatus(1, 1, 4, 'watch')
    expect([all(), done()]).toEqual([2, 2])

    // A commit by another connection to the same file.
    const other = openLocalStore(dir, { now: () => clock })
    try {
      other.orders.applyHistoryPage({ type: 1, fiatType: 1, records: [onramp({ orderId: 3, status: 4 })] })
    } finally {
      other.close()
    }
    expect([all(), done()]).toEqual([3, 3])
  })

  it('does not keep a total counted inside a transaction that is then rolled back', () => {
    const sql = (store as unknown as { orders: { sql: Sql } }).orders.sql
    expect(() =>
      sql.transaction(() => {
        store.orders.applyHistoryPage({ type: 1, fiatType: 1, records: [onramp({ orderId: 1, status: 0 })] })
        expect(store.orders.query({ type: 1 }).total).toBe(1)
        throw new Error('abandon')
      })
    ).toThrow('abandon')
    expect(store.orders.query({ type: 1 }).total).toBe(0)
  })
})

describe('order counts (migration 12)', () => {
  const sqlOf = (s: LocalStore): Sql => s.database.sql
  /** order_counts' rows that hold orders, against the same grouping counted over every order. */
  const kept = (s: LocalStore) =>
    sqlOf(s).all('SELECT type, status, fiat_type, coin_id, chain_id, gone, n FROM order_counts WHERE n > 0 ORDER BY 1, 2, 3, 4, 5, 6')
  const counted = (s: LocalStore) =>
    sqlOf(s).all(
      `SELECT type, status, IFNULL(fiat_type, ${NO_FIAT}) AS fiat_type, coin_id, chain_id, gone_at IS NOT NULL AS gone, COUNT(*) AS n
       FROM orders GROUP BY 1, 2, 3, 4, 5, 6 ORDER BY 1, 2, 3, 4, 5, 6`
    )

  it("follow every insert, status change, gone mark and its clearing, webhook record, delete, and another connection's writes", () => {
    store.orders.applyHistoryPage({
      type: 1,
      fiatType: 1,
      records: [1, 2, 3, 4].map((orderId) => onramp({ orderId, status: orderId % 2 === 0 ? 4 : 0, coinId: orderId < 3 ? 54 : 1 }))
    })
    store.orders.applyHistoryPage({ type: 2, fiatType: 1, records: [offramp({ orderId: 10, status: 0 })] })
    expect(kept(store)).toEqual(counted(store))
    tick()
    store.orders.applyStatus(1, 1, 4, 'watch')
    store.orders.markGone(1, 3)
    // A webhook's whole record of an order no sync has seen, without a fiat type.
    store.orders.applyRecord(2, offramp({ orderId: 11, status: 1 }), 'webhook')
    expect(kept(store)).toEqual(counted(store))
    expect(counted(store)).toContainEqual({ type: 2, status: 1, fiat_type: NO_FIAT, coin_id: 54, chain_id: 2, gone: 0, n: 1 })
    tick()
    // The gone mark cleared by a newer record, with another coin and fiat.
    store.orders.applyRecord(1, onramp({ orderId: 3, status: 4, coinId: 7, fiatType: 2, updatedAt: '2024-03-02T10:00:00.000Z' }), 'webhook')
    sqlOf(store).run('DELETE FROM orders WHERE type = 1 AND order_id = 4')
    const other = openLocalStore(dir, { now: () => clock })
    try {
      other.orders.applyHistoryPage({ type: 1, fiatType: 2, records: [onramp({ orderId: 5, status: 4, fiatType: 2 })] })
    } finally {
      other.close()
    }
    expect(kept(store)).toEqual(counted(store))
    expect(store.orders.count()).toBe(6)
    expect(store.orders.count(1)).toBe(4)
    expect(store.orders.fiatCounts(2)).toEqual([
      { fiatType: null, orders: 1 },
      { fiatType: 1, orders: 1 }
    ])
    expect(store.orders.countScope(1, oneFiat(2))).toBe(2)
    expect(store.orders.query({ type: 1, statuses: [4], fiatType: 2 }).total).toBe(2)
    // -1 is an id a filter may ask for: it finds no order of no fiat.
    expect(store.orders.query({ type: 2, fiatType: -1 })).toEqual({ rows: [], total: 0, totalAtLeast: false })
  })

  it('are counted again from the rows when the completeness audit finds them disagreeing, and the audit log says so', () => {
    store.orders.applyHistoryPage({ type: 1, fiatType: 1, records: [1, 2, 3].map((orderId) => onramp({ orderId, status: 4 })) })
    store.orders.markGone(1, 3)
    const rebuilt = () => store.audit.list({ action: 'orders.counts_rebuilt' }).rows.map((e) => e.detail)
    expect(store.orders.countScope(1, oneFiat(1), { listedOnly: true, fromRows: true })).toBe(2)
    expect(rebuilt()).toEqual([])
    // A drift no trigger made (a write that bypassed them).
    sqlOf(store).run('UPDATE order_counts SET n = n + 5 WHERE type = 1 AND gone = 0')
    expect(store.orders.countScope(1, oneFiat(1), { listedOnly: true })).toBe(7)
    expect(store.orders.countScope(1, oneFiat(1), { listedOnly: true, fromRows: true })).toBe(2)
    expect(kept(store)).toEqual(counted(store))
    expect(store.orders.query({ type: 1 }).total).toBe(3)
    expect(rebuilt()).toEqual([{ type: 1, fiatType: 1, kept: 7, counted: 2 }])
  })

  it('are counted from the orders already held when the migration runs on an older database', () => {
    store.orders.applyHistoryPage({ type: 1, fiatType: 1, records: [1, 2, 3].map((orderId) => onramp({ orderId, status: orderId })) })
    store.orders.markGone(1, 2)
    // Back to version 11: no counts table, no triggers; an order written meanwhile.
    sqlOf(store).exec(`DROP TRIGGER order_counts_insert; DROP TRIGGER order_counts_delete; DROP TRIGGER order_counts_update;
      DROP TABLE order_counts; DELETE FROM schema_migrations WHERE version = 12`)
    store.orders.applyHistoryPage({ type: 1, fiatType: 1, records: [onramp({ orderId: 4, status: 4 })] })
    store.close()
    store = openLocalStore(dir, { now: () => clock })
    expect(kept(store)).toEqual(counted(store))
    expect(store.orders.query({ type: 1 }).total).toBe(4)
    expect(store.orders.query({ type: 1, listed: true }).total).toBe(3)
  })

  it('settle a broad search as "at least the cap" from one source\'s capped count, without the union of every source', () => {
    store.orders.applyHistoryPage({
      type: 1,
      fiatType: 1,
      records: Array.from({ length: 20 }, (_, i) => onramp({ orderId: i + 1, walletAddress: `0xab${i}` }))
    })
    // Not collected (search-set.ts): the plan for a search with too many matches to collect.
    Object.assign(store.orders.searchPlan, { broadMatches: 1, totalCap: 5, setBound: 0 })
    const sql = sqlOf(store)
    const statements: string[] = []
    const value = sql.value.bind(sql)
    sql.value = ((text: string, ...params: never[]) => (statements.push(text), value(text, ...params))) as typeof sql.value
    expect(store.orders.query({ type: 1, search: '0x' })).toMatchObject({ total: 5, totalAtLeast: true })
    expect(statements.filter((t) => t.includes('UNION'))).toEqual([])
    // No source over the cap: the union counts them.
    store.orders.searchPlan.totalCap = 50
    expect(store.orders.query({ type: 1, search: '0x' })).toMatchObject({ total: 20, totalAtLeast: false })
    expect(statements.filter((t) => t.includes('UNION'))).toHaveLength(1)
  })

  it("find every source's matches of a search, each order once, whichever plan answers: order ids, texts, values starting with it", () => {
    const at = (i: number) => new Date(Date.UTC(2024, 0, 1) + i * 60_000).toISOString()
    store.orders.applyHistoryPage({
      type: 1,
      fiatType: 1,
      records: [
        onramp({ orderId: 7701, updatedAt: at(1) }),
        // Its wallet and its reference both hold the text: found once.
        onramp({ orderId: 12, walletAddress: '0xb7701c', merchantRecognitionId: 'mr-7701', updatedAt: at(2) }),
        onramp({ orderId: 13, walletAddress: '77ab', updatedAt: at(3) }),
        onramp({ orderId: 14, merchantRecognitionId: '77-x', updatedAt: at(4) }),
        ...Array.from({ length: 30 }, (_, i) => onramp({ orderId: 100 + i, updatedAt: at(10 + i) }))
      ]
    })
    const shipped = { ...store.orders.searchPlan }
    for (const plan of [{}, { maxWalkedEntries: 1_000_000 }, { maxWalkedEntries: 0, setMatchCost: 0 }]) {
      Object.assign(store.orders.searchPlan, shipped, plan)
      const found = (search: string) => store.orders.query({ type: 1, search, sort: { key: 'updatedAt', dir: 'asc' } })
      expect(found('7701'), JSON.stringify(plan)).toMatchObject({ total: 2, totalAtLeast: false })
      expect(found('7701').rows.map((r) => r.orderId)).toEqual([7701, 12])
      // One or two characters: an order id, a wallet and a reference starting with them.
      expect(found('77').rows.map((r) => r.orderId)).toEqual([7701, 13, 14])
      expect(store.orders.totalUpTo({ type: 1, search: '77' })).toEqual({ total: 3, atLeast: false })
    }
  })

  it("find a sparse status list's window in the status index, and answer a window past the total without looking", () => {
    const records = Array.from({ length: 3000 }, (_, i) =>
      onramp({ orderId: i + 1, status: i % 1000 === 7 ? 0 : 4, updatedAt: new Date(Date.UTC(2024, 0, 1) + i * 60_000).toISOString() })
    )
    store.orders.applyHistoryPage({ type: 1, fiatType: 1, records })
    const sql = sqlOf(store)
    const statements: string[] = []
    const all = sql.all.bind(sql)
    sql.all = ((text: string, ...params: never[]) => (statements.push(text), all(text, ...params))) as typeof sql.all
    store.orders.searchPlan.maxWalkedEntries = 100 // 3,000 orders stand for a large store
    const sparse = store.orders.query({ type: 1, statuses: [0, 1, 2], sort: { key: 'updatedAt', dir: 'desc' }, limit: 2 })
    expect(sparse.rows.map((r) => r.orderId)).toEqual([2008, 1008])
    expect(sparse.total).toBe(3)
    expect(statements.filter((t) => t.includes('INDEXED BY orders_by_status'))).toHaveLength(1)
    statements.length = 0
    // A dense one walks the sort's index.
    expect(
      store.orders.query({ type: 1, statuses: [4], sort: { key: 'updatedAt', dir: 'desc' }, limit: 2 }).rows.map((r) => r.orderId)
    ).toEqual([3000, 2999])
    expect(statements.filter((t) => t.includes('INDEXED BY orders_by_status'))).toHaveLength(0)
    statements.length = 0
    expect(store.orders.query({ type: 1, statuses: [1, 2], limit: 50 })).toEqual({ rows: [], total: 0, totalAtLeast: false })
    expect(store.orders.query({ type: 1, statuses: [0], offset: 3 })).toEqual({ rows: [], total: 3, totalAtLeast: false })
    expect(statements.filter((t) => t.includes('FROM orders'))).toEqual([])
  })
})

describe('confirmUnchanged', () => {
  it('confirms the open orders last changed before the instant, not terminal ones, and not one whose newer record could not be read', () => {
    const old = '2024-03-01T10:00:00.000Z'
    store.orders.applyHistoryPage({
      type: 1,
      fiatType: 1,
      records: [
        onramp({ orderId: 1, status: 0, updatedAt: old }),
        onramp({ orderId: 2, status: 0, updatedAt: old }),
        onramp({ orderId: 3, status: 4, updatedAt: old }),
        onramp({ orderId: 4, status: 0, updatedAt: '2024-04-30T00:00:00.000Z' })
      ]
    })
    // Order 2 changed since, but its new record could not be read: it is kept apart.
    store.orders.applyHistoryPage({
      type: 1,
      fiatType: 1,
      records: [],
      unreadable: [
        { orderId: 2, updatedAt: '2024-04-20T00:00:00.000Z', raw: { orderId: 2, status: 'x' }, reason: 'status: expected an integer' }
      ]
    })
    tick(60_000)
    const at = clock.toISOString()
    expect(store.orders.confirmUnchanged(1, oneFiat(1), '2024-04-01T00:00:00.000Z', at)).toBe(1)
    expect(store.orders.get(1, 1)).toMatchObject({ statusConfirmedAt: at, statusConfirmedBy: 'history' })
    expect(store.orders.get(1, 2)!.statusConfirmedAt).not.toBe(at)
    expect(store.orders.get(1, 4)!.statusConfirmedAt).not.toBe(at)
  })
})
