// The order monitor of one profile: history sync per (type, fiat type) on a timer, the
// watch poller for pinned orders, and the webhook fast path, all turned into typed events
// (order created, status changed, terminal reached, sync state). Timers and the clock are
// injectable; stop() aborts every request in flight and waits for it to settle.
//
// lagMs in SyncState is the time since the last COMPLETE sync of that scope (now -
// lastSuccessAt): how stale the local copy may be. "now - newest updatedAt seen" would
// instead grow forever for a merchant with no new orders, although nothing is missed.
import { randomUUID } from 'node:crypto'
import type { Timers } from '../api/rate-budget'
import { toErrorInfo, type ApiErrorInfo } from '../../shared/api/errors'
import type { OfframpOrder, OnrampOrder } from '../../shared/api/schemas'
import { statusInfo, type StatusTone } from '../../shared/domain/status'
import { EVERY_FIAT_TYPE, fiatScope } from '../../shared/domain/fiat-scope'
import type {
  Coverage,
  EventPayload,
  OrderCheck,
  OrderRow,
  OrderType,
  ScopeCoverage,
  Settings,
  StatusSource,
  SyncState
} from '../../shared/ipc/contract'
import type { LocalStore } from '../store/local-store'
import type { OrderSummary, StatusChange } from '../store/orders-repo'
import type { BodyIdentity } from '../webhooks/body-identity'
import type { VerifiedOrders } from '../webhooks/verified-orders'
import { toContractRow } from '../order-rows'
import { HistorySync, type HistoryClient, type PageApplied, type SyncMode } from './history-sync'
import { HistoryReadings } from './history-readings'
import { ScopeDiscovery } from './scope-discovery'
import { CompletenessAudit } from './completeness-audit'
import { FreshnessSweeper } from './freshness'
import { buildCoverage, SpendLog } from './coverage'
import { realTimers, WatchPoller, type WatchClient, type WatchSchedule } from './watches'
import { serviceAbortController } from '../abort'
import { WebhookIngest, type WebhookOutcome, type WebhookStatusOutcome } from './webhook-ingest'
import { checkOrderNow } from './order-check'

export type MonitorClient = HistoryClient & WatchClient

export interface OrderTerminalEvent {
  row: OrderRow
  status: number
  tone: StatusTone
  source: StatusSource
}

export interface MonitorEvents {
  'order:created': EventPayload<'order:created'>
  'order:changed': EventPayload<'order:changed'>
  /** Not a contract event: for notifications and the tray. */
  'order:terminal': OrderTerminalEvent
  'sync:state': SyncState
  'coverage:changed': Coverage
}
export type MonitorEventName = keyof MonitorEvents
/** The events that are also contract events (forwarded to windows). */
export type MonitorContractEvent = Exclude<MonitorEventName, 'order:terminal'>

/** The monitor's schedule from the operator's settings: what a profile session (and a bench of it) runs with. */
export function monitorSchedule(
  s: Pick<Settings, 'historyPollSeconds' | 'watchPollSeconds' | 'reconcileHours' | 'fiatTypes' | 'freshnessMinutes'>
): Pick<OrderMonitorOptions, 'historyPollMs' | 'watchPollMs' | 'reconcileWindowMs' | 'fiatTypes' | 'freshnessMs'> {
  return {
    historyPollMs: s.historyPollSeconds * 1000,
    watchPollMs: s.watchPollSeconds * 1000,
    reconcileWindowMs: s.reconcileHours * 3_600_000,
    fiatTypes: s.fiatTypes,
    freshnessMs: s.freshnessMinutes * 60_000
  }
}

/** How often an empty scope is probed again (a new fiat's orders appear within it). */
export const SCOPE_PROBE_EVERY_MS = 10 * 60_000
/** How often each synced scope is audited for completeness. */
export const AUDIT_EVERY_MS = 30 * 60_000

