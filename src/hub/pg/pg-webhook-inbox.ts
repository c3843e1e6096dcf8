// Verified webhook deliveries between the hubs on one PostgreSQL database. Any hub may be
// posted a delivery; only the leader writes orders. A follower verifies and stores the
// delivery as always, then offers its verified body here (once per delivery: the delivery
// log's dedupe key is unique, so the same delivery posted to two hubs is one row), and the
// leader applies each pending row to its orders, as it applies its own deliveries, marking
// it applied in the same step it claims it (FOR UPDATE SKIP LOCKED: one leader at a time
// anyway, and a stale one cannot apply a row twice). The drain is fenced by the leader's
// lease (pg-lease.ts): a leader whose lease was taken over marks nothing applied, so the
// hub that leads now applies it.
import type pg from 'pg'
import { parseRecord, type WebhookRecord } from '../../main/webhooks/delivery-verdict'
import type { HubRoleSource } from '../hub-role'
import { inTransaction } from './pg-connection'
import { asLeader, refusedAsLeader } from './pg-lease'

export const WEBHOOK_INBOX_CHANNEL = 'rampdesk_webhook_inbox'
/** Applied rows are kept this long (a day), then pruned. */
const KEEP_APPLIED_MS = 24 * 60 * 60_000

export class PgWebhookInbox {
  constructor(
    private readonly pool: pg.Pool,
    private readonly now: () => number = Date.now,
    /** The hub's role: the drain is fenced by its lease (none: not fenced). */
    private readonly role?: Pick<HubRoleSource, 'current'>
  ) {}

  /** A follower's verified delivery, for the leader; false when another hub offered it already. */
  async offer(dedupeKey: string, body: string): Promise<boolean> {
    const r = await this.pool.query(
      `WITH added AS (
         INSERT INTO webhook_inbox (dedupe_key, body, received_at) VALUES ($1, $2, $3) ON CONFLICT (dedupe_key) DO NOTHING RETURNING id
       ) SELECT pg_notify($4, id::text) FROM added`,
      [dedupeKey, body, this.now(), WEBHOOK_INBOX_CHANNEL]
    )
    return (r.rowCount ?? 0) > 0
  }

  /** Leader: applies the pending deliveries (a batch), oldest first; answers how many. A body that no longer parses is marked applied and reported. */
  async drain(apply: (w: WebhookRecord) => void, onBad: (message: string) => void): Promise<number> {
    const drain = async (c: pg.PoolClient): Promise<number> => {
      const r = await c.query<{ id: number; body: string }>(
        'SELECT id, body FROM webhook_inbox WHERE applied_at IS NULL ORDER BY id LIMIT 100 FOR UPDATE SKIP LOCKED'
      )
      for (const row of r.rows) {
        const parsed = parseRecord(JSON.parse(row.body) as Record<string, unknown>)
        if (parsed.ok) apply(parsed.value)
        else onBad(`a delivery another hub verified could not be read as an order here: ${parsed.error}`)
      }
      if (r.rows.length) await c.query('UPDATE webhook_inbox SET applied_at = $1 WHERE id = ANY($2)', [this.now(), r.rows.map((x) => x.id)])
      await c.query('DELETE FROM webhook_inbox WHERE applied_at < $1', [this.now() - KEEP_APPLIED_MS])
      return r.rows.length
    }
    if (!this.role) return inTransaction(this.pool, drain)
    // Refused because this hub no longer leads: nothing applied, the leading hub applies them.
    return asLeader(this.pool, this.role, "applying the other hubs' deliveries", drain).catch((e: unknown) => {
      if (refusedAsLeader(e)) return 0
      throw e
    })
  }
}
