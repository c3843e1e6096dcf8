// SQL for the orders table's filters, search and sort. Every filter maps to an indexed
// column; search finds an order id exactly or by its first digits, and text anywhere in
// the wallet, merchant reference, reference id or hash (the trigram indexes: of the distinct
// wallets, order-wallets.ts, and of each order's other texts, or for six characters and more
// its gram index, order-grams.ts; one or two characters at the start, through the
// lower(...) indexes), case-insensitively; sort
// keys come from a fixed whitelist (never from input text).
import { OPEN_GROUPS, statusGroupFilter } from '../../shared/domain/status'
import type { OrderType, StatusGroup } from '../../shared/ipc/contract'
import { GRAM_LENGTH, gramQuery } from './order-grams'
import type { SqlValue } from './sql'

export type OrderSortKey = 'createdAt' | 'updatedAt' | 'orderId' | 'status' | 'fiatAmount' | 'cryptoAmount'

export interface StoredOrderSort {
  key: OrderSortKey
  dir: 'asc' | 'desc'
}

/** What the store selects orders by; the contract's OrderFilter (the renderer's) is mapped to it by order-rows.ts. */
export interface StoredOrderFilter {
  type: OrderType
  /** Only the statuses of this group (shared/domain/status.ts); 'in progress' includes unknown statuses. */
  statusGroup?: StatusGroup
  /** Only these statuses. */
  statuses?: readonly number[]
  /** None of these statuses (e.g. "unknown status": everything outside the label table). */
  excludeStatuses?: readonly number[]
  /** Only orders the service still has (not marked gone_at): an open group's (OPEN_GROUPS). */
  listed?: boolean
  fiatType?: number | readonly number[]
  coinId?: number | readonly number[]
  chainId?: number | readonly number[]
  /** Inclusive lower bound (ISO 8601) on dateField. */
  from?: string
  /** Exclusive upper bound (ISO 8601) on dateField. */
  to?: string
  dateField?: 'createdAt' | 'updatedAt'
  /**
   * An order id, exactly or by its first digits (when all digits), or text anywhere in the
   * merchant recognition id, wallet address, reference id or transaction hash (at its start
   * for one or two characters), case-insensitively.
   */
  search?: string
}

