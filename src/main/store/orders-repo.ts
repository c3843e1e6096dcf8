// Orders of both types in the profile database: applying history pages (each page, its
// unreadable records and its sync cursor in one transaction, so a sync killed at any
// instant resumes without loss or duplicates), status updates from watches and webhooks,
// the per-order status timeline, and the windowed query the virtualized orders table reads.
import type { OfframpOrder, OnrampOrder } from '../../shared/api/schemas'
import type { OrderType, StatusSource } from '../../shared/ipc/contract'
import { OPEN_GROUPS, knownStatuses, statusGroupFilter, statusInfo } from '../../shared/domain/status'
import { contentHash } from './content-hash'
import { NO_FIAT, rebuildOrderCounts } from './order-counts'
import type { Sql, SqlValue } from './sql'
import {
  BROAD_SEARCH_MATCHES,
  BROAD_TOTAL_CAP,
  NOT_GONE,
  buildOrderQuery,
  searchProbes,
  type BuiltOrderQuery,
  type OrderFilter,
  type OrderQuery
} from './order-query'
import type { ListedRecord, SyncCursor, SyncCursorsRepo } from './sync-cursors-repo'
import type { UnreadableInput, UnreadableOrdersRepo } from './unreadable-orders-repo'

export type { OrderFilter, OrderQuery, OrderSort, OrderSortKey } from './order-query'
export type { SyncCursor } from './sync-cursors-repo'

export type OrderRecord = OnrampOrder | OfframpOrder
export type OrderRecordOf<T extends OrderType> = T extends 1 ? OnrampOrder : OfframpOrder

/** One stored order: indexed columns, every amount as a decimal string, and the full record. */
export interface OrderRow {
  type: OrderType
  orderId: number
  status: number
  /** The record's fiatType, or the fiat type of the history scope it was synced in. */
  fiatType: number | null
  coinId: number
  chainId: number
  paymentType: number | null
  createdAt: string
  updatedAt: string
  walletAddress: string | null
  merchantRecognitionId: string | null
  referenceId: string | null
  transactionHash: string | null
  fiatAmount: string | null
  expectedCryptoAmount: string | null
  actualCryptoAmount: string | null
  expectedPrice: string | null
  actualPrice: string | null
  expectedQuantity: string | null
  actualQuantity: string | null
  actualFiatAmount: string | null
  onrampFee: string | null
  gasFee: string | null
  clientFee: string | null
  gatewayFee: string | null
  tdsFee: string | null
  /** The full normalised record as received (unknown keys included). */
  record: OrderRecord
  statusSource: StatusSource
  firstSeenAt: string
  lastChangedAt: string
  contentHash: string
  /** When the service last confirmed the status (a history answer, a verified webhook, orderStatus). */
  statusConfirmedAt: string | null
  statusConfirmedBy: ConfirmedBy | null
  /** When the freshness sweep last asked orderStatus, and how many of its requests failed in a row (noteStatusCheck). */
  statusCheckedAt: string | null
  statusCheckFailures: number
  /** When orderStatus answered that the service no longer has this order (no longer listed either); null otherwise. */
  goneAt: string | null
}

/**
 * How a verified webhook was matched to the order held under its id: 'whole', a whole
 * record whose identity fields all agreed; 'partial', a body that was no whole record,
 * matched on the few identity fields it gave (monitor/webhook-ingest.ts).
 */
export type WebhookMatch = 'whole' | 'partial'

/** What confirmed a status: a history answer that included the order, a verified webhook, orderStatus. */
export type ConfirmedBy = 'history' | 'webhook' | 'orderStatus'

const confirmedByOf = (source: StatusSource): ConfirmedBy =>
  source === 'sync' ? 'history' : source === 'watch' ? 'orderStatus' : 'webhook'

/** A short description of an order, for change notifications. */
export interface OrderSummary {
  type: OrderType
  orderId: number
  status: number
  fiatType: number | null
  coinId: number
  chainId: number
  createdAt: string
  updatedAt: string
}

export interface StatusChange {
  type: OrderType
  orderId: number
  old: number | null
  new: number
}

/** A row of order_events as stored (the team hubs copy them between order databases). */
export interface OrderEventDbRow {
  id: number
  type: number
  order_id: number
  at: string
  order_updated_at: string | null
  old_status: number | null
  new_status: number
  source: StatusSource
}

export interface OrderEvent {
  id: number
  type: OrderType
  orderId: number
  /** When Rampdesk observed the transition. */
  at: string
  /** The record's updatedAt when the observation carried one. */
  orderUpdatedAt: string | null
  oldStatus: number | null
  newStatus: number
  source: StatusSource
}

