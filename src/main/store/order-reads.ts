// Reading orders: one order and its status timeline, and what the orders table reads, a
// window of a filter with its total (and every row of a filter, for an export). The SQL
// comes from order-query.ts; what is decided here is which plan a window takes (walk the
// sort's index, collect the search's matches, seek the statuses in the status index) and
// which totals are kept until the next write.
import type { OrderType } from '../../shared/ipc/contract'
import { OPEN_GROUPS, statusGroupFilter, statusInfo } from '../../shared/domain/status'
import { listedPerStatus } from './order-counts'
import type { Sql } from './sql'
import {
  buildOrderQuery,
  searchProbes,
  searchTerm,
  walletWindowSql,
  type LongTextIndex,
  type BuildOrderOptions,
  type BuiltOrderQuery,
  type StoredOrderFilter,
  type StoredOrderQuery
} from './order-query'
import { gramsReady } from './order-grams'
import { collectSearchSet, collectWallets, type SearchSet } from './search-set'
import {
  LISTED_COLUMNS,
  toListedOrder,
  toOrderEvent,
  toStoredOrder,
  type ListedOrder,
  type ListedOrderDbRow,
  type OrderDbRow,
  type OrderEvent,
  type OrderEventDbRow,
  type StoredOrder
} from './stored-order'

/**
 * A searched column with this many matches makes the search broad (a first keystroke,
 * "0x", a merchant id prefix every order shares): see order-query.ts's buildOrderQuery, `broad`.
 */
export const BROAD_SEARCH_MATCHES = 2000

/**
 * A broad search's matches are counted up to this many, no further: counting every order
 * "0x" or "2" matches walked 100,000 index entries (and a million at that size) before its
 * first page could be answered. The answer then says "at least" (totalAtLeast), and the
 * table holds this many rows: an operator narrows such a search rather than scroll it.
 */
export const BROAD_TOTAL_CAP = 5000

/** Facts about filters (totals, broad searches) kept between writes: enough for an operator switching between a few filters. */
const MAX_CACHED_FACTS = 64

/** How many index entries a broad search's window may walk (about 20 ms here) before its matching ids are collected instead. */
const MAX_WALKED_ENTRIES = 30_000

/**
 * What one match costs a window driven by the status index, in walked index entries: it is
 * sought, its row read for the sort key (that index does not hold updated_at or the
 * amounts), then sorted with the others.
 */
const STATUS_PLAN_COST = 4

/**
 * A search's matches are collected (search-set.ts) when no source of them has more than
 * this many: reading one costs about a microsecond, so the bound costs at most ~10 ms,
 * and a wallet with thousands of orders is counted and windowed from its set.
 */
export const SEARCH_SET_BOUND = 10_000

/**
 * What one collected match costs a window that reads and sorts the set's orders, in walked
 * index entries: the order is sought in the table for its sort key (a page read, where an
 * index entry walked is a step within one), then sorted. Measured at 100,000 orders:
 * ~4 µs a match against ~0.15 µs an entry walked and tested against the set.
 */
const SET_MATCH_COST = 25

/**
 * A search whose wallet matches are at most this many distinct wallets is counted from
 * their counts and windowed from their own index (order-wallets.ts): one index read per
 * wallet per window. A ten-character part of a wallet is one wallet.
 */
export const MAX_WINDOW_WALLETS = 8

/** What a window's statements select: the listed columns, not the record. */
const LISTED = LISTED_COLUMNS.join(', ')

/** The status groups of orders still going (OPEN_GROUPS). */
export type OpenGroup = 'needs attention' | 'in progress'

export class OrderReads {
  /**
   * When a search is broad, how far a window may walk the sort's index, and what a match
   * sought in the status index costs instead (tests lower them to cover every plan on a few orders).
   */
  searchPlan = {
    broadMatches: BROAD_SEARCH_MATCHES,
    maxWalkedEntries: MAX_WALKED_ENTRIES,
    totalCap: BROAD_TOTAL_CAP,
    statusMatchCost: STATUS_PLAN_COST,
    setBound: SEARCH_SET_BOUND,
    setMatchCost: SET_MATCH_COST,
    windowWallets: MAX_WINDOW_WALLETS
  }
  /** Totals, broad-search answers and search sets of recent filters, valid while the database's write stamp is unchanged. */
  private facts: { stamp: string | null; byKey: Map<string, unknown> } = { stamp: null, byKey: new Map() }

