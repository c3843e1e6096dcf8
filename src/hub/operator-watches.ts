// Pinned orders per operator. Each operator pins and unpins their own; the hub's one
// order monitor polls the union, so an order two operators pin is polled once, and
// stays polled until the last of them lets go.
import type { Sql } from '../main/store/sql'
import type { OrderRef, OrderType } from '../shared/ipc/contract'

/** What the hub's monitor offers for pinning (OrderMonitor's watch and unwatch). */
export interface WatchTarget {
  watch(type: OrderType, orderId: number): void
  unwatch(type: OrderType, orderId: number): void
}

/** Makes the monitor's pins `wanted`: unwatches what nobody pins, watches what it lacks. */
export function reconcilePins(wanted: readonly OrderRef[], monitorPins: readonly OrderRef[], monitor: WatchTarget): void {
  const key = (r: OrderRef) => `${r.type}:${r.orderId}`
  const want = new Map(wanted.map((r) => [key(r), r]))
  const have = new Set(monitorPins.map(key))
  for (const r of monitorPins) if (!want.has(key(r))) monitor.unwatch(r.type, r.orderId)
  for (const [k, r] of want) if (!have.has(k)) monitor.watch(r.type, r.orderId)
}

export class OperatorWatches {
  constructor(
    private readonly sql: Sql,
    private readonly now: () => number = Date.now
  ) {}

  has(operator: string, type: OrderType, orderId: number): boolean {
    return (
      this.sql.value<number>('SELECT 1 FROM operator_watches WHERE operator = ? AND type = ? AND order_id = ?', operator, type, orderId) ===
      1
    )
  }

  /** The operator's pins, oldest first. */
  list(operator: string): OrderRef[] {
    return this.sql
      .all<{ type: number; order_id: number }>(
        'SELECT type, order_id FROM operator_watches WHERE operator = ? ORDER BY added_at, rowid',
        operator
      )
      .map((r) => ({ type: r.type as OrderType, orderId: r.order_id }))
  }

  /** Every order some operator pins. */
  union(): OrderRef[] {
    return this.sql
      .all<{ type: number; order_id: number }>('SELECT DISTINCT type, order_id FROM operator_watches ORDER BY type, order_id')
      .map((r) => ({ type: r.type as OrderType, orderId: r.order_id }))
  }

  private watchers(type: OrderType, orderId: number): number {
    return this.sql.value<number>('SELECT COUNT(*) FROM operator_watches WHERE type = ? AND order_id = ?', type, orderId) ?? 0
  }

  /** Pins for one operator; the monitor starts polling the order when it is the first pin. */
  watch(operator: string, type: OrderType, orderId: number, monitor: WatchTarget): void {
    const first = this.watchers(type, orderId) === 0
    this.sql.run(
      'INSERT OR IGNORE INTO operator_watches (operator, type, order_id, added_at) VALUES (?, ?, ?, ?)',
      operator,
      type,
      orderId,
      this.now()
    )
    if (first) monitor.watch(type, orderId)
  }

  /** Unpins for one operator; the monitor stops polling the order when nobody pins it any more. */
  unwatch(operator: string, type: OrderType, orderId: number, monitor: WatchTarget): void {
    this.sql.run('DELETE FROM operator_watches WHERE operator = ? AND type = ? AND order_id = ?', operator, type, orderId)
    if (this.watchers(type, orderId) === 0) monitor.unwatch(type, orderId)
  }

  /** A revoked operator's pins go: nobody is left to see them. */
  dropOperator(operator: string, monitor: WatchTarget): void {
    for (const w of this.list(operator)) this.unwatch(operator, w.type, w.orderId, monitor)
  }

  /** Operators who still have pins but are no longer active (revoked from another process). */
  orphans(): string[] {
    return this.sql
      .all<{ operator: string }>(
        'SELECT DISTINCT operator FROM operator_watches WHERE operator NOT IN (SELECT name FROM operators WHERE revoked_at IS NULL)'
      )
      .map((r) => r.operator)
  }

  /** Makes the monitor's pins the union of the operators' (after a start, or a crash between the two writes). */
  reconcile(monitorPins: readonly OrderRef[], monitor: WatchTarget): void {
    reconcilePins(this.union(), monitorPins, monitor)
  }
}
