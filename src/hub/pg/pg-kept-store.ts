// Kept deliveries in the PostgreSQL database the hubs share (kept-store.ts). A delivery posted
// to two hubs, or sent again by the service, is one row (its content key is unique) and one
// row of the shared delivery log (its dedupe key), both written in the transaction that keeps
// it. Keeps of one order are serialised (an advisory lock on its key for the transaction), so
// two hubs keeping two contents of one order and status at once relay one of them ("at once"
// by the database's clock, kept_at, whatever the hubs' clocks say). Relays are
// claimed with FOR UPDATE SKIP LOCKED for a while (RELAY_CLAIM_MS) by the database's clock:
// every hub with --forward-to relays, no two send the same delivery, and the relays of a hub
// that was killed are taken up again when its claim runs out.
import type pg from 'pg'
import type { OrderType } from '../../shared/ipc/contract'
import { defaultDedupeKey } from '../../main/store/webhook-deliveries-repo'
import {
  KEPT_MEMORY_MS,
  orderKey,
  SAME_STATUS_WINDOW_MS,
  type KeepOutcome,
  type KeptDelivery,
  type RelayAttempt,
  type RelayJob,
  type RelayNext
} from '../kept/kept-delivery'
import { keepOutcomeOf, relayCountsOf, relayJobOf, relayViewOf, type JobRow } from '../kept/kept-rows'
import type { KeptStore, OrderRelayRow, RelayViewRow, Unapplied } from '../kept/kept-store'
import { DB_NOW_MS, inTransaction } from './pg-connection'
import { asLeader, refusedAsLeader } from './pg-lease'
import type { HubRoleSource } from '../hub-role'

const JOB_COLUMNS = 'k.id, k.body, k.headers_json, k.order_type, k.order_id, k.status, k.attempts, k.window_from'

export class PgKeptStore implements KeptStore {
  private role: Pick<HubRoleSource, 'current'> | null = null

  constructor(private readonly pool: pg.Pool) {}

  async keep(batch: readonly KeptDelivery[]): Promise<Array<{ id: number; outcome: KeepOutcome }>> {
    return inTransaction(this.pool, async (c) => {
      const out: Array<{ id: number; outcome: KeepOutcome }> = []
      for (const d of batch) out.push(await this.keepOne(c, d))
      return out
    })
  }

  private async keepOne(c: pg.PoolClient, d: KeptDelivery): Promise<{ id: number; outcome: KeepOutcome }> {
    const key = orderKey(d)
    await c.query('SELECT pg_advisory_xact_lock(hashtext($1))', [key])
    await this.logDelivery(c, d)
    const sameStatus = async (): Promise<number | undefined> => {
      if (d.status === null) return undefined
      const r = await c.query<{ at: number | null }>(
        `SELECT MAX(received_at) AS at FROM kept_deliveries WHERE order_key = $1 AND status = $2
           AND kept_at >= ${DB_NOW_MS} - $3::bigint
           AND relay_state IN ('waiting', 'sending', 'delivered') AND content_key <> $4`,
        [key, d.status, SAME_STATUS_WINDOW_MS, d.contentKey]
      )
      return r.rows[0]?.at ?? undefined
    }
    const prev = await c.query<{ id: number; relay_state: string; received_at: number; finished_at: number | null }>(
      'SELECT id, relay_state, received_at, finished_at FROM kept_deliveries WHERE content_key = $1 FOR UPDATE',
      [d.contentKey]
    )
    const p = prev.rows[0]
    if (p) {
      const requeue = d.relay && (p.relay_state === 'failed' || (p.relay_state === 'none' && (await sameStatus()) === undefined))
      await c.query(
        `UPDATE kept_deliveries SET last_received_at = GREATEST(last_received_at, $2), times_received = times_received + 1
           ${requeue ? `, relay_state = 'waiting', next_at = ${DB_NOW_MS}, window_from = ${DB_NOW_MS}, finished_at = NULL, claimed_by = NULL` : ''}
         WHERE id = $1`,
        [p.id, d.receivedAt]
      )
      return {
        id: Number(p.id),
        outcome: keepOutcomeOf({ requeue, prevState: p.relay_state, since: p.finished_at ?? p.received_at, relay: d.relay })
      }
    }
    const skippedSince = d.relay ? await sameStatus() : undefined
    const state = !d.relay || skippedSince !== undefined ? 'none' : 'waiting'
    const r = await c.query<{ id: number }>(
      `INSERT INTO kept_deliveries (content_key, order_key, order_type, order_id, status, received_at, last_received_at, kept_at, hub,
         body, headers_json, relay_state, window_from, next_at)
       VALUES ($1, $2, $3, $4, $5, $6, $6, ${DB_NOW_MS}, $7, $8, $9, $10, ${DB_NOW_MS}, CASE WHEN $10 = 'waiting' THEN ${DB_NOW_MS} END)
       RETURNING id`,
      [d.contentKey, key, d.orderType, d.orderId, d.status, d.receivedAt, d.hub, d.body, JSON.stringify(d.headers), state]
    )
    const outcome: KeepOutcome =
      skippedSince !== undefined ? { relay: 'skipped', since: skippedSince } : d.relay ? { relay: 'queued' } : { relay: 'none' }
    return { id: Number(r.rows[0]!.id), outcome }
  }

