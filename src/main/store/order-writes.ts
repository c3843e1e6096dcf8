// Writing orders: a history page applied in one transaction with its unreadable records
// and its sync cursor (a sync killed at any instant resumes without loss or duplicates),
// a whole record a verified webhook sent, and a status observed without a record (an
// orderStatus answer, a webhook's status alone), each with its status transition in
// order_events.
import type { OrderType, StatusSource } from '../../shared/ipc/contract'
import { fiatScope } from '../../shared/domain/fiat-scope'
import { statusInfo } from '../../shared/domain/status'
import { contentHash } from './content-hash'
import type { Sql } from './sql'
import {
  DATA_COLUMNS,
  assertType,
  columnValues,
  confirmedByOf,
  int,
  summaryOf,
  toStoredOrder,
  type OrderDbRow,
  type OrderRecord,
  type OrderRecordOf,
  type OrderSummary,
  type StatusChange,
  type StoredOrder,
  type WebhookMatch
} from './stored-order'
import type { ListedRecord, SyncCursor, SyncCursorsRepo } from './sync-cursors-repo'
import type { UnreadableInput, UnreadableOrdersRepo } from './unreadable-orders-repo'

export type { WebhookMatch } from './stored-order'

export interface HistoryPage<T extends OrderType = OrderType> {
  type: T
  /**
   * The sync scope the page was requested for, as the cursors key it (fiat-scope.ts: 0 for
   * every fiat). A record that names no fiat type is given the scope's; in a scope of every
   * fiat, none.
   */
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
  /** The order as a status change left it, from a write over an order the caller held (…Over). */
  written?: StoredOrder
}

/** What applying one record did. */
export type RecordOutcome =
  | { kind: 'created'; summary: OrderSummary }
  /** `written`: the order as the change left it, from a write over an order the caller held (applyRecordOver). */
  | { kind: 'status'; summary: OrderSummary; change: StatusChange; written?: StoredOrder }
  | { kind: 'updated'; summary: OrderSummary }
  | { kind: 'unchanged' }
  | { kind: 'stale' }

const INSERT_ORDER = `INSERT INTO orders (type, order_id, ${DATA_COLUMNS.join(', ')}, status_source, webhook_match, first_seen_at,
    last_changed_at, status_confirmed_at, status_confirmed_by)
  VALUES (?, ?, ${DATA_COLUMNS.map(() => '?').join(', ')}, ?, ?, ?, ?, ?, ?)`
const UPDATE_ORDER = `UPDATE orders SET ${DATA_COLUMNS.map((c) => `${c} = ?`).join(', ')}, status_source = ?, webhook_match = ?,
    last_changed_at = ?, status_confirmed_at = ?, status_confirmed_by = ?
  WHERE type = ? AND order_id = ?`
const UPDATE_STATUS = `UPDATE orders SET status = ?, record_json = ?, content_hash = ?, status_source = ?, webhook_match = ?,
    last_changed_at = ?, status_confirmed_at = ?, status_confirmed_by = ?
  WHERE type = ? AND order_id = ?`
/** What a write needs to know of the order it writes over. */
type Existing = Pick<OrderDbRow, 'status' | 'updated_at' | 'content_hash' | 'status_source' | 'webhook_match' | 'fiat_type' | 'gone_at'>
const SELECT_EXISTING =
  'SELECT status, updated_at, content_hash, status_source, webhook_match, fiat_type, gone_at FROM orders WHERE type = ? AND order_id = ?'
/** The order held, as the columns a write starts from. */
const existingOf = (h: StoredOrder): Existing => ({
  status: h.status,
  updated_at: h.updatedAt,
  content_hash: h.contentHash,
  status_source: h.statusSource,
  webhook_match: h.webhookMatch,
  fiat_type: h.fiatType,
  gone_at: h.goneAt
})
const CONFIRM = 'UPDATE orders SET status_confirmed_at = ?, status_confirmed_by = ? WHERE type = ? AND order_id = ?'
const CLEAR_GONE = 'UPDATE orders SET gone_at = NULL WHERE type = ? AND order_id = ?'
const INSERT_EVENT = `INSERT INTO order_events (type, order_id, at, order_updated_at, old_status, new_status, source)
  VALUES (?, ?, ?, ?, ?, ?, ?)`