export interface HistoryPage<T extends OrderType = OrderType> {
  type: T
  /** The fiat type the page was requested for (the sync scope). */
  fiatType: number
  records: readonly OrderRecordOf<T>[]
  /** Records of the page that did not match their schema: kept apart, never blocking the page. */
  unreadable?: readonly Omit<UnreadableInput, 'type' | 'fiatType'>[]
  /** Observation time; defaults to the repo's clock. */
  at?: string
  /** Each listed record's position in its run of equal updatedAt (by index in records + unreadable order of the page). */
  runPositions?: ReadonlyMap<number, number>
  /** When given, stored as the cursor's repairFrom in the same transaction (null clears it). */
  repairFrom?: string | null
  /**
   * Store the records but leave the cursor where it was: a page read at positions that
   * turned out not to be where the walk thought (its records are real, where it stands is
   * not known).
   */
  holdCursor?: boolean
  /**
   * The fiat type given to records that name none. Default the scope's; null for a scope of
   * every fiat of a type (fiatType 0: a service that does not filter by fiat).
   */
  attributeFiat?: number | null
}

export interface ApplyPageResult {
  created: OrderSummary[]
  statusChanged: StatusChange[]
  /** Orders whose content changed without a status change. */
  updated: OrderSummary[]
  /** Records identical to what was stored. */
  unchanged: number
  /** Records older than what was stored (updatedAt before the stored one): ignored. */
  stale: number
  /** Records kept as unreadable. */
  unreadable: number
  /** The cursor after this page. */
  cursor: SyncCursor
  /** False when the page neither moved the cursor nor added an id at the cursor instant. */
  progressed: boolean
  /** Records naming no fiat type that the database holds under another fiat type than the page's. */
  foreign: number
}

export interface ApplyStatusResult {
  /** Whether the order is in the database (a watched order may not be synced yet). */
  known: boolean
  change: StatusChange | null
}

/** What applying one record did. */
export type RecordOutcome =
  | { kind: 'created'; summary: OrderSummary }
  | { kind: 'status'; summary: OrderSummary; change: StatusChange }
  | { kind: 'updated'; summary: OrderSummary }
  | { kind: 'unchanged' }
  | { kind: 'stale' }

interface OrderDbRow {
  type: number
  order_id: number
  status: number
  fiat_type: number | null
  coin_id: number
  chain_id: number
  payment_type: number | null
  created_at: string
  updated_at: string
  wallet_address: string | null
  merchant_recognition_id: string | null
  reference_id: string | null
  transaction_hash: string | null
  fiat_amount: string | null
  expected_crypto_amount: string | null
  actual_crypto_amount: string | null
  expected_price: string | null
  actual_price: string | null
  expected_quantity: string | null
  actual_quantity: string | null
  actual_fiat_amount: string | null
  onramp_fee: string | null
  gas_fee: string | null
  client_fee: string | null
  gateway_fee: string | null
  tds_fee: string | null
  record_json: string
  content_hash: string
  status_source: StatusSource
  first_seen_at: string
  last_changed_at: string
  status_confirmed_at: string | null
  status_confirmed_by: ConfirmedBy | null
  status_checked_at: string | null
  status_check_failures: number | null
  gone_at: string | null
}

/** The columns written from a record, in insert order (after type and order_id). */
const DATA_COLUMNS = [
  'status',
  'fiat_type',
  'coin_id',
  'chain_id',
  'payment_type',
  'created_at',
  'updated_at',
  'wallet_address',
  'merchant_recognition_id',
  'reference_id',
  'transaction_hash',
  'hash_id',
  'user_id',
  'app_id',
  'kyc_needed',
  'trials',
  'webhook_trials',
  'fiat_amount',
  'expected_crypto_amount',
  'actual_crypto_amount',
  'expected_price',
  'actual_price',
  'expected_quantity',
  'actual_quantity',
  'actual_fiat_amount',
  'onramp_fee',
  'gas_fee',
  'client_fee',
  'gateway_fee',
  'tds_fee',
  'sort_fiat',
  'sort_crypto',
  'record_json',
  'content_hash'
] as const

const INSERT_ORDER = `INSERT INTO orders (type, order_id, ${DATA_COLUMNS.join(', ')}, status_source, webhook_match, first_seen_at,
    last_changed_at, status_confirmed_at, status_confirmed_by)
  VALUES (?, ?, ${DATA_COLUMNS.map(() => '?').join(', ')}, ?, ?, ?, ?, ?, ?)`
const UPDATE_ORDER = `UPDATE orders SET ${DATA_COLUMNS.map((c) => `${c} = ?`).join(', ')}, status_source = ?, webhook_match = ?,
    last_changed_at = ?, status_confirmed_at = ?, status_confirmed_by = ?
  WHERE type = ? AND order_id = ?`
const CONFIRM = 'UPDATE orders SET status_confirmed_at = ?, status_confirmed_by = ? WHERE type = ? AND order_id = ?'
const CLEAR_GONE = 'UPDATE orders SET gone_at = NULL WHERE type = ? AND order_id = ?'
const INSERT_EVENT = `INSERT INTO order_events (type, order_id, at, order_updated_at, old_status, new_status, source)
  VALUES (?, ?, ?, ?, ?, ?, ?)`

const str = (v: unknown): string | null => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : null)
const int = (v: unknown): number | null => (typeof v === 'number' && Number.isInteger(v) ? v : null)
/** A REAL copy of a decimal string for ORDER BY only. */
const sortKey = (v: string | null): number | null => {
  if (v === null) return null
  const n = Number(v)
  return Number.isFinite(n) ? n : null
}

