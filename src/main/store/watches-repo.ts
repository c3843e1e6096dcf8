// Pinned orders the monitor polls individually. A watch may name an order sync has not
// seen yet; its last observed status is kept on the watch itself.
import type { Sql } from './sql'
import type { OrderType } from '../../shared/ipc/contract'

export interface Watch {
  type: OrderType
  orderId: number
  label: string | null
  addedAt: string
  lastStatus: number | null
  lastCheckedAt: string | null
}

interface WatchDbRow {
  type: number
  order_id: number
  label: string | null
  added_at: string
  last_status: number | null
  last_checked_at: string | null
}

const toWatch = (r: WatchDbRow): Watch => ({
  type: r.type as OrderType,
  orderId: r.order_id,
  label: r.label,
  addedAt: r.added_at,
  lastStatus: r.last_status,
  lastCheckedAt: r.last_checked_at
})

export class WatchesRepo {
  constructor(
    private readonly sql: Sql,
    private readonly now: () => Date = () => new Date()
  ) {}

  /** Pins an order (idempotent: re-adding keeps the original addedAt, updates the label if given). */
  add(type: OrderType, orderId: number, label?: string | null): Watch {
    if (type !== 1 && type !== 2) throw new RangeError('type must be 1 or 2')
    if (!Number.isSafeInteger(orderId)) throw new RangeError('orderId must be an integer')
    const known = this.sql.get<{ status: number }>('SELECT status FROM orders WHERE type = ? AND order_id = ?', type, orderId)
    this.sql.run(
      `INSERT INTO watches (type, order_id, label, added_at, last_status) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (type, order_id) DO UPDATE SET label = COALESCE(excluded.label, watches.label)`,
      type,
      orderId,
      label ?? null,
      this.now().toISOString(),
      known?.status ?? null
    )
    return this.get(type, orderId) as Watch
  }

  remove(type: OrderType, orderId: number): boolean {
    return this.sql.run('DELETE FROM watches WHERE type = ? AND order_id = ?', type, orderId).changes > 0
  }

  /** Which of these orders of one type are watched: one statement for a window of rows. */
  watchedAmong(type: OrderType, orderIds: readonly number[]): Set<number> {
    if (!orderIds.length) return new Set()
    const rows = this.sql.all<{ order_id: number }>(
      'SELECT order_id FROM watches WHERE type = ? AND order_id IN (SELECT value FROM json_each(?))',
      type,
      JSON.stringify(orderIds)
    )
    return new Set(rows.map((r) => r.order_id))
  }

  get(type: OrderType, orderId: number): Watch | undefined {
    const r = this.sql.get<WatchDbRow>('SELECT * FROM watches WHERE type = ? AND order_id = ?', type, orderId)
    return r ? toWatch(r) : undefined
  }

  has(type: OrderType, orderId: number): boolean {
    return this.get(type, orderId) !== undefined
  }

  /** Oldest first. */
  list(): Watch[] {
    return this.sql.all<WatchDbRow>('SELECT * FROM watches ORDER BY added_at, type, order_id').map(toWatch)
  }
}
