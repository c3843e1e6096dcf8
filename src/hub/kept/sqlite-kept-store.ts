// Kept deliveries in hub.db (kept-store.ts), for a hub on its own data directory. Every write
// commits with synchronous = FULL on a connection of its own: a delivery answered 2xx is on
// disk, not only in the WAL's page cache (hub-db.ts has the tables), and a lock held by the command line (operator add)
// makes it wait at most a second before the keeper spools it instead.
import type { Sql } from '../../main/store/sql'
import type { OrderType } from '../../shared/ipc/contract'
import {
  KEPT_MEMORY_MS,
  orderKey,
  SAME_STATUS_WINDOW_MS,
  type KeepOutcome,
  type KeptDelivery,
  type RelayAttempt,
  type RelayJob,
  type RelayNext
} from './kept-delivery'
import { keepOutcomeOf, relayCountsOf, relayJobOf, relayViewOf, type JobRow } from './kept-rows'
import type { KeptStore, OrderRelayRow, RelayViewRow, Unapplied } from './kept-store'

const VIEW_COLUMNS = `k.id, k.order_type, k.order_id, k.status, k.received_at, k.attempts, k.relay_state, k.next_at, k.claimed_by,
  k.next_at AS claim_until, k.finished_at, k.last_answer,
  a.at AS a_at, a.hub AS a_hub, a.http_status AS a_http_status, a.answer AS a_answer, a.ms AS a_ms`
const LAST_ATTEMPT = 'LEFT JOIN relay_attempts a ON a.id = (SELECT MAX(id) FROM relay_attempts WHERE kept_id = k.id)'

export class SqliteKeptStore implements KeptStore {
  constructor(
    private readonly sql: Sql,
    private readonly now: () => number = Date.now
  ) {}

  async keep(batch: readonly KeptDelivery[]): Promise<Array<{ id: number; outcome: KeepOutcome }>> {
    const at = this.now()
    return this.sql.transaction(() => batch.map((d) => this.keepOne(d, at)))
  }