export interface OrderMonitorOptions {
  client: MonitorClient
  store: Pick<LocalStore, 'orders' | 'watches' | 'syncCursors'>
  /**
   * Without `discover`: the fiat types to sync history for (onramp for each, offramp for
   * those also in offrampFiatTypes). With it, only the operator's preference (what is
   * listed first): every scope the service holds orders in is found and synced.
   */
  fiatTypes: readonly number[]
  /**
   * Scopes found rather than configured (scope-discovery.ts): every fiat id `fiats()`
   * names, both types, probed; the empty ones again every probeEveryMs.
   */
  discover?: { fiats: () => readonly number[]; probeEveryMs?: number }
  /** Audit every synced scope's completeness this often (completeness-audit.ts). Off when absent. */
  auditEveryMs?: number
  /** Confirm every open order's status at least this often (freshness.ts). Off when absent. */
  freshnessMs?: number
  /** What the profile's service was found to do (history-readings.ts). Default: learned in memory. */
  readings?: HistoryReadings
  /** Check readings with probes before relying on them (history-probes.ts). Default false. */
  probes?: boolean
  /**
   * Fiat types offramp exists for. Default [1] (INR): the spec supports offramp in the INR
   * pair only (4.9, 8), so an offramp scope for any other fiat is empty, and learning that
   * costs one request per fiat on every poll, forever. A deployment that does sell offramp
   * in another fiat lists it here (or 'all' to sync offramp for every fiat in fiatTypes).
   */
  offrampFiatTypes?: readonly number[] | 'all'
  /**
   * Scopes syncing at once at most. Default 1. A first sync parses 500-record pages per
   * scope, and V8 keeps the heap it grew to committed, so RSS grew with the scopes in
   * flight. History bench, 100,000 orders, 9 scopes: peak RSS 143-145 MB one at a time,
   * 162-174 MB two at a time, 181-222 MB all at once; first sync 17-18 s either way on
   * loopback. Off loopback the default budget paces merchantHistory at 120/min, which
   * one scope at a time already fills. Runs beyond the limit wait their turn.
   */
  maxConcurrentScopes?: number
  historyPollMs: number
  watchPollMs: number
  now?: () => number
  timers?: Timers
  /** Contract events only (order:created, order:changed, sync:state); see on() for all. */
  onEvent?: <E extends MonitorContractEvent>(event: E, payload: MonitorEvents[E]) => void
  /** Default 500. */
  pageSize?: number
  /** How far before the cursor each poll starts (history-sync.ts). Default 2 minutes. */
  lookbackMs?: number
  /** The service's clock as the client estimates it: a poll's look-back starts no later than it (history-sync.ts). */
  serviceNow?: () => number
  /** How far back a reconcile pass reads. Default 24 hours. */
  reconcileWindowMs?: number
  /** How often each scope's recent window is read again end to end. Default 1 hour. */
  reconcileEveryMs?: number
  /** First retry after a failed sync; doubles per failure. Default 5 s. */
  retryBaseMs?: number
  /** Longest wait between failed syncs. Default max(historyPollMs, 5 min). */
  retryMaxMs?: number
  /**
   * No per-order 'order:created' during a scope's first sync (it would be every historical
   * order); progress is reported through sync:state instead. Default true.
   */
  quietInitialSync?: boolean
}

interface Scope {
  type: OrderType
  fiatType: number
  timer: unknown
  run: Promise<void> | null
  failures: number
  cursor: string | null
  lastSuccessAt: number | null
  nextRunAt: number | null
  lastError: ApiErrorInfo | null
  progress: { pages: number; orders: number } | null
  /** What the run in progress does; null when none runs. */
  mode: SyncMode | null
  lastReconcileAt: number | null
  /** The operator asked for a full re-read: the next run of this scope is one. */
  fullRequested: boolean
  /** The monitor's write count when this scope's sync last wrote an order (0: not since the start). */
  lastWrite: number
  /** A run asked for by the audit: its mode and progress per page. */
  forced: { mode: 'poll' | 'full'; onPage?: (p: PageApplied) => void; done: (read: boolean) => void } | null
}

const scopeKey = (type: number, fiatType: number) => `${type}:${fiatType}`

function parseStoredError(text: string | null): ApiErrorInfo | null {
  if (!text) return null
  try {
    return toErrorInfo(JSON.parse(text))
  } catch {
    return { kind: 'network', message: text, retryable: true }
  }
}

export class OrderMonitor implements VerifiedOrders {
  private readonly now: () => number
  private readonly timers: Timers
  private readonly history: HistorySync
  private readonly watches: WatchPoller
  private readonly scopes = new Map<string, Scope>()
  private readonly listeners = new Map<MonitorEventName, Set<(p: never) => void>>()
  private historyPollMs: number
  /** The fiat types the operator prefers (listed first; with discovery they decide nothing synced). */
  private preferred: readonly number[]
  private controller = serviceAbortController()
  private started = false
  private readonly maxConcurrent: number
  private active = 0
  private readonly waiting: Array<() => void> = []
  /** Names this start of the monitor in every scope's writeMark, so a restart never repeats a mark. */
  private readonly startId = randomUUID().slice(0, 8)
  /** Pages that wrote orders, across scopes: a scope's mark never comes back to an earlier value. */
  private writes = 0
  readonly readings: HistoryReadings
  private readonly discovery: ScopeDiscovery | null
  private readonly audit: CompletenessAudit | null
  private readonly freshness: FreshnessSweeper | null
  private readonly spend: SpendLog
  private readonly webhooks: WebhookIngest
  private coverageTimer: unknown = undefined

