// Claims and notes in the PostgreSQL database the hubs share (hub-backend.ts's HandlingLog).
// A hub that keeps one notifies rampdesk_handling in the same statement; every hub listens
// (pg-listener.ts, as the order feed does) and reads what is new at once, and every second
// besides, since a notification sent while its listening connection was down is gone.
import type pg from 'pg'
import { HANDLING_COLUMNS, handlingValues, toStoredHandling, type HandlingRow } from '../handling-rows'
import type { HandlingLog } from '../hub-backend'
import { inTransaction, type PgTarget } from './pg-connection'
import { listen, type PgListener } from './pg-listener'

export const HANDLING_CHANNEL = 'rampdesk_handling'

/**
 * Held while an entry is kept: ids are then committed in the order they are given, so a hub
 * reading "after the last id I copied" never passes over an id still being committed.
 */
const HANDLING_LOCK_KEY = 0x7264_6861_6e64

/** How often a hub reads new entries without a notification. */
const POLL_MS = 1_000

export function pgHandlingLog(pool: pg.Pool, target: PgTarget, onError: (m: string) => void): HandlingLog {
  let listener: PgListener | null = null
  let timer: NodeJS.Timeout | null = null
  return {
    append: (e) =>
      inTransaction(pool, async (c) => {
        await c.query('SELECT pg_advisory_xact_lock($1)', [HANDLING_LOCK_KEY])
        const r = await c.query<{ id: string }>(
          `WITH kept AS (INSERT INTO order_handling (${HANDLING_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id)
           SELECT id, pg_notify($8, id::text) FROM kept`,
          [...handlingValues(e), HANDLING_CHANNEL]
        )
        return Number(r.rows[0]!.id)
      }),
    async after(id, limit) {
      const r = await pool.query<HandlingRow>(`SELECT id, ${HANDLING_COLUMNS} FROM order_handling WHERE id > $1 ORDER BY id LIMIT $2`, [
        id,
        limit
      ])
      return r.rows.map(toStoredHandling)
    },
    watch(changed) {
      listener = listen(target, [HANDLING_CHANNEL], { notify: changed, connected: changed, error: onError })
      timer = setInterval(changed, POLL_MS)
      timer.unref()
    },
    async close() {
      if (timer) clearInterval(timer)
      await listener?.close()
    }
  }
}
