import fc from 'fast-check'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { OPEN_GROUPS, STATUS_GROUPS, knownStatuses } from '../../../../src/shared/domain/status'
import { buildOrderQuery } from '../../../../src/main/store/order-query'
import { statusMatchesGroup } from '../../../support/status-group'
import { openLocalStore, type LocalStore } from '../../../../src/main/store/local-store'
import type { StoredOrderQuery, StoredOrder, OrderSortKey } from '../../../../src/main/store/orders-repo'
import { rng } from '../../../fixtures/crash/synthetic-history'
import { offramp, onramp } from './order-fixtures'
import { withPlans as withPlansOf } from './query-plans'

let dir: string
let store: LocalStore
const COUNT = 400

const WALLETS = ['0xAbCdEf', '0xabc123', 'TRX9', 'bc1qXY', '0xABCDEF99']
const STATUSES = [0, 1, 2, 4, 5, 15, -1, -2, 99, 7]

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'rampdesk-query-'))
  store = openLocalStore(dir)
  const r = rng(11)
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!
  for (const type of [1, 2] as const) {
    const records = []
    for (let i = 0; i < COUNT; i++) {
      const orderId = 5000 + i
      // Few distinct timestamps and amounts so ties exercise the tie-break.
      const created = new Date(Date.UTC(2024, 0, 1 + Math.floor(r() * 40), Math.floor(r() * 3))).toISOString()
      const common = {
        orderId,
        coinId: pick([54, 1, 7]),
        chainId: pick([0, 1, 2]),
        fiatType: pick([1, 2, 3]),
        walletAddress: `${pick(WALLETS)}${orderId}`,
        createdAt: created,
        updatedAt: new Date(Date.parse(created) + Math.floor(r() * 5) * 3_600_000).toISOString(),
        status: pick(STATUSES),
        merchantRecognitionId: r() < 0.1 ? null : `MR-${pick(['a', 'B', 'c'])}-${orderId}`,
        transactionHash: r() < 0.3 ? null : `0x${orderId.toString(16)}ff`
      }
      records.push(
        type === 1
          ? onramp({
              ...common,
              fiatAmount: pick(['100', '2500.5', '99.99', '100.0001']),
              referenceId: r() < 0.5 ? null : `UPI${orderId % 97}`
            })
          : offramp({ ...common, actualFiatAmount: r() < 0.2 ? null : pick([300, 12.5, 7000]) })
      )
    }
    store.orders.applyHistoryPage({ type, fiatType: 1, records: records as never })
    // Some orders the service no longer has: out of the open groups and of `listed`.
    for (let i = 0; i < COUNT; i += 17) store.orders.markGone(type, 5000 + i)
  }
  // Offramp orders of no fiat (a webhook's record without fiatType, of an order no sync has seen).
  for (let i = 0; i < 12; i++)
    store.orders.applyRecord(
      2,
      offramp({ orderId: 6000 + i, status: pick(STATUSES), coinId: pick([54, 1, 7]), chainId: pick([0, 1, 2]) }),
      'webhook'
    )
})
afterAll(() => {
  store.close()
  rmSync(dir, { recursive: true, force: true })
})

/** Every row of a type, read again only once the database has changed. */
const rowsRead = new Map<number, { stamp: string | null; rows: StoredOrder[] }>()
function allRows(type: StoredOrderQuery['type']): StoredOrder[] {
  const stamp = store.database.sql.writeStamp()
  const held = rowsRead.get(type)
  if (held && stamp !== null && held.stamp === stamp) return held.rows
  const rows = [...store.orders.exportRows({ type })]
  rowsRead.set(type, { stamp, rows })
  return rows
}