  constructor(private readonly o: OrderMonitorOptions) {
    this.now = o.now ?? (() => Date.now())
    this.timers = o.timers ?? realTimers
    this.historyPollMs = o.historyPollMs
    this.preferred = o.fiatTypes
    this.maxConcurrent = Math.max(1, o.maxConcurrentScopes ?? 1)
    this.readings = o.readings ?? new HistoryReadings(null, this.now)
    this.spend = new SpendLog(this.now)
    this.history = new HistorySync({
      client: o.client,
      store: o.store,
      pageSize: o.pageSize,
      lookbackMs: o.lookbackMs,
      serviceNow: o.serviceNow,
      reconcileWindowMs: o.reconcileWindowMs,
      now: this.now,
      readings: this.readings,
      probes: o.probes ?? false,
      requestFiatOf: (type) => this.requestFiat(type, EVERY_FIAT_TYPE),
      onProbeRequest: (n) => this.spend.add('reading', n)
    })
    this.discovery = o.discover
      ? new ScopeDiscovery({
          client: o.client,
          fiats: o.discover.fiats,
          held: (type) => this.heldFiats(type),
          probeEveryMs: o.discover.probeEveryMs ?? SCOPE_PROBE_EVERY_MS,
          now: this.now,
          timers: this.timers,
          onActive: (type, fiat) => this.addScope(type, fiat),
          onChange: () => this.coverageChanged(),
          onRequest: () => this.spend.add('probe'),
          merged: (type) => this.readings.fiatIgnored(type),
          firstPage: () => this.readings.firstPageWire()
        })
      : null
    this.audit =
      o.auditEveryMs !== undefined
        ? new CompletenessAudit({
            client: o.client,
            readings: this.readings,
            pageSize: this.history.pageSize,
            everyMs: o.auditEveryMs,
            // Records held but unreadable count: the service's count includes them.
            // Orders the service said it no longer has do not: it counts them no more.
            // Counted from the rows (the counts table checked on the way): what is proved complete is what is held.
            localCount: (type, fiat) =>
              o.store.orders.countScope(type, fiatScope(fiat), { unreadable: true, listedOnly: true, fromRows: true }),
            requestFiat: (type, fiat) => this.requestFiat(type, fiat),
            sync: (type, fiat, mode, onPage) => this.forcedRun(type, fiat, mode, onPage),
            unlisted: (type, fiat, listed, limit) => o.store.orders.unlisted(type, fiatScope(fiat), listed, limit),
            markGone: (type, orderId) => o.store.orders.markGone(type, orderId),
            now: this.now,
            timers: this.timers,
            onChange: () => this.coverageChanged(),
            onRequest: () => this.spend.add('audit')
          })
        : null
    this.freshness =
      o.freshnessMs !== undefined
        ? new FreshnessSweeper({
            client: o.client,
            store: o.store,
            boundMs: o.freshnessMs,
            now: this.now,
            timers: this.timers,
            onRequest: () => this.spend.add('freshness'),
            onStatus: ({ result }) => {
              if (result.change) this.statusChanged(result.change, 'watch')
            }
          })
        : null
    this.readings.onChange(() => {
      this.mergeIgnoredFiats()
      this.coverageChanged()
    })
    this.watches = new WatchPoller({
      client: o.client,
      store: o.store,
      pollMs: o.watchPollMs,
      now: this.now,
      timers: this.timers,
      onStatus: ({ result }) => {
        if (result.change) this.statusChanged(result.change, 'watch')
      }
    })
    this.webhooks = new WebhookIngest({
      client: o.client,
      orders: o.store.orders,
      signal: () => (this.started ? this.controller.signal : null),
      syncSoon: (type, fiat) => {
        for (const s of this.scopes.values())
          if (type === undefined || (s.type === type && (fiat === undefined || s.fiatType === fiat || s.fiatType === EVERY_FIAT_TYPE)))
            this.soon(s)
      },
      reveal: (type, fiat) => (fiat === undefined ? this.discovery?.revealType(type) : this.discovery?.reveal(type, fiat, 'webhook')),
      changed: (c, source) => this.statusChanged(c, source)
    })
    if (!this.discovery) this.setScopes(o.fiatTypes)
  }

