// Incremental history sync for one (type, fiat type) scope through merchantHistory.
//
// The position is the store's sync cursor: the last updatedAt seen plus the ids already
// applied at exactly that instant. A run starts from it (since = cursor, page = the page
// holding the first id at that instant not yet seen, so the first page overlaps by fewer
// than pageSize records, which the store recognises as unchanged) and then keeps the SAME
// `since`, asking page+1, page+2, ... until a page comes back short. So:
//   - nothing changed: one request (the short page at the cursor);
//   - a first sync of N orders: ceil(N / pageSize) requests, plus one empty page when N
//     is an exact multiple of pageSize (a full last page cannot prove it is the last);
//   - thousands of orders sharing one updatedAt (the 4.4 cutover instant) are crossed page
//     by page: the listing is ordered by (updatedAt, orderId), so pages of one `since` are
//     contiguous and never repeat page 1.
// Each page is applied in ONE store transaction together with the cursor it leads to, so a
// run killed at any point resumes from its last committed page.
//
// Offset paging has one hazard: an order already read that changes during the run moves to
// the end of the listing, and every later page then starts one record further on: one
// record would be skipped. Such a move shows as an order read twice in the run with a newer
// updatedAt; when that happens the run ends with a repair pass from the moved order's old
// updatedAt, which re-reads (unchanged, no writes) and catches what shifted. The position a
// repair is owed from is committed with the page that revealed it (the cursor's
// repairFrom), so under constant churn, or across a restart, the next run starts with it.
import type { CallOptions } from '../api/client'
import type { MerchantHistoryRequest } from '../../shared/api/endpoints'
import type { OfframpOrder, OnrampOrder } from '../../shared/api/schemas'
import { nextHistoryRequest, type ApplyPageResult, type OrderRecordOf, type OrdersRepo } from '../store/orders-repo'
import type { OrderType } from '../../shared/ipc/contract'

export const HISTORY_PAGE_SIZE = 500
/** Repair passes per run at most; the next run still starts from the committed cursor. */
const MAX_REPAIR_PASSES = 3

/** The slice of ApiClient a sync needs (ApiClient itself satisfies it). */
export interface HistoryClient {
  merchantHistory(req: MerchantHistoryRequest & { type: 1 | 2 }, opts?: CallOptions): Promise<readonly (OnrampOrder | OfframpOrder)[]>
}
export type HistoryStore = Pick<OrdersRepo, 'applyHistoryPage' | 'getCursor'>

export interface HistorySyncOptions {
  client: HistoryClient
  orders: HistoryStore
  /** Default 500 (the maximum the service allows). */
  pageSize?: number
}

export interface PageApplied {
  type: OrderType
  fiatType: number
  /** 1-based count of pages in this run (repair pages included). */
  pages: number
  /** Records received in this run so far. */
  orders: number
  result: ApplyPageResult
  /** True while re-reading after a shift was detected. */
  repair: boolean
}

export interface SyncRunOptions {
  signal?: AbortSignal
  /** After each page is committed. */
  onPage?: (p: PageApplied) => void
}

export interface SyncRunResult {
  type: OrderType
  fiatType: number
  /** merchantHistory calls made by this run (each answered; retries inside the client not counted). */
  requests: number
  pages: number
  orders: number
  created: number
  statusChanged: number
  /** The cursor (last updatedAt seen) the run started from; null for a first sync. */
  startedFrom: string | null
  /** The newest updatedAt seen after the run. */
  cursor: string | null
  repairs: number
}

export class HistorySync {
  readonly pageSize: number

  constructor(private readonly o: HistorySyncOptions) {
    this.pageSize = o.pageSize ?? HISTORY_PAGE_SIZE
    if (!Number.isInteger(this.pageSize) || this.pageSize < 1 || this.pageSize > 500) throw new RangeError('pageSize must be 1..500')
  }

  /** Brings one scope up to date: pages until a short page. Throws the client's ApiError; committed pages stay. */
  async run(type: OrderType, fiatType: number, opts: SyncRunOptions = {}): Promise<SyncRunResult> {
    const start = this.o.orders.getCursor(type, fiatType)
    let { since, page } = nextHistoryRequest(start, this.pageSize)
    const out: SyncRunResult = {
      type,
      fiatType,
      requests: 0,
      pages: 0,
      orders: 0,
      created: 0,
      statusChanged: 0,
      startedFrom: start.cursor,
      cursor: start.cursor,
      repairs: 0
    }
    // A repair a previous run (or a previous process) could not finish comes first: a pass
    // from there also covers everything after the cursor.
    const owed = start.repairFrom
    let repair = owed !== null
    if (owed !== null) {
      since = owed
      page = 1
    }
    // The repair position as committed: owed until the pass that started there ends.
    let committed = owed
    // updatedAt of every order read in this run, to notice orders that moved under us.
    const readAt = new Map<number, string>()
    // Oldest position of a move seen during the current pass.
    let movedFrom: string | null = null
    for (;;) {
      opts.signal?.throwIfAborted()
      const records = (await this.fetch(type, fiatType, since, page, opts.signal)) as readonly OrderRecordOf<OrderType>[]
      out.requests++
      for (const r of records) {
        const before = readAt.get(r.orderId)
        if (before !== undefined && r.updatedAt > before && (movedFrom === null || before < movedFrom)) movedFrom = before
        readAt.set(r.orderId, r.updatedAt)
      }
      const last = records.length < this.pageSize
      // What a restart must still repair, committed with this page: at the end of a pass only
      // the moves seen during it; before that, also whatever the pass was started to repair.
      const owedNow = last ? movedFrom : minIso(committed, movedFrom)
      const repairFrom = owedNow !== committed ? owedNow : undefined
      // Synchronous from here to the commit: an abort cannot split a page from its cursor.
      const result = this.o.orders.applyHistoryPage({ type, fiatType, records, ...(repairFrom !== undefined ? { repairFrom } : {}) })
      committed = owedNow
      out.pages++
      out.orders += records.length
      out.created += result.created.length
      out.statusChanged += result.statusChanged.length
      out.cursor = result.cursor.cursor
      opts.onPage?.({ type, fiatType, pages: out.pages, orders: out.orders, result, repair })
      if (!last) {
        page++
        continue
      }
      if (movedFrom === null || out.repairs >= MAX_REPAIR_PASSES) return out
      since = movedFrom
      page = 1
      movedFrom = null
      repair = true
      out.repairs++
    }
  }

  /** Where a repair pass is still owed from (committed in the store), or null. */
  pendingRepair(type: OrderType, fiatType: number): string | null {
    return this.o.orders.getCursor(type, fiatType).repairFrom
  }

  private fetch(type: OrderType, fiatType: number, since: string | undefined, page: number, signal: AbortSignal | undefined) {
    const req = { fiatType, order: 'ASC' as const, page, pageSize: this.pageSize, ...(since !== undefined ? { since } : {}) }
    const opts = { priority: 'background' as const, signal }
    return this.o.client.merchantHistory({ ...req, type }, opts)
  }
}

function minIso(a: string | null, b: string | null): string | null {
  if (a === null) return b
  if (b === null) return a
  return a < b ? a : b
}