  /** The delivery's row in the log every hub shows (pg-delivery-log.ts), counted when it is there already. */
  private async logDelivery(c: pg.PoolClient, d: KeptDelivery): Promise<void> {
    const at = d.log.receivedAt ?? new Date(d.receivedAt).toISOString()
    const key = d.log.dedupeKey ?? defaultDedupeKey(d.log.payloadHeader, d.log.body)
    const { receivedAt: _at, dedupeKey: _key, ...kept } = d.log
    await c.query(
      `INSERT INTO webhook_deliveries (dedupe_key, received_at, last_received_at, delivery) VALUES ($1, $2, $2, $3)
       ON CONFLICT (dedupe_key) DO UPDATE SET times_received = webhook_deliveries.times_received + 1,
         last_received_at = GREATEST(webhook_deliveries.last_received_at, EXCLUDED.last_received_at)`,
      [key, at, JSON.stringify(kept)]
    )
  }

  async claimRelays(hub: string, limit: number, claimMs: number): Promise<{ now: number; jobs: RelayJob[] }> {
    return inTransaction(this.pool, async (c) => {
      const now = await c.query<{ now: number }>(`SELECT ${DB_NOW_MS} AS now`)
      const at = now.rows[0]!.now
      const r = await c.query<JobRow>(
        `WITH due AS (
           SELECT k.id FROM kept_deliveries k
            WHERE k.relay_state IN ('waiting', 'sending') AND k.next_at <= $3
              AND NOT EXISTS (SELECT 1 FROM kept_deliveries e WHERE e.order_key = k.order_key AND e.id < k.id
                                AND e.relay_state IN ('waiting', 'sending'))
            ORDER BY k.id LIMIT $2 FOR UPDATE SKIP LOCKED)
         UPDATE kept_deliveries k SET relay_state = 'sending', claimed_by = $1, next_at = $3::bigint + $4::bigint
           FROM due WHERE k.id = due.id
         RETURNING ${JOB_COLUMNS}`,
        [hub, limit, at, claimMs]
      )
      return { now: at, jobs: r.rows.map(relayJobOf).sort((a, b) => a.id - b.id) }
    })
  }