  // ---------------------------------------------------------------- lifecycle

  /** Starts syncing every scope now and polling pinned orders. Idempotent. */
  start(): void {
    if (this.started) return
    this.started = true
    if (this.controller.signal.aborted) this.controller = serviceAbortController()
    for (const s of this.scopes.values()) this.arm(s, 0)
    this.watches.start(this.controller.signal)
    this.discovery?.start(this.controller.signal)
    this.mergeIgnoredFiats()
    this.audit?.start(this.controller.signal)
    this.freshness?.start(this.controller.signal)
  }

  /** Stops timers, aborts requests in flight and waits until they have settled. */
  async stop(): Promise<void> {
    this.started = false
    for (const s of this.scopes.values()) this.disarm(s)
    this.controller.abort()
    if (this.coverageTimer !== undefined) this.timers.clearTimeout(this.coverageTimer)
    this.coverageTimer = undefined
    await Promise.allSettled([
      this.watches.stop(),
      this.discovery?.stop(),
      this.audit?.stop(),
      this.freshness?.stop(),
      this.webhooks.settle(),
      ...[...this.scopes.values()].map((s) => s.run)
    ])
  }

  /**
   * Runs every scope now; resolves with the states after. A run already going is joined,
   * and when it ends in an error (it started while the service was down, and may have
   * spent the outage in its retries) the scope runs once more at once: "Try again now"
   * tries again, it does not wait for that scope's next turn after its back-off.
   */
  async syncNow(): Promise<SyncState[]> {
    if (this.controller.signal.aborted) this.controller = serviceAbortController()
    // The scopes known run at once; those found by probing what is not probed yet follow.
    const known = [...this.scopes.values()].map((s) => this.runAfresh(s))
    await this.discovery?.settle()
    await Promise.allSettled([...known, ...[...this.scopes.values()].map((s) => this.runScope(s))])
    return this.states()
  }

  /** Runs the scope now, or joins its run and runs it again if that run failed. */
  private async runAfresh(s: Scope): Promise<void> {
    if (s.run) {
      await s.run
      if (s.lastError === null || this.controller.signal.aborted) return
    }
    await this.runScope(s)
  }

  /**
   * Reads every scope's whole history again (the operator's "Re-sync everything"), with
   * progress in sync:state; cheap in writes when nothing changed (identical records are
   * recognised by hash). Resolves with the states after.
   */
  async resyncAll(): Promise<SyncState[]> {
    if (this.controller.signal.aborted) this.controller = serviceAbortController()
    for (const s of this.scopes.values()) s.fullRequested = true
    await Promise.allSettled(
      [...this.scopes.values()].map(async (s) => {
        // A run already going finishes first; the full pass follows it.
        if (s.run) await s.run
        if (s.fullRequested) await this.runScope(s)
      })
    )
    return this.states()
  }

  /** The machine woke or the network came back: sync every scope and poll every pinned order now, not at the next interval. */
  wake(): void {
    if (!this.started) return
    this.watches.dueNow()
    void this.syncNow()
  }

  configure(o: {
    historyPollMs?: number
    watchPollMs?: number
    reconcileWindowMs?: number
    fiatTypes?: readonly number[]
    freshnessMs?: number
  }): void {
    if (o.watchPollMs !== undefined) this.watches.configure({ pollMs: o.watchPollMs })
    if (o.reconcileWindowMs !== undefined) this.history.reconcileWindowMs = o.reconcileWindowMs
    if (o.historyPollMs !== undefined) this.historyPollMs = o.historyPollMs
    if (o.freshnessMs !== undefined) this.freshness?.configure({ boundMs: o.freshnessMs })
    // With discovery the fiat types are a preference only: they decide nothing synced, the order scopes are listed in.
    if (o.fiatTypes) {
      this.preferred = o.fiatTypes
      if (!this.discovery) this.setScopes(o.fiatTypes)
      else this.coverageChanged()
    }
    if (!this.started) return
    const now = this.now()
    for (const s of this.scopes.values()) {
      if (s.run) continue
      const due = s.failures > 0 ? (s.nextRunAt ?? now) : s.lastSuccessAt === null ? now : s.lastSuccessAt + this.historyPollMs
      this.arm(s, Math.max(0, due - now))
    }
  }

  // ---------------------------------------------------------------- state and events

  states(): SyncState[] {
    const now = this.now()
    return [...this.scopes.values()].map((s) => this.stateOf(s, now))
  }