function columnValues(type: OrderType, record: OrderRecord, scopeFiatType: number | null, hash: string): SqlValue[] {
  const r = record as Record<string, unknown>
  const fiatAmount = type === 1 ? str(r.fiatAmount) : null
  const actualFiat = str(r.actualFiatAmount)
  const crypto =
    type === 1 ? (str(r.actualCryptoAmount) ?? str(r.expectedCryptoAmount)) : (str(r.actualQuantity) ?? str(r.expectedQuantity))
  return [
    record.status,
    int(r.fiatType) ?? scopeFiatType,
    record.coinId,
    record.chainId,
    int(r.paymentType),
    record.createdAt,
    record.updatedAt,
    str(r.walletAddress),
    str(r.merchantRecognitionId),
    str(r.referenceId),
    str(r.transactionHash),
    str(r.hashId),
    int(r.userId),
    int(r.appId),
    int(r.kycNeeded),
    int(r.trials),
    int(r.webhookTrials),
    fiatAmount,
    str(r.expectedCryptoAmount),
    str(r.actualCryptoAmount),
    str(r.expectedPrice),
    str(r.actualPrice),
    str(r.expectedQuantity),
    str(r.actualQuantity),
    actualFiat,
    str(r.onrampFee),
    str(r.gasFee),
    str(r.clientFee),
    str(r.gatewayFee),
    str(r.tdsFee),
    sortKey(type === 1 ? fiatAmount : actualFiat),
    sortKey(crypto),
    JSON.stringify(record),
    hash
  ]
}

function toRow(r: OrderDbRow): OrderRow {
  return {
    type: r.type as OrderType,
    orderId: r.order_id,
    status: r.status,
    fiatType: r.fiat_type,
    coinId: r.coin_id,
    chainId: r.chain_id,
    paymentType: r.payment_type,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    walletAddress: r.wallet_address,
    merchantRecognitionId: r.merchant_recognition_id,
    referenceId: r.reference_id,
    transactionHash: r.transaction_hash,
    fiatAmount: r.fiat_amount,
    expectedCryptoAmount: r.expected_crypto_amount,
    actualCryptoAmount: r.actual_crypto_amount,
    expectedPrice: r.expected_price,
    actualPrice: r.actual_price,
    expectedQuantity: r.expected_quantity,
    actualQuantity: r.actual_quantity,
    actualFiatAmount: r.actual_fiat_amount,
    onrampFee: r.onramp_fee,
    gasFee: r.gas_fee,
    clientFee: r.client_fee,
    gatewayFee: r.gateway_fee,
    tdsFee: r.tds_fee,
    record: JSON.parse(r.record_json) as OrderRecord,
    statusSource: r.status_source,
    firstSeenAt: r.first_seen_at,
    lastChangedAt: r.last_changed_at,
    contentHash: r.content_hash,
    statusConfirmedAt: r.status_confirmed_at ?? null,
    statusConfirmedBy: r.status_confirmed_by ?? null,
    statusCheckedAt: r.status_checked_at ?? null,
    statusCheckFailures: r.status_check_failures ?? 0,
    goneAt: r.gone_at ?? null
  }
}

function summaryOf(type: OrderType, record: OrderRecord, scopeFiatType: number | null): OrderSummary {
  const fiat = int((record as Record<string, unknown>).fiatType) ?? scopeFiatType
  return {
    type,
    orderId: record.orderId,
    status: record.status,
    fiatType: fiat,
    coinId: record.coinId,
    chainId: record.chainId,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt
  }
}

/** The statuses of a type known to be terminal (integers from the status table: safe in SQL text). */
function terminalStatuses(type: OrderType): number[] {
  return knownStatuses(type).filter((st) => statusInfo(type, st).terminal)
}

/**
 * The open orders of a type the freshness sweep keeps confirmed, as the FROM and WHERE of a
 * query: a status not known to be terminal, and not gone at the service, read through that
 * type's partial index of open orders by confirmation (migration 9), so that the sweep's
 * queries walk the open orders only, never every order of the type. The type and the
 * statuses are written out (integers from the status table) as the index writes them; a
 * status table that no longer matches the index fails these queries (freshness.test.ts):
 * a new migration must then write the index again.
 */
function openOrders(type: OrderType): string {
  return `orders INDEXED BY orders_open_${type}_by_confirmation
    WHERE type = ${type} AND status NOT IN (${terminalStatuses(type).join(', ')}) AND gone_at IS NULL`
}

function assertType(type: number): asserts type is OrderType {
  if (type !== 1 && type !== 2) throw new RangeError(`order type must be 1 (onramp) or 2 (offramp), got ${type}`)
}

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

/** What countScope found when order_counts disagreed with the rows of a scope. */
export interface CountsDrift {
  type: OrderType
  fiatType: number | null
  /** What order_counts held for the scope. */
  kept: number
  /** The orders of the scope counted from the rows. */
  counted: number
}

