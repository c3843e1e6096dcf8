// Order events across the hubs on one PostgreSQL database. Each hub keeps its orders in its
// own SQLite order database; the leader, the only hub that syncs, publishes every new row of
// its order_events to PostgreSQL with the same id, with the order's row as it holds it, and
// NOTIFYs rampdesk_order_events. Every hub (the leader too) streams an order event to
// desktops only once it is in PostgreSQL; a follower first applies it to its own copy with
// the same id (the order row upserted, the event inserted, replacing whatever the follower
// wrote under that id itself). So an event id names the same change on every hub, and a
// desktop that moves to another hub replays from its Last-Event-ID without a gap.
import type pg from 'pg'
import type { Sql, SqlValue } from '../../main/store/database'
import type { OrderEventDbRow } from '../../main/store/orders-repo'
import { inTransaction } from './pg-connection'

export const ORDER_EVENTS_CHANNEL = 'rampdesk_order_events'
/** Events moved per round: a large backlog goes in batches. */
const BATCH = 500

const EVENT_COLUMNS = ['id', 'type', 'order_id', 'at', 'order_updated_at', 'old_status', 'new_status', 'source'] as const

export class PgOrderFeed {
  constructor(
    private readonly pool: pg.Pool,
    private readonly local: () => Sql
  ) {}

  /** The newest event id in PostgreSQL (0: none). */
  async publishedUpTo(): Promise<number> {
    const r = await this.pool.query<{ n: number }>('SELECT COALESCE(MAX(id), 0)::bigint AS n FROM order_events')
    return r.rows[0]!.n
  }

  /** Leader: publishes the local events PostgreSQL lacks (a batch); answers the newest id published. */
  async publish(): Promise<number> {
    const after = await this.publishedUpTo()
    const sql = this.local()
    const events = sql.all<OrderEventDbRow>(
      `SELECT ${EVENT_COLUMNS.join(', ')} FROM order_events WHERE id > ? ORDER BY id LIMIT ?`,
      after,
      BATCH
    )
    if (!events.length) return after
    const orders = new Map<string, Record<string, unknown>>()
    for (const e of events) {
      const key = `${e.type}:${e.order_id}`
      if (orders.has(key)) continue
      const row = sql.get<Record<string, unknown>>('SELECT * FROM orders WHERE type = ? AND order_id = ?', e.type, e.order_id)
      if (row) {
        const { id: _localId, ...portable } = row
        orders.set(key, portable)
      }
    }
    await inTransaction(this.pool, async (c) => {
      for (const row of orders.values())
        await c.query(
          'INSERT INTO order_rows (type, order_id, row_json) VALUES ($1, $2, $3) ON CONFLICT (type, order_id) DO UPDATE SET row_json = excluded.row_json',
          [row.type, row.order_id, JSON.stringify(row)]
        )
      for (const e of events)
        await c.query(
          `INSERT INTO order_events (${EVENT_COLUMNS.join(', ')}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (id) DO NOTHING`,
          EVENT_COLUMNS.map((k) => e[k])
        )
      await c.query('SELECT pg_notify($1, $2)', [ORDER_EVENTS_CHANNEL, String(events.at(-1)!.id)])
    })
    return events.at(-1)!.id
  }

  /**
   * Follower: applies the events after `after` from PostgreSQL (a batch) to the local order
   * database with the same ids; answers the ids applied, oldest first.
   */
  async apply(after: number): Promise<number[]> {
    const r = await this.pool.query<OrderEventDbRow & { row_json: string | null }>(
      `SELECT e.id, e.type, e.order_id, e.at, e.order_updated_at, e.old_status, e.new_status, e.source, o.row_json
         FROM order_events e LEFT JOIN order_rows o ON o.type = e.type AND o.order_id = e.order_id
        WHERE e.id > $1 ORDER BY e.id LIMIT $2`,
      [after, BATCH]
    )
    if (!r.rows.length) return []
    const sql = this.local()
    sql.transaction(() => {
      const done = new Set<string>()
      for (const e of r.rows) {
        const key = `${e.type}:${e.order_id}`
        if (e.row_json && !done.has(key)) {
          done.add(key)
          upsertOrder(sql, JSON.parse(e.row_json) as Record<string, SqlValue>)
        }
        sql.run(
          `INSERT OR REPLACE INTO order_events (${EVENT_COLUMNS.join(', ')}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
          ...EVENT_COLUMNS.map((k) => e[k])
        )
      }
    })
    return r.rows.map((e) => e.id)
  }
}

/** The order's row as the leader holds it, over this hub's (its local id kept: events refer to the order by type and id). */
function upsertOrder(sql: Sql, row: Record<string, SqlValue>): void {
  const cols = Object.keys(row).filter((c) => /^[a-z_]+$/.test(c))
  const updates = cols.filter((c) => c !== 'type' && c !== 'order_id').map((c) => `${c} = excluded.${c}`)
  sql.run(
    `INSERT INTO orders (${cols.join(', ')}) VALUES (${cols.map(() => '?').join(', ')}) ON CONFLICT (type, order_id) DO UPDATE SET ${updates.join(', ')}`,
    ...cols.map((c) => row[c]!)
  )
}
