// One history sync run of one scope, as the two walks (history-keyset.ts, history-offset.ts)
// share it: each request goes through fetch() (the page number the service counts in,
// the run's budget priority, the page read as evidence of the service's readings), each page
// is committed with apply() (records, unreadable ones, cursor, in one transaction), a
// short first page that may be a cap rather than the end is checked (verifyShort), and
// `since` is checked before the walk relies on it (ensureSince). When what a page shows
// changes how the service must be walked, Restart ends the walk before the page is
// committed and the run starts again with the other strategy.
import type { CallOptions, HistoryPageResult } from '../api/client'
import type { Priority } from '../api/rate-budget'
import type { MerchantHistoryRequest } from '../../shared/api/endpoints'
import type { OfframpOrder, OnrampOrder } from '../../shared/api/schemas'
import { fiatScope } from '../../shared/domain/fiat-scope'
import type { ApplyPageResult, OrdersRepo } from '../store/orders-repo'
import type { OrderType } from '../../shared/ipc/contract'
import type { SyncCursorsRepo } from '../store/sync-cursors-repo'
import { failsTheRun, isClientRefusal, isEmptyAnswer, type HistoryReadings } from './history-readings'
import { probeFirstPage, probeSinceField, type SinceSample } from './history-probes'
import { toErrorInfo } from '../../shared/api/errors'

/** The slice of ApiClient a sync needs (ApiClient itself satisfies it). */
export interface HistoryClient {
  historyPage(req: MerchantHistoryRequest & { type: 1 | 2 }, opts?: CallOptions): Promise<HistoryPageResult<OnrampOrder | OfframpOrder>>
}
export interface HistoryStore {
  orders: Pick<OrdersRepo, 'applyHistoryPage'> & Partial<Pick<OrdersRepo, 'newestCreatedAt' | 'sinceSample' | 'confirmUnchanged'>>
  syncCursors: Pick<SyncCursorsRepo, 'get' | 'runAtCursor' | 'setRepairFrom'> & Partial<Pick<SyncCursorsRepo, 'idsAtCursor'>>
}

/**
 * poll: from the cursor (with look-back) to the end; reconcile: the recent window read
 * again end to end; full: everything from the first order (the operator's "Re-sync everything").
 */
export type SyncMode = 'poll' | 'reconcile' | 'full'

export interface PageApplied {
  type: OrderType
  fiatType: number
  mode: SyncMode
  /** 1-based count of pages in this run. */
  pages: number
  /** Records received in this run so far. */
  orders: number
  result: ApplyPageResult
  /** The order ids the page listed, readable records and unreadable ones (the completeness audit collects them over a full read). */
  listed: number[]
}

export interface SyncRunResult {
  type: OrderType
  fiatType: number
  mode: SyncMode
  /** merchantHistory calls made by this run (each answered; retries inside the client not counted). */
  requests: number
  pages: number
  orders: number
  created: number
  statusChanged: number
  /** Records kept as unreadable in this run. */
  unreadable: number
  /** The cursor (last updatedAt seen) the run started from; null for a first sync. */
  startedFrom: string | null
  /** The newest updatedAt seen after the run. */
  cursor: string | null
  /** Times the overlap check found a run shifted (orders left it) and the run was read from its start. */
  restarts: number
  /** How the history was walked last in this run. */
  strategy: 'keyset' | 'offset'
}

/** A record of a page in the service's order: readable or not, what could be read of it. */
export interface PageItem {
  orderId: number | null
  updatedAt: string | null
  createdAt: string | null
  fiatType: number | null
}

/** The walk must start again: what the service was seen to do changed how to walk it. */
export class Restart extends Error {
  constructor(
    reason: string,
    /** Start again by offset whatever the readings say (the keyset walk cannot go on without a reading it could not find). */
    readonly forceOffset = false
  ) {
    super(reason)
    this.name = 'Restart'
  }
}

/** A listing's first page, read with `page` left out, was not its first page: read it again, the page named. */
export class MisreadFirstPage extends Restart {}

type HistoryResult = HistoryPageResult<OnrampOrder | OfframpOrder>
const EMPTY: HistoryResult = { records: [], rejected: [], size: 0 }

export const msBefore = (iso: string): string => new Date(Date.parse(iso) - 1).toISOString()

/** Spec 4.4: every order last updated before this instant reports it; it tells nothing of since. */
const CUTOVER = '2022-11-09T16:58:07.000Z'

