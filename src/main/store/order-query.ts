// SQL for the orders table's filters, search and sort. Every filter maps to an indexed
// column, search is exact (order id) or case-insensitive prefix over the lower(...)
// expression indexes, and sort keys come from a fixed whitelist (never from input text).
import { statusGroupFilter } from '../../shared/domain/status'
import type { OrderType, StatusGroup } from '../../shared/ipc/contract'
import type { SqlValue } from './database'

export type OrderSortKey = 'createdAt' | 'updatedAt' | 'orderId' | 'status' | 'fiatAmount' | 'cryptoAmount'

export interface OrderSort {
  key: OrderSortKey
  dir: 'asc' | 'desc'
}

export interface OrderFilter {
  type: OrderType
  /** Only the statuses of this group (shared/domain/status.ts); 'in progress' includes unknown statuses. */
  statusGroup?: StatusGroup
  /** Only these statuses. */
  statuses?: readonly number[]
  /** None of these statuses (e.g. "unknown status": everything outside the label table). */
  excludeStatuses?: readonly number[]
  fiatType?: number | readonly number[]
  coinId?: number | readonly number[]
  chainId?: number | readonly number[]
  /** Inclusive lower bound (ISO 8601) on dateField. */
  from?: string
  /** Exclusive upper bound (ISO 8601) on dateField. */
  to?: string
  dateField?: 'createdAt' | 'updatedAt'
  /**
   * Exact order id (when all digits), or a case-insensitive prefix of the merchant
   * recognition id, wallet address, reference id or transaction hash.
   */
  search?: string
}

export interface OrderQuery extends OrderFilter {
  sort?: OrderSort
  offset?: number
  /** Window size, 1..MAX_QUERY_LIMIT (default 100). */
  limit?: number
}

const MAX_QUERY_LIMIT = 1000
const DEFAULT_LIMIT = 100

const SORT_COLUMNS: Record<OrderSortKey, string> = {
  createdAt: 'created_at',
  updatedAt: 'updated_at',
  orderId: 'order_id',
  status: 'status',
  fiatAmount: 'sort_fiat',
  cryptoAmount: 'sort_crypto'
}

/** The index that walks the orders of one type in each sort key's order. */
const SORT_INDEXES: Record<OrderSortKey, string> = {
  createdAt: 'orders_by_created',
  updatedAt: 'orders_by_updated',
  orderId: 'orders_by_order_id',
  status: 'orders_by_status',
  fiatAmount: 'orders_by_fiat_amount',
  cryptoAmount: 'orders_by_crypto_amount'
}

const SEARCH_COLUMNS = ['merchant_recognition_id', 'wallet_address', 'reference_id', 'transaction_hash'] as const

/**
 * A searched column with this many matches makes the search broad (a first keystroke,
 * "0x", a merchant id prefix every order shares): see buildOrderQuery's `broad`.
 */
export const BROAD_SEARCH_MATCHES = 2000

/** Past every code point: `prefix <= x < prefix + MAX_CHAR` selects the strings starting with prefix. */
const MAX_CHAR = '\u{10FFFF}'

export interface BuiltOrderQuery {
  where: string
  params: SqlValue[]
  countSql: string
  /** Takes params, then LIMIT and OFFSET. */
  rowsSql: string
  limit: number
  offset: number
}

function isoBound(name: string, v: string): string {
  const t = Date.parse(v)
  if (Number.isNaN(t)) throw new RangeError(`${name} is not a timestamp: ${JSON.stringify(v)}`)
  return new Date(t).toISOString()
}

function ints(name: string, v: number | readonly number[]): number[] {
  const list = typeof v === 'number' ? [v] : [...v]
  for (const n of list) if (!Number.isSafeInteger(n)) throw new RangeError(`${name} must be integers`)
  return list
}

/** The range of lower(column) values starting with the search, case-insensitively: [from, until). */
function prefixRange(search: string): [string, string] {
  const prefix = search.trim().toLowerCase()
  return [prefix, prefix + MAX_CHAR]
}

/**
 * One query per searched column counting its matches up to `broad` (an index range, read
 * no further): a search is broad when one of them reaches it.
 */
export function searchProbes(type: OrderType, search: string, broad: number): Array<{ sql: string; params: SqlValue[] }> {
  return SEARCH_COLUMNS.map((col) => ({
    sql: `SELECT COUNT(*) FROM (SELECT 1 FROM orders WHERE type = ? AND lower(${col}) >= ? AND lower(${col}) < ? LIMIT ?)`,
    params: [type, ...prefixRange(search), broad]
  }))
}

/**
 * unbounded: no window (LIMIT -1), for exports.
 * broad: the search matches many orders (searchProbes). A narrow search is driven by its
 * matching ids (one index range per column, unioned), then sorted: cheap for a few
 * hundred. A broad one would union and sort tens of thousands (a quarter of a second for
 * "0x" over 100,000 orders, blocking main while the operator types on); it walks the sort
 * key's index instead and tests each order, stopping at the window's end.
 */