export class OrdersRepo {
  /**
   * When a search is broad, how far a window may walk the sort's index, and what a match
   * sought in the status index costs instead (tests lower them to cover every plan on a few orders).
   */
  searchPlan = {
    broadMatches: BROAD_SEARCH_MATCHES,
    maxWalkedEntries: MAX_WALKED_ENTRIES,
    totalCap: BROAD_TOTAL_CAP,
    statusMatchCost: STATUS_PLAN_COST
  }
  /** fiatCounts() per type, valid while the database's write stamp is unchanged. */
  private readonly fiatCountsCache = new Map<OrderType, { stamp: string | null; rows: { fiatType: number | null; orders: number }[] }>()
  /** Totals and broad-search answers of recent filters, valid while the database's write stamp is unchanged. */
  private facts: { stamp: string | null; byKey: Map<string, number> } = { stamp: null, byKey: new Map() }

  constructor(
    private readonly sql: Sql,
    private readonly now: () => Date,
    private readonly cursors: SyncCursorsRepo,
    private readonly unreadableOrders: UnreadableOrdersRepo,
    /** order_counts disagreed with the rows of a scope and was counted again (countScope with fromRows). */
    private readonly onCountsRebuilt?: (drift: CountsDrift) => void
  ) {}

  private nowIso(): string {
    return this.now().toISOString()
  }

  /**
   * Applies one merchantHistory page in ONE transaction: upserts every record (identical
   * content is skipped by hash, older snapshots are ignored), records first sightings and
   * status transitions in order_events, and advances the (type, fiatType) cursor. Either
   * all of it is committed or none of it.
   */
  applyHistoryPage<T extends OrderType>(page: HistoryPage<T>): ApplyPageResult {
    assertType(page.type)
    const at = page.at ?? this.nowIso()
    return this.sql.transaction(() => {
      const before = this.cursors.get(page.type, page.fiatType)
      const result: ApplyPageResult = {
        created: [],
        statusChanged: [],
        updated: [],
        unchanged: 0,
        stale: 0,
        unreadable: 0,
        cursor: before,
        progressed: false,
        foreign: 0
      }
      const attribute = page.attributeFiat === undefined ? page.fiatType : page.attributeFiat
      for (const record of page.records) {
        if (attribute !== null && int((record as Record<string, unknown>).fiatType) === null) {
          const held = this.sql.value<number | null>(
            'SELECT fiat_type FROM orders WHERE type = ? AND order_id = ?',
            page.type,
            record.orderId
          )
          if (held !== undefined && held !== null && held !== attribute) result.foreign++
        }
        const outcome = this.upsert(page.type, record, attribute, 'sync', at)
        this.unreadableOrders.resolved(page.type, record.orderId)
        switch (outcome.kind) {
          case 'created':
            result.created.push(outcome.summary)
            break
          case 'status':
            result.statusChanged.push(outcome.change)
            break
          case 'updated':
            result.updated.push(outcome.summary)
            break
          case 'unchanged':
            result.unchanged++
            break
          case 'stale':
            result.stale++
            break
        }
      }
      for (const u of page.unreadable ?? []) {
        this.unreadableOrders.put({ ...u, type: page.type, fiatType: page.fiatType })
        result.unreadable++
      }
      // Unreadable records with an id and a time still count as read for the position.
      const listed: ListedRecord[] = [
        ...page.records,
        ...(page.unreadable ?? []).flatMap((u) =>
          u.orderId !== null && u.updatedAt !== null ? [{ orderId: u.orderId, updatedAt: u.updatedAt }] : []
        )
      ]
      if (!page.holdCursor) result.cursor = this.cursors.advance(page.type, page.fiatType, listed, at, page.runPositions)
      if (page.repairFrom !== undefined) result.cursor = this.cursors.setRepairFrom(page.type, page.fiatType, page.repairFrom)
      result.progressed = result.cursor.cursor !== before.cursor || result.cursor.seenAtCursor !== before.seenAtCursor
      return result
    })
  }

  /** Upserts one full record seen outside history sync (a webhook body). */
  applyRecord<T extends OrderType>(type: T, record: OrderRecordOf<T>, source: StatusSource, at: string = this.nowIso()): RecordOutcome {
    assertType(type)
    return this.sql.transaction(() => this.upsert(type, record, null, source, at))
  }