export interface WalkSetup {
  client: HistoryClient
  store: HistoryStore
  readings: HistoryReadings
  /** Whether the walk may spend requests on checking readings (history-probes.ts). */
  probes: boolean
  type: OrderType
  /** The scope's fiat type (0: every fiat of the type, for a service that does not filter by it). */
  fiatType: number
  /** The fiat type sent. */
  requestFiat: number
  mode: SyncMode
  size: number
  signal?: AbortSignal
  /** The budget priority of the walk's pages: background, or low for a repair that can wait behind the polls. */
  priority?: Priority
  onPage?: (p: PageApplied) => void
  /** Requests spent checking readings. */
  onProbeRequest?: (n: number) => void
  /** Keep walking when a page changes the strategy (the run already went back and forth): the readings still learn. */
  lockStrategy?: boolean
  out: SyncRunResult
}

export class Walk {
  readonly type: OrderType
  readonly fiatType: number
  readonly mode: SyncMode
  /** Records per page asked for in this attempt. */
  readonly size: number
  readonly out: SyncRunResult
  readonly signal: AbortSignal | undefined
  /** Distinct orders read, for progress (overlaps re-read a few records). */
  private readonly readIds = new Set<number>()
  private idless = 0
  /** The best record of this run to check `since` with (see SinceSample). */
  private sample: SinceSample | null = null
  /** Whether this walk has tried to find the first page's number (once a walk). */
  private baseSought = false

  constructor(private readonly s: WalkSetup) {
    this.type = s.type
    this.fiatType = s.fiatType
    this.mode = s.mode
    this.size = s.size
    this.out = s.out
    this.signal = s.signal
  }

  get store(): HistoryStore {
    return this.s.store
  }

  private get priority(): Priority {
    return this.s.priority ?? 'background'
  }

  /**
   * One page of a listing (1-based `page`), read as evidence; Restart when it changes the
   * strategy. Every page is asked by the number the service counts in once that is known;
   * while it is not, the first page leaves `page` out (the spec's default) and a later page
   * has the number found first (findBase; `known`: ids read by listing position). When it
   * cannot be found, `oneBehind` asks page p by the 0-based number: a 1-based service then
   * answers each page one late (a page read twice, never one skipped); without it the walk
   * starts again by offset. A page past the first refused with a 4xx (not 401, 403, 429)
   * is the end of the listing; so is a first page refused with 404 (an empty listing
   * answered "No transactions found").
   */
  async fetch(
    since: string | undefined,
    page: number,
    size: number,
    order: 'ASC' | 'DESC' = 'ASC',
    known: ReadonlyMap<number, number> = new Map(),
    oneBehind = false
  ): Promise<{ res: HistoryResult; items: PageItem[] }> {
    this.signal?.throwIfAborted()
    // A service counting from 0 may answer a missing page as the spec's literal 1, its
    // second page: the first page is named once its number is known.
    const wire = page === 1 ? this.s.readings.firstPageWire() : await this.wireFor(since, page, size, order, known, oneBehind)
    let res: HistoryResult
    try {
      res = await this.ask(since, wire, size, order)
    } catch (e) {
      // A first page refused as empty (404 in the HTTP status or the envelope's code) is an
      // empty listing; past the first page any client refusal is the end.
      if (!isClientRefusal(e) || (page === 1 && !isEmptyAnswer(toErrorInfo(e)))) throw e
      res = EMPTY
    }
    this.out.requests++
    const items = itemsOf(res)
    const seen = this.s.readings.observe({ type: this.type, fiatType: this.s.requestFiat, since, order, items })
    if (seen.strategyChanged && !this.s.lockStrategy)
      throw new Restart('a page showed the service orders or selects records on another field')
    for (const it of items) this.consider(it)
    return { res, items }
  }

  private ask(since: string | undefined, page: number | undefined, size: number, order: 'ASC' | 'DESC'): Promise<HistoryResult> {
    return this.s.client.historyPage(
      {
        type: this.type,
        fiatType: this.s.requestFiat,
        order,
        ...(page !== undefined ? { page } : {}),
        pageSize: size,
        ...(since !== undefined ? { since } : {})
      },
      { priority: this.priority, signal: this.signal }
    )
  }

  /** The page number to send for the walk's page p (p >= 2); null-safe: see fetch. */
  private async wireFor(
    since: string | undefined,
    page: number,
    size: number,
    order: 'ASC' | 'DESC',
    known: ReadonlyMap<number, number>,
    oneBehind: boolean,
    /** A page the walk must read (not the check of a short page): the check runs whatever its back-off. */
    needed = true
  ): Promise<number> {
    if (!this.s.readings.pageBaseKnown() && !this.baseSought && (needed || this.s.readings.due().firstPage)) {
      this.baseSought = true
      await this.findBase(since, order, known)
    }
    if (this.s.readings.pageBaseKnown()) return this.s.readings.wirePage(page)
    if (oneBehind) return page - 1
    throw new Restart('the number of the first page could not be found; read by offset', true)
  }

