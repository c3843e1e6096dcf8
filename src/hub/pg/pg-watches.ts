// Pinned orders per operator in PostgreSQL, shared by the hubs. Every pin is mirrored in
// memory (has() answers each event a desktop is sent), read again every second and at once
// on NOTIFY rampdesk_watches. The monitor that polls the pins is the leader's: a pin made
// on another hub reaches it through reconcile(), which the leader runs every second.
import type pg from 'pg'
import type { OrderRef, OrderType } from '../../shared/ipc/contract'
import type { PinStore } from '../hub-store'
import { reconcilePins, type WatchTarget } from '../operator-watches'

export const WATCHES_CHANNEL = 'rampdesk_watches'

interface PinRow {
  operator: string
  type: number
  order_id: number
}

const keyOf = (operator: string, type: number, orderId: number) => `${operator.toLowerCase()}\u0000${type}\u0000${orderId}`
const refKey = (r: OrderRef) => `${r.type}:${r.orderId}`

export class PgWatches implements PinStore {
  /** Every pin, oldest first. */
  private pins: PinRow[] = []
  private keys = new Set<string>()

  constructor(
    private readonly pool: pg.Pool,
    private readonly now: () => number = Date.now
  ) {}

  async refresh(): Promise<void> {
    const r = await this.pool.query<PinRow>('SELECT operator, type, order_id FROM operator_watches ORDER BY added_at, seq')
    this.pins = r.rows
    this.keys = new Set(r.rows.map((p) => keyOf(p.operator, p.type, p.order_id)))
  }

  has(operator: string, type: OrderType, orderId: number): boolean {
    return this.keys.has(keyOf(operator, type, orderId))
  }

  list(operator: string): OrderRef[] {
    const me = operator.toLowerCase()
    return this.pins.filter((p) => p.operator.toLowerCase() === me).map((p) => ({ type: p.type as OrderType, orderId: p.order_id }))
  }

  union(): OrderRef[] {
    const seen = new Map<string, OrderRef>()
    for (const p of this.pins)
      seen.set(refKey({ type: p.type as OrderType, orderId: p.order_id }), { type: p.type as OrderType, orderId: p.order_id })
    return [...seen.values()].sort((a, b) => a.type - b.type || a.orderId - b.orderId)
  }

  private async change(sql: string, params: unknown[]): Promise<void> {
    await this.pool.query(
      `WITH changed AS (${sql} RETURNING 1) SELECT pg_notify($${params.length + 1}, '') FROM (SELECT 1) x WHERE EXISTS (SELECT 1 FROM changed)`,
      [...params, WATCHES_CHANNEL]
    )
    await this.refresh()
  }

  private pinned(type: OrderType, orderId: number): boolean {
    return this.pins.some((p) => p.type === type && p.order_id === orderId)
  }

  async watch(operator: string, type: OrderType, orderId: number, monitor: WatchTarget): Promise<void> {
    await this.change('INSERT INTO operator_watches (operator, type, order_id, added_at) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING', [
      operator,
      type,
      orderId,
      this.now()
    ])
    if (this.pinned(type, orderId)) monitor.watch(type, orderId)
  }

  async unwatch(operator: string, type: OrderType, orderId: number, monitor: WatchTarget): Promise<void> {
    await this.change('DELETE FROM operator_watches WHERE lower(operator) = lower($1) AND type = $2 AND order_id = $3', [
      operator,
      type,
      orderId
    ])
    if (!this.pinned(type, orderId)) monitor.unwatch(type, orderId)
  }

  async dropOperator(operator: string, monitor: WatchTarget): Promise<void> {
    const mine = this.list(operator)
    await this.change('DELETE FROM operator_watches WHERE lower(operator) = lower($1)', [operator])
    for (const r of mine) if (!this.pinned(r.type, r.orderId)) monitor.unwatch(r.type, r.orderId)
  }

  async orphans(): Promise<string[]> {
    const r = await this.pool.query<{ operator: string }>(
      `SELECT DISTINCT operator FROM operator_watches w
        WHERE NOT EXISTS (SELECT 1 FROM operators o WHERE lower(o.name) = lower(w.operator) AND o.revoked_at IS NULL)`
    )
    return r.rows.map((row) => row.operator)
  }

  reconcile(monitorPins: readonly OrderRef[], monitor: WatchTarget): void {
    reconcilePins(this.union(), monitorPins, monitor)
  }
}
