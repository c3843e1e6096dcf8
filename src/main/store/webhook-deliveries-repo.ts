// The local webhook inbox's log: every delivery received, whether its signature verified
// (and why not), which order it concerns, and a dedupe key so the service's retries and
// duplicates are stored once and counted. Pruned by age and by count in small batches
// (delivery-log-pruner.ts schedules it), so a large log never holds the event loop.
import { createHash } from 'node:crypto'
import type { Sql } from './sql'
import type { OrderType } from '../../shared/ipc/contract'

export interface WebhookDeliveryInput {
  receivedAt?: string
  /** The subset of request headers worth keeping (no credentials). */
  headers: Record<string, string>
  /** The x-<service>-payload header as received (its first 2 KiB when unverified). */
  payloadHeader: string | null
  /** The whole body when verified; otherwise its first 2 KiB (bodyTruncated). */
  body: string
  /** Bytes of the body as received. Defaults to the length of `body`. */
  bodyBytes?: number
  /** SHA-256 (hex) of the whole body; null when it was refused unread. */
  bodySha256?: string | null
  bodyTruncated?: boolean
  verified: boolean
  /** Why verification failed (or a note when it passed). */
  reason?: string | null
  orderType?: OrderType | null
  orderId?: number | null
  orderStatus?: number | null
  /** How the signed payload was written (payload-form.ts); null when it was never read. */
  payloadForm?: string | null
  /** Refused as a replay: outside the replay window, or an exact repeat of an accepted payload. */
  replay?: boolean
  /** What the operator should know beyond the reason (e.g. the JSON body differed from the signed payload). */
  notes?: string[]
  /** Defaults to SHA-256 of payload header and body: identical redeliveries collapse. */
  dedupeKey?: string
}

/** A delivery as the log keeps it; the contract's WebhookDelivery (webhooks/inbox.ts, toContractDelivery) is what an operator is shown. */
export interface StoredWebhookDelivery {
  id: number
  receivedAt: string
  lastReceivedAt: string
  timesReceived: number
  headers: Record<string, string>
  payloadHeader: string | null
  body: string
  bodyBytes: number
  bodySha256: string | null
  bodyTruncated: boolean
  verified: boolean
  reason: string | null
  orderType: OrderType | null
  orderId: number | null
  orderStatus: number | null
  payloadForm: string | null
  replay: boolean
  notes: string[]
  dedupeKey: string
}

interface DeliveryDbRow {
  id: number
  received_at: string
  last_received_at: string
  times_received: number
  headers_json: string
  payload_header: string | null
  body: string
  body_bytes: number
  body_sha256: string | null
  body_truncated: number
  verified: number
  reason: string | null
  order_type: number | null
  order_id: number | null
  order_status: number | null
  payload_form: string | null
  replay: number
  notes_json: string
  dedupe_key: string
}

const toDelivery = (r: DeliveryDbRow): StoredWebhookDelivery => ({
  id: r.id,
  receivedAt: r.received_at,
  lastReceivedAt: r.last_received_at,
  timesReceived: r.times_received,
  headers: JSON.parse(r.headers_json) as Record<string, string>,
  payloadHeader: r.payload_header,
  body: r.body,
  bodyBytes: r.body_bytes,
  bodySha256: r.body_sha256,
  bodyTruncated: r.body_truncated === 1,
  verified: r.verified === 1,
  reason: r.reason,
  orderType: r.order_type as OrderType | null,
  orderId: r.order_id,
  orderStatus: r.order_status,
  payloadForm: r.payload_form,
  replay: r.replay === 1,
  notes: JSON.parse(r.notes_json) as string[],
  dedupeKey: r.dedupe_key
})

/** SHA-256 of payload header and body: identical redeliveries collapse. */
export function defaultDedupeKey(payloadHeader: string | null, body: string): string {
  return createHash('sha256')
    .update(payloadHeader ?? '')
    .update('\n')
    .update(body)
    .digest('hex')
}

export class WebhookDeliveriesRepo {
  constructor(
    private readonly sql: Sql,
    private readonly now: () => Date = () => new Date()
  ) {}