export function buildOrderQuery(q: OrderQuery, opts: { unbounded?: boolean; broad?: boolean } = {}): BuiltOrderQuery {
  if (q.type !== 1 && q.type !== 2) throw new RangeError('type must be 1 or 2')
  const search = q.search?.trim()
  const broad = !!search && !!opts.broad
  // With a narrow search, the few matching ids drive the query; a unary + keeps SQLite
  // from scanning a filter column's index instead (c() marks the column references).
  const c = (column: string): string => (search && !broad ? `+${column}` : column)
  const conds: string[] = [`${c('type')} = ?`]
  const params: SqlValue[] = [q.type]
  const inList = (column: string, name: string, v: number | readonly number[] | undefined, negate = false): void => {
    if (v === undefined) return
    const list = ints(name, v)
    if (list.length === 0) {
      // An empty allow-list matches nothing; an empty deny-list excludes nothing.
      if (!negate) conds.push('0')
      return
    }
    conds.push(`${c(column)} ${negate ? 'NOT IN' : 'IN'} (${list.map(() => '?').join(', ')})`)
    params.push(...list)
  }
  if (q.statusGroup !== undefined) {
    const g = statusGroupFilter(q.type, q.statusGroup)
    const inSql = g.in.length ? `${c('status')} IN (${g.in.map(() => '?').join(', ')})` : '0'
    if (g.includeUnknown && g.known.length) {
      conds.push(`(${inSql} OR ${c('status')} NOT IN (${g.known.map(() => '?').join(', ')}))`)
      params.push(...g.in, ...g.known)
    } else {
      conds.push(inSql)
      params.push(...g.in)
    }
  }
  inList('status', 'statuses', q.statuses)
  inList('status', 'excludeStatuses', q.excludeStatuses, true)
  inList('fiat_type', 'fiatType', q.fiatType)
  inList('coin_id', 'coinId', q.coinId)
  inList('chain_id', 'chainId', q.chainId)
  const dateColumn = q.dateField === 'updatedAt' ? 'updated_at' : 'created_at'
  if (q.from !== undefined) {
    conds.push(`${c(dateColumn)} >= ?`)
    params.push(isoBound('from', q.from))
  }
  if (q.to !== undefined) {
    conds.push(`${c(dateColumn)} < ?`)
    params.push(isoBound('to', q.to))
  }
  if (search) {
    // Exact order id (all digits), or a prefix of a searched column, each test with its
    // values. Broad: tested on each order the sort's index walks to. Narrow: one indexed
    // lookup per test, unioned (SQLite would otherwise scan).
    const range = prefixRange(search)
    const exact = /^\d{1,15}$/.test(search)
    const tests = [...(exact ? ['order_id = ?'] : []), ...SEARCH_COLUMNS.map((col) => `lower(${col}) >= ? AND lower(${col}) < ?`)]
    const values: SqlValue[][] = [...(exact ? [[Number(search)]] : []), ...SEARCH_COLUMNS.map(() => range)]
    if (broad) {
      conds.push(`(${tests.map((t) => `(${t})`).join(' OR ')})`)
      params.push(...values.flat())
    } else {
      conds.push(`id IN (${tests.map((t) => `SELECT id FROM orders WHERE type = ? AND ${t}`).join(' UNION ')})`)
      params.push(...values.flatMap((v) => [q.type, ...v]))
    }
  }
  const where = conds.join(' AND ')
  const sort = q.sort ?? { key: 'createdAt', dir: 'desc' }
  const column = SORT_COLUMNS[sort.key]
  if (!column) throw new RangeError(`unknown sort key ${String(sort.key)}`)
  const dir = sort.dir === 'asc' ? 'ASC' : 'DESC'
  // Ties break on order id (on created_at first for status), matching the index order.
  const orderBy =
    column === 'order_id'
      ? `order_id ${dir}`
      : column === 'status'
        ? `status ${dir}, created_at ${dir}, order_id ${dir}`
        : `${column} ${dir}, order_id ${dir}`
  const limit = opts.unbounded ? -1 : (q.limit ?? DEFAULT_LIMIT)
  const offset = opts.unbounded ? 0 : (q.offset ?? 0)
  if (!opts.unbounded && !(Number.isInteger(limit) && limit >= 1 && limit <= MAX_QUERY_LIMIT)) {
    throw new RangeError(`limit must be 1..${MAX_QUERY_LIMIT}`)
  }
  if (!Number.isInteger(offset) || offset < 0) throw new RangeError('offset must be a non-negative integer')
  return {
    where,
    params,
    countSql: `SELECT COUNT(*) FROM orders WHERE ${where}`,
    rowsSql: broad
      ? `SELECT * FROM orders INDEXED BY ${SORT_INDEXES[sort.key]} WHERE ${where} ORDER BY ${orderBy} LIMIT ? OFFSET ?`
      : // The window's ids come from a covering index scan; only those rows are read.
        `SELECT * FROM orders WHERE id IN (SELECT id FROM orders WHERE ${where} ORDER BY ${orderBy} LIMIT ? OFFSET ?) ORDER BY ${orderBy}`,
    limit,
    offset
  }
}