  /**
   * Records a status observed without a full record (an orderStatus poll for a watch, a
   * webhook's status alone). Updates the watch's last status whether or not the order is
   * stored. A webhook's status says how the webhook was matched to the order (default
   * 'partial': it does not stand over a history snapshot of equal updatedAt).
   */
  applyStatus(
    type: OrderType,
    orderId: number,
    status: number,
    source: Exclude<StatusSource, 'sync'>,
    at: string = this.nowIso(),
    match: WebhookMatch = 'partial'
  ): ApplyStatusResult {
    assertType(type)
    return this.sql.transaction(() => {
      this.sql.run('UPDATE watches SET last_status = ?, last_checked_at = ? WHERE type = ? AND order_id = ?', status, at, type, orderId)
      const existing = this.sql.get<{ status: number; record_json: string; updated_at: string; gone_at: string | null }>(
        'SELECT status, record_json, updated_at, gone_at FROM orders WHERE type = ? AND order_id = ?',
        type,
        orderId
      )
      if (!existing) return { known: false, change: null }
      // orderStatus answered about it, or a verified webhook named it: the service has it after all.
      if (existing.gone_at) this.sql.run(CLEAR_GONE, type, orderId)
      const by = confirmedByOf(source)
      if (existing.status === status) {
        this.sql.run(CONFIRM, at, by, type, orderId)
        return { known: true, change: null }
      }
      const record = { ...(JSON.parse(existing.record_json) as Record<string, unknown>), status }
      this.sql.run(
        `UPDATE orders SET status = ?, record_json = ?, content_hash = ?, status_source = ?, webhook_match = ?, last_changed_at = ?,
           status_confirmed_at = ?, status_confirmed_by = ? WHERE type = ? AND order_id = ?`,
        status,
        JSON.stringify(record),
        contentHash(record),
        source,
        source === 'webhook' ? match : null,
        at,
        at,
        by,
        type,
        orderId
      )
      this.sql.run(INSERT_EVENT, type, orderId, at, null, existing.status, status, source)
      return { known: true, change: { type, orderId, old: existing.status, new: status } }
    })
  }

  private upsert(type: OrderType, incoming: OrderRecord, scopeFiatType: number | null, source: StatusSource, at: string): RecordOutcome {
    let record = incoming
    let hash = contentHash(record)
    const existing = this.sql.get<{
      status: number
      updated_at: string
      content_hash: string
      status_source: StatusSource
      webhook_match: WebhookMatch | null
      fiat_type: number | null
      gone_at: string | null
    }>(
      'SELECT status, updated_at, content_hash, status_source, webhook_match, fiat_type, gone_at FROM orders WHERE type = ? AND order_id = ?',
      type,
      record.orderId
    )
    // Listed again, or sent whole by a verified webhook: the service has it after all.
    if (existing?.gone_at) this.sql.run(CLEAR_GONE, type, record.orderId)
    const by = confirmedByOf(source)
    // Records reach here whole: a webhook's only after every identity field agreed.
    const match: WebhookMatch | null = source === 'webhook' ? 'whole' : null
    if (!existing) {
      this.sql.run(INSERT_ORDER, type, record.orderId, ...columnValues(type, record, scopeFiatType, hash), source, match, at, at, at, by)
      this.sql.run(INSERT_EVENT, type, record.orderId, at, record.updatedAt, null, record.status, source)
      return { kind: 'created', summary: summaryOf(type, record, scopeFiatType) }
    }
    if (existing.content_hash === hash) {
      // The service said the same again: the status is confirmed (written only while the
      // order is open, where the freshness bound needs it; a terminal status stays).
      if (!statusInfo(type, existing.status).terminal) this.sql.run(CONFIRM, at, by, type, record.orderId)
      return { kind: 'unchanged' }
    }
    if (record.updatedAt < existing.updated_at) return { kind: 'stale' }
    if (
      record.updatedAt === existing.updated_at &&
      (existing.status_source === 'watch' || (existing.status_source === 'webhook' && existing.webhook_match === 'whole')) &&
      record.status !== existing.status
    ) {
      // A watch or a webhook saw this status after the snapshot that carried this
      // updatedAt (a webhook's own updatedAt is not kept): the snapshot is not news about
      // the status, keep the newer observation. Not so for a webhook matched on a few
      // fields only (or from before that was noted): a made-up dummy order could pin a wrong
      // terminal status that no history answer would undo.
      record = { ...record, status: existing.status }
      hash = contentHash(record)
      if (existing.content_hash === hash) return { kind: 'unchanged' }
    }
    const statusChanged = record.status !== existing.status
    const newSource = statusChanged || record.updatedAt > existing.updated_at
    const statusSource: StatusSource = newSource ? source : existing.status_source
    // Offramp records may omit fiatType; keep the scope it was first synced in.
    const fiatScope = scopeFiatType ?? existing.fiat_type
    this.sql.run(
      UPDATE_ORDER,
      ...columnValues(type, record, fiatScope, hash),
      statusSource,
      newSource ? match : existing.webhook_match,
      at,
      at,
      by,
      type,
      record.orderId
    )
    const summary = summaryOf(type, record, fiatScope)
    if (!statusChanged) return { kind: 'updated', summary }
    this.sql.run(INSERT_EVENT, type, record.orderId, at, record.updatedAt, existing.status, record.status, source)
    return { kind: 'status', summary, change: { type, orderId: record.orderId, old: existing.status, new: record.status } }
  }