/** The same query answered by brute force over every row. */
function reference(q: StoredOrderQuery): StoredOrder[] {
  const all = allRows(q.type)
  const list = (v: number | readonly number[] | undefined): number[] | undefined =>
    v === undefined ? undefined : typeof v === 'number' ? [v] : [...v]
  const date = (o: StoredOrder): string => (q.dateField === 'updatedAt' ? o.updatedAt : o.createdAt)
  // Written apart from order-query.ts: lower-case ASCII as SQLite's lower() does.
  const fold = (v: string): string => v.replace(/[A-Z]/g, (c) => c.toLowerCase())
  const s = q.search === undefined ? '' : fold(q.search.trim())
  const found = (v: string | null): boolean => v !== null && ([...s].length >= 3 ? fold(v).includes(s) : fold(v).startsWith(s))
  const rows = all.filter(
    (o) =>
      (q.statusGroup === undefined || statusMatchesGroup(o.type, o.status, q.statusGroup)) &&
      (o.goneAt === null || !(q.listed || (q.statusGroup !== undefined && OPEN_GROUPS.includes(q.statusGroup)))) &&
      (q.statuses === undefined || q.statuses.includes(o.status)) &&
      (q.excludeStatuses === undefined || !q.excludeStatuses.includes(o.status)) &&
      (list(q.fiatType) === undefined || (o.fiatType !== null && list(q.fiatType)!.includes(o.fiatType))) &&
      (list(q.coinId)?.includes(o.coinId) ?? true) &&
      (list(q.chainId)?.includes(o.chainId) ?? true) &&
      (q.from === undefined || date(o) >= new Date(q.from).toISOString()) &&
      (q.to === undefined || date(o) < new Date(q.to).toISOString()) &&
      (!s ||
        (/^\d+$/.test(s) && String(o.orderId).startsWith(s)) ||
        [o.merchantRecognitionId, o.walletAddress, o.referenceId, o.transactionHash].some(found))
  )
  const sort = q.sort ?? { key: 'createdAt', dir: 'desc' }
  const amount = (v: string | null): number | null => (v === null ? null : Number(v))
  const key = (o: StoredOrder): (string | number | null)[] => {
    switch (sort.key) {
      case 'createdAt':
        return [o.createdAt, o.orderId]
      case 'updatedAt':
        return [o.updatedAt, o.orderId]
      case 'orderId':
        return [o.orderId]
      case 'status':
        return [o.status, o.createdAt, o.orderId]
      case 'fiatAmount':
        return [amount(o.type === 1 ? o.fiatAmount : o.actualFiatAmount), o.orderId]
      case 'cryptoAmount':
        return [
          amount(o.type === 1 ? (o.actualCryptoAmount ?? o.expectedCryptoAmount) : (o.actualQuantity ?? o.expectedQuantity)),
          o.orderId
        ]
    }
  }
  // SQLite order: NULL first ascending.
  const cmp1 = (a: string | number | null, b: string | number | null): number =>
    a === b ? 0 : a === null ? -1 : b === null ? 1 : a < b ? -1 : 1
  rows.sort((a, b) => {
    const ka = key(a)
    const kb = key(b)
    for (let i = 0; i < ka.length; i++) {
      const c = cmp1(ka[i]!, kb[i]!)
      if (c !== 0) return sort.dir === 'asc' ? c : -c
    }
    return 0
  })
  return rows
}

const ids = (rows: ReadonlyArray<Pick<StoredOrder, 'orderId'>>): number[] => rows.map((r) => r.orderId)

/** What fn returns, and the query plans of what it asked the store's database. */
const withPlans = <T>(fn: () => T) => withPlansOf(store.database.sql, fn)

