// Order events across the hubs on one PostgreSQL database. Each hub keeps its orders in its
// own SQLite order database; the leader, the only hub that syncs, publishes every new row of
// its order_events to PostgreSQL with the same id, with the order's row as it holds it, and
// NOTIFYs rampdesk_order_events. Every hub (the leader too) streams an order event to
// desktops only once it is in PostgreSQL; a follower first applies it to its own copy with
// the same id (the order row upserted, the event inserted, replacing whatever the follower
// wrote under that id itself). So an event id names the same change on every hub, and a
// desktop that moves to another hub replays from its Last-Event-ID without a gap.
//
// Not every write to an order is an event: an amount the service corrected, a status
// confirmed again. The leader also marks every order its own order database writes (a
// temporary trigger on its connection: nothing is stored for it) and publishes those rows;
// PostgreSQL gives each row written a new version (order_rows.version), and a follower
// applies the rows whose version is above the last it applied, keeping that version in its
// order database with them (the settings table, in the same transaction). A write that only
// confirms a status or notes a check is marked apart and published compactly instead
// (pg-order-confirmations.ts), under the same sequence of versions.
//
// What the leader publishes is fenced by its lease (pg-lease.ts): each write runs in a
// transaction that holds the lease row under this hub's epoch, so a leader whose lease was
// taken over publishes nothing, and the hub that took over has every row the old one got in.
import type pg from 'pg'
import type { Sql, SqlValue } from '../../main/store/sql'
import type { OrderEventDbRow } from '../../main/store/orders-repo'
import type { HubRoleSource } from '../hub-role'
import { inTransaction } from './pg-connection'
import { asLeader } from './pg-lease'
import {
  applyConfirmations,
  CHECKED,
  CONFIRMED,
  readConfirmations,
  updateConditions,
  type ConfirmationEntry
} from './pg-order-confirmations'

export const ORDER_EVENTS_CHANNEL = 'rampdesk_order_events'
/** Events moved per round: a large backlog goes in batches. */
const BATCH = 500
/** Confirmations (and checks) read per entry: a poll of a scope confirms every open order of it, in a few ids each. */
const CONFIRMATIONS_BATCH = 20_000
/** How long the database keeps the leader's confirmations: a follower further behind takes the next poll's. */
const CONFIRMATIONS_KEPT = "interval '1 hour'"
/** The key in the order database's settings table of the newest order row version this hub applied. */
const ROWS_APPLIED_KEY = 'hub.orderRowsVersion'
/** The orders this connection wrote since the leader last published them (temporary: this connection's only). */
const WRITTEN = 'hub_written_orders'
// Marked anew under a higher seq (no OR REPLACE: inside a trigger the writing statement's conflict policy would win).
const mark = (table: string) => `DELETE FROM ${table} WHERE type = new.type AND order_id = new.order_id;
  INSERT INTO ${table} (type, order_id) VALUES (new.type, new.order_id)`
const markTable = (table: string) => `CREATE TEMP TABLE IF NOT EXISTS ${table} (
  seq INTEGER PRIMARY KEY AUTOINCREMENT, type INTEGER NOT NULL, order_id INTEGER NOT NULL, UNIQUE (type, order_id))`

const EVENT_COLUMNS = ['id', 'type', 'order_id', 'at', 'order_updated_at', 'old_status', 'new_status', 'source'] as const

export class PgOrderFeed {
  /** The connection the triggers that mark written orders are on. */
  private marking: Sql | null = null

  constructor(
    private readonly pool: pg.Pool,
    private readonly local: () => Sql,
    /** The hub's role: its writes are fenced by its lease (none: not fenced, as for a test's feed). */
    private readonly role?: Pick<HubRoleSource, 'current'>
  ) {}

  /** One of the leader's writes, in a transaction fenced by its lease. */
  private lead<T>(what: string, fn: (c: pg.PoolClient) => Promise<T>): Promise<T> {
    return this.role ? asLeader(this.pool, this.role, what, fn) : inTransaction(this.pool, fn)
  }

