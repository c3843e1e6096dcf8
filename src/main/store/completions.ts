// The orders the store holds at a successful terminal status, completed since an instant,
// for the completions the merchant's system has not confirmed (shared/domain/unacknowledged.ts);
// and, for a desktop whose inbox receives the service's notices itself, which of them the
// inbox took (a verified delivery: the inbox answered it 2xx).
import type { OrderType } from '../../shared/ipc/contract'
import { isSuccess, orderKeyOf, successStatuses, type CompletedOrder, type OrderNotice } from '../../shared/domain/unacknowledged'
import type { Sql } from './sql'

/**
 * Orders at a successful status whose last change at the service is at or after `from`
 * (epoch ms), still listed at the service. The completion is the service's time of that change,
 * never later than the store first saw it as it is (a service clock ahead of ours).
 */
export function completedOrders(sql: Sql, from: number): CompletedOrder[] {
  const since = new Date(from).toISOString()
  const out: CompletedOrder[] = []
  for (const type of [1, 2] as const) {
    const rows = sql.all<{ order_id: number; status: number; updated_at: string; last_changed_at: string }>(
      `SELECT order_id, status, updated_at, last_changed_at FROM orders
        WHERE type = ? AND updated_at >= ? AND status IN (${successStatuses(type).join(', ')}) AND gone_at IS NULL`,
      type,
      since
    )
    for (const r of rows)
      out.push({
        type,
        orderId: r.order_id,
        status: r.status,
        completedAt: Math.min(Date.parse(r.updated_at), Date.parse(r.last_changed_at))
      })
  }
  return out
}

/** The orders whose completion notice this inbox verified (and so answered 2xx), received at or after `from`. */
export function inboxNotices(sql: Sql, from: number): Map<string, OrderNotice> {
  const rows = sql.all<{ order_type: number; order_id: number; order_status: number }>(
    `SELECT DISTINCT order_type, order_id, order_status FROM webhook_deliveries
      WHERE verified = 1 AND order_id IS NOT NULL AND order_type IN (1, 2) AND order_status IS NOT NULL AND last_received_at >= ?`,
    new Date(from).toISOString()
  )
  const out = new Map<string, OrderNotice>()
  for (const r of rows)
    if (isSuccess(r.order_type as OrderType, r.order_status))
      out.set(orderKeyOf(r.order_type as OrderType, r.order_id), { kind: 'acknowledged' })
  return out
}

/** When the inbox received its first delivery still in the log (epoch ms), or null. */
export function firstInboxDelivery(sql: Sql): number | null {
  const at = sql.value<string | null>('SELECT MIN(received_at) FROM webhook_deliveries')
  return at ? Date.parse(at) : null
}