describe('OrdersRepo.query', () => {
  it('defaults to newest first, windows of 100, with the total', () => {
    const r = store.orders.query({ type: 1 })
    expect(r.total).toBe(COUNT)
    expect(r.rows).toHaveLength(100)
    expect(ids(r.rows)).toEqual(ids(reference({ type: 1 })).slice(0, 100))
  })

  it('windows tile the ordered result exactly (no row twice, none missing)', () => {
    const q: StoredOrderQuery = { type: 2, sort: { key: 'status', dir: 'asc' }, statuses: [0, 1, 2, 4, 5, 99] }
    const seen: number[] = []
    let total = -1
    for (let offset = 0; ; offset += 37) {
      const r = store.orders.query({ ...q, offset, limit: 37 })
      total = r.total
      if (r.rows.length === 0) break
      seen.push(...ids(r.rows))
    }
    expect(seen).toEqual(ids(reference(q)))
    expect(seen.length).toBe(total)
  })

  it('finds an order id exactly or by its first digits, and text anywhere in the four columns, in any case', () => {
    // 5007 itself, and no other id begins with it (ids run 5000-5399); "503" begins ten.
    expect(ids(store.orders.query({ type: 1, search: '5007' }).rows)).toContain(5007)
    expect(
      ids(store.orders.query({ type: 1, search: '503', sort: { key: 'orderId', dir: 'asc' } }).rows).filter((id) => id < 5040)
    ).toEqual([5030, 5031, 5032, 5033, 5034, 5035, 5036, 5037, 5038, 5039])
    expect(store.orders.query({ type: 1, search: '0503' }).rows.some((o) => o.orderId === 503 || o.orderId === 5030)).toBe(false)
    const byWallet = store.orders.query({ type: 1, search: '0XABCDEF', limit: 1000 })
    expect(byWallet.total).toBeGreaterThan(0)
    expect(byWallet.rows.every((o) => o.walletAddress!.toLowerCase().includes('0xabcdef'))).toBe(true)
    expect(ids(byWallet.rows)).toEqual(ids(reference({ type: 1, search: '0XABCDEF' })))
    // The end of a wallet, the middle of a reference, the end of a hash: what a customer reads out.
    const wallet = store.orders.get(1, 5123)!.walletAddress!
    expect(ids(store.orders.query({ type: 1, search: wallet.slice(-6) }).rows)).toContain(5123)
    expect(ids(store.orders.query({ type: 1, search: 'B-51' }).rows)).toEqual(ids(reference({ type: 1, search: 'B-51' })))
    expect(store.orders.query({ type: 1, search: 'bcdef' }).total).toBe(reference({ type: 1, search: 'bcdef' }).length)
    expect(store.orders.query({ type: 1, search: 'bcdef' }).total).toBeGreaterThan(0)
    const hashed = [...store.orders.exportRows({ type: 2 })].find((o) => o.transactionHash)!
    expect(ids(store.orders.query({ type: 2, search: hashed.transactionHash!.slice(-4) }).rows)).toContain(hashed.orderId)
    // One or two characters: the start of a value (a trigram needs three).
    expect(store.orders.query({ type: 1, search: 'bc' }).total).toBe(reference({ type: 1, search: 'bc' }).length)
    expect(store.orders.query({ type: 1, search: 'bc' }).rows.every((o) => o.walletAddress!.toLowerCase().startsWith('bc'))).toBe(true)
    expect(store.orders.query({ type: 1, search: '   ' }).total).toBe(COUNT)
    // Quotes and FTS5 syntax are searched as text.
    expect(store.orders.query({ type: 1, search: '"MR-a" OR *' }).total).toBe(0)
  })

  it('counts the matches of a filter in the other order type', () => {
    for (const search of ['0xab', 'mr-c', '501', 'zzz']) {
      expect(store.orders.total({ type: 2, search })).toBe(reference({ type: 2, search }).length)
      expect(store.orders.total({ type: 2, search, fiatType: 2 })).toBe(reference({ type: 2, search, fiatType: 2 }).length)
    }
  })

  it('filters by status group with unknown statuses in "in progress"', () => {
    for (const g of STATUS_GROUPS) {
      const q: StoredOrderQuery = { type: 1, statusGroup: g, limit: 1000 }
      expect(ids(store.orders.query(q).rows)).toEqual(ids(reference(q)))
    }
    expect(
      store.orders.query({ type: 1, statusGroup: 'in progress', statuses: [99], limit: 1000 }).rows.every((o) => o.status === 99)
    ).toBe(true)
  })

  it('rejects bad windows, timestamps and types', () => {
    expect(() => store.orders.query({ type: 1, limit: 0 })).toThrow(RangeError)
    expect(() => store.orders.query({ type: 1, limit: 5000 })).toThrow(RangeError)
    expect(() => store.orders.query({ type: 1, offset: -1 })).toThrow(RangeError)
    expect(() => store.orders.query({ type: 1, from: 'yesterday' })).toThrow(RangeError)
    expect(() => store.orders.query({ type: 3 as 1 })).toThrow(RangeError)
    expect(() => store.orders.query({ type: 1, sort: { key: 'x; DROP TABLE orders' as OrderSortKey, dir: 'asc' } })).toThrow(RangeError)
  })

  // A search is answered by one of several plans (its matching ids collected, then its
  // window read from them or found by walking the sort's index against them; or, with too
  // many to collect, the sort's index walked testing each order): each is held to the same
  // answers, and so is the switch between them by how deep the window is.
  it.each([
    ['as shipped (every search here is collected)', {}],
    ['every search collected, every window walked against its ids', { maxWalkedEntries: 1_000_000 }],
    ['every search collected, every window read from its ids', { maxWalkedEntries: 0, setMatchCost: 0 }],
    ['every search collected and broad, counted up to 25 ("25+")', { broadMatches: 1, maxWalkedEntries: 1_000_000, totalCap: 25 }],
    ['every search broad, every window walked', { broadMatches: 1, maxWalkedEntries: 1_000_000, setBound: 0 }],
    ['every search broad, deep windows by their ids', { broadMatches: 1, maxWalkedEntries: 40, setBound: 0 }],
    ['every search broad, counted up to 25 ("25+")', { broadMatches: 1, maxWalkedEntries: 1_000_000, totalCap: 25, setBound: 0 }],
    ['every status list sought in the status index', { maxWalkedEntries: 0, statusMatchCost: 0 }],
    ['every search of up to 1,000 wallets counted from them, windowed from their index', { windowWallets: 1000 }],
    ['the same, counted up to 25 ("25+")', { windowWallets: 1000, broadMatches: 1, totalCap: 25 }],
    ['no search windowed from its wallets', { windowWallets: 0 }]
  ])(
    'property: every filter/sort/window combination equals the brute-force answer, %s',
    (_, plan) => {
      const shipped = { ...store.orders.searchPlan }
      Object.assign(store.orders.searchPlan, plan)
      try {
        checkAgainstReference(store.orders.searchPlan.totalCap)
      } finally {
        Object.assign(store.orders.searchPlan, shipped)
      }
      // 300 queries each beside a brute-force answer over rows read once (about half a second).
    },
    120_000
  )

  it("property: the same with long texts found through the trigram index, as while an upgraded profile's gram index is filled", () => {
    const sql = store.database.sql
    sql.run('INSERT INTO orders_grams_fill (through_id) VALUES (0)')
    try {
      const { plans } = withPlans(() => store.orders.query({ type: 1, search: 'MR-a-50' }))
      expect(plans.join('\n')).toMatch(/orders_text_1 VIRTUAL TABLE/)
      checkAgainstReference(store.orders.searchPlan.totalCap)
    } finally {
      sql.run('DELETE FROM orders_grams_fill')
    }
    const { plans } = withPlans(() => store.orders.query({ type: 1, search: 'MR-a-50' }))
    expect(plans.join('\n')).toMatch(/orders_grams_1 VIRTUAL TABLE/)
  }, 120_000)

  /** A broad search's total is counted up to `cap` (then totalAtLeast); its windows are whole. */
  function checkAgainstReference(cap: number): void {
    const sortKeys: OrderSortKey[] = ['createdAt', 'updatedAt', 'orderId', 'status', 'fiatAmount', 'cryptoAmount']
    // Each filter is absent most of the time, so combinations still match rows.
    const sometimes = <T>(arb: fc.Arbitrary<T>): fc.Arbitrary<T | undefined> =>
      fc.oneof({ arbitrary: fc.constant(undefined), weight: 4 }, { arbitrary: arb, weight: 1 })
    const day = fc.integer({ min: 0, max: 45 }).map((d) => new Date(Date.UTC(2024, 0, 1 + d)).toISOString())
    const query = fc
      .record({
        type: fc.constantFrom(1 as const, 2 as const),
        statusGroup: sometimes(fc.constantFrom(...STATUS_GROUPS)),
        statuses: sometimes(fc.uniqueArray(fc.constantFrom(...STATUSES), { maxLength: 6 })),
        excludeStatuses: sometimes(fc.uniqueArray(fc.constantFrom(...STATUSES), { maxLength: 3 })),
        listed: sometimes(fc.constant(true)),
        // -1 is an id the contract allows: it must not find the orders of no fiat.
        fiatType: sometimes(fc.oneof(fc.constantFrom(1, 2, 3, -1), fc.uniqueArray(fc.constantFrom(1, 2, 3, -1), { maxLength: 2 }))),
        coinId: sometimes(fc.constantFrom(54, 1, 7)),
        chainId: sometimes(fc.uniqueArray(fc.constantFrom(0, 1, 2), { minLength: 1, maxLength: 2 })),
        from: sometimes(day),
        to: sometimes(day),
        dateField: sometimes(fc.constantFrom('createdAt' as const, 'updatedAt' as const)),
        search: sometimes(
          fc.constantFrom(
            ...['0xab', 'mr-', 'MR-c', 'upi1', '5010', '0x13', 'trx', 'zzz', 'cdef', '-b-', 'ff', '50', '9', 'BC1Q'],
            // Six characters and more: through the gram index (or the trigram index until it is filled).
            ...['MR-a-50', '0x13afff', '-B-5012', '1400ff', 'abcdef50', 'zzzzzzz', 'mr-c-5399', 'c-5111']
          )
        ),
        sort: sometimes(fc.record({ key: fc.constantFrom(...sortKeys), dir: fc.constantFrom('asc' as const, 'desc' as const) })),
        offset: sometimes(fc.integer({ min: 0, max: 60 })),
        limit: sometimes(fc.integer({ min: 1, max: 60 }))
      })
      .map((q) => Object.fromEntries(Object.entries(q).filter(([, v]) => v !== undefined)) as unknown as StoredOrderQuery)
    let nonEmptyWindows = 0
    fc.assert(
      fc.property(query, (q) => {
        const expected = reference(q)
        const got = store.orders.query(q)
        const broad = !!q.search && store.orders.searchPlan.broadMatches === 1
        const capped = broad && expected.length > cap
        expect({ total: got.total, atLeast: got.totalAtLeast }).toEqual({ total: capped ? cap : expected.length, atLeast: capped })
        // The full count, as the CSV export's progress asks it, is every match.
        if (capped) expect(store.orders.total(q)).toBe(expected.length)
        const offset = q.offset ?? 0
        const limit = q.limit ?? 100
        expect(ids(got.rows)).toEqual(ids(expected.slice(offset, offset + limit)))
        if (got.rows.length > 0) nonEmptyWindows++
      }),
      { numRuns: 300 }
    )
    // The generator must exercise real windows, not just empty answers.
    expect(nonEmptyWindows).toBeGreaterThan(60)
  }

  it('windows a search with many matches by walking the sort index against its collected ids: no order read but the window', () => {
    for (const [sort, index] of [
      [{ key: 'updatedAt', dir: 'desc' }, 'orders_by_updated'],
      [{ key: 'fiatAmount', dir: 'asc' }, 'orders_by_fiat_amount']
    ] as const) {
      // About two orders in five hold one of the two wallets starting with it: a customer with many orders.
      const q: StoredOrderQuery = { type: 1, search: '0xabcdef', sort, limit: 20 }
      const expected = reference(q)
      expect(expected.length).toBeGreaterThan(100)
      const { value: got, plans } = withPlans(() => store.orders.query(q))
      expect(ids(got.rows)).toEqual(ids(expected.slice(0, 20)))
      expect({ total: got.total, atLeast: got.totalAtLeast }).toEqual({ total: expected.length, atLeast: false })
      expect(plans, index).toContain(`SEARCH orders USING COVERING INDEX ${index} (type=?)`)
      // One lookup of orders by row id in all: the window's 20. Reading and sorting every match is a second.
      expect(
        plans.filter((d) => /^SEARCH orders USING INTEGER PRIMARY KEY/.test(d)),
        index
      ).toHaveLength(1)
    }
  })

  it('reads the orders of more matching wallets than it windows by wallet from orders_wallet, one seek per wallet', () => {
    // Every order here has a wallet of its own: "0xabc" begins about 240 of them.
    store.database.sql.run('UPDATE orders SET last_changed_at = last_changed_at WHERE id = (SELECT MIN(id) FROM orders)')
    const q: StoredOrderQuery = { type: 1, search: '0xabc', sort: { key: 'createdAt', dir: 'desc' }, limit: 20 }
    const expected = reference(q)
    expect(expected.length).toBeGreaterThan(100)
    const { value: got, plans } = withPlans(() => store.orders.query(q))
    expect(ids(got.rows)).toEqual(ids(expected.slice(0, 20)))
    expect(got.total).toBe(expected.length)
    expect(plans).toContainEqual(expect.stringMatching(/^SEARCH o USING (COVERING )?INDEX orders_wallet \(type=\? AND <expr>=\?\)$/))
    // The index sought by type alone: every order of the type read for each wallet.
    expect(plans).not.toContainEqual(expect.stringMatching(/^SEARCH o USING (COVERING )?INDEX orders_wallet \(type=\?\)$/))
  })

  it('finds the orders whose id begins with a typed number from the order id index, even with no planner statistics', () => {
    // A new profile's database: nothing has run ANALYZE, so the planner knows no index's shape.
    expect(store.database.sql.value<number>("SELECT COUNT(*) FROM sqlite_master WHERE name = 'sqlite_stat1'")).toBe(0)
    for (const search of ['5012', '51']) {
      const q: StoredOrderQuery = { type: 1, search, sort: { key: 'updatedAt', dir: 'desc' }, limit: 20 }
      const expected = reference(q)
      expect(expected.length, search).toBeGreaterThan(0)
      const { value: got, plans } = withPlans(() => ({
        window: store.orders.query(q),
        other: store.orders.totalUpTo({ type: 2, search })
      }))
      expect(ids(got.window.rows), search).toEqual(ids(expected.slice(0, 20)))
      expect(got.other.total, search).toBe(reference({ ...q, type: 2 }).length)
      expect(plans.join('\n'), search).toContain('(type=? AND order_id>? AND order_id<?)')
      // Every order of the type read to test its id: what a plan without the ranges does.
      expect(plans, search).not.toContain('SEARCH orders USING COVERING INDEX sqlite_autoindex_orders_1 (type=?)')
    }
  })

  it('the search index follows an order whose texts change', () => {
    const before = store.orders.get(2, 5399)!
    const record = {
      ...before.record,
      walletAddress: 'TNEWwallet0000Q7Z',
      updatedAt: new Date(Date.parse(before.updatedAt) + 1000).toISOString()
    }
    store.orders.applyRecord(2, record as never, 'webhook')
    expect(ids(store.orders.query({ type: 2, search: 'wallet0000q7' }).rows)).toEqual([5399])
    expect(ids(store.orders.query({ type: 2, search: before.walletAddress!.slice(-6) }).rows)).not.toContain(5399)
    expect(store.orders.query({ type: 1, search: 'wallet0000q7' }).total).toBe(0)
  })

  it('counts an open status group (gone orders left out) from order_counts and windows it from covering index scans, never reading every row', () => {
    for (const type of [1, 2] as const)
      for (const statusGroup of OPEN_GROUPS) {
        const built = buildOrderQuery({ type, statusGroup, sort: { key: 'updatedAt', dir: 'desc' }, offset: 0, limit: 100 })
        const plan = (sql: string, params: readonly unknown[]) =>
          store.database.sql.all<{ detail: string }>(`EXPLAIN QUERY PLAN ${sql}`, ...(params as never[])).map((p) => p.detail)
        const scans = [...plan(built.countSql, built.countParams), ...plan(built.rowsSql, [...built.params, 100, 0])].filter((d) =>
          /^(SEARCH|SCAN) orders\b/.test(d)
        )
        expect(plan(built.countSql, built.countParams).join(' '), `${type} ${statusGroup}`).toMatch(/order_counts/)
        expect(scans.length, `${type} ${statusGroup}`).toBeGreaterThan(0)
        for (const d of scans) expect(d, `${type} ${statusGroup}`).toMatch(/COVERING INDEX|INTEGER PRIMARY KEY/)
      }
  })

  it('answers an open status group as the orders view asks it (an exclusion, listed) by statements that never read every row', () => {
    const sql = store.database.sql
    const ran: Array<{ text: string; params: unknown[] }> = []
    const { all, value } = sql
    sql.all = ((text: string, ...params: never[]) => (ran.push({ text, params }), all.call(sql, text, ...params))) as typeof sql.all
    sql.value = ((text: string, ...params: never[]) => (ran.push({ text, params }), value.call(sql, text, ...params))) as typeof sql.value
    try {
      for (const type of [1, 2] as const)
        for (const statusGroup of OPEN_GROUPS) {
          ran.length = 0
          // What toStoreFilter sends for the group: every status not known to end an order, or its list; gone orders left out.
          const known = knownStatuses(type)
          const q: StoredOrderQuery =
            statusGroup === 'in progress'
              ? { type, excludeStatuses: known.filter((st) => !statusMatchesGroup(type, st, 'in progress')), listed: true }
              : { type, statuses: known.filter((st) => statusMatchesGroup(type, st, statusGroup)), listed: true }
          const got = store.orders.query({ ...q, sort: { key: 'updatedAt', dir: 'desc' }, limit: 100 })
          expect(ids(got.rows)).toEqual(ids(reference({ ...q, sort: { key: 'updatedAt', dir: 'desc' } }).slice(0, 100)))
          const statements = ran.splice(0)
          expect(statements.length, `${type} ${statusGroup}`).toBeGreaterThan(0)
          for (const { text, params } of statements)
            for (const { detail } of all.call(sql, `EXPLAIN QUERY PLAN ${text}`, ...(params as never[])) as Array<{ detail: string }>)
              if (/^(SEARCH|SCAN) orders\b/.test(detail))
                expect(detail, `${type} ${statusGroup}: ${text}`).toMatch(/COVERING INDEX|INTEGER PRIMARY KEY/)
        }
    } finally {
      sql.all = all
      sql.value = value
    }
  })

  it('exportRows streams every matching row in the requested order', () => {
    const q = { type: 2 as const, fiatType: [1, 2], sort: { key: 'fiatAmount' as const, dir: 'asc' as const } }
    expect(ids([...store.orders.exportRows(q)])).toEqual(ids(reference(q)))
  })
})
