// Compact storage for up to millions of orders: one typed array per field (about 50
// bytes an order), the order id implied by the row (ID_BASE + row), and one index per
// (type, fiat) holding rows sorted by (reported updatedAt, orderId) so a history page
// is a binary search plus a slice. The hidden tie order (a reading) is a second set of
// indexes sorted by (reported updatedAt, a seeded permutation of the rows), built the
// first time it is asked for and kept up to date from then on, so its pages cost the
// same. Amounts are stored as the inputs of their quote (fiat amount or quantity,
// price, slippage); the rest is derived when rendered. The store also keeps the list
// of open orders (not at the end of their path), which churn picks from.
//
// Order ids are one sequence for both types, or one per type (so an onramp and an offramp
// order may carry the same id): the store keeps each row's id and, per sequence, the row
// of each id. The history readings that order or filter on something other than the
// reported updatedAt, or merge the fiats of a type, take a slower path (page()) that
// sorts the candidate rows per request; the default readings keep the indexed one.
import { ID_BASE } from './catalogue'
import { pathAt, type OrderType } from './order-paths'

/** Spec 4.4: orders last updated on or before this instant report it as their updatedAt. */
export const CUTOVER = Date.parse('2022-11-09T16:58:07.000Z')

export interface HistoryEntry {
  status: number
  at: number
}

export interface NewOrder {
  type: OrderType
  fiatIndex: number
  coinIndex: number
  chainIndex: number
  pathId: number
  step: number
  status: number
  paymentType: number
  wallet: number
  slipBps: number
  /** Onramp: fiat amount at 2 places; offramp: quantity at 8 places. */
  amountScaled: number
  /** Price at 4 places. */
  priceScaled: number
  createdAt: number
  updatedAt: number
}

export const AMOUNT_DP: Record<OrderType, number> = { 1: 2, 2: 8 }

export const reportedUpdatedAt = (t: number): number => (t <= CUTOVER ? CUTOVER : t)

/**
 * How records sharing one updatedAt are ordered: by orderId, by a hidden, seeded row order,
 * or by a hidden order that also depends on the page size asked ('limit': SQL
 * `ORDER BY updatedAt LIMIT n OFFSET m` with no tie-breaker may order ties differently for
 * different LIMITs).
 */
export type TieOrder = 'orderId' | 'hidden' | 'limit'

/** One id sequence for both order types, or one per type (the same id may then name an onramp and an offramp order). */
export type IdSequence = 'shared' | 'perType'

/** The order field a history request's `since` filters on, and the one its order sorts by. */
export type HistoryField = 'updatedAt' | 'createdAt'

export interface PageOptions {
  since?: number
  sinceExclusive?: boolean
  page: number
  pageSize: number
  order: 'ASC' | 'DESC'
  tie?: TieOrder
  /** What since filters on. Default the reported updatedAt. */
  sinceField?: HistoryField
  /** What the order sorts by (then the tie order). Default the reported updatedAt. */
  orderBy?: HistoryField
  /** Further fiat groups whose rows are listed with the one asked for (a service ignoring fiatType). */
  alsoFiats?: readonly number[]
}

class SortedIndex {
  rows = new Int32Array(1024)
  length = 0
}

/**
 * The hidden row order: a bijection of 32-bit integers (an added salt, then xorshift
 * and odd multiplications, each invertible), so every row gets its own rank, the
 * order is stable and it looks nothing like the order ids.
 */
export function hiddenRank(row: number, salt: number): number {
  let h = (row + salt) >>> 0
  h = Math.imul(h ^ (h >>> 16), 0x7feb352d) >>> 0
  h = Math.imul(h ^ (h >>> 15), 0x846ca68b) >>> 0
  return (h ^ (h >>> 16)) >>> 0
}

