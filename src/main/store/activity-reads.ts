// What the activity summary reads from a profile's store between two moments: the orders
// whose status changed to a failed one (order_events, by the time the change was seen) and
// the claims, hand-overs, releases and notes by anyone but the operator asking
// (order_handling). On a team hub both are the hub's copy, so every hub of one database
// answers the same.
import { statusesInGroup } from '../../shared/domain/status'
import type { OrderType } from '../../shared/ipc/contract'
import type { HandlingKind } from './order-claims-repo'
import type { Sql } from './sql'

export interface FailedChange {
  type: OrderType
  orderId: number
  status: number
  /** When the failed status was seen (epoch ms). */
  at: number
}

export interface HandlingRecord {
  type: OrderType
  orderId: number
  kind: HandlingKind
  actor: string
  /** Who handles the order after it (a claim's or hand-over's operator). */
  handler: string | null
  text: string | null
  at: number
}

/** Orders that turned failed in (from, to], each once (its latest such change), newest first. */
export function failedBetween(sql: Sql, from: number, to: number): FailedChange[] {
  const out: FailedChange[] = []
  const [a, b] = [new Date(from).toISOString(), new Date(to).toISOString()]
  for (const type of [1, 2] as const) {
    const failed = statusesInGroup(type, 'failed')
    if (!failed.length) continue
    const rows = sql.all<{ order_id: number; status: number; at: string }>(
      `SELECT order_id, new_status AS status, MAX(at) AS at FROM order_events
        WHERE type = ? AND at > ? AND at <= ? AND new_status IN (${failed.join(', ')})
        GROUP BY order_id`,
      type,
      a,
      b
    )
    for (const r of rows) out.push({ type, orderId: r.order_id, status: r.status, at: Date.parse(r.at) })
  }
  return out.sort((x, y) => y.at - x.at)
}

/** Claims, hand-overs, releases and notes in (from, to] by anyone but `me` (names compare without case), newest first. */
export function handlingBetween(sql: Sql, from: number, to: number, me: string): HandlingRecord[] {
  return sql
    .all<{ type: OrderType; order_id: number; kind: HandlingKind; actor: string; handler: string | null; text: string | null; at: number }>(
      `SELECT type, order_id, kind, actor, handler, text, at FROM order_handling
        WHERE at > ? AND at <= ? AND lower(actor) <> lower(?) ORDER BY at DESC, id DESC`,
      from,
      to,
      me
    )
    .map((r) => ({ type: r.type, orderId: r.order_id, kind: r.kind, actor: r.actor, handler: r.handler, text: r.text, at: r.at }))
}