  /**
   * The local connection, marking every order it writes (temporary triggers, set up once per
   * connection): written, or (nothing else changed) only confirmed or checked.
   */
  private sql(): Sql {
    const sql = this.local()
    if (this.marking === sql) return sql
    const when = updateConditions(orderColumns(sql))
    sql.exec(`${markTable(WRITTEN)}; ${markTable(CONFIRMED)}; ${markTable(CHECKED)};
      CREATE TEMP TRIGGER IF NOT EXISTS hub_order_inserted AFTER INSERT ON main.orders BEGIN ${mark(WRITTEN)}; END;
      CREATE TEMP TRIGGER IF NOT EXISTS hub_order_updated AFTER UPDATE ON main.orders WHEN ${when.written} BEGIN ${mark(WRITTEN)}; END;
      CREATE TEMP TRIGGER IF NOT EXISTS hub_order_confirmed AFTER UPDATE ON main.orders WHEN ${when.confirmed} BEGIN ${mark(CONFIRMED)}; END;
      CREATE TEMP TRIGGER IF NOT EXISTS hub_order_checked AFTER UPDATE ON main.orders WHEN ${when.checked} BEGIN ${mark(CHECKED)}; END;`)
    this.marking = sql
    return sql
  }

  /** The newest event id in PostgreSQL (0: none). */
  async publishedUpTo(): Promise<number> {
    const r = await this.pool.query<{ n: number }>('SELECT COALESCE(MAX(id), 0)::bigint AS n FROM order_events')
    return r.rows[0]!.n
  }