  constructor(private readonly sql: Sql) {}

  get(type: OrderType, orderId: number): StoredOrder | undefined {
    const r = this.sql.get<OrderDbRow>('SELECT * FROM orders WHERE type = ? AND order_id = ?', type, orderId)
    return r ? toStoredOrder(r) : undefined
  }

  /** The observed status transitions of one order, oldest first. */
  timeline(type: OrderType, orderId: number): OrderEvent[] {
    return this.sql
      .all<OrderEventDbRow>('SELECT * FROM order_events WHERE type = ? AND order_id = ? ORDER BY id', type, orderId)
      .map(toOrderEvent)
  }

  /** How many orders each open status group holds over both types, not counting those the service no longer lists (as the orders view's group filters count them). */
  openGroupCounts(): Record<OpenGroup, number> {
    const out: Record<OpenGroup, number> = { 'needs attention': 0, 'in progress': 0 }
    for (const c of listedPerStatus(this.sql)) {
      const group = statusInfo(c.type, c.status).group
      if (group === 'needs attention' || group === 'in progress') out[group] += c.orders
    }
    return out
  }

  count(type?: OrderType): number {
    return (
      (type === undefined
        ? this.sql.value<number>('SELECT IFNULL(SUM(n), 0) FROM order_counts')
        : this.sql.value<number>('SELECT IFNULL(SUM(n), 0) FROM order_counts WHERE type = ?', type)) ?? 0
    )
  }

  /**
   * One window of the orders table and the total matching the filter: every match, except
   * for a broad search, whose count stops at BROAD_TOTAL_CAP (totalAtLeast: there are more).
   */
  query(q: StoredOrderQuery): { rows: ListedOrder[]; total: number; totalAtLeast: boolean } {
    const search = q.search?.trim()
    if (search) return this.searchQuery(q, search)
    const exact = this.presentStatuses(q)
    const built = this.build(exact, { countCap: this.searchPlan.totalCap, columns: LISTED })
    // The statements run back to back on the one connection: a write of this process cannot
    // come between them. Another connection's commit can (each statement reads its own WAL
    // snapshot), and then rows and total differ by that commit until the next query, which
    // the write's notice brings.
    const { total, atLeast } = this.cappedCount(built)
    // The total is exact unless capped: a window past it holds nothing, and is not looked for.
    if (!atLeast && built.offset >= total) return { rows: [], total, totalAtLeast: false }
    const rowsSql =
      built.statusRowsSql !== null && !this.walkPays(q.type, built, total, this.searchPlan.statusMatchCost)
        ? built.statusRowsSql
        : built.rowsSql
    const rows = this.sql.all<ListedOrderDbRow>(rowsSql, ...built.params, built.limit, built.offset).map(toListedOrder)
    return { rows, total, totalAtLeast: atLeast }
  }

  /**
   * A window of a search: from its collected set when it has one (counted on the set, the
   * window walked or read from it, whichever reads less), else (too many matches to
   * collect) by walking the sort's index and testing each order.
   */
  private searchQuery(q: StoredOrderQuery, search: string): { rows: ListedOrder[]; total: number; totalAtLeast: boolean } {
    let set = this.searchSet(q.type, search)
    if (set.kind === 'wallets') {
      const plain = this.build(q)
      const window = plain.searchOnly ? walletWindowSql(q, set.wallets, set.others, LISTED) : null
      if (window) {
        const { total, atLeast } = this.walletsTotal(set)
        if (!atLeast && plain.offset >= total) return { rows: [], total, totalAtLeast: false }
        return { rows: this.sql.all<ListedOrderDbRow>(window.sql, ...window.params).map(toListedOrder), total, totalAtLeast: atLeast }
      }
      set = this.walletsCollected(q.type, search, set)
    }
    const { built, total, atLeast } = this.searchTotal(q, set)
    if (!atLeast && built.offset >= total) return { rows: [], total, totalAtLeast: false }
    let rowsSql = built.rowsSql
    let params = built.params
    if (set.kind === 'collected') {
      const matches = built.searchOnly ? set.size : total
      if (built.setWalkRowsSql !== null && this.walkPays(q.type, built, matches, this.searchPlan.setMatchCost))
        rowsSql = built.setWalkRowsSql
    } else if (!this.walkPays(q.type, built, total)) {
      const narrow = this.build(q, { columns: LISTED })
      rowsSql = narrow.rowsSql
      params = narrow.params
    }
    const rows = this.sql.all<ListedOrderDbRow>(rowsSql, ...params, built.limit, built.offset).map(toListedOrder)
    return { rows, total, totalAtLeast: atLeast }
  }

