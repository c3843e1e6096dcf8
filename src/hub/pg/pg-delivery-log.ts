// The webhook delivery log shared by the hubs on one PostgreSQL database: each hub still
// keeps its own (the inbox writes it first, and answers the sender from it), and copies
// every delivery here under the inbox's dedupe key, so a delivery posted to two hubs, or
// retried by the service, is one row with its receipts counted. webhooks:deliveries on any
// of the hubs reads this log: every operator sees every delivery, with the same ids.
// Kept within the team's retention (inbox.keepDays, inbox.keepDeliveries), pruned by the
// hub's sweep.
import type pg from 'pg'
import type { StoredWebhookDelivery, WebhookDeliveryInput } from '../../main/store/webhook-deliveries-repo'
import { defaultDedupeKey } from '../../main/store/webhook-deliveries-repo'

const DAY_MS = 24 * 60 * 60_000
type Kept = Omit<WebhookDeliveryInput, 'receivedAt' | 'dedupeKey'>

export class PgDeliveryLog {
  private writing: Promise<unknown> = Promise.resolve()

  constructor(
    private readonly pool: pg.Pool,
    private readonly now: () => number,
    private readonly onError: (message: string) => void
  ) {}

  /** Copies a delivery the inbox stored (in order, without holding the answer to its sender). */
  record(d: WebhookDeliveryInput): void {
    const at = d.receivedAt ?? new Date(this.now()).toISOString()
    const key = d.dedupeKey ?? defaultDedupeKey(d.payloadHeader, d.body)
    const { receivedAt: _at, dedupeKey: _key, ...kept } = d
    this.writing = this.writing
      .then(() =>
        this.pool.query(
          `INSERT INTO webhook_deliveries (dedupe_key, received_at, last_received_at, delivery) VALUES ($1, $2, $2, $3)
           ON CONFLICT (dedupe_key) DO UPDATE SET times_received = webhook_deliveries.times_received + 1,
             last_received_at = GREATEST(webhook_deliveries.last_received_at, EXCLUDED.last_received_at)`,
          [key, at, JSON.stringify(kept)]
        )
      )
      .catch((e: unknown) => this.onError(`could not share a webhook delivery with the other hubs: ${(e as Error).message}`))
  }

  /** Resolves once every delivery recorded so far is written (or failed, reported). */
  flushed(): Promise<unknown> {
    return this.writing
  }

  async list(q: { offset: number; limit: number }): Promise<{ total: number; rows: StoredWebhookDelivery[] }> {
    const [rows, total] = await Promise.all([
      this.pool.query<{
        id: string
        dedupe_key: string
        received_at: string
        last_received_at: string
        times_received: number
        delivery: string
      }>(
        'SELECT id, dedupe_key, received_at, last_received_at, times_received, delivery FROM webhook_deliveries ORDER BY id DESC LIMIT $1 OFFSET $2',
        [q.limit, q.offset]
      ),
      this.pool.query<{ n: string }>('SELECT COUNT(*) AS n FROM webhook_deliveries')
    ])
    return {
      total: Number(total.rows[0]?.n ?? 0),
      rows: rows.rows.map((r) => {
        const k = JSON.parse(r.delivery) as Kept
        return {
          id: Number(r.id),
          receivedAt: r.received_at,
          lastReceivedAt: r.last_received_at,
          timesReceived: r.times_received,
          headers: k.headers,
          payloadHeader: k.payloadHeader,
          body: k.body,
          bodyBytes: k.bodyBytes ?? k.body.length,
          bodySha256: k.bodySha256 ?? null,
          bodyTruncated: k.bodyTruncated ?? false,
          verified: k.verified,
          reason: k.reason ?? null,
          orderType: k.orderType ?? null,
          orderId: k.orderId ?? null,
          orderStatus: k.orderStatus ?? null,
          payloadForm: k.payloadForm ?? null,
          replay: k.replay ?? false,
          notes: k.notes ?? [],
          dedupeKey: r.dedupe_key
        }
      })
    }
  }

  /** Drops deliveries older than keepDays and beyond the newest keepDeliveries. */
  async prune(r: { keepDays: number; keepDeliveries: number }): Promise<void> {
    await this.pool.query('DELETE FROM webhook_deliveries WHERE last_received_at < $1', [
      new Date(this.now() - r.keepDays * DAY_MS).toISOString()
    ])
    await this.pool.query(
      'DELETE FROM webhook_deliveries WHERE id <= (SELECT id FROM webhook_deliveries ORDER BY id DESC LIMIT 1 OFFSET $1)',
      [r.keepDeliveries]
    )
  }
}