  /** Subscribes to a monitor event (contract events and 'order:terminal'); returns the unsubscribe function. */
  on<E extends MonitorEventName>(event: E, listener: (payload: MonitorEvents[E]) => void): () => void {
    let set = this.listeners.get(event)
    if (!set) this.listeners.set(event, (set = new Set()))
    set.add(listener as (p: never) => void)
    return () => set.delete(listener as (p: never) => void)
  }

  /** Scopes, readings, freshness and every known gap (coverage.ts). */
  coverage(): Coverage {
    return buildCoverage({
      scopes: this.scopeCoverage(),
      readings: this.readings.state(),
      probes: this.o.probes ?? false,
      freshness: this.freshness?.info() ?? {
        boundMinutes: 0,
        open: 0,
        stale: 0,
        oldestConfirmedAt: null,
        lastSweepAt: null,
        error: null
      },
      spent: this.spend.lastHour(),
      probeError: this.discovery?.latestError() ?? null,
      now: this.now()
    })
  }

  /** The configuration named new fiat ids (or arrived): probe them. */
  configChanged(): void {
    this.discovery?.refresh()
  }

  /** An order of this type was searched for and is not held: probe the type's empty scopes now. */
  revealSearch(type: OrderType): void {
    this.discovery?.revealType(type)
  }

  /** Every scope's completeness checked now; differences repaired in the background. */
  auditNow(): Promise<void> {
    return this.audit?.checkNow() ?? Promise.resolve()
  }

  /** One freshness sweep now (tests and a wake). */
  sweepFreshness(): Promise<void> {
    return this.freshness?.sweep() ?? Promise.resolve()
  }

  /** Where each pinned, non-terminal order stands in the poll schedule. */
  watchSchedule(): WatchSchedule[] {
    return this.watches.schedule()
  }

  // ---------------------------------------------------------------- operator actions and the fast path

  /** The operator's "Check now": the order's status from the service at once (order-check.ts). */
  checkOrder(type: OrderType, orderId: number): Promise<OrderCheck> {
    return checkOrderNow(
      {
        client: this.o.client,
        orders: this.o.store.orders,
        // A stopped monitor (a hub that follows another) asks, and leaves keeping orders to the leader.
        keeps: this.started,
        ...(this.started ? { signal: this.controller.signal } : {}),
        now: this.now,
        changed: ({ change }) => change && this.statusChanged(change, 'watch')
      },
      type,
      orderId
    )
  }

  /** Pins an order and polls it right away (unless terminal). */
  watch(type: OrderType, orderId: number): void {
    this.o.store.watches.add(type, orderId)
    this.watches.watch(type, orderId)
  }

  unwatch(type: OrderType, orderId: number): void {
    this.o.store.watches.remove(type, orderId)
    this.watches.unwatch(type, orderId)
  }

  /** The webhook inbox's fast path for a VERIFIED whole record (webhook-ingest.ts). */
  ingestWebhook(type: OrderType, record: OnrampOrder | OfframpOrder, identity?: BodyIdentity): WebhookOutcome {
    return this.webhooks.record(type, record, identity)
  }

  /** The fast path for a VERIFIED webhook whose body is no whole record: its status alone (webhook-ingest.ts). */
  ingestWebhookStatus(type: OrderType, orderId: number, status: number, identity: BodyIdentity): WebhookStatusOutcome {
    return this.webhooks.status(type, orderId, status, identity)
  }

  // ---------------------------------------------------------------- internals

  private setScopes(fiatTypes: readonly number[]): void {
    const wanted = new Set<string>()
    const offramp = this.o.offrampFiatTypes ?? [1]
    for (const type of [1, 2] as const) {
      for (const fiatType of new Set(fiatTypes)) {
        if (type === 2 && offramp !== 'all' && !offramp.includes(fiatType)) continue
        wanted.add(scopeKey(type, fiatType))
        this.addScope(type, fiatType)
      }
    }
    for (const [k, s] of this.scopes) if (!wanted.has(k)) this.removeScope(s)
  }

