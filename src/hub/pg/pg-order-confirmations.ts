// Status confirmations across the hubs on one PostgreSQL database. Every history poll that
// read a listing to its end confirms every open order of the scope that it did not change
// (OrdersRepo.confirmUnchanged), and the freshness sweep notes each orderStatus it asks:
// writes to an order that change only when its status was last confirmed (and by what), or
// when it was last checked (and how many checks failed in a row). Published as whole rows
// (pg-order-feed.ts) they would give every open order a new row version at every poll: the
// whole record to PostgreSQL and to every follower, every 30 s. So the leader's triggers
// tell them apart from every other change, and the leader publishes them compactly, one
// entry per round: the orders confirmed at one time by one source named once with their
// ids, and the checks as (type, id, time, failures). An entry takes its version from the
// order rows' sequence, and a follower applies rows and entries in that one order, so each
// write carries what the leader held when it read it, and none undoes a later one.
import type { Sql } from '../../main/store/sql'

/** Columns that say when and how an order's status was last confirmed. */
const CONFIRMATION = ['status_confirmed_at', 'status_confirmed_by'] as const
/** Columns that say when the freshness sweep last asked, and how many asks failed in a row. */
const CHECK = ['status_checked_at', 'status_check_failures'] as const

/** The temporary tables (this connection's only) of orders whose confirmation, or check, changed and nothing else. */
export const CONFIRMED = 'hub_confirmed_orders'
export const CHECKED = 'hub_checked_orders'

/** The orders of one type confirmed at one time by one source. */
interface ConfirmedGroup {
  type: number
  at: string | null
  by: string | null
  ids: number[]
}
/** One entry of order_confirmations. */
export interface ConfirmationEntry {
  confirmed: ConfirmedGroup[]
  /** [type, order id, checked at, failures in a row] */
  checked: [number, number, string | null, number][]
}

const differ = (cols: readonly string[]) => (cols.length ? cols.map((c) => `old.${c} IS NOT new.${c}`).join(' OR ') : '0')

/**
 * The WHEN clauses of the update triggers, given the orders table's columns: a row is
 * written (published whole) when any column other than the confirmation's and the check's
 * changed; otherwise it is confirmed, checked, or both.
 */
export function updateConditions(columns: ReadonlySet<string>): { written: string; confirmed: string; checked: string } {
  const quiet = new Set<string>([...CONFIRMATION, ...CHECK])
  const written = differ([...columns].filter((c) => !quiet.has(c)))
  const only = (cols: readonly string[]) => `NOT (${written}) AND (${differ(cols.filter((c) => columns.has(c)))})`
  return { written, confirmed: only(CONFIRMATION), checked: only(CHECK) }
}

/** Leader: what the marked orders hold now (up to `limit` of each kind), and the newest mark of each kind read. */
export function readConfirmations(
  sql: Sql,
  limit: number
): { entry: ConfirmationEntry; confirmedUpTo: number; checkedUpTo: number; taken: number } {
  const confirmed = sql.all<{ seq: number; type: number; order_id: number; at: string | null; by: string | null; held: number | null }>(
    `SELECT m.seq, m.type, m.order_id, o.status_confirmed_at AS at, o.status_confirmed_by AS by, o.type AS held
       FROM ${CONFIRMED} m LEFT JOIN orders o ON o.type = m.type AND o.order_id = m.order_id ORDER BY m.seq LIMIT ?`,
    limit
  )
  const checked = sql.all<{ seq: number; type: number; order_id: number; at: string | null; failures: number; held: number | null }>(
    `SELECT m.seq, m.type, m.order_id, o.status_checked_at AS at, o.status_check_failures AS failures, o.type AS held
       FROM ${CHECKED} m LEFT JOIN orders o ON o.type = m.type AND o.order_id = m.order_id ORDER BY m.seq LIMIT ?`,
    limit
  )
  const groups = new Map<string, ConfirmedGroup>()
  for (const r of confirmed) {
    if (r.held === null) continue
    const key = `${r.type}|${r.at}|${r.by}`
    let g = groups.get(key)
    if (!g) groups.set(key, (g = { type: r.type, at: r.at, by: r.by, ids: [] }))
    g.ids.push(r.order_id)
  }
  return {
    entry: {
      confirmed: [...groups.values()],
      checked: checked.flatMap((r) => (r.held === null ? [] : [[r.type, r.order_id, r.at, r.failures] as ConfirmationEntry['checked'][0]]))
    },
    confirmedUpTo: confirmed.at(-1)?.seq ?? 0,
    checkedUpTo: checked.at(-1)?.seq ?? 0,
    // Marks of orders no longer held (deleted) count: a batch of only those is no end of the marks.
    taken: confirmed.length + checked.length
  }
}

/** Follower: the leader's confirmations and checks onto this hub's copy (in the caller's transaction). */
export function applyConfirmations(sql: Sql, e: ConfirmationEntry): void {
  for (const g of e.confirmed)
    sql.run(
      'UPDATE orders SET status_confirmed_at = ?, status_confirmed_by = ? WHERE type = ? AND order_id IN (SELECT value FROM json_each(?))',
      g.at,
      g.by,
      g.type,
      JSON.stringify(g.ids)
    )
  for (const [type, orderId, at, failures] of e.checked)
    sql.run(
      'UPDATE orders SET status_checked_at = ?, status_check_failures = ? WHERE type = ? AND order_id = ?',
      at,
      failures,
      type,
      orderId
    )
}