  /** A search's total, as query() counts it, and the query it was counted for. */
  private searchTotal(q: StoredOrderQuery, set: SearchSet): { built: BuiltOrderQuery; total: number; atLeast: boolean } {
    const cap = this.searchPlan.totalCap
    if (set.kind === 'wallets') {
      const plain = this.build(q)
      if (!plain.searchOnly) return this.searchTotal(q, this.walletsCollected(q.type, q.search!.trim(), set))
      return { built: plain, ...this.walletsTotal(set) }
    }
    if (set.kind === 'past bound') {
      const built = this.build(q, { broad: true, countCap: cap, columns: LISTED })
      // A source past the bound is past the cap too: no count settles it further.
      if (built.searchOnly && this.searchPlan.setBound >= cap) return { built, total: cap, atLeast: true }
      return { built, ...this.cappedCount(built) }
    }
    const built = this.build(q, { idSet: set.ids, columns: LISTED, ...(set.broad ? { countCap: cap } : {}) })
    const n = built.searchOnly ? set.size : this.countOf(built)
    return set.broad && n > cap ? { built, total: cap, atLeast: true } : { built, total: n, atLeast: false }
  }

  /** A search of a few wallets alone, counted from the wallets' counts (capped when broad, as any broad search). */
  private walletsTotal(set: Extract<SearchSet, { kind: 'wallets' }>): { total: number; atLeast: boolean } {
    const cap = this.searchPlan.totalCap
    return set.broad && set.size > cap ? { total: cap, atLeast: true } : { total: set.size, atLeast: false }
  }

  /** The search's collected matches of one type (or that it has too many), kept until the next write. */
  private searchSet(type: OrderType, search: string): SearchSet {
    const { setBound, broadMatches, windowWallets } = this.searchPlan
    return this.fact(`set|${setBound}|${broadMatches}|${windowWallets}|${type}|${search}`, () =>
      collectSearchSet(this.sql, type, searchTerm(search, this.longText()), setBound, broadMatches, windowWallets)
    )
  }

  /** A search of a few wallets' orders with every match collected, for a filter or a sort the wallets' index does not serve. */
  private walletsCollected(type: OrderType, search: string, set: Extract<SearchSet, { kind: 'wallets' }>): SearchSet {
    const { setBound, broadMatches, windowWallets } = this.searchPlan
    return this.fact(`walletsCollected|${setBound}|${broadMatches}|${windowWallets}|${type}|${search}`, () =>
      collectWallets(this.sql, type, set)
    )
  }

  /**
   * The filter with its status conditions (a group, a list, an exclusion: "in progress" is
   * every status not known to end an order) turned into the list of the statuses the type's
   * orders hold now that pass them (order_counts, migration 12), the same orders: a list
   * can be sought in the status index, an exclusion cannot. Without a status condition, or
   * with a search (driven by its own matches), the filter as given.
   */
  private presentStatuses(q: StoredOrderQuery): StoredOrderQuery {
    if (q.search?.trim() || (q.statusGroup === undefined && q.statuses === undefined && q.excludeStatuses === undefined)) return q
    const group = q.statusGroup === undefined ? null : statusGroupFilter(q.type, q.statusGroup)
    const held = this.sql
      .all<{ status: number }>('SELECT DISTINCT status FROM order_counts WHERE type = ? AND n > 0 ORDER BY status', q.type)
      .map((r) => r.status)
    const statuses = held.filter(
      (st) =>
        (!group || group.in.includes(st) || (group.includeUnknown && !group.known.includes(st))) &&
        (q.statuses === undefined || q.statuses.includes(st)) &&
        (q.excludeStatuses === undefined || !q.excludeStatuses.includes(st))
    )
    const listed = q.listed || (q.statusGroup !== undefined && OPEN_GROUPS.includes(q.statusGroup))
    return { ...q, statusGroup: undefined, excludeStatuses: undefined, statuses, ...(listed ? { listed: true } : {}) }
  }

  /** The query of a filter, its long texts found through the index that holds every order (the grams once filled). */
  private build(q: StoredOrderQuery, opts: Omit<BuildOrderOptions, 'longText'> = {}): BuiltOrderQuery {
    return buildOrderQuery(q, { ...opts, longText: this.longText() })
  }