  async settleRelay(id: number, hub: string, a: RelayAttempt, next: RelayNext): Promise<boolean> {
    return inTransaction(this.pool, async (c) => {
      await c.query('INSERT INTO relay_attempts (kept_id, at, hub, http_status, answer, ms) VALUES ($1, $2, $3, $4, $5, $6)', [
        id,
        a.at,
        a.hub,
        a.httpStatus,
        a.answer.slice(0, 500),
        Math.round(a.ms)
      ])
      const mine = "id = $1 AND relay_state = 'sending' AND claimed_by = $2"
      const r =
        next.kind === 'waiting'
          ? await c.query(
              `UPDATE kept_deliveries SET relay_state = 'waiting', next_at = $3, claimed_by = NULL, attempts = attempts + 1 WHERE ${mine}`,
              [id, hub, next.nextAt]
            )
          : await c.query(
              `UPDATE kept_deliveries SET relay_state = $3, next_at = NULL, finished_at = ${DB_NOW_MS}, last_answer = $4,
                 attempts = attempts + 1 WHERE ${mine}`,
              [id, hub, next.kind, next.kind === 'failed' ? next.why : a.answer.slice(0, 200)]
            )
      return (r.rowCount ?? 0) > 0
    })
  }

  async releaseClaims(hub: string): Promise<number> {
    const r = await this.pool.query(
      `UPDATE kept_deliveries SET relay_state = 'waiting', next_at = ${DB_NOW_MS}, claimed_by = NULL
        WHERE relay_state = 'sending' AND claimed_by = $1`,
      [hub]
    )
    return r.rowCount ?? 0
  }

  async relays(limit: number) {
    // Only the relays still open are counted and listed first (partial indexes), then the newest
    // delivered: no statement here reads the month of finished ones.
    const counts = await this.pool.query<{ relay_state: string; n: string; oldest: number | null }>(
      `SELECT relay_state, COUNT(*) AS n, MIN(received_at) AS oldest FROM kept_deliveries
          WHERE relay_state IN ('waiting', 'sending') GROUP BY relay_state
        UNION ALL
        SELECT relay_state, COUNT(*) AS n, MIN(received_at) AS oldest FROM kept_deliveries
          WHERE relay_state = 'failed' GROUP BY relay_state`
    )
    if (limit === 0) return { counts: relayCountsOf(counts.rows), rows: [] }
    const view = (where: string, order: string) =>
      `SELECT k.id, k.order_type, k.order_id, k.status, k.received_at, k.attempts, k.relay_state, k.next_at, k.claimed_by,
              k.next_at AS claim_until, k.finished_at, k.last_answer,
              a.at AS a_at, a.hub AS a_hub, a.http_status AS a_http_status, a.answer AS a_answer, a.ms AS a_ms
         FROM kept_deliveries k
         LEFT JOIN LATERAL (SELECT * FROM relay_attempts WHERE kept_id = k.id ORDER BY id DESC LIMIT 1) a ON true
        WHERE ${where} ORDER BY ${order} LIMIT $1`
    const open = await this.pool.query<RelayViewRow>(
      view("k.relay_state IN ('waiting', 'sending', 'failed')", "CASE k.relay_state WHEN 'failed' THEN 0 ELSE 1 END, k.id DESC"),
      [limit]
    )
    const delivered =
      open.rows.length < limit
        ? (await this.pool.query<RelayViewRow>(view("k.relay_state = 'delivered'", 'k.id DESC'), [limit - open.rows.length])).rows
        : []
    return { counts: relayCountsOf(counts.rows), rows: [...open.rows, ...delivered].map(relayViewOf) }
  }

  async retryRelays(ids: readonly number[] | 'failed'): Promise<number> {
    const set = `relay_state = 'waiting', next_at = ${DB_NOW_MS}, window_from = ${DB_NOW_MS}, finished_at = NULL, claimed_by = NULL`
    const r =
      ids === 'failed'
        ? await this.pool.query(`UPDATE kept_deliveries SET ${set} WHERE relay_state = 'failed'`)
        : await this.pool.query(`UPDATE kept_deliveries SET ${set} WHERE relay_state = 'failed' AND id = ANY($1)`, [ids])
    return r.rowCount ?? 0
  }