  /** A scope to sync (at once when the monitor runs), unless it is synced already. */
  private addScope(type: OrderType, fiatType: number): void {
    const k = scopeKey(type, fiatType)
    if (this.scopes.has(k)) return
    // A service listing every fiat of the type together is synced as one scope.
    if (fiatType !== EVERY_FIAT_TYPE && this.readings.fiatIgnored(type)) return this.addScope(type, EVERY_FIAT_TYPE)
    const c = this.o.store.syncCursors.get(type, fiatType)
    const s: Scope = {
      type,
      fiatType,
      timer: undefined,
      run: null,
      failures: 0,
      cursor: c.cursor,
      lastSuccessAt: c.lastSuccessAt ? Date.parse(c.lastSuccessAt) : null,
      nextRunAt: null,
      lastError: parseStoredError(c.lastError),
      progress: null,
      mode: null,
      lastReconcileAt: c.lastReconcileAt ? Date.parse(c.lastReconcileAt) : null,
      fullRequested: false,
      lastWrite: 0,
      forced: null
    }
    this.scopes.set(k, s)
    if (s.lastSuccessAt !== null) this.audit?.track(type, fiatType, this.now() + this.firstAuditDelay())
    if (this.started) this.arm(s, 0)
    this.coverageChanged()
  }

  private removeScope(s: Scope): void {
    this.disarm(s)
    this.scopes.delete(scopeKey(s.type, s.fiatType))
    this.audit?.untrack(s.type, s.fiatType)
    this.coverageChanged()
  }

  /** A few minutes after start, so a restart does not audit every scope at once with the first syncs. */
  private firstAuditDelay(): number {
    return Math.min(this.o.auditEveryMs ?? 0, 5 * 60_000)
  }

  /** The service lists every fiat of a type together: its per-fiat scopes become one. */
  private mergeIgnoredFiats(): void {
    for (const type of [1, 2] as const) {
      if (!this.readings.fiatIgnored(type)) continue
      const split = [...this.scopes.values()].filter((s) => s.type === type && s.fiatType !== EVERY_FIAT_TYPE)
      if (split.length === 0) continue
      for (const s of split) if (!s.run) this.removeScope(s)
      this.addScope(type, EVERY_FIAT_TYPE)
    }
  }

  /** The fiat type sent for a scope: its own, or for every fiat together the first one held or preferred. */
  private requestFiat(type: OrderType, fiatType: number): number {
    if (fiatType !== EVERY_FIAT_TYPE) return fiatType
    return this.heldFiats(type)[0] ?? this.preferred[0] ?? 1
  }

  /** Fiats this database holds orders of, or a sync position for, per type. */
  private heldFiats(type: OrderType): number[] {
    const out = new Set<number>()
    for (const c of this.o.store.orders.fiatCounts(type)) if (c.fiatType !== null && c.fiatType > 0) out.add(c.fiatType)
    for (const c of this.o.store.syncCursors.list()) if (c.type === type && c.cursor !== null && c.fiatType > 0) out.add(c.fiatType)
    return [...out].sort((a, b) => a - b)
  }

  private scopeCoverage(): ScopeCoverage[] {
    const out = new Map<string, ScopeCoverage>()
    const none: ScopeCoverage['audit'] = {
      state: 'unchecked',
      serviceOrders: null,
      checkedAt: null,
      nextAt: null,
      repair: null,
      error: null
    }
    const counts = new Map<OrderType, Map<number | null, number>>()
    const held = (type: OrderType, fiat: number): number => {
      let m = counts.get(type)
      if (!m) counts.set(type, (m = new Map(this.o.store.orders.fiatCounts(type).map((c) => [c.fiatType, c.orders]))))
      return fiat === EVERY_FIAT_TYPE ? [...m.values()].reduce((a, b) => a + b, 0) : (m.get(fiat) ?? 0)
    }
    for (const c of this.discovery?.list() ?? []) {
      if (this.readings.fiatIgnored(c.type)) continue
      out.set(scopeKey(c.type, c.fiatType), {
        type: c.type,
        fiatType: c.fiatType,
        probe: c.state,
        probedAt: c.probedAt,
        nextProbeAt: c.nextAt,
        orders: held(c.type, c.fiatType),
        audit: none,
        error: c.error,
        revealed: c.revealed
      })
    }
    for (const s of this.scopes.values()) {
      const k = scopeKey(s.type, s.fiatType)
      out.set(k, {
        ...(out.get(k) ?? { probedAt: null, nextProbeAt: null, error: null }),
        type: s.type,
        fiatType: s.fiatType,
        probe: 'active',
        orders: held(s.type, s.fiatType),
        audit: this.audit?.get(s.type, s.fiatType) ?? none
      })
    }
    const preferred = this.preferred
    const rank = (f: number) => (preferred.includes(f) ? preferred.indexOf(f) : preferred.length + f)
    return [...out.values()].sort((a, b) => a.type - b.type || rank(a.fiatType) - rank(b.fiatType))
  }