  /**
   * Finds the first page's number with the run's own check (probeFirstPage) on this
   * listing. Its first page was read with `page` left out: on a service counting from 0
   * that may have been page 1, the second page (a missing page read as the spec's literal
   * 1). When the first record read (`known` position 0) is not the first page's, the
   * listing is read again from its first page, named (MisreadFirstPage). Inconclusive
   * (orders moving in between, an error) leaves it unknown and backs the check off; never
   * fails the run but for auth.
   */
  private async findBase(since: string | undefined, order: 'ASC' | 'DESC', known: ReadonlyMap<number, number>): Promise<void> {
    const { found, requests, first } = await probeFirstPage(this.s.client, {
      type: this.type,
      fiatType: this.s.requestFiat,
      since,
      order,
      priority: this.priority,
      signal: this.signal
    })
    this.out.requests += requests
    this.s.onProbeRequest?.(requests)
    if (!found) return this.s.readings.inconclusive()
    this.s.readings.found('firstPage', found.value, found.how, found.settled)
    const firstRead = known.get(0)
    if (found.value === 0 && first !== null && firstRead !== first)
      throw new MisreadFirstPage(`page left out answered order ${firstRead} first, page 0 order ${first}: read again from page 0`)
  }

  /**
   * A listing's first page, read with `page` left out while the base is unknown, does not
   * hold the records it must start with (those read last at the instant it starts from):
   * a service counting from 0 may have answered its page 1, the second page. Runs the
   * first-page check on this listing (once a walk, whatever the back-off: this answer
   * contradicts what the walk assumed); MisreadFirstPage when the page was not the first.
   */
  async doubtFirstPage(since: string | undefined, order: 'ASC' | 'DESC', items: readonly PageItem[]): Promise<void> {
    if (this.s.readings.pageBaseKnown() || this.baseSought) return
    this.baseSought = true
    const known = new Map<number, number>()
    items.forEach((it, i) => it.orderId !== null && known.set(i, it.orderId))
    await this.findBase(since, order, known)
  }

  /**
   * The walk read its listing from `since` to the end: on a service whose `since` was
   * checked (not assumed) to filter on updatedAt, every order changed since was in it, so
   * the open orders held that changed before are unchanged, their statuses confirmed as of
   * `at` (when the walk began) without asking orderStatus about each (freshness.ts).
   */
  confirmUnchanged(since: string, at: number): void {
    const f = this.s.readings.state().sinceField
    if (f.value !== 'updatedAt' || f.state !== 'checked') return
    this.s.store.orders.confirmUnchanged?.(this.type, fiatScope(this.fiatType), since, new Date(at).toISOString())
  }

  /**
   * Commits one page with the cursor it leads to (and what the keyset walk keeps with it);
   * with holdCursor, its records only (a page whose positions could not be trusted).
   */
  apply(
    res: HistoryPageResult<OnrampOrder | OfframpOrder>,
    items: readonly PageItem[],
    extra: { runPositions?: ReadonlyMap<number, number>; repairFrom?: string | null; holdCursor?: boolean } = {}
  ): ApplyPageResult {
    const result = this.s.store.orders.applyHistoryPage({
      type: this.type,
      fiatType: this.fiatType,
      records: res.records,
      unreadable: res.rejected.map((r) => ({ orderId: r.orderId, updatedAt: r.updatedAt, raw: r.raw, reason: r.reason })),
      ...extra
    })
    if (result.foreign > 0)
      this.s.readings.observe({ type: this.type, fiatType: this.s.requestFiat, since: undefined, items: [], foreign: result.foreign })
    const out = this.out
    out.pages++
    for (const it of items)
      if (it.orderId === null) this.idless++
      else this.readIds.add(it.orderId)
    out.orders = this.readIds.size + this.idless
    out.created += result.created.length
    out.statusChanged += result.statusChanged.length
    out.unreadable += result.unreadable
    out.cursor = result.cursor.cursor
    const listed = items.flatMap((it) => (it.orderId === null ? [] : [it.orderId]))
    this.s.onPage?.({ type: this.type, fiatType: this.fiatType, mode: this.mode, pages: out.pages, orders: out.orders, result, listed })
    return result
  }

