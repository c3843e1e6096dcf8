// The history baseline a competent engineer would write: a
// since-cursor client. Each scope keeps a cursor, the newest updatedAt it committed; a
// poll asks merchantHistory for `since` = that cursor (ASC, 500 a page), commits every
// page with the cursor it leads to in one transaction (OrdersRepo.applyHistoryPage), and
// pages by keyset: after a full page it asks again from the page's last updatedAt. It
// reads the spec's "selects records from that time" as inclusive, so the records at the
// cursor come again and are recognised as unchanged. The one place keyset paging cannot
// move on, a page that sits wholly at the instant it asked from (a run of equal
// updatedAt longer than a page), it pages by offset inside the run and trusts positions
// there: no cross-page tie handling, no overlap check, no look-back, no reconcile.
import type { ApiClient } from '../../src/main/api/client'
import type { LocalStore } from '../../src/main/store/local-store'
import type { OrderType } from '../../src/shared/ipc/contract'

export const SINCE_CURSOR_PAGE_SIZE = 500

/** Where a listing stands: the `since` it asks from and the page of it to ask for next. */
export interface ListingPosition {
  since: string | undefined
  page: number
}

/**
 * The request after a page of `size` records whose last updatedAt is `lastUpdatedAt`:
 * null when the page was short (the end of the history), the next offset page when the
 * page sat wholly at the instant asked from, else page 1 from the page's last updatedAt.
 */
export function nextListing(
  at: ListingPosition,
  size: number,
  lastUpdatedAt: string | undefined,
  pageSize: number
): ListingPosition | null {
  if (size < pageSize || lastUpdatedAt === undefined) return null
  if (at.since !== undefined && lastUpdatedAt === at.since) return { since: at.since, page: at.page + 1 }
  return { since: lastUpdatedAt, page: 1 }
}

export class SinceCursorSync {
  constructor(
    private readonly client: ApiClient,
    private readonly store: LocalStore,
    private readonly fiatTypes: readonly number[],
    /** Fiat types offramp exists for (the spec: INR only), as the app's monitor syncs them. */
    private readonly offrampFiatTypes: readonly number[] = [1],
    private readonly pageSize = SINCE_CURSOR_PAGE_SIZE
  ) {}

  scopes(): Array<{ type: OrderType; fiatType: number }> {
    return [
      ...this.fiatTypes.map((fiatType) => ({ type: 1 as OrderType, fiatType })),
      ...this.fiatTypes.filter((f) => this.offrampFiatTypes.includes(f)).map((fiatType) => ({ type: 2 as OrderType, fiatType }))
    ]
  }

  /** One poll of every scope, one scope at a time (as the app's monitor does by default). */
  async poll(): Promise<void> {
    for (const s of this.scopes()) await this.syncScope(s.type, s.fiatType)
  }

  private async syncScope(type: OrderType, fiatType: number): Promise<void> {
    let at: ListingPosition | null = { since: this.store.syncCursors.get(type, fiatType).cursor ?? undefined, page: 1 }
    while (at) {
      const req = { fiatType, page: at.page, pageSize: this.pageSize, order: 'ASC' as const, ...(at.since ? { since: at.since } : {}) }
      const opts = { priority: 'background' as const }
      let size: number
      let last: string | undefined
      if (type === 1) {
        const records = await this.client.merchantHistory({ ...req, type: 1 }, opts)
        this.store.orders.applyHistoryPage({ type: 1, fiatType, records })
        size = records.length
        last = records[records.length - 1]?.updatedAt
      } else {
        const records = await this.client.merchantHistory({ ...req, type: 2 }, opts)
        this.store.orders.applyHistoryPage({ type: 2, fiatType, records })
        size = records.length
        last = records[records.length - 1]?.updatedAt
      }
      at = nextListing(at, size, last, this.pageSize)
    }
  }
}