  /** Coverage changed: one coverage:changed event for the changes of the next quarter second. */
  private coverageChanged(): void {
    if (!this.started || this.coverageTimer !== undefined) return
    this.coverageTimer = this.timers.setTimeout(() => {
      this.coverageTimer = undefined
      if (this.started) this.emit('coverage:changed', this.coverage())
    }, 250)
  }

  /**
   * A run the audit asks for (a poll, or a full read with progress and the ids each page
   * listed), after any run in progress. Resolves true when it read its listing to the end.
   */
  private async forcedRun(type: OrderType, fiatType: number, mode: 'poll' | 'full', onPage?: (p: PageApplied) => void): Promise<boolean> {
    const s = this.scopes.get(scopeKey(type, fiatType))
    if (!s) return false
    if (s.run) await s.run
    return new Promise<boolean>((resolve) => {
      s.forced = { mode, onPage, done: resolve }
      void this.runScope(s)
    })
  }

  private stateOf(s: Scope, now: number): SyncState {
    return {
      type: s.type,
      fiatType: s.fiatType,
      cursor: s.cursor,
      lastSuccessAt: s.lastSuccessAt,
      nextRunAt: s.run ? null : s.nextRunAt,
      lagMs: s.lastSuccessAt === null ? null : Math.max(0, now - s.lastSuccessAt),
      running: s.run !== null,
      mode: s.run ? s.mode : null,
      progress: s.progress ? { ...s.progress } : null,
      lastError: s.lastError,
      lastReconcileAt: s.lastReconcileAt,
      writeMark: `${this.startId}:${s.lastWrite}`
    }
  }

  private emit<E extends MonitorEventName>(event: E, payload: MonitorEvents[E]): void {
    if (event !== 'order:terminal') this.o.onEvent?.(event as MonitorContractEvent, payload as MonitorEvents[MonitorContractEvent])
    for (const l of this.listeners.get(event) ?? []) (l as (p: MonitorEvents[E]) => void)(payload)
  }

  private emitState(s: Scope): void {
    this.emit('sync:state', this.stateOf(s, this.now()))
  }

  private disarm(s: Scope): void {
    if (s.timer !== undefined) this.timers.clearTimeout(s.timer)
    s.timer = undefined
  }

  private arm(s: Scope, delayMs: number): void {
    this.disarm(s)
    s.nextRunAt = this.now() + delayMs
    s.timer = this.timers.setTimeout(() => {
      s.timer = undefined
      if (this.started) void this.runScope(s)
    }, delayMs)
  }

  /** A sync of this scope shortly, unless one is running or already due sooner. */
  private soon(s: Scope): void {
    if (!this.started || s.run) return
    if (s.timer !== undefined && s.nextRunAt !== null && s.nextRunAt <= this.now()) return
    this.arm(s, 0)
  }

  /** What the next run of a scope does: a full pass if asked for, a reconcile when one is due, else a poll. */
  private modeFor(s: Scope, cursor: string | null): SyncMode {
    if (s.fullRequested) return 'full'
    if (cursor === null) return 'poll'
    const every = this.o.reconcileEveryMs ?? 60 * 60_000
    return s.lastReconcileAt === null || this.now() - s.lastReconcileAt >= every ? 'reconcile' : 'poll'
  }

