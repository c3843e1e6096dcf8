// History records that did not match their schema. One malformed record must never
// block its page or its scope (the rest of the page is applied and the sync moves on),
// nor vanish: it is kept raw with the reason, listed for the operator as an unreadable
// order with its id, and parsed again by a newer Rampdesk, whose schema may read it.
import { contentHash } from './content-hash'
import type { Sql } from './sql'
import type { OrderType } from '../../shared/ipc/contract'

export interface UnreadableInput {
  type: OrderType
  /** The scope it was listed in. */
  fiatType: number
  orderId: number | null
  updatedAt: string | null
  raw: unknown
  reason: string
}

export interface UnreadableOrder extends UnreadableInput {
  /** The Rampdesk version that could not read it. */
  appVersion: string
  firstSeenAt: string
  lastSeenAt: string
  timesSeen: number
}

interface Row {
  type: number
  record_key: string
  fiat_type: number
  order_id: number | null
  updated_at: string | null
  raw_json: string
  reason: string
  app_version: string
  first_seen_at: string
  last_seen_at: string
  times_seen: number
}

const keyOf = (orderId: number | null, raw: unknown) => (orderId !== null ? `id:${orderId}` : `raw:${contentHash(raw)}`)

const toOrder = (r: Row): UnreadableOrder => ({
  type: r.type as OrderType,
  fiatType: r.fiat_type,
  orderId: r.order_id,
  updatedAt: r.updated_at,
  raw: JSON.parse(r.raw_json) as unknown,
  reason: r.reason,
  appVersion: r.app_version,
  firstSeenAt: r.first_seen_at,
  lastSeenAt: r.last_seen_at,
  timesSeen: r.times_seen
})

export class UnreadableOrdersRepo {
  /** Rows held, so a page of readable records costs no lookups while there are none. */
  private held: number

  constructor(
    private readonly sql: Sql,
    private readonly appVersion: string,
    private readonly now: () => Date = () => new Date()
  ) {
    this.held = this.count()
  }

  /** Keeps one unreadable record (a newer copy of the same order replaces the older). Call inside the page's transaction. */
  put(u: UnreadableInput): void {
    const at = this.now().toISOString()
    const r = this.sql.run(
      `INSERT INTO unreadable_orders (type, record_key, fiat_type, order_id, updated_at, raw_json, reason, app_version, first_seen_at, last_seen_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (type, record_key) DO UPDATE SET fiat_type = excluded.fiat_type, updated_at = excluded.updated_at,
         raw_json = excluded.raw_json, reason = excluded.reason, app_version = excluded.app_version,
         last_seen_at = excluded.last_seen_at, times_seen = times_seen + 1`,
      u.type,
      keyOf(u.orderId, u.raw),
      u.fiatType,
      u.orderId,
      u.updatedAt,
      JSON.stringify(u.raw),
      u.reason,
      this.appVersion,
      at,
      at
    )
    if (r.changes > 0) this.held = this.count()
  }

  /** An order was read fine after all: its unreadable copy goes. */
  resolved(type: OrderType, orderId: number): void {
    if (this.held === 0) return
    const r = this.sql.run('DELETE FROM unreadable_orders WHERE type = ? AND record_key = ?', type, `id:${orderId}`)
    this.held -= r.changes
  }

  /** Every unreadable record, newest first. */
  list(type?: OrderType): UnreadableOrder[] {
    const rows =
      type === undefined
        ? this.sql.all<Row>('SELECT * FROM unreadable_orders ORDER BY last_seen_at DESC')
        : this.sql.all<Row>('SELECT * FROM unreadable_orders WHERE type = ? ORDER BY last_seen_at DESC', type)
    return rows.map(toOrder)
  }

  /** Records an older Rampdesk could not read: worth parsing again with this one's schema. */
  fromOlderVersions(): UnreadableOrder[] {
    return this.sql.all<Row>('SELECT * FROM unreadable_orders WHERE app_version <> ?', this.appVersion).map(toOrder)
  }

  /** Parsed again and still unreadable: this version tried it. */
  markTried(u: Pick<UnreadableOrder, 'type' | 'orderId' | 'raw'>, reason: string): void {
    this.sql.run(
      'UPDATE unreadable_orders SET app_version = ?, reason = ? WHERE type = ? AND record_key = ?',
      this.appVersion,
      reason,
      u.type,
      keyOf(u.orderId, u.raw)
    )
  }

  /** Removes one record (it was read after all). */
  remove(u: Pick<UnreadableOrder, 'type' | 'orderId' | 'raw'>): void {
    const r = this.sql.run('DELETE FROM unreadable_orders WHERE type = ? AND record_key = ?', u.type, keyOf(u.orderId, u.raw))
    this.held -= r.changes
  }

  count(): number {
    return this.sql.value<number>('SELECT COUNT(*) FROM unreadable_orders') ?? 0
  }
}
