// Orders of both types in the profile database, behind one object for the callers: each
// concern lives in its own file (writes, reads and the windowed query's plan, what a scope
// holds, the freshness of open statuses, the row mapping) and is reached here, or as
// `writes`, `reads`, `scopes` and `freshness` by a caller that needs one concern only.
import type { FiatScope } from '../../shared/domain/fiat-scope'
import type { OrderType, StatusSource } from '../../shared/ipc/contract'
import { OrderFreshness } from './order-freshness'
import type { StoredOrderFilter, StoredOrderQuery } from './order-query'
import { OrderReads } from './order-reads'
import { OrderScopes, type CountsDrift } from './order-scopes'
import {
  OrderWrites,
  type ApplyPageResult,
  type ApplyStatusResult,
  type HistoryPage,
  type RecordOutcome,
  type WebhookMatch
} from './order-writes'
import type { Sql } from './sql'
import type { ListedOrder, OrderEvent, OrderRecord, OrderRecordOf, StoredOrder } from './stored-order'
import type { SyncCursorsRepo } from './sync-cursors-repo'
import type { UnreadableOrdersRepo } from './unreadable-orders-repo'

export type { StoredOrderFilter, StoredOrderQuery, StoredOrderSort, OrderSortKey } from './order-query'
export type { CountsDrift } from './order-scopes'
export type { ApplyPageResult, ApplyStatusResult, HistoryPage, RecordOutcome, WebhookMatch } from './order-writes'
export type {
  ConfirmedBy,
  OrderEvent,
  OrderEventDbRow,
  OrderRecord,
  OrderRecordOf,
  ListedOrder,
  StoredOrder,
  OrderSummary,
  StatusChange
} from './stored-order'
export type { SyncCursor } from './sync-cursors-repo'

export class OrdersRepo {
  readonly writes: OrderWrites
  readonly reads: OrderReads
  readonly scopes: OrderScopes
  readonly freshness: OrderFreshness

  constructor(
    /** The connection every concern shares (one transaction can span them). */
    private readonly sql: Sql,
    now: () => Date,
    cursors: SyncCursorsRepo,
    unreadableOrders: UnreadableOrdersRepo,
    /** order_counts disagreed with the rows of a scope and was counted again (countScope with fromRows). */
    onCountsRebuilt?: (drift: CountsDrift) => void
  ) {
    this.writes = new OrderWrites(this.sql, now, cursors, unreadableOrders)
    this.reads = new OrderReads(this.sql)
    this.scopes = new OrderScopes(this.sql, now, onCountsRebuilt)
    this.freshness = new OrderFreshness(this.sql, now)
  }

  /** How the windowed query picks its plan (OrderReads.searchPlan; tests lower its thresholds). */
  get searchPlan(): OrderReads['searchPlan'] {
    return this.reads.searchPlan
  }

  // Writes (order-writes.ts).

  applyHistoryPage<T extends OrderType>(page: HistoryPage<T>): ApplyPageResult {
    return this.writes.applyHistoryPage(page)
  }

  applyRecord<T extends OrderType>(type: T, record: OrderRecordOf<T>, source: StatusSource, at?: string): RecordOutcome {
    return this.writes.applyRecord(type, record, source, at)
  }

  applyRecordOver(held: StoredOrder, record: OrderRecord, source: StatusSource, at?: string): RecordOutcome {
    return this.writes.applyRecordOver(held, record, source, at)
  }

  applyStatusOver(
    held: StoredOrder,
    status: number,
    source: Exclude<StatusSource, 'sync'>,
    match: WebhookMatch,
    at?: string
  ): ApplyStatusResult {
    return this.writes.applyStatusOver(held, status, source, match, at)
  }

  applyStatus(
    type: OrderType,
    orderId: number,
    status: number,
    source: Exclude<StatusSource, 'sync'>,
    at?: string,
    match?: WebhookMatch
  ): ApplyStatusResult {
    return this.writes.applyStatus(type, orderId, status, source, at, match)
  }

  // Reads (order-reads.ts).

  get(type: OrderType, orderId: number): StoredOrder | undefined {
    return this.reads.get(type, orderId)
  }

  timeline(type: OrderType, orderId: number): OrderEvent[] {
    return this.reads.timeline(type, orderId)
  }

  count(type?: OrderType): number {
    return this.reads.count(type)
  }

  openGroupCounts(): ReturnType<OrderReads['openGroupCounts']> {
    return this.reads.openGroupCounts()
  }

  query(q: StoredOrderQuery): { rows: ListedOrder[]; total: number; totalAtLeast: boolean } {
    return this.reads.query(q)
  }

  total(filter: StoredOrderFilter): number {
    return this.reads.total(filter)
  }

  totalUpTo(filter: StoredOrderFilter): { total: number; atLeast: boolean } {
    return this.reads.totalUpTo(filter)
  }

  exportRows(filter: StoredOrderFilter & Pick<StoredOrderQuery, 'sort'>): Generator<StoredOrder> {
    return this.reads.exportRows(filter)
  }

  // What a scope holds (order-scopes.ts).

  countScope(type: OrderType, scope: FiatScope, o?: { unreadable?: boolean; listedOnly?: boolean; fromRows?: boolean }): number {
    return this.scopes.countScope(type, scope, o)
  }

  unlisted(type: OrderType, scope: FiatScope, listed: ReadonlySet<number>, limit: number): number[] {
    return this.scopes.unlisted(type, scope, listed, limit)
  }

  markGone(type: OrderType, orderId: number, at?: string): void {
    this.scopes.markGone(type, orderId, at)
  }

  fiatCounts(type: OrderType): { fiatType: number | null; orders: number }[] {
    return this.scopes.fiatCounts(type)
  }

  newestCreatedAt(type: OrderType, scope: FiatScope): string | null {
    return this.scopes.newestCreatedAt(type, scope)
  }

  sinceSample(type: OrderType, scope: FiatScope): { orderId: number; createdAt: string; updatedAt: string } | null {
    return this.scopes.sinceSample(type, scope)
  }

  // Freshness of open statuses (order-freshness.ts).

  confirmUnchanged(type: OrderType, scope: FiatScope, before: string, at: string): number {
    return this.freshness.confirmUnchanged(type, scope, before, at)
  }

  openConfirmations(limit: number): (string | null)[] {
    return this.freshness.openConfirmations(limit)
  }

  unconfirmedOpen(before: string, limit: number): { type: OrderType; orderId: number; status: number; turnAt: string }[] {
    return this.freshness.unconfirmedOpen(before, limit)
  }

  noteStatusCheck(type: OrderType, orderId: number, ok: boolean, at?: string): void {
    this.freshness.noteStatusCheck(type, orderId, ok, at)
  }

  openSummary(
    before: string,
    failures?: number
  ): { open: number; unconfirmed: number; oldestConfirmedAt: string | null; unconfirmable: number } {
    return this.freshness.openSummary(before, failures)
  }
}