export class OrderStore {
  size = 0
  private cap = 0
  type = new Uint8Array(0)
  fiat = new Uint8Array(0)
  coin = new Uint8Array(0)
  chain = new Uint8Array(0)
  status = new Int8Array(0)
  path = new Uint8Array(0)
  step = new Uint8Array(0)
  paymentType = new Uint8Array(0)
  wallet = new Uint16Array(0)
  webhookTrials = new Uint8Array(0)
  slip = new Int8Array(0)
  amount = new Float64Array(0)
  price = new Float64Array(0)
  createdAt = new Float64Array(0)
  updatedAt = new Float64Array(0)
  /** The order id of each row. */
  orderIds = new Int32Array(0)
  /** Per id sequence (0 shared, 1 onramp, 2 offramp): the row of each id, by id - ID_BASE. */
  private readonly rowsById: [number[], number[], number[]] = [[], [], []]
  /** Explicit histories of orders that changed after creation; the others derive theirs. */
  private readonly histories = new Map<number, HistoryEntry[]>()
  private readonly indexes = new Map<number, SortedIndex>()
  /** The same groups sorted with the hidden tie order; undefined until first asked for. */
  private hiddenIndexes: Map<number, SortedIndex> | undefined
  /** Open rows, and each one's place in that list (for O(1) removal). */
  private readonly open: number[] = []
  private readonly openAt = new Map<number, number>()

  /** hiddenSalt seeds the hidden tie order. */
  constructor(
    initialCapacity = 1024,
    private readonly hiddenSalt = 0,
    readonly idSequence: IdSequence = 'shared'
  ) {
    this.grow(initialCapacity)
  }

  private grow(min: number): void {
    if (min <= this.cap) return
    const cap = Math.max(min, this.cap * 2, 1024)
    const g = <T extends Uint8Array | Int8Array | Uint16Array | Int32Array | Float64Array>(old: T, make: (n: number) => T): T => {
      const n = make(cap)
      n.set(old)
      return n
    }
    this.type = g(this.type, (n) => new Uint8Array(n))
    this.fiat = g(this.fiat, (n) => new Uint8Array(n))
    this.coin = g(this.coin, (n) => new Uint8Array(n))
    this.chain = g(this.chain, (n) => new Uint8Array(n))
    this.status = g(this.status, (n) => new Int8Array(n))
    this.path = g(this.path, (n) => new Uint8Array(n))
    this.step = g(this.step, (n) => new Uint8Array(n))
    this.paymentType = g(this.paymentType, (n) => new Uint8Array(n))
    this.wallet = g(this.wallet, (n) => new Uint16Array(n))
    this.webhookTrials = g(this.webhookTrials, (n) => new Uint8Array(n))
    this.slip = g(this.slip, (n) => new Int8Array(n))
    this.amount = g(this.amount, (n) => new Float64Array(n))
    this.price = g(this.price, (n) => new Float64Array(n))
    this.createdAt = g(this.createdAt, (n) => new Float64Array(n))
    this.updatedAt = g(this.updatedAt, (n) => new Float64Array(n))
    this.orderIds = g(this.orderIds, (n) => new Int32Array(n))
    this.cap = cap
  }

  /** Reserves room for n more orders (bulk generation). */
  reserve(n: number): void {
    this.grow(this.size + n)
  }

  /** The id of a row of a store with one shared sequence (the default). */
  static orderIdOf(row: number): number {
    return ID_BASE + row
  }

  /** The id of a row, whichever sequence it comes from. */
  idOf(row: number): number {
    return this.orderIds[row] ?? 0
  }

  /**
   * The row of an order id. With one sequence per type the type says which; without a
   * type, an onramp order with that id, else an offramp one.
   */
  rowOf(orderId: number, type?: OrderType): number | undefined {
    const i = orderId - ID_BASE
    if (!Number.isInteger(i) || i < 0) return undefined
    if (this.idSequence === 'shared') return this.rowsById[0][i]
    if (type !== undefined) return this.rowsById[type][i]
    return this.rowsById[1][i] ?? this.rowsById[2][i]
  }

