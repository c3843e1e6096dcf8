// What the store holds in one scope (an order type, and one fiat type or every fiat of
// it): the completeness audit's counts of a scope, the ids it did not see listed and its
// marks of orders the service no longer has; the counts per fiat type that scopes are
// found from; the newest order and a sample order the history walk asks about.
import type { FiatScope } from '../../shared/domain/fiat-scope'
import type { OrderType } from '../../shared/ipc/contract'
import { heldPerFiat, rebuildOrderCounts } from './order-counts'
import { NOT_GONE } from './order-query'
import type { Sql } from './sql'

/** The scope as a condition on a fiat_type column (none for every fiat), and its value. */
export function inScope(scope: FiatScope, column = 'fiat_type'): { sql: string; params: number[] } {
  return scope.kind === 'every' ? { sql: '', params: [] } : { sql: ` AND ${column} = ?`, params: [scope.fiatType] }
}

/** What countScope found when order_counts disagreed with the rows of a scope. */
export interface CountsDrift {
  type: OrderType
  scope: FiatScope
  /** What order_counts held for the scope. */
  kept: number
  /** The orders of the scope counted from the rows. */
  counted: number
}

export class OrderScopes {
  /** fiatCounts() per type, valid while the database's write stamp is unchanged. */
  private readonly fiatCountsCache = new Map<OrderType, { stamp: string | null; rows: { fiatType: number | null; orders: number }[] }>()

  constructor(
    private readonly sql: Sql,
    private readonly now: () => Date,
    /** order_counts disagreed with the rows of a scope and was counted again (countScope with fromRows). */
    private readonly onCountsRebuilt?: (drift: CountsDrift) => void
  ) {}

  /**
   * Orders held in a scope. With
   * `unreadable`, records listed in that scope and kept as unreadable (and held in no
   * readable copy) count too: the service's count includes them, the completeness audit
   * compares with it. With `listedOnly`, orders the service was found to no longer have
   * (markGone) are left out: it counts them no more.
   */
  countScope(type: OrderType, scope: FiatScope, o: { unreadable?: boolean; listedOnly?: boolean; fromRows?: boolean } = {}): number {
    const { sql: fiat, params: fiatParams } = inScope(scope)
    const params = [type, ...fiatParams]
    const kept =
      this.sql.value<number>(
        `SELECT IFNULL(SUM(n), 0) FROM order_counts WHERE type = ?${fiat}${o.listedOnly ? ' AND gone = 0' : ''}`,
        ...params
      ) ?? 0
    let orders = kept
    if (o.fromRows) {
      // The completeness audit's proof rests on the rows themselves, and checks the counts
      // table on the way: one that disagrees is counted again from the rows, and said.
      orders =
        this.sql.value<number>(
          `SELECT COUNT(*) FROM orders WHERE type = ?${fiat}${o.listedOnly ? ` AND id ${NOT_GONE}` : ''}`,
          ...params
        ) ?? 0
      if (orders !== kept) {
        rebuildOrderCounts(this.sql)
        this.onCountsRebuilt?.({ type, scope, kept, counted: orders })
      }
    }
    if (!o.unreadable) return orders
    const apart = `SELECT COUNT(*) FROM unreadable_orders u WHERE u.type = ?
      AND (u.order_id IS NULL OR NOT EXISTS (SELECT 1 FROM orders o WHERE o.type = u.type AND o.order_id = u.order_id))`
    const listedIn = inScope(scope, 'u.fiat_type')
    const unreadable = this.sql.value<number>(`${apart}${listedIn.sql}`, type, ...listedIn.params) ?? 0
    return orders + unreadable
  }

  /**
   * Order ids held in a scope, not known to
   * be gone, that are not in `listed` (the ids a full read of the scope was answered with):
   * what the completeness audit asks orderStatus about. Lowest id first, at most `limit`.
   */
  unlisted(type: OrderType, scope: FiatScope, listed: ReadonlySet<number>, limit: number): number[] {
    const out: number[] = []
    const fiat = inScope(scope)
    const ids = this.sql.iterate<{ order_id: number }>(
      `SELECT order_id FROM orders WHERE type = ?${fiat.sql} AND gone_at IS NULL ORDER BY order_id`,
      type,
      ...fiat.params
    )
    for (const r of ids) {
      if (out.length >= limit) break
      if (!listed.has(r.order_id)) out.push(r.order_id)
    }
    return out
  }

  /** orderStatus answered that the service does not have this order (417, "Invalid orderId"): the row stays, marked. */
  markGone(type: OrderType, orderId: number, at: string = this.now().toISOString()): void {
    this.sql.run('UPDATE orders SET gone_at = ? WHERE type = ? AND order_id = ? AND gone_at IS NULL', at, type, orderId)
  }

  /** Orders held per fiat type of one order type (null: records that named none), kept until the next write. */
  fiatCounts(type: OrderType): { fiatType: number | null; orders: number }[] {
    const stamp = this.sql.writeStamp()
    const cached = this.fiatCountsCache.get(type)
    if (cached && stamp !== null && cached.stamp === stamp) return cached.rows
    const rows = heldPerFiat(this.sql, type)
    this.fiatCountsCache.set(type, { stamp, rows })
    return rows
  }

  /** The newest createdAt held in a scope. */
  newestCreatedAt(type: OrderType, scope: FiatScope): string | null {
    const fiat = inScope(scope)
    return (
      this.sql.value<string | null>(
        `SELECT created_at FROM orders WHERE type = ?${fiat.sql} ORDER BY created_at DESC LIMIT 1`,
        type,
        ...fiat.params
      ) ?? null
    )
  }

  /**
   * An order to check what merchantHistory's `since` filters on (monitor/history-probes.ts):
   * the most recently changed of a scope that changed at least a second after it was
   * created, not at the spec's cutover instant.
   */
  sinceSample(type: OrderType, scope: FiatScope): { orderId: number; createdAt: string; updatedAt: string } | null {
    const fiat = inScope(scope)
    const rows = this.sql.all<{ order_id: number; created_at: string; updated_at: string }>(
      `SELECT order_id, created_at, updated_at FROM orders WHERE type = ?${fiat.sql}
       AND updated_at > '2022-11-09T16:58:07.000Z' ORDER BY updated_at DESC LIMIT 50`,
      type,
      ...fiat.params
    )
    const r = rows.find((x) => Date.parse(x.updated_at) - Date.parse(x.created_at) >= 1000)
    return r ? { orderId: r.order_id, createdAt: r.created_at, updatedAt: r.updated_at } : null
  }
}