  /**
   * Leader: publishes the local events PostgreSQL lacks (a batch); answers the newest id
   * published. `heldUpTo` is the newest of the database's ids this hub holds: while the
   * database has newer ones (another hub's, got in before this hub took over), nothing is
   * published and `heldUpTo` is answered, so they are applied first and no id is skipped.
   */
  async publish(heldUpTo = Infinity): Promise<number> {
    const after = await this.publishedUpTo()
    if (after > heldUpTo) return heldUpTo
    const sql = this.sql()
    const events = sql.all<OrderEventDbRow>(
      `SELECT ${EVENT_COLUMNS.join(', ')} FROM order_events WHERE id > ? ORDER BY id LIMIT ?`,
      after,
      BATCH
    )
    if (!events.length) return after
    const orders = new Map<string, Record<string, unknown>>()
    // The rows read now are as every write marked so far left them.
    const markedUpTo = sql.value<number>(`SELECT MAX(seq) FROM ${WRITTEN}`) ?? 0
    for (const e of events) {
      const key = `${e.type}:${e.order_id}`
      if (orders.has(key)) continue
      const row = portableRow(sql, e.type, e.order_id)
      if (row) orders.set(key, row)
    }
    await this.lead('publishing order events', async (c) => {
      if (orders.size) await c.query(SAVE_ROWS, rowArrays([...orders.values()]))
      for (const e of events)
        await c.query(
          `INSERT INTO order_events (${EVENT_COLUMNS.join(', ')}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (id) DO NOTHING`,
          EVENT_COLUMNS.map((k) => e[k])
        )
      await c.query('SELECT pg_notify($1, $2)', [ORDER_EVENTS_CHANNEL, String(events.at(-1)!.id)])
    })
    // Published with their events: publishRows need not send them again (unless written since).
    sql.transaction(() => {
      for (const row of orders.values())
        sql.run(
          `DELETE FROM ${WRITTEN} WHERE type = ? AND order_id = ? AND seq <= ?`,
          row.type as number,
          row.order_id as number,
          markedUpTo
        )
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
    const sql = this.sql()
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

  /**
   * Leader: publishes the rows of the orders written locally since the last call (a batch);
   * PostgreSQL versions those that differ from what it holds. Answers how many were marked.
   */
  async publishRows(): Promise<number> {
    const sql = this.sql()
    const marks = sql.all<{ seq: number; type: number; order_id: number }>(
      `SELECT seq, type, order_id FROM ${WRITTEN} ORDER BY seq LIMIT ?`,
      BATCH
    )
    if (!marks.length) return 0
    const rows = marks.flatMap((m): Record<string, unknown>[] => {
      const row = portableRow(sql, m.type, m.order_id)
      return row ? [row] : []
    })
    if (rows.length)
      await this.lead('publishing order rows', async (c) => {
        const r = await c.query<{ n: number }>(
          `WITH saved AS (${SAVE_ROWS} RETURNING version) SELECT COUNT(*)::int AS n FROM saved`,
          rowArrays(rows)
        )
        if (r.rows[0]!.n > 0) await c.query('SELECT pg_notify($1, $2)', [ORDER_EVENTS_CHANNEL, 'rows'])
      })
    // Written again meanwhile: marked again under a higher seq, published next time.
    sql.run(`DELETE FROM ${WRITTEN} WHERE seq <= ?`, marks.at(-1)!.seq)
    return marks.length
  }

  /**
   * Leader: publishes the confirmations and checks written locally since the last call (one
   * entry, in the order rows' sequence of versions), at most `limit` marks of each kind;
   * answers how many marks it took (0: none left), those of orders since deleted included.
   */
  async publishConfirmations(limit = CONFIRMATIONS_BATCH): Promise<number> {
    const sql = this.sql()
    const { entry, confirmedUpTo, checkedUpTo, taken } = readConfirmations(sql, limit)
    if (!confirmedUpTo && !checkedUpTo) return 0
    if (entry.confirmed.length || entry.checked.length)
      await this.lead('publishing status confirmations', async (c) => {
        await c.query(`DELETE FROM order_confirmations WHERE written_at < now() - ${CONFIRMATIONS_KEPT}`)
        await c.query('INSERT INTO order_confirmations (json) VALUES ($1)', [JSON.stringify(entry)])
        await c.query('SELECT pg_notify($1, $2)', [ORDER_EVENTS_CHANNEL, 'rows'])
      })
    // Confirmed again meanwhile: marked again under a higher seq, published next time.
    sql.transaction(() => {
      sql.run(`DELETE FROM ${CONFIRMED} WHERE seq <= ?`, confirmedUpTo)
      sql.run(`DELETE FROM ${CHECKED} WHERE seq <= ?`, checkedUpTo)
    })
    return taken
  }

  /** Follower: what this hub wrote to its own copy (the leader's rows applied, its own syncs) is not for publishing. */
  forgetWrites(): void {
    const sql = this.sql()
    sql.exec(`DELETE FROM ${WRITTEN}; DELETE FROM ${CONFIRMED}; DELETE FROM ${CHECKED};`)
  }

  /**
   * The order row version a follower goes on from: the one it applied last (kept in its order
   * database), never above the database's newest (a database restored or replaced). A copy
   * with no orders starts at the newest: the events it applies first carry every row as it is.
   */
  async rowsStart(): Promise<number> {
    const r = await this.pool.query<{ n: number }>(
      `SELECT GREATEST((SELECT COALESCE(MAX(version), 0) FROM order_rows), (SELECT COALESCE(MAX(version), 0) FROM order_confirmations))::bigint AS n`
    )
    const newest = r.rows[0]!.n
    const sql = this.sql()
    const kept = sql.value<string>('SELECT json FROM settings WHERE key = ?', ROWS_APPLIED_KEY)
    const empty = sql.value<number>('SELECT 1 FROM orders LIMIT 1') === undefined
    return Math.min(kept !== undefined ? Number(JSON.parse(kept)) : empty ? newest : 0, newest)
  }

  /**
   * Follower: applies the rows and the confirmations versioned after `after` (a batch), in
   * the order of their versions; answers the newest version applied and the types of the
   * orders whose rows changed, or null when nothing was applied.
   */
  async applyRows(after: number): Promise<{ version: number; types: number[] } | null> {
    const r = await this.pool.query<{ version: number; row_json: string | null; confirmations: string | null }>(
      `SELECT version, row_json, NULL AS confirmations FROM order_rows WHERE version > $1
       UNION ALL SELECT version, NULL, json FROM order_confirmations WHERE version > $1
       ORDER BY version LIMIT $2`,
      [after, BATCH]
    )
    if (!r.rows.length) return null
    const newest = r.rows.at(-1)!.version
    const types = new Set<number>()
    const sql = this.sql()
    sql.transaction(() => {
      for (const x of r.rows) {
        if (x.confirmations !== null) applyConfirmations(sql, JSON.parse(x.confirmations) as ConfirmationEntry)
        else {
          const row = JSON.parse(x.row_json!) as Record<string, SqlValue>
          upsertOrder(sql, row)
          types.add(Number(row.type))
        }
      }
      sql.run(
        `INSERT INTO settings (key, json, updated_at) VALUES (?, ?, ?)
         ON CONFLICT (key) DO UPDATE SET json = excluded.json, updated_at = excluded.updated_at`,
        ROWS_APPLIED_KEY,
        JSON.stringify(newest),
        new Date().toISOString()
      )
    })
    return { version: newest, types: [...types] }
  }
}

/** Order rows in, as unnest()ed arrays of type, order_id and row_json; an unchanged row is left (and keeps its version). */
const SAVE_ROWS = `INSERT INTO order_rows (type, order_id, row_json) SELECT * FROM unnest($1::int[], $2::bigint[], $3::text[])
  ON CONFLICT (type, order_id) DO UPDATE SET row_json = excluded.row_json WHERE order_rows.row_json IS DISTINCT FROM excluded.row_json`

const rowArrays = (rows: Record<string, unknown>[]) => [
  rows.map((x) => x.type),
  rows.map((x) => x.order_id),
  rows.map((x) => JSON.stringify(x))
]

/** An order's row as this hub holds it, without its local id (events refer to the order by type and id). */
function portableRow(sql: Sql, type: number, orderId: number): Record<string, unknown> | undefined {
  const row = sql.get<Record<string, unknown>>('SELECT * FROM orders WHERE type = ? AND order_id = ?', type, orderId)
  if (!row) return undefined
  const { id: _localId, ...portable } = row
  return portable
}

/** The order's row as the leader holds it, over this hub's (its local id kept: events refer to the order by type and id). */
export function upsertOrder(sql: Sql, row: Record<string, SqlValue>): void {
  // Only the columns this hub's orders table has: a leader of a newer version writes rows
  // with columns an older follower does not know yet (a rolling upgrade), which it keeps
  // the rest of rather than failing every round.
  const known = orderColumns(sql)
  const cols = Object.keys(row).filter((c) => /^[a-z_]+$/.test(c) && known.has(c))
  const updates = cols.filter((c) => c !== 'type' && c !== 'order_id').map((c) => `${c} = excluded.${c}`)
  sql.run(
    `INSERT INTO orders (${cols.join(', ')}) VALUES (${cols.map(() => '?').join(', ')}) ON CONFLICT (type, order_id) DO UPDATE SET ${updates.join(', ')}`,
    ...cols.map((c) => row[c]!)
  )
}

const columnsOf = new WeakMap<Sql, Set<string>>()
/** The columns of this hub's orders table (read once per connection: migrations run before the feed starts). */
function orderColumns(sql: Sql): Set<string> {
  let cols = columnsOf.get(sql)
  if (!cols) {
    cols = new Set(sql.all<{ name: string }>("SELECT name FROM pragma_table_info('orders')").map((r) => r.name))
    columnsOf.set(sql, cols)
  }
  return cols
}
