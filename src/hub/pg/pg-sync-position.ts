// Where the leader's history sync stands, handed to the hub that takes over. Each hub keeps
// its sync cursors (per scope: the newest updatedAt read, the ids read at that instant, a
// repair still owed) in its own order database, and only the leader's move; a follower
// promoted with none would read every scope's whole history again from the start, and see
// what changed while nobody led only at the end of that walk (minutes on a large merchant).
// So the leader writes its cursors to leader_sync_position, under its lease, after the
// order rows they account for (the order feed takes the snapshot before it publishes the
// round's rows); a hub that takes over applies every row the old leader published, then
// adopts each scope's cursor where it is ahead of its own, and its first sync is a poll from
// there with the usual look-back: a page or two per scope, the gap's changes included.
import type pg from 'pg'
import type { Sql, SqlValue } from '../../main/store/sql'
import type { HubRoleSource } from '../hub-role'
import { DB_NOW_MS } from './pg-connection'
import { asLeader } from './pg-lease'

/** Columns of sync_cursors a new leader leaves as its own: when it tries next and why it last failed are its own monitor's. */
const OWN_COLUMNS = new Set(['last_error', 'next_run_at'])

export interface SyncPosition {
  /** The rows of sync_cursors, every column but the local ones. */
  cursors: Record<string, SqlValue>[]
  /** The ids read at each scope's cursor instant. */
  ids: { type: number; fiat_type: number; order_id: number; position: number | null }[]
}

/** What the hub's own order database says of where its history sync stands. */
export function localPosition(sql: Sql): SyncPosition {
  const cursors = sql
    .all<Record<string, SqlValue>>('SELECT * FROM sync_cursors ORDER BY type, fiat_type')
    .map((row) => Object.fromEntries(Object.entries(row).filter(([k]) => !OWN_COLUMNS.has(k))))
  const ids = sql.all<SyncPosition['ids'][number]>(
    'SELECT type, fiat_type, order_id, position FROM sync_cursor_ids ORDER BY type, fiat_type, order_id'
  )
  return { cursors, ids }
}

/**
 * Takes the leader's cursor of every scope where it is ahead of this hub's (or this hub has
 * none), with the ids read at it; answers the scopes taken, as "type/fiat".
 */
export function adoptPosition(sql: Sql, p: SyncPosition): string[] {
  const known = new Set(sql.all<{ name: string }>("SELECT name FROM pragma_table_info('sync_cursors')").map((r) => r.name))
  const taken: string[] = []
  sql.transaction(() => {
    for (const row of p.cursors) {
      const cursor = typeof row.cursor === 'string' ? row.cursor : null
      if (cursor === null) continue
      const mine = sql.value<string | null>('SELECT cursor FROM sync_cursors WHERE type = ? AND fiat_type = ?', row.type!, row.fiat_type!)
      if (mine !== undefined && mine !== null && mine >= cursor) continue
      const cols = Object.keys(row).filter((c) => /^[a-z_]+$/.test(c) && known.has(c))
      const updates = cols.filter((c) => c !== 'type' && c !== 'fiat_type').map((c) => `${c} = excluded.${c}`)
      sql.run(
        `INSERT INTO sync_cursors (${cols.join(', ')}) VALUES (${cols.map(() => '?').join(', ')})
         ON CONFLICT (type, fiat_type) DO UPDATE SET ${updates.join(', ')}`,
        ...cols.map((c) => row[c]!)
      )
      sql.run('DELETE FROM sync_cursor_ids WHERE type = ? AND fiat_type = ?', row.type!, row.fiat_type!)
      for (const id of p.ids)
        if (id.type === row.type && id.fiat_type === row.fiat_type)
          sql.run(
            'INSERT INTO sync_cursor_ids (type, fiat_type, order_id, position) VALUES (?, ?, ?, ?)',
            id.type,
            id.fiat_type,
            id.order_id,
            id.position
          )
      taken.push(`${String(row.type)}/${String(row.fiat_type)}`)
    }
  })
  return taken
}

export class PgSyncPosition {
  /** What this hub last wrote, so an unchanged position is not written again. */
  private written: string | null = null

  constructor(
    private readonly pool: pg.Pool,
    private readonly role: Pick<HubRoleSource, 'current'>
  ) {}

  /** Leader: writes the position under its lease when it changed (refused when the lease is not this hub's). */
  async publish(p: SyncPosition): Promise<void> {
    const json = JSON.stringify(p)
    if (json === this.written) return
    const s = this.role.current()
    const epoch = s.role === 'leader' ? (s.lease?.epoch ?? 0) : 0
    await asLeader(this.pool, this.role, 'sharing where the history sync stands', (c) =>
      c.query(
        `INSERT INTO leader_sync_position (id, json, epoch, written_at) VALUES (1, $1, $2, ${DB_NOW_MS})
         ON CONFLICT (id) DO UPDATE SET json = EXCLUDED.json, epoch = EXCLUDED.epoch, written_at = EXCLUDED.written_at`,
        [json, epoch]
      )
    )
    this.written = json
  }

  /** The last leader's position, the epoch it was written under and how old it is (null: none written). */
  async read(): Promise<{ position: SyncPosition; epoch: number; ageMs: number } | null> {
    this.written = null
    const r = await this.pool.query<{ json: string; epoch: number; age: number }>(
      `SELECT json, epoch, ${DB_NOW_MS} - written_at AS age FROM leader_sync_position WHERE id = 1`
    )
    const row = r.rows[0]
    if (!row) return null
    try {
      return { position: JSON.parse(row.json) as SyncPosition, epoch: row.epoch, ageMs: row.age }
    } catch {
      return null
    }
  }
}
