// The request budget the hubs on one PostgreSQL database share (SharedBudget): every send of
// every hub is a row of budget_sends, and a claim counts the endpoint's rows in the sliding
// window under a transaction-level advisory lock of that endpoint, so two hubs can never both
// take the last slot. Times are the database's clock, the one clock all hubs share. Rows that
// left the window are deleted by the claims themselves.
import type pg from 'pg'
import type { SharedBudget, SharedClaim } from '../../main/api/shared-budget'
import type { EndpointName } from '../../shared/api/endpoints'
import { inTransaction } from './pg-connection'

/** First key of the per-endpoint advisory locks ('rdbu'). */
const BUDGET_LOCK_SPACE = 0x7264_6275

export class PgSharedBudget implements SharedBudget {
  constructor(private readonly pool: pg.Pool) {}

  claim(endpoint: EndpointName, limit: number, windowMs: number): Promise<SharedClaim> {
    return inTransaction(this.pool, async (c) => {
      await c.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [BUDGET_LOCK_SPACE, endpoint])
      const now = (await c.query<{ now: number }>('SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint AS now')).rows[0]!.now
      await c.query('DELETE FROM budget_sends WHERE endpoint = $1 AND at <= $2', [endpoint, now - windowMs])
      const sends = await c.query<{ at: number }>('SELECT at FROM budget_sends WHERE endpoint = $1 ORDER BY at', [endpoint])
      const used = sends.rowCount ?? 0
      if (used < limit) {
        await c.query('INSERT INTO budget_sends (endpoint, at) VALUES ($1, $2)', [endpoint, now])
        return { ok: true }
      }
      // The send that must leave the window before one more fits.
      const frees = sends.rows[used - limit]!.at + windowMs
      return { ok: false, waitMs: Math.max(1, frees - now) }
    })
  }
}