  /**
   * Appends an order. With index false the caller must call rebuildIndexes() before
   * queries (bulk loading sorts once instead of inserting a million times).
   */
  add(o: NewOrder, index = true): number {
    this.grow(this.size + 1)
    const r = this.size++
    const ids = this.rowsById[this.idSequence === 'shared' ? 0 : o.type]
    this.orderIds[r] = ID_BASE + ids.length
    ids.push(r)
    this.type[r] = o.type
    this.fiat[r] = o.fiatIndex
    this.coin[r] = o.coinIndex
    this.chain[r] = o.chainIndex
    this.status[r] = o.status
    this.path[r] = o.pathId
    this.step[r] = o.step
    this.paymentType[r] = o.paymentType
    this.wallet[r] = o.wallet
    this.webhookTrials[r] = 0
    this.slip[r] = o.slipBps
    this.amount[r] = o.amountScaled
    this.price[r] = o.priceScaled
    this.createdAt[r] = o.createdAt
    this.updatedAt[r] = o.updatedAt
    this.refreshOpen(r)
    if (index) this.insert(r)
    return r
  }

  /** Whether an order has steps left on its path. */
  isOpen(r: number): boolean {
    return (this.step[r] ?? 0) < pathAt(this.path[r] ?? 0).statuses.length - 1
  }

  private refreshOpen(r: number): void {
    const at = this.openAt.get(r)
    if (this.isOpen(r)) {
      if (at === undefined) {
        this.openAt.set(r, this.open.length)
        this.open.push(r)
      }
    } else if (at !== undefined) {
      const last = this.open.pop() as number
      if (last !== r) {
        this.open[at] = last
        this.openAt.set(last, at)
      }
      this.openAt.delete(r)
    }
  }

  /** The rows of the orders not yet at the end of their path (in no particular order). */
  openRows(): readonly number[] {
    return this.open
  }

  private groupKey(type: number, fiatIndex: number): number {
    return type * 256 + fiatIndex
  }

  private indexIn(indexes: Map<number, SortedIndex>, type: number, fiatIndex: number): SortedIndex {
    const k = this.groupKey(type, fiatIndex)
    let ix = indexes.get(k)
    if (!ix) {
      ix = new SortedIndex()
      indexes.set(k, ix)
    }
    return ix
  }

  /** Sort key comparison: reported updatedAt, then orderId (= row) or the hidden rank. */
  private before(a: number, b: number, tie: TieOrder): boolean {
    const ua = reportedUpdatedAt(this.updatedAt[a] ?? 0)
    const ub = reportedUpdatedAt(this.updatedAt[b] ?? 0)
    if (ua !== ub) return ua < ub
    return tie === 'orderId' ? a < b : hiddenRank(a, this.hiddenSalt) < hiddenRank(b, this.hiddenSalt)
  }