  async unapplied(limit: number): Promise<Unapplied[]> {
    const r = await this.pool.query<{ id: number; order_type: number | null; body: string }>(
      'SELECT id, order_type, body FROM kept_deliveries WHERE applied_at IS NULL ORDER BY id LIMIT $1',
      [limit]
    )
    return r.rows.map((x) => ({ id: Number(x.id), orderType: x.order_type as OrderType | null, body: Buffer.from(x.body, 'base64') }))
  }

  /**
   * Once fenced by the hub's role, marking deliveries applied is the leader's under its lease
   * (pg-lease.ts): a leader that was paused and lost the lease marks nothing, so the hub that
   * leads now applies them to the orders every hub is shown.
   */
  fenceBy(role: Pick<HubRoleSource, 'current'>): void {
    this.role = role
  }

  async markApplied(ids: readonly number[]): Promise<boolean> {
    if (!ids.length) return true
    const mark = (c: pg.Pool | pg.PoolClient) =>
      c.query(`UPDATE kept_deliveries SET applied_at = ${DB_NOW_MS} WHERE id = ANY($1) AND applied_at IS NULL`, [ids])
    if (!this.role) {
      await mark(this.pool)
      return true
    }
    try {
      await asLeader(this.pool, this.role, 'marking kept webhook deliveries applied', mark)
      return true
    } catch (e) {
      if (refusedAsLeader(e)) return false
      throw e
    }
  }

  async orderRelays(keys: readonly string[]): Promise<OrderRelayRow[]> {
    if (!keys.length) return []
    const r = await this.pool.query<OrderRelayRow>(
      `SELECT k.order_type, k.order_id, k.status, k.relay_state, k.attempts, k.received_at,
              a.http_status AS a_http_status, a.answer AS a_answer
         FROM kept_deliveries k
         LEFT JOIN LATERAL (SELECT http_status, answer FROM relay_attempts WHERE kept_id = k.id ORDER BY id DESC LIMIT 1) a ON true
        WHERE k.order_key = ANY($1)`,
      [keys]
    )
    return r.rows.map((x) => ({ ...x, order_id: x.order_id === null ? null : Number(x.order_id), received_at: Number(x.received_at) }))
  }

  async relayingSince(): Promise<number | null> {
    const r = await this.pool.query<{ at: string }>(
      "SELECT received_at AS at FROM kept_deliveries WHERE relay_state <> 'none' ORDER BY id LIMIT 1"
    )
    return r.rows[0] ? Number(r.rows[0].at) : null
  }

  async requeueOrder(key: string, statuses: readonly number[]): Promise<'queued' | 'sending' | 'none'> {
    return inTransaction(this.pool, async (c) => {
      // Serialised with the keeps of the order (the same advisory lock).
      await c.query('SELECT pg_advisory_xact_lock(hashtext($1))', [key])
      const rows = await c.query<{ id: string; status: number | null; relay_state: string }>(
        'SELECT id, status, relay_state FROM kept_deliveries WHERE order_key = $1 ORDER BY id DESC FOR UPDATE',
        [key]
      )
      if (rows.rows.some((r) => r.relay_state === 'sending')) return 'sending'
      const newest = rows.rows.find((r) => r.status !== null && statuses.includes(r.status))
      if (!newest) return 'none'
      await c.query(
        `UPDATE kept_deliveries SET relay_state = 'waiting', next_at = ${DB_NOW_MS}, window_from = ${DB_NOW_MS}, finished_at = NULL,
           claimed_by = NULL WHERE id = $1`,
        [newest.id]
      )
      return 'queued'
    })
  }

  async ping(): Promise<void> {
    await this.pool.query('SELECT 1')
  }

  async prune(): Promise<number> {
    const r = await this.pool.query(
      `DELETE FROM kept_deliveries WHERE last_received_at < ${DB_NOW_MS} - $1::bigint AND applied_at IS NOT NULL
         AND relay_state IN ('none', 'delivered', 'failed')`,
      [KEPT_MEMORY_MS]
    )
    return r.rowCount ?? 0
  }
}
