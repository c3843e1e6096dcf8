// The distinct wallets' table and index (order-wallets.ts) against the orders they count,
// and searches that find a few wallets with many orders each: counted from the wallets,
// windowed from their index, and equal to a brute-force answer over every row.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openLocalStore, type LocalStore } from '../../../../src/main/store/local-store'
import type { StoredOrder, StoredOrderQuery } from '../../../../src/main/store/orders-repo'
import { rng } from '../../../fixtures/crash/synthetic-history'
import { onramp } from './order-fixtures'
import { withPlans } from './query-plans'

let dir: string
let store: LocalStore

// Three customers' wallets, one written in two cases; a merchant reference that holds a
// wallet's text (found twice for orders of that wallet, once for the others); no wallet.
const WALLETS = ['0xAAbb11CafeF00d', '0xaabb11cafef00d', '0xAAbb22CafeF00d', 'TRXaabb11', null, '']
const COUNT = 500

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'rampdesk-wallets-'))
  store = openLocalStore(dir)
  const r = rng(5)
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!
  const records = []
  for (let i = 0; i < COUNT; i++) {
    const created = new Date(Date.UTC(2024, 0, 1 + Math.floor(r() * 30))).toISOString()
    records.push(
      onramp({
        orderId: 9000 + i,
        walletAddress: pick(WALLETS),
        merchantRecognitionId: r() < 0.1 ? `ref-aabb11cafe-${i}` : `MR-${i}`,
        transactionHash: r() < 0.5 ? null : `0x${(9000 + i).toString(16)}ee`,
        referenceId: null,
        createdAt: created,
        // Few distinct instants: ties are broken by order id, in the index as in the sort.
        updatedAt: new Date(Date.parse(created) + Math.floor(r() * 3) * 3_600_000).toISOString()
      })
    )
  }
  store.orders.applyHistoryPage({ type: 1, fiatType: 1, records: records as never })
})
afterAll(() => {
  store.close()
  rmSync(dir, { recursive: true, force: true })
})

const fold = (v: string): string => v.replace(/[A-Z]/g, (c) => c.toLowerCase())

/** order_wallets as kept by its triggers, and as counted from the orders now. */
function walletCounts(): { kept: unknown[]; counted: unknown[] } {
  const sql = store.database.sql
  return {
    kept: sql.all('SELECT type, wallet, n FROM order_wallets ORDER BY type, wallet'),
    counted: sql.all(
      `SELECT type, lower(wallet_address) AS wallet, COUNT(*) AS n FROM orders
       WHERE wallet_address IS NOT NULL AND wallet_address <> '' GROUP BY 1, 2 ORDER BY 1, 2`
    )
  }
}

function reference(q: StoredOrderQuery): StoredOrder[] {
  const s = fold(q.search!.trim())
  const rows = [...store.orders.exportRows({ type: q.type })].filter((o) =>
    [o.walletAddress, o.merchantRecognitionId, o.referenceId, o.transactionHash].some((v) => v !== null && fold(v).includes(s))
  )
  const dir = q.sort?.dir === 'asc' ? 1 : -1
  const key = q.sort?.key === 'createdAt' ? 'createdAt' : 'updatedAt'
  return rows.sort((a, b) => (a[key] === b[key] ? (a.orderId - b.orderId) * dir : a[key] < b[key] ? -dir : dir))
}

const ids = (rows: ReadonlyArray<Pick<StoredOrder, 'orderId'>>): number[] => rows.map((r) => r.orderId)

describe('order_wallets', () => {
  it('counts each distinct wallet (case folded) of the orders, and follows inserts, wallet changes and deletes', () => {
    const before = walletCounts()
    expect(before.kept).toEqual(before.counted)
    expect(before.kept).toHaveLength(3)
    const o = store.orders.get(1, 9003)!
    store.orders.applyRecord(
      1,
      { ...o.record, walletAddress: '0xNEWwallet77', updatedAt: new Date(Date.parse(o.updatedAt) + 1000).toISOString() } as never,
      'webhook'
    )
    store.orders.applyRecord(1, onramp({ orderId: 9999, walletAddress: '0xNewWallet77' }) as never, 'webhook')
    const after = walletCounts()
    expect(after.kept).toEqual(after.counted)
    expect(after.kept).toContainEqual({ type: 1, wallet: '0xnewwallet77', n: 2 })
    store.database.sql.run('DELETE FROM orders WHERE order_id IN (9003, 9999)')
    const gone = walletCounts()
    expect(gone.kept).toEqual(gone.counted)
    // A wallet no order holds any more is not found.
    expect(store.orders.query({ type: 1, search: 'newwallet77' }).total).toBe(0)
  })

  it('a search of a few wallets with many orders equals the brute-force answer at every window, sort and direction', () => {
    for (const search of ['aabb11', '0xAABB', 'cafef00d', 'trxaa', 'bb22c', 'aabb11cafe-1'])
      for (const key of ['updatedAt', 'createdAt'] as const)
        for (const dir of ['desc', 'asc'] as const)
          for (const [offset, limit] of [
            [0, 100],
            [0, 7],
            [95, 10],
            [180, 100],
            [1000, 5]
          ] as const) {
            const q: StoredOrderQuery = { type: 1, search, sort: { key, dir }, offset, limit }
            const expected = reference(q)
            const got = store.orders.query(q)
            const at = JSON.stringify(q)
            expect(got.total, at).toBe(expected.length)
            expect(ids(got.rows), at).toEqual(ids(expected.slice(offset, offset + limit)))
          }
    // The texts reach many orders through few wallets.
    expect(reference({ type: 1, search: 'aabb11' }).length).toBeGreaterThan(200)
  })

  it('windows a wallet by last change from its own index, never sorting its every order', () => {
    // A write first: nothing is kept from an earlier search.
    store.database.sql.run('UPDATE orders SET last_changed_at = last_changed_at WHERE id = (SELECT MIN(id) FROM orders)')
    const { value: got, plans } = withPlans(store.database.sql, () =>
      store.orders.query({ type: 1, search: '0xaabb11cafef00d', sort: { key: 'updatedAt', dir: 'desc' }, limit: 20 })
    )
    const expected = reference({ type: 1, search: '0xaabb11cafef00d', sort: { key: 'updatedAt', dir: 'desc' } })
    expect(got.total).toBe(expected.length)
    expect(ids(got.rows)).toEqual(ids(expected.slice(0, 20)))
    // Each wallet's first offset + limit orders read in order from its index; then the
    // merged few sorted, and the window's rows in order: two sorts of a window's size. A
    // wallet's every order read and sorted would be a third.
    expect(plans).toContainEqual(expect.stringMatching(/^SEARCH orders USING (COVERING )?INDEX orders_wallet \(type=\? AND <expr>=\?\)$/))
    expect(plans.filter((d) => /TEMP B-TREE/.test(d))).toHaveLength(2)
  })
})
