// Compact storage for up to millions of orders: one typed array per field (about 50
// bytes an order), the order id implied by the row (ID_BASE + row), and one index per
// (type, fiat) holding rows sorted by (reported updatedAt, orderId) so a history page
// is a binary search plus a slice. Amounts are stored as the inputs of their quote
// (fiat amount or quantity, price, slippage); the rest is derived when rendered.
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

class SortedIndex {
  rows = new Int32Array(1024)
  length = 0
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
  /** Explicit histories of orders that changed after creation; the others derive theirs. */
  private readonly histories = new Map<number, HistoryEntry[]>()
  private readonly indexes = new Map<number, SortedIndex>()

  constructor(initialCapacity = 1024) {
    this.grow(initialCapacity)
  }

  private grow(min: number): void {
    if (min <= this.cap) return
    const cap = Math.max(min, this.cap * 2, 1024)
    const g = <T extends Uint8Array | Int8Array | Uint16Array | Float64Array>(old: T, make: (n: number) => T): T => {
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
    this.cap = cap
  }

  /** Reserves room for n more orders (bulk generation). */
  reserve(n: number): void {
    this.grow(this.size + n)
  }

  static orderIdOf(row: number): number {
    return ID_BASE + row
  }

  rowOf(orderId: number): number | undefined {
    const row = orderId - ID_BASE
    return Number.isInteger(row) && row >= 0 && row < this.size ? row : undefined
  }

  /**
   * Appends an order. With index false the caller must call rebuildIndexes() before
   * queries (bulk loading sorts once instead of inserting a million times).
   */
  add(o: NewOrder, index = true): number {
    this.grow(this.size + 1)
    const r = this.size++
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
    if (index) this.insert(r)
    return r
  }

  private groupKey(type: number, fiatIndex: number): number {
    return type * 256 + fiatIndex
  }

  private indexOf(type: number, fiatIndex: number): SortedIndex {
    const k = this.groupKey(type, fiatIndex)
    let ix = this.indexes.get(k)
    if (!ix) {
      ix = new SortedIndex()
      this.indexes.set(k, ix)
    }
    return ix
  }

  /** Sort key comparison: reported updatedAt, then orderId (= row). */
  private before(a: number, b: number): boolean {
    const ua = reportedUpdatedAt(this.updatedAt[a] ?? 0)
    const ub = reportedUpdatedAt(this.updatedAt[b] ?? 0)
    return ua < ub || (ua === ub && a < b)
  }

  /** First position in ix whose row sorts at or after row r. */
  private position(ix: SortedIndex, r: number): number {
    let lo = 0
    let hi = ix.length
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      if (this.before(ix.rows[mid] ?? 0, r)) lo = mid + 1
      else hi = mid
    }
    return lo
  }

  private insert(r: number): void {
    const ix = this.indexOf(this.type[r] ?? 0, this.fiat[r] ?? 0)
    if (ix.length === ix.rows.length) {
      const n = new Int32Array(ix.rows.length * 2)
      n.set(ix.rows)
      ix.rows = n
    }
    // Updates almost always move an order to the end: check that first.
    const last = ix.length > 0 ? (ix.rows[ix.length - 1] ?? 0) : -1
    const at = last < 0 || this.before(last, r) ? ix.length : this.position(ix, r)
    ix.rows.copyWithin(at + 1, at, ix.length)
    ix.rows[at] = r
    ix.length++
  }

  private remove(r: number): void {
    const ix = this.indexOf(this.type[r] ?? 0, this.fiat[r] ?? 0)
    const at = this.position(ix, r)
    if (ix.rows[at] !== r) throw new Error(`order row ${r} missing from its index`)
    ix.rows.copyWithin(at, at + 1, ix.length)
    ix.length--
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
  }

  /** Switches an order to another path with the same statuses so far (admin "advance to X"). */
  setPath(r: number, pathId: number): void {
    if (!this.histories.has(r)) this.histories.set(r, this.history(r))
    this.path[r] = pathId
  }

  /** Marks an order as live (explicit history from now on). */
  track(r: number): void {
    if (!this.histories.has(r)) this.histories.set(r, this.history(r))
  }

  // ---------------------------------------------------------------- queries

  /** Rows of one (type, fiat), reported updatedAt >= since, in the order and page asked. */
  page(type: number, fiatIndex: number, opts: { since?: number; page: number; pageSize: number; order: 'ASC' | 'DESC' }): number[] {
    const ix = this.indexes.get(this.groupKey(type, fiatIndex))
    if (!ix || ix.length === 0) return []
    let start = 0
    if (opts.since !== undefined) {
      const since = opts.since
      let lo = 0
      let hi = ix.length
      while (lo < hi) {
        const mid = (lo + hi) >>> 1
        if (reportedUpdatedAt(this.updatedAt[ix.rows[mid] ?? 0] ?? 0) < since) lo = mid + 1
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

  /** Count of orders in one (type, fiat) group. */
  count(type: number, fiatIndex: number): number {
    return this.indexes.get(this.groupKey(type, fiatIndex))?.length ?? 0
  }

  /** Approximate bytes held by the columns and indexes (for the benchmark). */
  bytes(): number {
    let b = this.cap * (10 + 2 + 8 * 4)
    for (const ix of this.indexes.values()) b += ix.rows.byteLength
    return b
  }
}