  /**
   * A first page of n records, fewer than asked, already committed: the end of the
   * listing, or a service holding fewer records a page than asked. When the readings
   * cannot tell, the next page at n records says: empty (or refused with a 4xx) is the
   * end; records mean a cap (Restart with the smaller size). A check that fails otherwise
   * (a 5xx, the network, the first page's number not found) leaves it unchecked for a
   * later listing: it never fails the run.
   */
  async verifyShort(since: string | undefined, items: readonly PageItem[], asked: number, order: 'ASC' | 'DESC' = 'ASC'): Promise<void> {
    const n = items.length
    // The same answer to the same listing as one checked before is settled (history-readings.ts).
    const answer = {
      listing: `${this.type}:${this.s.requestFiat}:${order}:${since ?? ''}:${asked}`,
      page: `${n}:${items[0]?.orderId ?? ''}:${items[n - 1]?.orderId ?? ''}`
    }
    if (!this.s.readings.ambiguousShort(n, asked, answer)) return
    const known = new Map<number, number>()
    items.forEach((it, i) => it.orderId !== null && known.set(i, it.orderId))
    let next: HistoryResult
    try {
      const wire = await this.wireFor(since, 2, n, order, known, false, false)
      this.out.requests++
      this.s.onProbeRequest?.(1)
      next = await this.ask(since, wire, n, order)
    } catch (e) {
      if (failsTheRun(e) || e instanceof MisreadFirstPage) throw e
      if (!isClientRefusal(e)) return
      next = EMPTY
    }
    if (next.size === 0) return this.s.readings.noteEnd(n, answer)
    this.s.readings.learnCap(n)
    throw new Restart(`the service holds ${n} records a page`)
  }

  /** Checks what `since` filters on before a walk relies on it (once a day, or when doubted). */
  async ensureSince(): Promise<void> {
    if (!this.s.probes || !this.s.readings.due().sinceField) return
    const sample = this.sample ?? this.s.store.orders.sinceSample?.(this.type, fiatScope(this.fiatType)) ?? null
    if (!sample) return
    const before = this.s.readings.strategy()
    const found = await probeSinceField(this.s.client, {
      type: this.type,
      fiatType: this.s.requestFiat,
      sample,
      pageSize: Math.min(50, this.size),
      page: this.s.readings.firstPageWire(),
      orderedByUpdate: this.s.readings.state().orderField.value === 'updatedAt' && this.s.readings.answers('ASC') === 'ASC',
      signal: this.signal
    })
    this.out.requests++
    this.s.onProbeRequest?.(1)
    if (found) this.s.readings.found('sinceField', found.value, found.how)
    if (this.s.readings.strategy() !== before) throw new Restart('since was found to filter on another field')
  }

  /** The newest createdAt the scope holds (polls of a service whose since filters on createdAt start there). */
  newestCreatedAt(): string | null {
    return this.s.store.orders.newestCreatedAt?.(this.type, fiatScope(this.fiatType)) ?? null
  }

  readingOfSince(): ReturnType<HistoryReadings['sinceField']> {
    return this.s.readings.sinceField()
  }

  pageBaseKnown(): boolean {
    return this.s.readings.pageBaseKnown()
  }

  newestFirstBy(): ReturnType<HistoryReadings['newestFirstBy']> {
    return this.s.readings.newestFirstBy()
  }

  /** Keeps the record that tells `since`'s field best: the newest changed a while after it was created. */
  private consider(it: PageItem): void {
    if (it.orderId === null || it.updatedAt === null || it.createdAt === null || it.updatedAt === CUTOVER) return
    if (Date.parse(it.updatedAt) - Date.parse(it.createdAt) < 1000) return
    if (this.sample && this.sample.updatedAt >= it.updatedAt) return
    this.sample = { orderId: it.orderId, createdAt: it.createdAt, updatedAt: it.updatedAt }
  }
}

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null)
const int = (v: unknown): number | null => (typeof v === 'number' && Number.isInteger(v) ? v : null)

/** The page in the service's order: readable records and unreadable ones in their places. */
export function itemsOf(res: HistoryPageResult<OnrampOrder | OfframpOrder>): PageItem[] {
  const out: PageItem[] = []
  const rejected = new Map(res.rejected.map((r) => [r.index, r]))
  let next = 0
  for (let i = 0; i < res.size; i++) {
    const bad = rejected.get(i)
    if (bad) {
      const raw = (bad.raw !== null && typeof bad.raw === 'object' ? bad.raw : {}) as Record<string, unknown>
      out.push({ orderId: bad.orderId, updatedAt: bad.updatedAt, createdAt: str(raw.createdAt), fiatType: int(raw.fiatType) })
    } else {
      const r = res.records[next++] as (Record<string, unknown> & { orderId: number; updatedAt: string; createdAt: string }) | undefined
      out.push(
        r
          ? { orderId: r.orderId, updatedAt: r.updatedAt, createdAt: r.createdAt, fiatType: int(r.fiatType) }
          : { orderId: null, updatedAt: null, createdAt: null, fiatType: null }
      )
    }
  }
  return out
}