export interface StoredOrderQuery extends StoredOrderFilter {
  sort?: StoredOrderSort
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

/** The searched texts each order holds alone (the wallet is shared by a customer's orders, and indexed once: order-wallets.ts). */
const TEXT_COLUMNS = ['merchant_recognition_id', 'reference_id', 'transaction_hash'] as const

/**
 * Searches this long or longer are found anywhere in a value, through the trigram index
 * (orders_text, migration 5), or the gram index from GRAM_LENGTH characters (order-grams.ts);
 * a trigram index cannot look up one or two characters, so shorter searches match the
 * start of a value, through the lower(...) indexes.
 */
export const SUBSTRING_MIN_LENGTH = 3

/** Order ids have at most this many digits (below 2^53). */
const MAX_ORDER_ID_DIGITS = 15

/** Past every code point: `prefix <= x < prefix + MAX_CHAR` selects the strings starting with prefix. */
const MAX_CHAR = '\u{10FFFF}'

/**
 * Lower-case as SQLite's lower() does (ASCII only, without ICU): the search index holds
 * lower(text), and the plan that tests rows one by one compares with lower(column), so
 * the typed text is folded the same way for both.
 */
export const asciiLower = (s: string): string => s.replace(/[A-Z]+/g, (m) => m.toLowerCase())

/**
 * Which index finds an order's texts holding a text of GRAM_LENGTH characters or more: the
 * gram index once it holds every order (order-grams.ts gramsReady), else the trigram index.
 */
export type LongTextIndex = 'grams' | 'trigrams'

/** What a search looks for, worked out once from the typed text. */
export interface SearchTerm {
  /** The text, trimmed and folded like lower(). */
  text: string
  /**
   * Where a value holds it: at its start (one or two characters), or anywhere, the orders'
   * own texts found through their trigram index or (GRAM_LENGTH characters or more, when
   * ready) their gram index.
   */
  match: 'start' | LongTextIndex
  /** Inclusive order id ranges: the id itself and every id it begins (digits only). */
  orderIds: Array<[number, number]>
}

/** Inclusive ranges of the order ids that are `digits` or begin with them: 12 -> [12,12], [120,129], [1200,1299], ... */
export function orderIdRanges(digits: string): Array<[number, number]> {
  if (!new RegExp(`^\\d{1,${MAX_ORDER_ID_DIGITS}}$`).test(digits)) return []
  const p = Number(digits)
  // No id is written with a leading zero: "0" is order 0, "012" begins none.
  if (p === 0) return digits === '0' ? [[0, 0]] : []
  if (digits.startsWith('0')) return []
  const ranges: Array<[number, number]> = [[p, p]]
  for (let width = 10, len = digits.length + 1; len <= MAX_ORDER_ID_DIGITS; width *= 10, len++)
    ranges.push([p * width, p * width + width - 1])
  return ranges
}

export function searchTerm(search: string, longText: LongTextIndex = 'trigrams'): SearchTerm | null {
  const text = asciiLower(search.trim())
  if (!text) return null
  const length = [...text].length
  const match = length < SUBSTRING_MIN_LENGTH ? 'start' : length >= GRAM_LENGTH ? longText : 'trigrams'
  return { text, match, orderIds: orderIdRanges(text) }
}

/** Whether the text is found anywhere in a value (not only at its start). */
const anywhere = (t: SearchTerm): boolean => t.match !== 'start'

/** The trigram index of one order type's texts but the wallet (migrations 5 and 14). */
const textIndex = (type: OrderType): string => (type === 1 ? 'orders_text_1' : 'orders_text_2')

/** The FTS5 query of a phrase: the whole text as one string (a trigram phrase finds it as a substring). */
const phrase = (text: string): string => `"${text.replace(/"/g, '""')}"`

/**
 * The orders of one type whose own texts (not the wallet) hold the text: a SELECT of `id`.
 * Through the gram index, the orders holding every gram of it are read and tested (the
 * grams are no proof: "abcdef-ghijkl" holds both grams asked for "abcdefghijkl"). The
 * index drives, each candidate sought by its row id, so a LIMIT around it stops the read:
 * written as `id IN (...)`, SQLite lists every candidate first, and a prefix every
 * order's reference shares ("shop-2024-") cost as many reads as orders before a probe's
 * LIMIT 2000 could stop it.
 */
function textSource(type: OrderType, t: SearchTerm): { sql: string; params: SqlValue[] } {
  if (t.match === 'grams') {
    const grams = `orders_grams_${type === 1 ? 1 : 2}`
    const tests = TEXT_COLUMNS.map((c) => `instr(lower(candidate.${c}), ?) > 0`).join(' OR ')
    return {
      sql: `SELECT candidate.id AS id FROM ${grams} CROSS JOIN orders candidate ON candidate.id = ${grams}.rowid WHERE ${grams} MATCH ? AND (${tests})`,
      params: [gramQuery(t.text), ...TEXT_COLUMNS.map(() => t.text)]
    }
  }
  return { sql: `SELECT rowid AS id FROM ${textIndex(type)} WHERE ${textIndex(type)} MATCH ?`, params: [phrase(t.text)] }
}

/** The distinct wallets of one type holding the text (order_wallets, migration 14): a SELECT of their row ids. */
const MATCHING_WALLET_IDS = 'SELECT rowid FROM order_wallets_text WHERE order_wallets_text MATCH ?'

/**
 * The distinct wallets of one type (lower-cased) holding a text of three characters or
 * more, with how many orders hold each; takes the type, the text and a LIMIT.
 */
export function matchingWalletsSql(): string {
  return `SELECT wallet, n FROM order_wallets WHERE type = ? AND id IN (${MATCHING_WALLET_IDS}) ORDER BY wallet LIMIT ?`
}

/** The values matchingWalletsSql takes before its LIMIT. */
export const matchingWalletsParams = (type: OrderType, t: SearchTerm): SqlValue[] => [type, phrase(t.text)]

/**
 * The orders of one type holding one of the matching wallets, through orders_wallet. The
 * CROSS JOIN keeps the wallets outside: written as an IN, SQLite may test every order of
 * the type against the wallets instead (80 ms at a million orders for a text no wallet
 * holds). The unary + takes the TEXT column's affinity off the comparison: with it, the
 * index on lower(wallet_address), an expression of no affinity, cannot serve the equality,
 * and every order of the type is read for each wallet.
 */
function walletSource(type: OrderType, t: SearchTerm): { sql: string; params: SqlValue[] } {
  return {
    sql: `SELECT o.id FROM order_wallets w CROSS JOIN orders o ON o.type = w.type AND lower(o.wallet_address) = +w.wallet WHERE w.type = ? AND w.id IN (${MATCHING_WALLET_IDS})`,
    params: [type, phrase(t.text)]
  }
}

/** The orders of one type holding any of these wallets (lower-cased), through orders_wallet. */
export function walletsOrdersSql(wallets: readonly string[]): string {
  return `SELECT id FROM orders WHERE type = ? AND lower(wallet_address) IN (${wallets.map(() => '?').join(', ')})`
}

/** The range of lower(column) values starting with the text: [from, until). */
const prefixRange = (text: string): [string, string] => [text, text + MAX_CHAR]

/** The order id ranges as one condition (OR of BETWEENs) and its values. */
function orderIdTest(t: SearchTerm): { sql: string; params: SqlValue[] } | null {
  if (!t.orderIds.length) return null
  return { sql: t.orderIds.map(() => 'order_id BETWEEN ? AND ?').join(' OR '), params: t.orderIds.flat() }
}

/**
 * The orders of one type whose id begins with the search, as one index range per id length
 * (UNION ALL: the ranges are disjoint). Written as an OR of the ranges, SQLite reads the
 * ranges from the index only when its statistics tell it to (after ANALYZE); without them
 * (a new database, or one whose statistics a long-running app has not refreshed) it tests
 * every order of the type, 20-30 ms at 100,000 orders for each key of a typed order id.
 */
function orderIdSource(type: OrderType, t: SearchTerm): { sql: string; params: SqlValue[] } | null {
  if (!t.orderIds.length) return null
  return {
    sql: t.orderIds.map(() => 'SELECT id FROM orders WHERE type = ? AND order_id BETWEEN ? AND ?').join(' UNION ALL '),
    params: t.orderIds.flatMap(([from, until]) => [type, from, until])
  }
}

/**
 * One query per source of matches counting them up to `broad` (an index range, the
 * trigram or the gram index, read no further): a search is broad when one of them reaches it.
 */
export function searchProbes(type: OrderType, t: SearchTerm | null, broad: number): Array<{ sql: string; params: SqlValue[] }> {
  if (!t) return []
  const text = anywhere(t) ? textSource(type, t) : null
  const probes: Array<{ sql: string; params: SqlValue[] }> = text
    ? [
        { sql: `SELECT COUNT(*) FROM (SELECT 1 FROM (${text.sql}) LIMIT ?)`, params: [...text.params, broad] },
        // Summed, not read: the wallets' counts are kept.
        {
          sql: `SELECT IFNULL(SUM(n), 0) FROM order_wallets WHERE type = ? AND id IN (${MATCHING_WALLET_IDS})`,
          params: [type, phrase(t.text)]
        }
      ]
    : SEARCH_COLUMNS.map((col) => ({
        sql: `SELECT COUNT(*) FROM (SELECT 1 FROM orders WHERE type = ? AND lower(${col}) >= ? AND lower(${col}) < ? LIMIT ?)`,
        params: [type, ...prefixRange(t.text), broad]
      }))
  const ids = orderIdSource(type, t)
  if (ids) probes.push({ sql: `SELECT COUNT(*) FROM (SELECT 1 FROM (${ids.sql}) LIMIT ?)`, params: [...ids.params, broad] })
  return probes
}

/** The search as conditions on one order: the broad plan tests each order the sort's index walks to. */
function searchTests(t: SearchTerm): { sql: string; params: SqlValue[] } {
  const ids = orderIdTest(t)
  const tests: string[] = []
  const params: SqlValue[] = []
  if (ids) {
    tests.push(ids.sql)
    params.push(...ids.params)
  }
  for (const col of SEARCH_COLUMNS) {
    if (anywhere(t)) {
      tests.push(`instr(lower(${col}), ?) > 0`)
      params.push(t.text)
    } else {
      tests.push(`lower(${col}) >= ? AND lower(${col}) < ?`)
      params.push(...prefixRange(t.text))
    }
  }
  for (const h of handlingTests(t)) {
    tests.push(`EXISTS (SELECT 1 ${h.sql} AND m.type = orders.type AND m.order_id = orders.order_id)`)
    params.push(...h.params)
  }
  return { sql: `(${tests.map((x) => `(${x})`).join(' OR ')})`, params }
}

/**
 * An order's notes (found anywhere in their text, three characters or more) and its
 * handler's name (anywhere, or at its start below three), as FROM ... WHERE clauses on
 * `m` (order-claims-repo.ts): an order holds a few notes at most, so they are read, not indexed.
 */
function handlingTests(t: SearchTerm): Array<{ sql: string; params: SqlValue[] }> {
  if (!anywhere(t))
    return [{ sql: 'FROM order_claims m WHERE lower(m.operator) >= ? AND lower(m.operator) < ?', params: prefixRange(t.text) }]
  return [
    { sql: 'FROM order_claims m WHERE instr(lower(m.operator), ?) > 0', params: [t.text] },
    { sql: "FROM order_handling m WHERE m.kind = 'note' AND instr(lower(m.text), ?) > 0", params: [t.text] }
  ]
}

/** One source of a search's matching ids: a SELECT of `id`. */
export interface SearchSource {
  sql: string
  params: SqlValue[]
  /** Counted by searchProbes (whether a search is broad): the order ids and the texts, not the handlers and notes. */
  probed: boolean
  /** The orders holding a matching wallet (a search of three characters or more). */
  wallet: boolean
}

/**
 * Each source of the ids of the orders of one type the search matches, an indexed lookup
 * each (SQLite would otherwise scan): the order id ranges, the trigram or the gram index
 * or one lower(...) range per column, the matching wallets' orders, an order's handler and notes.
 */
export function searchSources(type: OrderType, t: SearchTerm): SearchSource[] {
  const sources: SearchSource[] = []
  const ids = orderIdSource(type, t)
  if (ids) sources.push({ ...ids, probed: true, wallet: false })
  if (anywhere(t)) {
    sources.push({ ...textSource(type, t), probed: true, wallet: false })
    sources.push({ ...walletSource(type, t), probed: true, wallet: true })
  } else {
    for (const col of SEARCH_COLUMNS)
      sources.push({
        sql: `SELECT id FROM orders WHERE type = ? AND lower(${col}) >= ? AND lower(${col}) < ?`,
        params: [type, ...prefixRange(t.text)],
        probed: true,
        wallet: false
      })
  }
  for (const h of handlingTests(t))
    sources.push({
      sql: `SELECT o.id FROM orders o JOIN (SELECT m.type, m.order_id ${h.sql} AND m.type = ?) k ON o.type = k.type AND o.order_id = k.order_id`,
      params: [...h.params, type],
      probed: false,
      wallet: false
    })
  return sources
}

/**
 * The ids of the orders of one type the search matches, as a union of its sources: the
 * narrow plan takes them, and a search with no other filter is counted on them alone,
 * without reading an order.
 */
function searchIds(type: OrderType, t: SearchTerm): { sql: string; params: SqlValue[] } {
  const sources = searchSources(type, t)
  return { sql: sources.map((s) => s.sql).join(' UNION '), params: sources.flatMap((s) => s.params) }
}

/** Membership in a JSON array of order row ids (bound as one value): a set SQLite builds once per statement. */
export const IN_ID_SET = 'id IN (SELECT value FROM json_each(?))'

/** How buildOrderQuery builds a filter's statements (each option is described there). */
export interface BuildOrderOptions {
  unbounded?: boolean
  broad?: boolean
  countCap?: number
  idSet?: string
  columns?: string
  /** Which index finds a text of GRAM_LENGTH characters or more (default the trigram index, which holds every order). */
  longText?: LongTextIndex
}

export interface BuiltOrderQuery {
  where: string
  /** The filter is the type and a search, nothing else. */
  searchOnly: boolean
  params: SqlValue[]
  /** Counts the matches; for a broad search given a `countCap`, up to countCap + 1 of them. */
  countSql: string
  /** The values countSql takes. */
  countParams: SqlValue[]
  /** The count past which countSql stops (a broad search's, BROAD_TOTAL_CAP as shipped), or null: it counts every match. */
  countCap: number | null
  /**
   * For a capped count of a search alone: each source of its matches counted up to
   * countCap + 1 (searchProbes). One that gets there settles the total as "at least" before
   * countSql, whose union of every source's ids must be built whole before it can stop
   * ("1" matches every order id that begins with it). Empty otherwise.
   */
  countProbes: Array<{ sql: string; params: SqlValue[] }>
  /** Takes params, then LIMIT and OFFSET. */
  rowsSql: string
  /**
   * rowsSql driven by the status index instead (the matching statuses sought, their few
   * orders sorted), for a status list without search; null otherwise. The repository takes
   * it when the filter's total, known first, is so small that walking the sort's index
   * would read most of the type's orders to find one page.
   */
  statusRowsSql: string | null
  /**
   * With an idSet: rowsSql found by walking the sort's index and testing each entry's id
   * against the set, for a search with so many matches that reading and sorting every one
   * costs more than the walk (OrderReads.query decides); null otherwise. Takes params
   * (whose search value is the set), then LIMIT and OFFSET.
   */
  setWalkRowsSql: string | null
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

/**
 * Not marked gone at the service, as a condition on the row id: the few gone ids come from
 * their partial index (orders_gone, migration 11), and every other index holds the id, so a
 * count or a window stays a covering index scan. `gone_at IS NULL` made SQLite read every
 * row of the type to count an open status group (~320 ms at 100,000 onramp orders, ~17 ms
 * this way).
 */
export const NOT_GONE = 'NOT IN (SELECT id FROM orders WHERE gone_at IS NOT NULL)'

/** The filter's conditions (the search apart) and the same on order_counts, with their values. */
function filterConditions(q: StoredOrderQuery, plus: boolean): { conds: string[]; countsConds: string[]; params: SqlValue[] } {
  // When the search's few matching ids drive the query, a unary + keeps SQLite from
  // scanning a filter column's index instead (c() marks the column references).
  const c = (column: string): string => (plus ? `+${column}` : column)
  const conds: string[] = [`${c('type')} = ?`]
  const params: SqlValue[] = [q.type]
  // The same conditions on order_counts (migration 12), whose columns have the filter
  // columns' names: only "not gone" is written apart. Dates and searches are not in it.
  const countsConds: string[] = [...conds]
  const push = (cond: string, countsCond: string = cond): void => {
    conds.push(cond)
    countsConds.push(countsCond)
  }
  const inList = (column: string, name: string, v: number | readonly number[] | undefined, negate = false): void => {
    if (v === undefined) return
    const list = ints(name, v)
    if (list.length === 0) {
      // An empty allow-list matches nothing; an empty deny-list excludes nothing.
      if (!negate) push('0')
      return
    }
    push(`${c(column)} ${negate ? 'NOT IN' : 'IN'} (${list.map(() => '?').join(', ')})`)
    params.push(...list)
  }
  if (q.statusGroup !== undefined) {
    const g = statusGroupFilter(q.type, q.statusGroup)
    const inSql = g.in.length ? `${c('status')} IN (${g.in.map(() => '?').join(', ')})` : '0'
    if (g.includeUnknown && g.known.length) {
      push(`(${inSql} OR ${c('status')} NOT IN (${g.known.map(() => '?').join(', ')}))`)
      params.push(...g.in, ...g.known)
    } else {
      push(inSql)
      params.push(...g.in)
    }
  }
  inList('status', 'statuses', q.statuses)
  inList('status', 'excludeStatuses', q.excludeStatuses, true)
  if (q.listed || (q.statusGroup !== undefined && OPEN_GROUPS.includes(q.statusGroup))) push(`${c('id')} ${NOT_GONE}`, 'gone = 0')
  inList('fiat_type', 'fiatType', q.fiatType)
  inList('coin_id', 'coinId', q.coinId)
  inList('chain_id', 'chainId', q.chainId)
  const dateColumn = q.dateField === 'updatedAt' ? 'updated_at' : 'created_at'
  if (q.from !== undefined) {
    push(`${c(dateColumn)} >= ?`)
    params.push(isoBound('from', q.from))
  }
  if (q.to !== undefined) {
    push(`${c(dateColumn)} < ?`)
    params.push(isoBound('to', q.to))
  }
  return { conds, countsConds, params }
}

/**
 * unbounded: no window (LIMIT -1), for exports.
 * broad: the search matches many orders (searchProbes). A narrow search is driven by its
 * matching ids (the trigram index or one index range per column, and the order id
 * ranges, unioned), then sorted: cheap for a few
 * hundred. A broad one would union and sort tens of thousands (a quarter of a second for
 * "0x" over 100,000 orders, blocking main while the operator types on); it walks the sort
 * key's index instead and tests each order, stopping at the window's end.
 * idSet: the search's matching ids, already collected (search-set.ts), as a JSON array:
 * the search is membership in it, and setWalkRowsSql walks the sort's index testing it.
 * columns: what the rows' statements select (default every column).
 */
export function buildOrderQuery(q: StoredOrderQuery, opts: BuildOrderOptions = {}): BuiltOrderQuery {
  const columns = opts.columns ?? '*'
  if (q.type !== 1 && q.type !== 2) throw new RangeError('type must be 1 or 2')
  const search = q.search?.trim()
  const term = search ? searchTerm(search, opts.longText) : null
  const idSet = term && opts.idSet !== undefined ? opts.idSet : null
  const broad = !!search && !!opts.broad && idSet === null
  const { conds, countsConds, params } = filterConditions(q, !!search && !broad)
  // Only the type and a search: counted on the matching ids alone.
  const searchOnly = term !== null && conds.length === 1
  const ids = term ? searchIds(q.type, term) : null
  const searchCond: { sql: string; params: SqlValue[] } | null =
    term && ids
      ? idSet !== null
        ? { sql: IN_ID_SET, params: [idSet] }
        : broad
          ? searchTests(term)
          : { sql: `id IN (${ids.sql})`, params: ids.params }
      : null
  if (searchCond) {
    conds.push(searchCond.sql)
    params.push(...searchCond.params)
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
  const counted =
    searchOnly && ids && idSet === null ? { sql: ids.sql, params: ids.params } : { sql: `SELECT 1 FROM orders WHERE ${where}`, params }
  const countCap = (broad || idSet !== null) && opts.countCap !== undefined ? opts.countCap : null
  const fromCounts = !term && q.from === undefined && q.to === undefined
  const statusList = !term && q.statuses !== undefined && q.statuses.length > 0
  // The same conditions without the unary +, so that they are tested on the sort index's entries.
  const walkWhere = idSet !== null ? [...filterConditions(q, false).conds, IN_ID_SET].join(' AND ') : null
  return {
    where,
    searchOnly,
    params,
    countSql: fromCounts
      ? `SELECT IFNULL(SUM(n), 0) FROM order_counts WHERE ${countsConds.join(' AND ')}`
      : countCap === null
        ? `SELECT COUNT(*) FROM (${counted.sql})`
        : `SELECT COUNT(*) FROM (SELECT 1 FROM (${counted.sql}) LIMIT ?)`,
    countParams: fromCounts || countCap === null ? counted.params : [...counted.params, countCap + 1],
    countCap,
    countProbes: countCap !== null && searchOnly && idSet === null ? searchProbes(q.type, term, countCap + 1) : [],
    rowsSql: broad
      ? `SELECT ${columns} FROM orders INDEXED BY ${SORT_INDEXES[sort.key]} WHERE ${where} ORDER BY ${orderBy} LIMIT ? OFFSET ?`
      : // The window's ids come from a covering index scan; only those rows are read.
        `SELECT ${columns} FROM orders WHERE id IN (SELECT id FROM orders WHERE ${where} ORDER BY ${orderBy} LIMIT ? OFFSET ?) ORDER BY ${orderBy}`,
    setWalkRowsSql:
      walkWhere === null
        ? null
        : // The sort's index walked in order, each entry tested against the set (covering: no
          // order is read but the window's), stopping at the window's end.
          `SELECT ${columns} FROM orders WHERE id IN (SELECT id FROM orders INDEXED BY ${SORT_INDEXES[sort.key]} WHERE ${walkWhere} ORDER BY ${orderBy} LIMIT ? OFFSET ?) ORDER BY ${orderBy}`,
    statusRowsSql: statusList
      ? `SELECT ${columns} FROM orders WHERE id IN (SELECT id FROM orders INDEXED BY orders_by_status WHERE ${where} ORDER BY ${orderBy} LIMIT ? OFFSET ?) ORDER BY ${orderBy}`
      : null,
    limit,
    offset
  }
}

/**
 * The window of a search alone sorted by when orders last changed, when its matches are the
 * orders of a few wallets and a few others: each wallet's first offset + limit orders read
 * in order from orders_wallet, merged with the others (`others`, a JSON array of row ids no
 * matching wallet holds), so the window costs the same at a wallet's hundredth order or its
 * ten-thousandth. Null for any other sort (the caller collects the matches instead).
 */
export function walletWindowSql(
  q: StoredOrderQuery,
  wallets: readonly string[],
  others: string,
  columns = '*'
): { sql: string; params: SqlValue[] } | null {
  const sort = q.sort ?? { key: 'createdAt', dir: 'desc' }
  if (sort.key !== 'updatedAt') return null
  const { limit, offset } = buildOrderQuery(q)
  const dir = sort.dir === 'asc' ? 'ASC' : 'DESC'
  const orderBy = `updated_at ${dir}, order_id ${dir}`
  const parts = wallets.map(
    () =>
      `SELECT * FROM (SELECT id, updated_at, order_id FROM orders INDEXED BY orders_wallet WHERE type = ? AND lower(wallet_address) = ? ORDER BY ${orderBy} LIMIT ?)`
  )
  parts.push(`SELECT id, updated_at, order_id FROM orders WHERE id IN (SELECT value FROM json_each(?))`)
  return {
    sql: `SELECT ${columns} FROM orders WHERE id IN (SELECT id FROM (${parts.join(' UNION ALL ')}) ORDER BY ${orderBy} LIMIT ? OFFSET ?) ORDER BY ${orderBy}`,
    params: [...wallets.flatMap((w) => [q.type, w, offset + limit]), others, limit, offset]
  }
}