export class OrderWrites {
  constructor(
    private readonly sql: Sql,
    private readonly now: () => Date,
    private readonly cursors: SyncCursorsRepo,
    private readonly unreadableOrders: UnreadableOrdersRepo
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
      const scope = fiatScope(page.fiatType)
      const attribute = scope.kind === 'one' ? scope.fiatType : null
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
   * applyRecord over the order the caller has just read under the record's id (and matched
   * to it), in the same synchronous turn on this connection, so that nothing was written
   * between: the write starts from that copy instead of reading the order again, and a
   * status change answers the order as it left it (RETURNING), so a verified webhook reads
   * its order once.
   */
  applyRecordOver(held: StoredOrder, record: OrderRecord, source: StatusSource, at: string = this.nowIso()): RecordOutcome {
    if (record.orderId !== held.orderId) throw new RangeError(`record ${record.orderId} is not order ${held.orderId}`)
    return this.sql.transaction(() => this.upsert(held.type, record, null, source, at, held))
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
      const existing = this.sql.get<{ status: number; record_json: string; gone_at: string | null }>(
        'SELECT status, record_json, gone_at FROM orders WHERE type = ? AND order_id = ?',
        type,
        orderId
      )
      if (!existing) return { known: false, change: null }
      const held = { status: existing.status, goneAt: existing.gone_at, record: () => JSON.parse(existing.record_json) as OrderRecord }
      return this.writeStatus(type, orderId, held, status, source, at, match, false)
    })
  }

  /**
   * applyStatus over the order the caller has just read (as applyRecordOver): not read
   * again, and a change answers the order as it left it. The watch's last status is noted
   * as applyStatus notes it.
   */
  applyStatusOver(
    held: StoredOrder,
    status: number,
    source: Exclude<StatusSource, 'sync'>,
    match: WebhookMatch,
    at: string = this.nowIso()
  ): ApplyStatusResult {
    const { type, orderId } = held
    return this.sql.transaction(() => {
      this.sql.run('UPDATE watches SET last_status = ?, last_checked_at = ? WHERE type = ? AND order_id = ?', status, at, type, orderId)
      return this.writeStatus(
        type,
        orderId,
        { status: held.status, goneAt: held.goneAt, record: () => held.record },
        status,
        source,
        at,
        match,
        true
      )
    })
  }

  /** A status observed without a record, written over the order as it is held (inside the caller's transaction). */
  private writeStatus(
    type: OrderType,
    orderId: number,
    existing: { status: number; goneAt: string | null; record: () => OrderRecord },
    status: number,
    source: Exclude<StatusSource, 'sync'>,
    at: string,
    match: WebhookMatch,
    returning: boolean
  ): ApplyStatusResult {
    // orderStatus answered about it, or a verified webhook named it: the service has it after all.
    if (existing.goneAt) this.sql.run(CLEAR_GONE, type, orderId)
    const by = confirmedByOf(source)
    if (existing.status === status) {
      this.sql.run(CONFIRM, at, by, type, orderId)
      return { known: true, change: null }
    }
    const record = { ...(existing.record() as Record<string, unknown>), status }
    const values = [
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
    ]
    let written: OrderDbRow | undefined
    if (returning) written = this.sql.get<OrderDbRow>(`${UPDATE_STATUS} RETURNING *`, ...values)
    else this.sql.run(UPDATE_STATUS, ...values)
    this.sql.run(INSERT_EVENT, type, orderId, at, null, existing.status, status, source)
    const change = { type, orderId, old: existing.status, new: status }
    return written ? { known: true, change, written: toStoredOrder(written) } : { known: true, change }
  }

  /** `held`: the order as the caller read it (applyRecordOver), written over without reading it again. */
  private upsert(
    type: OrderType,
    incoming: OrderRecord,
    scopeFiatType: number | null,
    source: StatusSource,
    at: string,
    held?: StoredOrder
  ): RecordOutcome {
    let record = incoming
    let hash = contentHash(record)
    const existing = held ? existingOf(held) : this.sql.get<Existing>(SELECT_EXISTING, type, record.orderId)
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
    const values = [
      ...columnValues(type, record, fiatScope, hash),
      statusSource,
      newSource ? match : existing.webhook_match,
      at,
      at,
      by,
      type,
      record.orderId
    ]
    // Over an order the caller held, a status change answers the row as written: its event carries it.
    let written: OrderDbRow | undefined
    if (held && statusChanged) written = this.sql.get<OrderDbRow>(`${UPDATE_ORDER} RETURNING *`, ...values)
    else this.sql.run(UPDATE_ORDER, ...values)
    const summary = summaryOf(type, record, fiatScope)
    if (!statusChanged) return { kind: 'updated', summary }
    this.sql.run(INSERT_EVENT, type, record.orderId, at, record.updatedAt, existing.status, record.status, source)
    const change = { type, orderId: record.orderId, old: existing.status, new: record.status }
    return written ? { kind: 'status', summary, change, written: toStoredOrder(written) } : { kind: 'status', summary, change }
  }
}