  /** Which index finds a long text now (order-grams.ts): kept until the next write, as the fill's steps are writes. */
  private longText(): LongTextIndex {
    return this.fact('longText', () => (gramsReady(this.sql) ? 'grams' : 'trigrams'))
  }

  /** How many orders match the filter, every one (kept until the next write, as the query's totals are). */
  total(filter: StoredOrderFilter): number {
    return this.countOf(this.build(filter, { broad: this.broadSearch(filter) }))
  }

  /** How many orders match the filter, as query() counts them: a broad search up to BROAD_TOTAL_CAP. */
  totalUpTo(filter: StoredOrderFilter): { total: number; atLeast: boolean } {
    const search = filter.search?.trim()
    if (search) {
      const { total, atLeast } = this.searchTotal(filter, this.searchSet(filter.type, search))
      return { total, atLeast }
    }
    return this.cappedCount(this.build(filter, { broad: this.broadSearch(filter), countCap: this.searchPlan.totalCap }))
  }

  private cappedCount(built: BuiltOrderQuery): { total: number; atLeast: boolean } {
    const cap = built.countCap
    if (
      cap !== null &&
      built.countProbes.some(
        (p) => this.fact(`probe|${p.sql}|${JSON.stringify(p.params)}`, () => this.sql.value<number>(p.sql, ...p.params) ?? 0) > cap
      )
    )
      return { total: cap, atLeast: true }
    const n = this.countOf(built)
    return built.countCap !== null && n > built.countCap ? { total: built.countCap, atLeast: true } : { total: n, atLeast: false }
  }

  /**
   * COUNT(*) of a filter walks every matching index entry (100,000 of them for a whole
   * tab), while its first page is an index seek: so the totals are kept until the next
   * write, and an operator going back to a filter (or to "any") does not count again.
   */
  private countOf(built: BuiltOrderQuery): number {
    const key = `${built.countSql}|${built.countParams.map((p) => `${typeof p}:${String(p)}`).join('|')}`
    return this.fact(key, () => this.sql.value<number>(built.countSql, ...built.countParams) ?? 0)
  }

  /** compute(), kept under key until the next write (computed afresh inside a transaction). */
  private fact<T>(key: string, compute: () => T): T {
    const stamp = this.sql.writeStamp()
    if (stamp === null) return compute()
    if (stamp !== this.facts.stamp) this.facts = { stamp, byKey: new Map() }
    let value = this.facts.byKey.get(key) as T | undefined
    if (value === undefined) {
      value = compute()
      if (this.facts.byKey.size >= MAX_CACHED_FACTS) this.facts.byKey.clear()
      this.facts.byKey.set(key, value)
    }
    return value
  }

  /**
   * Whether a window is cheaper found by walking the sort's index than by collecting and
   * sorting every match: the walk reads about (offset + limit) × (orders of the type /
   * matches) entries; a match costs `perMatch` entries' time (a search's ids about two, an
   * order sought in the status index STATUS_PLAN_COST). A window deep into a sparse result
   * takes the matches.
   */
  private walkPays(type: OrderType, built: BuiltOrderQuery, total: number, perMatch = 2): boolean {
    const walked = ((built.offset + built.limit) * this.countOf(this.build({ type }))) / Math.max(1, total)
    return walked <= Math.max(this.searchPlan.maxWalkedEntries, perMatch * total)
  }

  /**
   * Whether the filter's search matches so many orders that walking the sort's index beats
   * collecting them; probed once per search until the next write, not for every page.
   */
  private broadSearch(f: StoredOrderFilter): boolean {
    const search = f.search?.trim()
    if (!search) return false
    const at = this.searchPlan.broadMatches
    const term = searchTerm(search, this.longText())
    const probe = () => (searchProbes(f.type, term, at).some((p) => (this.sql.value<number>(p.sql, ...p.params) ?? 0) >= at) ? 1 : 0)
    return this.fact(`broad|${at}|${f.type}|${search}`, probe) === 1
  }

  /** Every order matching the filter, one at a time (for CSV export). */
  *exportRows(filter: StoredOrderFilter & Pick<StoredOrderQuery, 'sort'>): Generator<StoredOrder> {
    const built = this.build(filter, { unbounded: true, broad: this.broadSearch(filter) })
    for (const r of this.sql.iterate<OrderDbRow>(built.rowsSql, ...built.params, built.limit, built.offset)) yield toStoredOrder(r)
  }
}