  /**
   * Orders held in a scope (every fiat of the type when fiatType is null). With
   * `unreadable`, records listed in that scope and kept as unreadable (and held in no
   * readable copy) count too: the service's count includes them, the completeness audit
   * compares with it. With `listedOnly`, orders the service was found to no longer have
   * (markGone) are left out: it counts them no more.
   */
  countScope(type: OrderType, fiatType: number | null, o: { unreadable?: boolean; listedOnly?: boolean; fromRows?: boolean } = {}): number {
    const fiat = fiatType === null ? '' : ' AND fiat_type = ?'
    const params = fiatType === null ? [type] : [type, fiatType]
    const kept =
      this.sql.value<number>(
        `SELECT IFNULL(SUM(n), 0) FROM order_counts WHERE type = ?${fiat}${o.listedOnly ? ' AND gone = 0' : ''}`,
        ...params
      ) ?? 0
    let orders = kept
    if (o.fromRows) {
      // The completeness audit's proof rests on the rows themselves, and checks the counts
      // table on the way: one that disagrees is counted again from the rows, and said.
      orders =
        this.sql.value<number>(
          `SELECT COUNT(*) FROM orders WHERE type = ?${fiat}${o.listedOnly ? ` AND id ${NOT_GONE}` : ''}`,
          ...params
        ) ?? 0
      if (orders !== kept) {
        rebuildOrderCounts(this.sql)
        this.onCountsRebuilt?.({ type, fiatType, kept, counted: orders })
      }
    }
    if (!o.unreadable) return orders
    const apart = `SELECT COUNT(*) FROM unreadable_orders u WHERE u.type = ?
      AND (u.order_id IS NULL OR NOT EXISTS (SELECT 1 FROM orders o WHERE o.type = u.type AND o.order_id = u.order_id))`
    const unreadable =
      (fiatType === null ? this.sql.value<number>(apart, type) : this.sql.value<number>(`${apart} AND u.fiat_type = ?`, type, fiatType)) ??
      0
    return orders + unreadable
  }

  /**
   * Order ids held in a scope (every fiat of the type when fiatType is null), not known to
   * be gone, that are not in `listed` (the ids a full read of the scope was answered with):
   * what the completeness audit asks orderStatus about. Lowest id first, at most `limit`.
   */
  unlisted(type: OrderType, fiatType: number | null, listed: ReadonlySet<number>, limit: number): number[] {
    const out: number[] = []
    const ids = this.sql.iterate<{ order_id: number }>(
      `SELECT order_id FROM orders WHERE type = ?${fiatType === null ? '' : ' AND fiat_type = ?'} AND gone_at IS NULL ORDER BY order_id`,
      ...(fiatType === null ? [type] : [type, fiatType])
    )
    for (const r of ids) {
      if (out.length >= limit) break
      if (!listed.has(r.order_id)) out.push(r.order_id)
    }
    return out
  }

  /** orderStatus answered that the service does not have this order (417, "Invalid orderId"): the row stays, marked. */
  markGone(type: OrderType, orderId: number, at: string = this.nowIso()): void {
    this.sql.run('UPDATE orders SET gone_at = ? WHERE type = ? AND order_id = ? AND gone_at IS NULL', at, type, orderId)
  }

  /** Orders held per fiat type of one order type (null: records that named none), kept until the next write. */
  fiatCounts(type: OrderType): { fiatType: number | null; orders: number }[] {
    const stamp = this.sql.writeStamp()
    const cached = this.fiatCountsCache.get(type)
    if (cached && stamp !== null && cached.stamp === stamp) return cached.rows
    // From order_counts (migration 12), where a NULL fiat_type is NO_FIAT: a few hundred rows, not every order of the type.
    const rows = this.sql
      .all<{ fiat_type: number; n: number }>(
        'SELECT fiat_type, SUM(n) AS n FROM order_counts WHERE type = ? GROUP BY fiat_type HAVING SUM(n) > 0 ORDER BY fiat_type',
        type
      )
      .map((r) => ({ fiatType: r.fiat_type === NO_FIAT ? null : r.fiat_type, orders: r.n }))
    this.fiatCountsCache.set(type, { stamp, rows })
    return rows
  }

  /**
   * A listing read from `before` to its end, on a service whose `since` was checked to
   * filter on updatedAt, lists every order changed since: the open orders held whose last
   * change is older are unchanged, their statuses confirmed by that history answer at `at`.
   * Answers how many.
   */
  confirmUnchanged(type: OrderType, fiatType: number | null, before: string, at: string): number {
    assertType(type)
    const open = `status NOT IN (${terminalStatuses(type).join(', ')})`
    // An order whose newer record could not be read keeps its old updatedAt here: it did change.
    const stale = `(status_confirmed_at IS NULL OR status_confirmed_at < ?)
      AND NOT EXISTS (SELECT 1 FROM unreadable_orders u WHERE u.type = orders.type AND u.order_id = orders.order_id)`
    const set = `UPDATE orders SET status_confirmed_at = ?, status_confirmed_by = 'history'`
    return fiatType === null
      ? this.sql.run(`${set} WHERE type = ? AND ${open} AND updated_at < ? AND ${stale}`, at, type, before, at).changes
      : this.sql.run(`${set} WHERE type = ? AND fiat_type = ? AND ${open} AND updated_at < ? AND ${stale}`, at, type, fiatType, before, at)
          .changes
  }

