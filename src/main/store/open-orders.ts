// The open orders the alerts look at: a status not known to be terminal, still listed at
// the service, with where they are (coin, chain) and since when they are as they are.
import type { OrderType } from '../../shared/ipc/contract'
import { terminalStatuses } from './order-freshness'
import type { Sql } from './sql'

export interface OpenOrder {
  type: OrderType
  orderId: number
  status: number
  coinId: number
  chainId: number
  /** Epoch ms of the last change the store observed (a new status or new content). */
  since: number
}

export function openOrders(sql: Sql): OpenOrder[] {
  const out: OpenOrder[] = []
  for (const type of [1, 2] as const) {
    const rows = sql.all<{ order_id: number; status: number; coin_id: number; chain_id: number; last_changed_at: string }>(
      `SELECT order_id, status, coin_id, chain_id, last_changed_at FROM orders
        WHERE type = ? AND status NOT IN (${terminalStatuses(type).join(', ')}) AND gone_at IS NULL`,
      type
    )
    for (const r of rows)
      out.push({
        type,
        orderId: r.order_id,
        status: r.status,
        coinId: r.coin_id,
        chainId: r.chain_id,
        since: Date.parse(r.last_changed_at)
      })
  }
  return out
}
