// The operator's "Check now" on one order: orderStatus at interactive priority (ahead of
// the background polling, within the profile's budget), its answer kept as a confirmation
// of the order's status the way a watched order's poll is (a change becomes the same
// order:changed event), or, where this monitor does not write orders (a hub that follows
// another), only answered. The service saying it does not know the order is an answer too.
import type { CallOptions } from '../api/client'
import { toErrorInfo } from '../../shared/api/errors'
import type { OrderCheck, OrderType } from '../../shared/ipc/contract'
import type { ApplyStatusResult, OrdersRepo } from '../store/orders-repo'
import { isOrderGone } from './completeness-audit'
import type { WatchClient } from './watches'

export interface OrderCheckDeps {
  client: Pick<WatchClient, 'orderStatus'>
  orders: Pick<OrdersRepo, 'get' | 'applyStatus' | 'noteStatusCheck'>
  /** Whether this monitor keeps what it learns (false on a hub that follows the leader). */
  keeps: boolean
  /** Aborts the request when the session closes (absent while the monitor is stopped). */
  signal?: AbortSignal
  now(): number
  /** A status the check changed: announced as a watch's change is. */
  changed(result: ApplyStatusResult): void
}

export async function checkOrderNow(d: OrderCheckDeps, type: OrderType, orderId: number): Promise<OrderCheck> {
  const previous = d.orders.get(type, orderId)?.status ?? null
  const opts: CallOptions = { priority: 'interactive', ...(d.signal ? { signal: d.signal } : {}) }
  let status: number
  try {
    status = (await d.client.orderStatus({ orderId, type }, opts)).orderStatus
  } catch (e) {
    if (isOrderGone(toErrorInfo(e))) return { kind: 'unknown-order', at: d.now() }
    throw e
  }
  const at = d.now()
  if (!d.keeps) return { kind: 'status', status, previous, at, kept: false }
  const result = d.orders.applyStatus(type, orderId, status, 'watch', new Date(at).toISOString())
  if (result.known) d.orders.noteStatusCheck(type, orderId, true, new Date(at).toISOString())
  if (result.change) d.changed(result)
  return { kind: 'status', status, previous, at, kept: result.known }
}