  /** First position in ix whose row sorts at or after row r. */
  private position(ix: SortedIndex, r: number, tie: TieOrder): number {
    let lo = 0
    let hi = ix.length
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      if (this.before(ix.rows[mid] ?? 0, r, tie)) lo = mid + 1
      else hi = mid
    }
    return lo
  }

  private insertIn(ix: SortedIndex, r: number, tie: TieOrder): void {
    if (ix.length === ix.rows.length) {
      const n = new Int32Array(ix.rows.length * 2)
      n.set(ix.rows)
      ix.rows = n
    }
    // Updates almost always move an order to the end: check that first.
    const last = ix.length > 0 ? (ix.rows[ix.length - 1] ?? 0) : -1
    const at = last < 0 || this.before(last, r, tie) ? ix.length : this.position(ix, r, tie)
    ix.rows.copyWithin(at + 1, at, ix.length)
    ix.rows[at] = r
    ix.length++
  }

  private removeFrom(ix: SortedIndex, r: number, tie: TieOrder): void {
    const at = this.position(ix, r, tie)
    if (ix.rows[at] !== r) throw new Error(`order row ${r} missing from its index`)
    ix.rows.copyWithin(at, at + 1, ix.length)
    ix.length--
  }

  private insert(r: number): void {
    const type = this.type[r] ?? 0
    const fiat = this.fiat[r] ?? 0
    this.insertIn(this.indexIn(this.indexes, type, fiat), r, 'orderId')
    if (this.hiddenIndexes) this.insertIn(this.indexIn(this.hiddenIndexes, type, fiat), r, 'hidden')
  }

  private remove(r: number): void {
    const type = this.type[r] ?? 0
    const fiat = this.fiat[r] ?? 0
    this.removeFrom(this.indexIn(this.indexes, type, fiat), r, 'orderId')
    if (this.hiddenIndexes) this.removeFrom(this.indexIn(this.hiddenIndexes, type, fiat), r, 'hidden')
  }

  /** Sorts every index from scratch (after bulk loading with index = false). */
  rebuildIndexes(): void {
    this.indexes.clear()
    const counts = new Map<number, number>()
    for (let r = 0; r < this.size; r++) {
      const k = this.groupKey(this.type[r] ?? 0, this.fiat[r] ?? 0)
      counts.set(k, (counts.get(k) ?? 0) + 1)
    }
    for (const [k, n] of counts) {
      const ix = new SortedIndex()
      ix.rows = new Int32Array(Math.max(1024, Math.ceil(n * 1.25)))
      this.indexes.set(k, ix)
    }
    for (let r = 0; r < this.size; r++) {
      const ix = this.indexes.get(this.groupKey(this.type[r] ?? 0, this.fiat[r] ?? 0)) as SortedIndex
      ix.rows[ix.length++] = r
    }
    const upd = this.updatedAt
    for (const ix of this.indexes.values()) {
      const part = ix.rows.subarray(0, ix.length)
      part.sort((a, b) => {
        const d = reportedUpdatedAt(upd[a] ?? 0) - reportedUpdatedAt(upd[b] ?? 0)
        return d !== 0 ? d : a - b
      })
    }
    if (this.hiddenIndexes) {
      this.hiddenIndexes = undefined
      this.enableHiddenOrder()
    }
  }

  /** Builds the hidden-tie-order indexes (once; they are maintained from then on). */
  enableHiddenOrder(): void {
    if (this.hiddenIndexes) return
    const hidden = new Map<number, SortedIndex>()
    const upd = this.updatedAt
    const rank = new Uint32Array(this.size)
    for (let r = 0; r < this.size; r++) rank[r] = hiddenRank(r, this.hiddenSalt)
    for (const [k, ix] of this.indexes) {
      const copy = new SortedIndex()
      copy.rows = ix.rows.slice()
      copy.length = ix.length
      copy.rows.subarray(0, copy.length).sort((a, b) => {
        const d = reportedUpdatedAt(upd[a] ?? 0) - reportedUpdatedAt(upd[b] ?? 0)
        return d !== 0 ? d : (rank[a] ?? 0) - (rank[b] ?? 0)
      })
      hidden.set(k, copy)
    }
    this.hiddenIndexes = hidden
  }

  // ---------------------------------------------------------------- changes

  /** Full status history (explicit for changed orders, derived for untouched ones). */
  history(r: number): HistoryEntry[] {
    const explicit = this.histories.get(r)
    if (explicit) return explicit.map((h) => ({ ...h }))
    const p = pathAt(this.path[r] ?? 0)
    const step = this.step[r] ?? 0
    const statuses = p.statuses.slice(0, step + 1)
    const st = this.status[r] ?? 0
    if (st !== statuses[statuses.length - 1]) statuses.push(st)
    const c = this.createdAt[r] ?? 0
    const u = this.updatedAt[r] ?? 0
    const n = statuses.length
    return statuses.map((status, i) => ({ status, at: n === 1 ? c : i === n - 1 ? u : c + Math.round(((u - c) * i) / (n - 1)) }))
  }

  /** Moves an order to a new status at time t: updates the history, updatedAt and its index position. */
  setStatus(r: number, status: number, step: number, t: number): void {
    const h = this.histories.get(r) ?? this.history(r)
    h.push({ status, at: t })
    this.histories.set(r, h)
    this.remove(r)
    this.status[r] = status
    this.step[r] = step
    this.updatedAt[r] = Math.max(t, this.updatedAt[r] ?? 0)
    this.insert(r)
    this.refreshOpen(r)
  }

  /** Switches an order to another path with the same statuses so far (admin "advance to X"). */
  setPath(r: number, pathId: number): void {
    if (!this.histories.has(r)) this.histories.set(r, this.history(r))
    this.path[r] = pathId
    this.refreshOpen(r)
  }

  /** Marks an order as live (explicit history from now on). */
  track(r: number): void {
    if (!this.histories.has(r)) this.histories.set(r, this.history(r))
  }

  // ---------------------------------------------------------------- queries

  /**
   * Rows of one (type, fiat) from since on (reported updatedAt >= since, or > since when
   * sinceExclusive), sorted by updatedAt and the tie order, in the direction and page asked.
   * Other readings (since on createdAt, sorted by createdAt, several fiats) take slowPage.
   */
  page(type: number, fiatIndex: number, opts: PageOptions): number[] {
    if (opts.tie === 'hidden') this.enableHiddenOrder()
    if (
      (opts.sinceField ?? 'updatedAt') !== 'updatedAt' ||
      (opts.orderBy ?? 'updatedAt') !== 'updatedAt' ||
      opts.alsoFiats?.length ||
      opts.tie === 'limit'
    )
      return this.slowPage(type, fiatIndex, opts)
    const ix = (opts.tie === 'hidden' ? this.hiddenIndexes : this.indexes)?.get(this.groupKey(type, fiatIndex))
    if (!ix || ix.length === 0) return []
    let start = 0
    if (opts.since !== undefined) {
      const since = opts.since
      const exclusive = opts.sinceExclusive === true
      let lo = 0
      let hi = ix.length
      while (lo < hi) {
        const mid = (lo + hi) >>> 1
        const u = reportedUpdatedAt(this.updatedAt[ix.rows[mid] ?? 0] ?? 0)
        if (u < since || (exclusive && u === since)) lo = mid + 1
        else hi = mid
      }
      start = lo
    }
    const total = ix.length - start
    const skip = (opts.page - 1) * opts.pageSize
    if (skip >= total) return []
    const n = Math.min(opts.pageSize, total - skip)
    const out = new Array<number>(n)
    if (opts.order === 'ASC') {
      for (let i = 0; i < n; i++) out[i] = ix.rows[start + skip + i] ?? 0
    } else {
      const top = ix.length - 1 - skip
      for (let i = 0; i < n; i++) out[i] = ix.rows[top - i] ?? 0
    }
    return out
  }

  /** The value of an order field of a row as the service reports it. */
  private field(row: number, f: HistoryField): number {
    return f === 'createdAt' ? (this.createdAt[row] ?? 0) : reportedUpdatedAt(this.updatedAt[row] ?? 0)
  }

  /** page() for the other readings: the candidate rows filtered and sorted per request (tests and demos, not a million orders). */
  private slowPage(type: number, fiatIndex: number, opts: PageOptions): number[] {
    const sinceField = opts.sinceField ?? 'updatedAt'
    const orderBy = opts.orderBy ?? 'updatedAt'
    const rows: number[] = []
    for (const f of new Set([fiatIndex, ...(opts.alsoFiats ?? [])])) {
      const ix = this.indexes.get(this.groupKey(type, f))
      if (ix) for (let i = 0; i < ix.length; i++) rows.push(ix.rows[i] ?? 0)
    }
    const since = opts.since
    const kept =
      since === undefined
        ? rows
        : rows.filter((r) => {
            const v = this.field(r, sinceField)
            return opts.sinceExclusive ? v > since : v >= since
          })
    const salt = opts.tie === 'limit' ? (this.hiddenSalt ^ Math.imul(opts.pageSize, 0x9e3779b1)) >>> 0 : this.hiddenSalt
    const tie = (r: number) => (opts.tie === 'hidden' || opts.tie === 'limit' ? hiddenRank(r, salt) : this.idOf(r))
    kept.sort((a, b) => this.field(a, orderBy) - this.field(b, orderBy) || tie(a) - tie(b))
    if (opts.order === 'DESC') kept.reverse()
    const skip = (opts.page - 1) * opts.pageSize
    return kept.slice(skip, skip + opts.pageSize)
  }

  /** Count of orders in one (type, fiat) group. */
  count(type: number, fiatIndex: number): number {
    return this.indexes.get(this.groupKey(type, fiatIndex))?.length ?? 0
  }

  /** Approximate bytes held by the columns and indexes (for the benchmark). */
  bytes(): number {
    let b = this.cap * (10 + 2 + 4 + 8 * 4)
    for (const ix of this.indexes.values()) b += ix.rows.byteLength
    for (const ix of this.hiddenIndexes?.values() ?? []) b += ix.rows.byteLength
    return b
  }
}