  /** Stores a delivery, or counts a duplicate of one already stored (inserted: false). */
  insert(d: WebhookDeliveryInput): { id: number; inserted: boolean; timesReceived: number } {
    const at = d.receivedAt ?? this.now().toISOString()
    const key = d.dedupeKey ?? defaultDedupeKey(d.payloadHeader, d.body)
    return this.sql.transaction(() => {
      const existing = this.sql.get<{ id: number; times_received: number }>(
        'SELECT id, times_received FROM webhook_deliveries WHERE dedupe_key = ?',
        key
      )
      if (existing) {
        this.sql.run(
          'UPDATE webhook_deliveries SET times_received = times_received + 1, last_received_at = ? WHERE id = ?',
          at,
          existing.id
        )
        return { id: existing.id, inserted: false, timesReceived: existing.times_received + 1 }
      }
      const r = this.sql.run(
        `INSERT INTO webhook_deliveries (received_at, last_received_at, headers_json, payload_header, body, body_bytes, body_sha256,
           body_truncated, verified, reason, order_type, order_id, order_status, payload_form, replay, notes_json, dedupe_key)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        at,
        at,
        JSON.stringify(d.headers),
        d.payloadHeader,
        d.body,
        d.bodyBytes ?? Buffer.byteLength(d.body),
        d.bodySha256 ?? null,
        d.bodyTruncated ? 1 : 0,
        d.verified ? 1 : 0,
        d.reason ?? null,
        d.orderType ?? null,
        d.orderId ?? null,
        d.orderStatus ?? null,
        d.payloadForm ?? null,
        d.replay ? 1 : 0,
        JSON.stringify(d.notes ?? []),
        key
      )
      return { id: Number(r.lastInsertRowid), inserted: true, timesReceived: 1 }
    })
  }

  get(id: number): StoredWebhookDelivery | undefined {
    const r = this.sql.get<DeliveryDbRow>('SELECT * FROM webhook_deliveries WHERE id = ?', id)
    return r ? toDelivery(r) : undefined
  }

  /** Newest first. */
  list(q: { limit?: number; offset?: number; verified?: boolean; orderType?: OrderType; orderId?: number } = {}): {
    rows: StoredWebhookDelivery[]
    total: number
  } {
    const conds: string[] = []
    const params: (number | string)[] = []
    if (q.verified !== undefined) {
      conds.push('verified = ?')
      params.push(q.verified ? 1 : 0)
    }
    if (q.orderType !== undefined) {
      conds.push('order_type = ?')
      params.push(q.orderType)
    }
    if (q.orderId !== undefined) {
      conds.push('order_id = ?')
      params.push(q.orderId)
    }
    const where = conds.length ? conds.join(' AND ') : '1'
    const total = this.sql.value<number>(`SELECT COUNT(*) FROM webhook_deliveries WHERE ${where}`, ...params) ?? 0
    const rows = this.sql
      .all<DeliveryDbRow>(
        `SELECT * FROM webhook_deliveries WHERE ${where} ORDER BY id DESC LIMIT ? OFFSET ?`,
        ...params,
        q.limit ?? 100,
        q.offset ?? 0
      )
      .map(toDelivery)
    return { rows, total }
  }

  count(): number {
    return this.sql.value<number>('SELECT COUNT(*) FROM webhook_deliveries') ?? 0
  }

  /** Deletes at most `limit` deliveries last received before `olderThan`, oldest first; returns how many. */
  pruneOlderThan(olderThan: string, limit: number): number {
    return this.sql.run(
      `DELETE FROM webhook_deliveries WHERE id IN
         (SELECT id FROM webhook_deliveries WHERE last_received_at < ? ORDER BY last_received_at LIMIT ?)`,
      new Date(olderThan).toISOString(),
      limit
    ).changes
  }

  /** Deletes at most `limit` of the oldest deliveries beyond the newest `keep` (by arrival); returns how many. */
  pruneBeyond(keep: number, limit: number): number {
    const newestDropped = this.sql.value<number>('SELECT id FROM webhook_deliveries ORDER BY id DESC LIMIT 1 OFFSET ?', keep)
    if (newestDropped === undefined || newestDropped === null) return 0
    return this.sql.run(
      'DELETE FROM webhook_deliveries WHERE id IN (SELECT id FROM webhook_deliveries WHERE id <= ? ORDER BY id LIMIT ?)',
      newestDropped,
      limit
    ).changes
  }
}
