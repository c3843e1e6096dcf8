// The freshness of open orders' statuses: when the service last confirmed each (a
// history answer, a verified webhook, orderStatus), which the sweep asks orderStatus about
// next, what its requests' failures were, and the summary the coverage reading shows. Read
// through the partial indexes of open orders (migration 9), never every order of a type.
import type { FiatScope } from '../../shared/domain/fiat-scope'
import type { OrderType } from '../../shared/ipc/contract'
import { knownStatuses, statusInfo } from '../../shared/domain/status'
import { inScope } from './order-scopes'
import type { Sql } from './sql'
import { assertType } from './stored-order'

/** The statuses of a type known to be terminal (integers from the status table: safe in SQL text). */
export function terminalStatuses(type: OrderType): number[] {
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

export class OrderFreshness {
  constructor(
    private readonly sql: Sql,
    private readonly now: () => Date
  ) {}

  /**
   * A listing read from `before` to its end, on a service whose `since` was checked to
   * filter on updatedAt, lists every order changed since: the open orders held whose last
   * change is older are unchanged, their statuses confirmed by that history answer at `at`.
   * Answers how many.
   */
  confirmUnchanged(type: OrderType, scope: FiatScope, before: string, at: string): number {
    assertType(type)
    const open = `status NOT IN (${terminalStatuses(type).join(', ')})`
    // An order whose newer record could not be read keeps its old updatedAt here: it did change.
    const stale = `(status_confirmed_at IS NULL OR status_confirmed_at < ?)
      AND NOT EXISTS (SELECT 1 FROM unreadable_orders u WHERE u.type = orders.type AND u.order_id = orders.order_id)`
    const set = `UPDATE orders SET status_confirmed_at = ?, status_confirmed_by = 'history'`
    const fiat = inScope(scope)
    return this.sql.run(
      `${set} WHERE type = ?${fiat.sql} AND ${open} AND updated_at < ? AND ${stale}`,
      at,
      type,
      ...fiat.params,
      before,
      at
    ).changes
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
  noteStatusCheck(type: OrderType, orderId: number, ok: boolean, at: string = this.now().toISOString()): void {
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
}