  /**
   * When the open orders' statuses were last confirmed (null: never), oldest first, at most
   * `limit`: the freshness sweep's deadlines, read from the open orders' index (migration 9),
   * never every order of the type.
   */
  openConfirmations(limit: number): (string | null)[] {
    const out: (string | null)[] = []
    for (const type of [1, 2] as const)
      for (const r of this.sql.all<{ at: string | null }>(
        `SELECT status_confirmed_at AS at FROM ${openOrders(type)} ORDER BY status_confirmed_at LIMIT ?`,
        limit
      ))
        out.push(r.at)
    return out.sort((a, b) => (a === b ? 0 : a === null ? -1 : b === null ? 1 : a.localeCompare(b))).slice(0, limit)
  }

  /**
   * Open orders (any status not known to be terminal) whose status was last confirmed
   * before `before` (or never), least recently confirmed or asked about first: what the
   * freshness sweep asks orderStatus about. An order whose last request failed goes behind
   * those not asked since their confirmation, so a few the service cannot tell about never
   * hold the head of the queue.
   */
  unconfirmedOpen(before: string, limit: number): { type: OrderType; orderId: number; status: number; turnAt: string }[] {
    const out: { type: OrderType; orderId: number; status: number; turnAt: string }[] = []
    for (const type of [1, 2] as const) {
      out.push(
        ...this.sql
          .all<{ order_id: number; status: number; turn_at: string }>(
            `SELECT order_id, status, MAX(COALESCE(status_confirmed_at, ''), COALESCE(status_checked_at, '')) AS turn_at
             FROM ${openOrders(type)}
             AND (status_confirmed_at IS NULL OR status_confirmed_at < ?) ORDER BY turn_at LIMIT ?`,
            before,
            limit
          )
          .map((r) => ({ type, orderId: r.order_id, status: r.status, turnAt: r.turn_at }))
      )
    }
    return out.sort((a, b) => a.turnAt.localeCompare(b.turnAt)).slice(0, limit)
  }

  /**
   * The freshness sweep asked orderStatus about an order: answered (its confirmation is
   * written by applyStatus), or failed, counting failures in a row since the status was
   * last confirmed by anything.
   */
  noteStatusCheck(type: OrderType, orderId: number, ok: boolean, at: string = this.nowIso()): void {
    if (ok) {
      this.sql.run('UPDATE orders SET status_checked_at = ?, status_check_failures = 0 WHERE type = ? AND order_id = ?', at, type, orderId)
      return
    }
    this.sql.run(
      `UPDATE orders SET status_check_failures = CASE
         WHEN status_checked_at IS NOT NULL AND status_confirmed_at IS NOT NULL AND status_confirmed_at > status_checked_at THEN 1
         ELSE status_check_failures + 1 END,
       status_checked_at = ? WHERE type = ? AND order_id = ?`,
      at,
      type,
      orderId
    )
  }

  /**
   * How many orders are open, how many of them were last confirmed before `before`, the
   * oldest confirmation, and how many the last `failures` orderStatus requests or more in a
   * row failed for with nothing confirming them since.
   */
  openSummary(
    before: string,
    failures = Infinity
  ): { open: number; unconfirmed: number; oldestConfirmedAt: string | null; unconfirmable: number } {
    let open = 0
    let unconfirmed = 0
    let unconfirmable = 0
    let oldest: string | null = null
    const minFailures = Number.isFinite(failures) ? failures : Number.MAX_SAFE_INTEGER
    for (const type of [1, 2] as const) {
      const r = this.sql.get<{ open: number; unconfirmed: number; oldest: string | null; unconfirmable: number }>(
        `SELECT COUNT(*) AS open, SUM(CASE WHEN status_confirmed_at IS NULL OR status_confirmed_at < ? THEN 1 ELSE 0 END) AS unconfirmed,
           MIN(status_confirmed_at) AS oldest,
           SUM(CASE WHEN status_check_failures >= ? AND (status_confirmed_at IS NULL OR status_confirmed_at <= status_checked_at)
             THEN 1 ELSE 0 END) AS unconfirmable
         FROM ${openOrders(type)}`,
        before,
        minFailures
      )
      open += r?.open ?? 0
      unconfirmed += r?.unconfirmed ?? 0
      unconfirmable += r?.unconfirmable ?? 0
      if (r?.oldest && (oldest === null || r.oldest < oldest)) oldest = r.oldest
    }
    return { open, unconfirmed, oldestConfirmedAt: oldest, unconfirmable }
  }

  /** The newest createdAt held in a scope (every fiat of the type when fiatType is null). */
  newestCreatedAt(type: OrderType, fiatType: number | null): string | null {
    return fiatType === null
      ? (this.sql.value<string | null>('SELECT created_at FROM orders WHERE type = ? ORDER BY created_at DESC LIMIT 1', type) ?? null)
      : (this.sql.value<string | null>(
          'SELECT created_at FROM orders WHERE type = ? AND fiat_type = ? ORDER BY created_at DESC LIMIT 1',
          type,
          fiatType
        ) ?? null)
  }