  private runScope(s: Scope): Promise<void> {
    if (s.run) return s.run
    this.disarm(s)
    const signal = this.controller.signal
    const cursor = this.o.store.syncCursors.get(s.type, s.fiatType).cursor
    const quiet = (this.o.quietInitialSync ?? true) && cursor === null
    const forced = s.forced
    s.forced = null
    const mode = forced?.mode ?? this.modeFor(s, cursor)
    if (mode === 'full') s.fullRequested = false
    else if (!forced) s.fullRequested = false
    s.mode = mode
    s.progress = { pages: 0, orders: 0 }
    // Whether the run read its listing to the end (what the audit asked for is done).
    let read = false
    s.run = (async () => {
      let slot = false
      try {
        await this.acquire(signal)
        slot = true
        signal.throwIfAborted()
        const r = await this.history.run(s.type, s.fiatType, {
          mode,
          signal,
          // The audit's repair reads a whole scope behind every poll.
          ...(forced?.mode === 'full' ? { priority: 'low' as const } : {}),
          onPage: (p) => {
            this.pageApplied(s, p, quiet)
            forced?.onPage?.(p)
          }
        })
        read = true
        const at = this.now()
        // First success of a scope: audited from now on.
        if (s.lastSuccessAt === null) this.audit?.track(s.type, s.fiatType, at + this.firstAuditDelay())
        s.failures = 0
        s.lastError = null
        s.lastSuccessAt = at
        s.nextRunAt = at + this.historyPollMs
        // A first sync or a full pass read everything: as good as a reconcile.
        const reconciled = mode !== 'poll' || r.startedFrom === null
        if (reconciled) s.lastReconcileAt = at
        this.o.store.syncCursors.markSuccess(s.type, s.fiatType, {
          at: new Date(at).toISOString(),
          nextRunAt: new Date(s.nextRunAt).toISOString(),
          reconciled
        })
      } catch (e) {
        if (signal.aborted) return
        // A full pass that failed is still owed.
        if (mode === 'full') s.fullRequested = true
        const info = toErrorInfo(e)
        s.failures++
        s.lastError = info
        const base = this.o.retryBaseMs ?? 5_000
        const max = this.o.retryMaxMs ?? Math.max(this.historyPollMs, 5 * 60_000)
        let delay = Math.min(max, base * 2 ** (s.failures - 1))
        if (info.kind === 'rate_limited' && info.nextSlotAt) delay = Math.max(delay, info.nextSlotAt - this.now())
        s.nextRunAt = this.now() + delay
        this.o.store.syncCursors.markError(s.type, s.fiatType, JSON.stringify(info), { nextRunAt: new Date(s.nextRunAt).toISOString() })
      } finally {
        if (slot) this.release()
      }
    })().finally(() => {
      s.run = null
      s.progress = null
      s.mode = null
      forced?.done(read)
      // A scope merged into its type's every-fiat scope while it ran goes now.
      if (s.fiatType !== EVERY_FIAT_TYPE && this.readings.fiatIgnored(s.type)) this.mergeIgnoredFiats()
      this.coverageChanged()
      if (this.started && !signal.aborted && this.scopes.get(scopeKey(s.type, s.fiatType)) === s) {
        this.arm(s, Math.max(0, (s.nextRunAt ?? this.now()) - this.now()))
      }
      this.emitState(s)
    })
    // Only now is s.run set: emitted from inside the run, the start would read "not running".
    this.emitState(s)
    return s.run
  }

  /** Waits for one of maxConcurrentScopes slots (at once if free); an abort ends the wait. */
  private acquire(signal: AbortSignal): Promise<void> {
    if (this.active < this.maxConcurrent) {
      this.active++
      return Promise.resolve()
    }
    return new Promise<void>((resolve, reject) => {
      const onAbort = () => {
        const i = this.waiting.indexOf(take)
        if (i >= 0) this.waiting.splice(i, 1)
        reject(signal.reason as Error)
      }
      // A released slot passes straight to the next waiter, so `active` stays counted.
      const take = () => {
        signal.removeEventListener('abort', onAbort)
        resolve()
      }
      if (signal.aborted) return onAbort()
      signal.addEventListener('abort', onAbort, { once: true })
      this.waiting.push(take)
    })
  }

  private release(): void {
    const next = this.waiting.shift()
    if (next) next()
    else this.active--
  }

  private pageApplied(s: Scope, p: PageApplied, quiet: boolean): void {
    const r = p.result
    s.cursor = r.cursor.cursor
    s.progress = { pages: p.pages, orders: p.orders }
    if (r.created.length > 0 || r.statusChanged.length > 0 || r.updated.length > 0) s.lastWrite = ++this.writes
    if (!quiet) for (const c of r.created) this.created(c)
    for (const c of r.statusChanged) this.statusChanged(c, 'sync')
    // A record of another fiat than the scope's reveals orders there.
    if (s.fiatType !== EVERY_FIAT_TYPE)
      for (const c of r.created) if (c.fiatType !== null && c.fiatType !== s.fiatType) this.discovery?.reveal(c.type, c.fiatType, 'record')
    this.emitState(s)
  }

  private row(type: OrderType, orderId: number): OrderRow | null {
    const r = this.o.store.orders.get(type, orderId)
    return r ? toContractRow(r, this.o.store.watches.has(type, orderId)) : null
  }

  private created(c: OrderSummary): void {
    const row = this.row(c.type, c.orderId)
    if (row) this.emit('order:created', row)
  }

  private statusChanged(c: StatusChange, source: StatusSource): void {
    this.watches.noteChange(c.type, c.orderId, c.new)
    const row = this.row(c.type, c.orderId)
    if (!row) return
    const info = statusInfo(c.type, c.new)
    this.emit('order:changed', { row, oldStatus: c.old, newStatus: c.new, terminal: info.terminal })
    if (info.terminal) this.emit('order:terminal', { row, status: c.new, tone: info.tone, source })
  }
}