  private keepOne(d: KeptDelivery, at: number): { id: number; outcome: KeepOutcome } {
    const prev = this.sql.get<{ id: number; relay_state: string; received_at: number; finished_at: number | null }>(
      'SELECT id, relay_state, received_at, finished_at FROM kept_deliveries WHERE content_key = ?',
      d.contentKey
    )
    const key = orderKey(d)
    const sameStatus = (): number | undefined =>
      d.status === null
        ? undefined
        : (this.sql.value<number>(
            `SELECT MAX(received_at) FROM kept_deliveries WHERE order_key = ? AND status = ? AND kept_at >= ?
               AND relay_state IN ('waiting', 'sending', 'delivered') AND content_key <> ?`,
            key,
            d.status,
            at - SAME_STATUS_WINDOW_MS,
            d.contentKey
          ) ?? undefined)
    if (prev) {
      this.sql.run(
        'UPDATE kept_deliveries SET last_received_at = MAX(last_received_at, ?), times_received = times_received + 1 WHERE id = ?',
        d.receivedAt,
        prev.id
      )
      const requeue = d.relay && (prev.relay_state === 'failed' || (prev.relay_state === 'none' && sameStatus() === undefined))
      if (requeue)
        this.sql.run(
          "UPDATE kept_deliveries SET relay_state = 'waiting', next_at = ?, window_from = ?, finished_at = NULL, claimed_by = NULL WHERE id = ?",
          at,
          at,
          prev.id
        )
      return {
        id: prev.id,
        outcome: keepOutcomeOf({ requeue, prevState: prev.relay_state, since: prev.finished_at ?? prev.received_at, relay: d.relay })
      }
    }
    const skippedSince = d.relay ? sameStatus() : undefined
    const state = !d.relay || skippedSince !== undefined ? 'none' : 'waiting'
    const r = this.sql.run(
      `INSERT INTO kept_deliveries (content_key, order_key, order_type, order_id, status, received_at, last_received_at, kept_at, hub,
         body, headers_json, relay_state, window_from, next_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      d.contentKey,
      key,
      d.orderType,
      d.orderId,
      d.status,
      d.receivedAt,
      d.receivedAt,
      at,
      d.hub,
      d.body,
      JSON.stringify(d.headers),
      state,
      at,
      state === 'waiting' ? at : null
    )
    const outcome: KeepOutcome =
      skippedSince !== undefined ? { relay: 'skipped', since: skippedSince } : d.relay ? { relay: 'queued' } : { relay: 'none' }
    return { id: Number(r.lastInsertRowid), outcome }
  }

  async claimRelays(hub: string, limit: number, claimMs: number): Promise<{ now: number; jobs: RelayJob[] }> {
    const now = this.now()
    const jobs = this.sql.transaction(() => {
      const rows = this.sql.all<JobRow>(
        `SELECT k.id, k.body, k.headers_json, k.order_type, k.order_id, k.status, k.attempts, k.window_from FROM kept_deliveries k
          WHERE k.relay_state IN ('waiting', 'sending') AND k.next_at <= ?
            AND NOT EXISTS (SELECT 1 FROM kept_deliveries e WHERE e.order_key = k.order_key AND e.id < k.id
                              AND e.relay_state IN ('waiting', 'sending'))
          ORDER BY k.id LIMIT ?`,
        now,
        limit
      )
      for (const r of rows)
        this.sql.run(
          "UPDATE kept_deliveries SET relay_state = 'sending', claimed_by = ?, next_at = ? WHERE id = ?",
          hub,
          now + claimMs,
          r.id
        )
      return rows.map(relayJobOf)
    })
    return { now, jobs }
  }

  async settleRelay(id: number, hub: string, a: RelayAttempt, next: RelayNext): Promise<boolean> {
    return this.sql.transaction(() => {
      this.sql.run(
        'INSERT INTO relay_attempts (kept_id, at, hub, http_status, answer, ms) VALUES (?, ?, ?, ?, ?, ?)',
        id,
        a.at,
        a.hub,
        a.httpStatus,
        a.answer.slice(0, 500),
        Math.round(a.ms)
      )
      const mine = "id = ? AND relay_state = 'sending' AND claimed_by = ?"
      const r =
        next.kind === 'waiting'
          ? this.sql.run(
              `UPDATE kept_deliveries SET relay_state = 'waiting', next_at = ?, claimed_by = NULL, attempts = attempts + 1 WHERE ${mine}`,
              next.nextAt,
              id,
              hub
            )
          : this.sql.run(
              `UPDATE kept_deliveries SET relay_state = ?, next_at = NULL, finished_at = ?, last_answer = ?, attempts = attempts + 1
                WHERE ${mine}`,
              next.kind,
              this.now(),
              next.kind === 'failed' ? next.why : a.answer.slice(0, 200),
              id,
              hub
            )
      return r.changes > 0
    })
  }

  async releaseClaims(hub: string): Promise<number> {
    return this.sql.run(
      "UPDATE kept_deliveries SET relay_state = 'waiting', next_at = ?, claimed_by = NULL WHERE relay_state = 'sending' AND claimed_by = ?",
      this.now(),
      hub
    ).changes
  }

  async relays(limit: number) {
    // Only the relays still open are counted and listed first (partial indexes), then the newest
    // delivered: no statement here reads the month of finished ones.
    const counts = relayCountsOf(
      this.sql.all<{ relay_state: string; n: number; oldest: number | null }>(
        `SELECT relay_state, COUNT(*) AS n, MIN(received_at) AS oldest FROM kept_deliveries
          WHERE relay_state IN ('waiting', 'sending') GROUP BY relay_state
        UNION ALL
        SELECT relay_state, COUNT(*) AS n, MIN(received_at) AS oldest FROM kept_deliveries
          WHERE relay_state = 'failed' GROUP BY relay_state`
      )
    )
    if (limit === 0) return { counts, rows: [] }
    const open = this.sql.all<RelayViewRow>(
      `SELECT ${VIEW_COLUMNS} FROM kept_deliveries k ${LAST_ATTEMPT} WHERE k.relay_state IN ('waiting', 'sending', 'failed')
        ORDER BY CASE k.relay_state WHEN 'failed' THEN 0 ELSE 1 END, k.id DESC LIMIT ?`,
      limit
    )
    const delivered =
      open.length < limit
        ? this.sql.all<RelayViewRow>(
            `SELECT ${VIEW_COLUMNS} FROM kept_deliveries k ${LAST_ATTEMPT} WHERE k.relay_state = 'delivered' ORDER BY k.id DESC LIMIT ?`,
            limit - open.length
          )
        : []
    return { counts, rows: [...open, ...delivered].map(relayViewOf) }
  }

  async retryRelays(ids: readonly number[] | 'failed'): Promise<number> {
    const at = this.now()
    const set = "relay_state = 'waiting', next_at = ?, window_from = ?, finished_at = NULL, claimed_by = NULL"
    if (ids === 'failed') return this.sql.run(`UPDATE kept_deliveries SET ${set} WHERE relay_state = 'failed'`, at, at).changes
    return this.sql.transaction(() =>
      ids.reduce(
        (n, id) => n + this.sql.run(`UPDATE kept_deliveries SET ${set} WHERE relay_state = 'failed' AND id = ?`, at, at, id).changes,
        0
      )
    )
  }

  async unapplied(limit: number): Promise<Unapplied[]> {
    return this.sql
      .all<{ id: number; order_type: number | null; body: string }>(
        'SELECT id, order_type, body FROM kept_deliveries WHERE applied_at IS NULL ORDER BY id LIMIT ?',
        limit
      )
      .map((r) => ({ id: r.id, orderType: r.order_type as OrderType | null, body: Buffer.from(r.body, 'base64') }))
  }

  async markApplied(ids: readonly number[]): Promise<boolean> {
    const at = this.now()
    this.sql.transaction(() => {
      for (const id of ids) this.sql.run('UPDATE kept_deliveries SET applied_at = ? WHERE id = ? AND applied_at IS NULL', at, id)
    })
    return true
  }

  async orderRelays(keys: readonly string[]): Promise<OrderRelayRow[]> {
    const out: OrderRelayRow[] = []
    // Through kept_order_status (order_key first), a few hundred keys per statement.
    for (let i = 0; i < keys.length; i += 500) {
      const part = keys.slice(i, i + 500)
      out.push(
        ...this.sql.all<OrderRelayRow>(
          `SELECT k.order_type, k.order_id, k.status, k.relay_state, k.attempts, k.received_at,
                  a.http_status AS a_http_status, a.answer AS a_answer
             FROM kept_deliveries k ${LAST_ATTEMPT} WHERE k.order_key IN (${part.map(() => '?').join(', ')})`,
          ...part
        )
      )
    }
    return out
  }

  async relayingSince(): Promise<number | null> {
    return this.sql.value<number>("SELECT received_at FROM kept_deliveries WHERE relay_state <> 'none' ORDER BY id LIMIT 1") ?? null
  }

  async requeueOrder(key: string, statuses: readonly number[]): Promise<'queued' | 'sending' | 'none'> {
    const at = this.now()
    return this.sql.transaction(() => {
      const rows = this.sql.all<{ id: number; status: number | null; relay_state: string }>(
        'SELECT id, status, relay_state FROM kept_deliveries WHERE order_key = ? ORDER BY id DESC',
        key
      )
      if (rows.some((r) => r.relay_state === 'sending')) return 'sending'
      const newest = rows.find((r) => r.status !== null && statuses.includes(r.status))
      if (!newest) return 'none'
      this.sql.run(
        "UPDATE kept_deliveries SET relay_state = 'waiting', next_at = ?, window_from = ?, finished_at = NULL, claimed_by = NULL WHERE id = ?",
        at,
        at,
        newest.id
      )
      return 'queued'
    })
  }

  async ping(): Promise<void> {
    this.sql.value('SELECT 1 FROM kept_deliveries LIMIT 1')
  }

  async prune(): Promise<number> {
    return this.sql.transaction(() => {
      const n = this.sql.run(
        `DELETE FROM kept_deliveries WHERE last_received_at < ? AND applied_at IS NOT NULL
           AND relay_state IN ('none', 'delivered', 'failed')`,
        this.now() - KEPT_MEMORY_MS
      ).changes
      if (n) this.sql.run('DELETE FROM relay_attempts WHERE kept_id NOT IN (SELECT id FROM kept_deliveries)')
      return n
    })
  }
}
