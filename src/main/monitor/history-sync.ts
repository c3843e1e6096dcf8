// History sync for one (type, fiat type) scope through merchantHistory, built to lose no
// order whichever way the service reads what the spec leaves open. How a scope is walked
// depends on what this profile's service was found to do (history-readings.ts):
//   - keyset (history-keyset.ts) while `since` filters on updatedAt and the order sorts by
//     it: listings start just before the newest instant read, long runs of one instant
//     are paged by offset with overlap checks;
//   - offset (history-offset.ts) otherwise: one listing read to its end, which churn
//     cannot shift past the reader when the order is on a field that never changes.
// Before either relies on a reading it has not checked, the cheap probes of
// history-probes.ts run (when allowed); every page is evidence, and a page that changes
// the strategy starts the run again (at most a few times). The page number sent follows
// the service's first page, the page size what it was seen to hold, and a short first
// page is checked for a cap before it is taken as the end. Each page is committed in ONE
// store transaction with the cursor it leads to, so a run killed at any point resumes
// without loss.
import { ApiError } from '../../shared/api/errors'
import type { Priority } from '../api/rate-budget'
import type { OrderType } from '../../shared/ipc/contract'
import { EVERY_FIAT_TYPE } from '../../shared/domain/fiat-scope'
import { HistoryReadings } from './history-readings'
import { probeFirstPage } from './history-probes'
import { keysetWalk } from './history-keyset'
import { offsetWalk } from './history-offset'
import { Restart, Walk, type HistoryClient, type HistoryStore, type PageApplied, type SyncMode, type SyncRunResult } from './history-walk'

export type { HistoryClient, HistoryStore, PageApplied, SyncMode, SyncRunResult } from './history-walk'
export { overlappingWindow } from './history-keyset'

export const HISTORY_PAGE_SIZE = 500
export const DEFAULT_LOOKBACK_MS = 2 * 60_000
export const DEFAULT_RECONCILE_WINDOW_MS = 24 * 60 * 60_000
export interface HistorySyncOptions {
  client: HistoryClient
  store: HistoryStore
  /** Default 500 (the maximum the service allows). */
  pageSize?: number
  /** How far before the cursor each poll starts. Default 2 minutes. */
  lookbackMs?: number
  /** How far back a reconcile pass reads. Default 24 hours. */
  reconcileWindowMs?: number
  /** The service's time (for the reconcile window). Default Date.now. */
  now?: () => number
  /**
   * The service's clock as the client estimates it (currentTimestamp, Date headers). A
   * service whose clock steps back stamps new changes before our cursor; a poll then
   * starts its look-back from the service's now, not from the cursor, so they are read at
   * the next poll rather than at the next reconcile. Default: only the cursor counts.
   */
  serviceNow?: () => number
  /** What the profile's service was found to do; shared by its scopes and kept between runs. Default: learned in memory only. */
  readings?: HistoryReadings
  /** Spend a few requests checking readings before relying on them (history-probes.ts). Default false. */
  probes?: boolean
  /** Requests spent checking readings (probes, a short page's check), as they are made. */
  onProbeRequest?: (n: number) => void
  /** The fiat type to send for a scope of every fiat of a type (EVERY_FIAT_TYPE, for a service that does not filter by it). */
  requestFiatOf?: (type: OrderType) => number
}

export interface SyncRunOptions {
  mode?: SyncMode
  signal?: AbortSignal
  /** The budget priority of the run's pages (default background; low for a repair). */
  priority?: Priority
  /** After each page is committed. */
  onPage?: (p: PageApplied) => void
}

/** Times a run starts again because a page changed how the service must be walked. */
const MAX_STRATEGY_RESTARTS = 4

export class HistorySync {
  readonly pageSize: number
  private readonly lookbackMs: number
  /** How far back a reconcile pass reads (Settings: reconcileHours). */
  reconcileWindowMs: number
  private readonly now: () => number
  /** What this profile's service was found to do (shared by every scope). */
  readonly readings: HistoryReadings

  constructor(private readonly o: HistorySyncOptions) {
    this.pageSize = o.pageSize ?? HISTORY_PAGE_SIZE
    if (!Number.isInteger(this.pageSize) || this.pageSize < 2 || this.pageSize > 500) throw new RangeError('pageSize must be 2..500')
    this.lookbackMs = o.lookbackMs ?? DEFAULT_LOOKBACK_MS
    this.reconcileWindowMs = o.reconcileWindowMs ?? DEFAULT_RECONCILE_WINDOW_MS
    this.now = o.now ?? Date.now
    this.readings = o.readings ?? new HistoryReadings()
  }

  /** Brings one scope up to date. Throws the client's ApiError; committed pages stay. */
  async run(type: OrderType, fiatType: number, opts: SyncRunOptions = {}): Promise<SyncRunResult> {
    const mode = opts.mode ?? 'poll'
    const start = this.o.store.syncCursors.get(type, fiatType)
    const out: SyncRunResult = {
      type,
      fiatType,
      mode,
      requests: 0,
      pages: 0,
      orders: 0,
      created: 0,
      statusChanged: 0,
      unreadable: 0,
      startedFrom: start.cursor,
      cursor: start.cursor,
      restarts: 0,
      strategy: this.readings.strategy()
    }
    const requestFiat = fiatType === EVERY_FIAT_TYPE ? (this.o.requestFiatOf?.(type) ?? 1) : fiatType
    if (this.o.probes && this.readings.due().firstPage) {
      const { found, requests } = await probeFirstPage(this.o.client, { type, fiatType: requestFiat, signal: opts.signal })
      out.requests += requests
      this.o.onProbeRequest?.(requests)
      if (found) this.readings.found('firstPage', found.value, found.how, found.settled)
      else this.readings.inconclusive()
    }
    const timing = { lookbackMs: this.lookbackMs, reconcileWindowMs: this.reconcileWindowMs, now: this.now, serviceNow: this.o.serviceNow }
    // Strategies this run has left; going back to one means the answers contradict each
    // other: the run then goes on by offset (correct whatever `order` and `since` do) and
    // stops restarting on what pages show.
    const left = new Set<string>()
    let locked = false
    for (let attempt = 0; ; attempt++) {
      out.strategy = locked ? 'offset' : this.readings.strategy()
      const walk = new Walk({
        client: this.o.client,
        store: this.o.store,
        readings: this.readings,
        probes: this.o.probes ?? false,
        type,
        fiatType,
        requestFiat,
        mode,
        size: this.readings.pageSize(this.pageSize),
        signal: opts.signal,
        priority: opts.priority,
        onPage: opts.onPage,
        onProbeRequest: this.o.onProbeRequest,
        lockStrategy: locked,
        out
      })
      try {
        // Both walks start from where the run started: a page committed before a restart
        // moved the cursor, but a first sync must still read from the beginning.
        if (out.strategy === 'keyset') await keysetWalk(walk, start, timing)
        else await offsetWalk(walk, start, timing)
        return out
      } catch (e) {
        if (!(e instanceof Restart)) throw e
        const next = this.readings.strategy()
        if (e.forceOffset || (next !== out.strategy && left.has(next))) locked = true
        left.add(out.strategy)
        if (attempt >= MAX_STRATEGY_RESTARTS)
          throw new ApiError({
            kind: 'schema',
            endpoint: 'merchantHistory',
            retryable: true,
            message: `the service's answers kept changing how its history must be read (${e.message}); it will be read again`
          })
      }
    }
  }
}