  /**
   * An order to check what merchantHistory's `since` filters on (monitor/history-probes.ts):
   * the most recently changed of a scope that changed at least a second after it was
   * created, not at the spec's cutover instant.
   */
  sinceSample(type: OrderType, fiatType: number | null): { orderId: number; createdAt: string; updatedAt: string } | null {
    const rows = this.sql.all<{ order_id: number; created_at: string; updated_at: string }>(
      `SELECT order_id, created_at, updated_at FROM orders WHERE type = ?${fiatType === null ? '' : ' AND fiat_type = ?'}
       AND updated_at > '2022-11-09T16:58:07.000Z' ORDER BY updated_at DESC LIMIT 50`,
      ...(fiatType === null ? [type] : [type, fiatType])
    )
    const r = rows.find((x) => Date.parse(x.updated_at) - Date.parse(x.created_at) >= 1000)
    return r ? { orderId: r.order_id, createdAt: r.created_at, updatedAt: r.updated_at } : null
  }

  get(type: OrderType, orderId: number): OrderRow | undefined {
    const r = this.sql.get<OrderDbRow>('SELECT * FROM orders WHERE type = ? AND order_id = ?', type, orderId)
    return r ? toRow(r) : undefined
  }

  /** The observed status transitions of one order, oldest first. */
  timeline(type: OrderType, orderId: number): OrderEvent[] {
    return this.sql
      .all<OrderEventDbRow>('SELECT * FROM order_events WHERE type = ? AND order_id = ? ORDER BY id', type, orderId)
      .map((e) => ({
        id: e.id,
        type: e.type as OrderType,
        orderId: e.order_id,
        at: e.at,
        orderUpdatedAt: e.order_updated_at,
        oldStatus: e.old_status,
        newStatus: e.new_status,
        source: e.source
      }))
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
  query(q: OrderQuery): { rows: OrderRow[]; total: number; totalAtLeast: boolean } {
    const broad = this.broadSearch(q)
    const exact = this.presentStatuses(q)
    const built = buildOrderQuery(exact, { broad, countCap: this.searchPlan.totalCap })
    // The statements run back to back on the one connection: a write of this process cannot
    // come between them. Another connection's commit can (each statement reads its own WAL
    // snapshot), and then rows and total differ by that commit until the next query, which
    // the write's notice brings.
    const { total, atLeast } = this.cappedCount(built)
    // The total is exact unless capped: a window past it holds nothing, and is not looked for.
    if (!atLeast && built.offset >= total) return { rows: [], total, totalAtLeast: false }
    const window = broad && !this.walkPays(q.type, built, total) ? buildOrderQuery(exact) : built
    const rowsSql =
      window.statusRowsSql !== null && !this.walkPays(q.type, window, total, this.searchPlan.statusMatchCost)
        ? window.statusRowsSql
        : window.rowsSql
    const rows = this.sql.all<OrderDbRow>(rowsSql, ...window.params, window.limit, window.offset).map(toRow)
    return { rows, total, totalAtLeast: atLeast }
  }

  /**
   * The filter with its status conditions (a group, a list, an exclusion: "in progress" is
   * every status not known to end an order) turned into the list of the statuses the type's
   * orders hold now that pass them (order_counts, migration 12), the same orders: a list
   * can be sought in the status index, an exclusion cannot. Without a status condition, or
   * with a search (driven by its own matches), the filter as given.
   */
  private presentStatuses(q: OrderQuery): OrderQuery {
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

  /** How many orders match the filter, every one (kept until the next write, as the query's totals are). */
  total(filter: OrderFilter): number {
    return this.countOf(buildOrderQuery(filter, { broad: this.broadSearch(filter) }))
  }

  /** How many orders match the filter, as query() counts them: a broad search up to BROAD_TOTAL_CAP. */
  totalUpTo(filter: OrderFilter): { total: number; atLeast: boolean } {
    return this.cappedCount(buildOrderQuery(filter, { broad: this.broadSearch(filter), countCap: this.searchPlan.totalCap }))
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
  private fact(key: string, compute: () => number): number {
    const stamp = this.sql.writeStamp()
    if (stamp === null) return compute()
    if (stamp !== this.facts.stamp) this.facts = { stamp, byKey: new Map() }
    let value = this.facts.byKey.get(key)
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
    const walked = ((built.offset + built.limit) * this.countOf(buildOrderQuery({ type }))) / Math.max(1, total)
    return walked <= Math.max(this.searchPlan.maxWalkedEntries, perMatch * total)
  }

  /**
   * Whether the filter's search matches so many orders that walking the sort's index beats
   * collecting them; probed once per search until the next write, not for every page.
   */
  private broadSearch(f: OrderFilter): boolean {
    const search = f.search?.trim()
    if (!search) return false
    const at = this.searchPlan.broadMatches
    const probe = () => (searchProbes(f.type, search, at).some((p) => (this.sql.value<number>(p.sql, ...p.params) ?? 0) >= at) ? 1 : 0)
    return this.fact(`broad|${at}|${f.type}|${search}`, probe) === 1
  }

  /** Every order matching the filter, one at a time (for CSV export). */
  *exportRows(filter: OrderFilter & Pick<OrderQuery, 'sort'>): Generator<OrderRow> {
    const built = buildOrderQuery(filter, { unbounded: true, broad: this.broadSearch(filter) })
    for (const r of this.sql.iterate<OrderDbRow>(built.rowsSql, ...built.params, built.limit, built.offset)) yield toRow(r)
  }
}
