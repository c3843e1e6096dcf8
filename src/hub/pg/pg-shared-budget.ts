// The request budget the hubs on one PostgreSQL database share (SharedBudget): every send of
// every hub is a row of budget_sends, and a claim counts the endpoint's rows in the sliding
// window under a transaction-level advisory lock of that endpoint, so two hubs can never both
// take the last slot. Times are the database's clock, the one clock all hubs share. Rows that
// left the window are deleted by the claims themselves.
//
// Once fenced by the hub's role (fenceBy), a claim for what only the leader sends is refused
// unless this hub leads, and is made in the same transaction that holds the lease row under
// this hub's epoch (pg-lease.ts): a hub whose lease was taken over (a leader paused and
// resumed) is refused by the database, whatever its own clock says, and sends nothing. The
// role is asked again once the claim is answered, so a process paused while its claim was
// in flight does not send it when it resumes either.
import type pg from 'pg'
import type { SharedBudget, SharedClaim } from '../../main/api/shared-budget'
import { SHARED_READS } from '../../main/api/shared-reads'
import type { EndpointName } from '../../shared/api/endpoints'
import type { HubRoleSource } from '../hub-role'
import { inTransaction } from './pg-connection'
import { fence, LeaseLostError } from './pg-lease'

/** First key of the per-endpoint advisory locks ('rdbu'). */
const BUDGET_LOCK_SPACE = 0x7264_6275

/**
 * What only the leader sends: the history sync and its probes, the order polls, checks and
 * audits (orderStatus), and the configuration and price reads it answers for every hub.
 * Anything else (a desktop's quote, a webhook action, the clock probe) any hub may send.
 */
export const LEADER_ONLY: ReadonlySet<EndpointName> = new Set<EndpointName>([...SHARED_READS, 'merchantHistory', 'orderStatus'])

export class PgSharedBudget implements SharedBudget {
  private role: Pick<HubRoleSource, 'current'> | null = null

  constructor(private readonly pool: pg.Pool) {}

  /** From now on, leader-only sends are claimed only under this hub's lease. */
  fenceBy(role: Pick<HubRoleSource, 'current'>): void {
    this.role = role
  }

  async claim(endpoint: EndpointName, limit: number, windowMs: number): Promise<SharedClaim> {
    const role = this.role && LEADER_ONLY.has(endpoint) ? this.role : null
    const before = role?.current()
    if (before && before.role !== 'leader') return { ok: false, refused: `this hub follows (${before.detail}); the leading hub sends it` }
    const epoch = before?.role === 'leader' ? (before.lease?.epoch ?? null) : null
    let r: SharedClaim
    try {
      r = await inTransaction(this.pool, async (c) => {
        if (epoch !== null) await fence(c, epoch)
        return this.count(c, endpoint, limit, windowMs, epoch)
      })
    } catch (e) {
      if (e instanceof LeaseLostError) return { ok: false, refused: e.message }
      throw e
    }
    const after = role?.current()
    if (r.ok && after && (after.role !== 'leader' || (after.lease?.epoch ?? null) !== epoch))
      return { ok: false, refused: `this hub stopped leading while the send was claimed (${after.detail})` }
    return r
  }

  private async count(
    c: pg.PoolClient,
    endpoint: EndpointName,
    limit: number,
    windowMs: number,
    epoch: number | null
  ): Promise<SharedClaim> {
    await c.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [BUDGET_LOCK_SPACE, endpoint])
    const now = (await c.query<{ now: number }>('SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint AS now')).rows[0]!.now
    await c.query('DELETE FROM budget_sends WHERE endpoint = $1 AND at <= $2', [endpoint, now - windowMs])
    const sends = await c.query<{ at: number }>('SELECT at FROM budget_sends WHERE endpoint = $1 ORDER BY at', [endpoint])
    const used = sends.rowCount ?? 0
    if (used < limit) {
      await c.query('INSERT INTO budget_sends (endpoint, at, epoch) VALUES ($1, $2, $3)', [endpoint, now, epoch])
      return { ok: true }
    }
    // The send that must leave the window before one more fits.
    const frees = sends.rows[used - limit]!.at + windowMs
    return { ok: false, waitMs: Math.max(1, frees - now) }
  }
}
