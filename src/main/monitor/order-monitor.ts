// The order monitor of one profile: history sync per (type, fiat type) on a timer
// (scope-scheduler.ts), the watch poller for pinned orders, and the webhook fast path, all
// turned into typed events (monitor-events.ts: order created, status changed, terminal
// reached, sync state). Timers and the clock are injectable; stop() aborts every request in
// flight and waits for it to settle.
//
// lagMs in SyncState is the time since the last COMPLETE sync of that scope (now -
// lastSuccessAt): how stale the local copy may be. "now - newest updatedAt seen" would
// instead grow forever for a merchant with no new orders, although nothing is missed.
import { randomUUID } from 'node:crypto'
import type { Timers } from '../api/rate-budget'
import type { OfframpOrder, OnrampOrder } from '../../shared/api/schemas'
import { EVERY_FIAT_TYPE, fiatScope } from '../../shared/domain/fiat-scope'
import type { Coverage, OrderCheck, OrderType, ScopeCoverage, Settings, StatusSource, SyncState } from '../../shared/ipc/contract'
import type { LocalStore } from '../store/local-store'
import type { StatusChange, StoredOrder } from '../store/orders-repo'
import type { BodyIdentity } from '../webhooks/body-identity'
import type { VerifiedOrders } from '../webhooks/verified-orders'
import { HistorySync, type HistoryClient } from './history-sync'
import { HistoryReadings } from './history-readings'
import { ScopeDiscovery } from './scope-discovery'
import { CompletenessAudit } from './completeness-audit'
import { FreshnessSweeper } from './freshness'
import { buildCoverage, SpendLog } from './coverage'
import { realTimers, WatchPoller, type WatchClient, type WatchSchedule } from './watches'
import { serviceAbortController } from '../abort'
import { WebhookIngest, type WebhookOutcome, type WebhookStatusOutcome } from './webhook-ingest'
import { checkOrderNow } from './order-check'
import { MonitorEventBus, type ContractEventSink, type MonitorEventName, type MonitorEvents } from './monitor-events'
import { ScopeScheduler } from './scope-scheduler'
import { scopeKey } from './sync-scope'

export type { MonitorContractEvent, MonitorEventName, MonitorEvents, OrderTerminalEvent } from './monitor-events'

export type MonitorClient = HistoryClient &
  WatchClient & {
    /** While the service could not be reached, the next request finds out at once (ApiClient.probeNow). */
    probeNow?(): void
  }

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
/** How long after a start the scopes synced before it are first audited (at most AUDIT_EVERY_MS). */
export const RESTART_AUDIT_DELAY_MS = 5 * 60_000

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
  onEvent?: ContractEventSink
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

export class OrderMonitor implements VerifiedOrders {
  private readonly now: () => number
  private readonly timers: Timers
  private readonly history: HistorySync
  private readonly watches: WatchPoller
  private readonly scheduler: ScopeScheduler
  private readonly events: MonitorEventBus
  /** The fiat types the operator prefers (listed first; with discovery they decide nothing synced). */
  private preferred: readonly number[]
  private controller = serviceAbortController()
  private started = false
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
    this.preferred = o.fiatTypes
    this.events = new MonitorEventBus(o.store, o.onEvent)
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
    this.scheduler = new ScopeScheduler({
      store: o.store,
      history: this.history,
      historyPollMs: o.historyPollMs,
      retryBaseMs: o.retryBaseMs,
      retryMaxMs: o.retryMaxMs,
      reconcileEveryMs: o.reconcileEveryMs,
      quietInitialSync: o.quietInitialSync,
      maxConcurrentScopes: o.maxConcurrentScopes,
      // Names this start of the monitor in every scope's writeMark, so a restart never repeats a mark.
      startId: randomUUID().slice(0, 8),
      now: this.now,
      timers: this.timers,
      running: () => ({ started: this.started, signal: this.controller.signal }),
      fiatIgnored: (type) => this.readings.fiatIgnored(type),
      track: (type, fiat, at) => this.audit?.track(type, fiat, at),
      untrack: (type, fiat) => this.audit?.untrack(type, fiat),
      reveal: (type, fiat) => this.discovery?.reveal(type, fiat, 'record'),
      created: (c) => this.events.created(c),
      statusChanged: (c, source) => this.statusChanged(c, source),
      syncState: (state) => {
        this.events.emit('sync:state', state)
        // A run ended: the checks held while first syncs ran may go now.
        if (!state.running) this.audit?.wake()
      },
      coverageChanged: () => this.coverageChanged(),
      // After a first sync: at once (the audit holds it until no first sync is left), so the
      // operator reads "All orders here" soon after the orders arrive, not minutes later.
      // After a restart: a few minutes, so the scopes are not all audited with the first polls.
      firstAuditDelay: (after) => (after === 'firstSync' ? 0 : Math.min(this.o.auditEveryMs ?? 0, RESTART_AUDIT_DELAY_MS))
    })
    this.discovery = o.discover
      ? new ScopeDiscovery({
          client: o.client,
          fiats: o.discover.fiats,
          held: (type) => this.heldFiats(type),
          probeEveryMs: o.discover.probeEveryMs ?? SCOPE_PROBE_EVERY_MS,
          now: this.now,
          timers: this.timers,
          onActive: (type, fiat) => this.scheduler.addScope(type, fiat),
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
            sync: (type, fiat, mode, onPage) => this.scheduler.forcedRun(type, fiat, mode, onPage),
            unlisted: (type, fiat, listed, limit) => o.store.orders.unlisted(type, fiatScope(fiat), listed, limit),
            markGone: (type, orderId) => o.store.orders.markGone(type, orderId),
            now: this.now,
            timers: this.timers,
            onChange: () => this.coverageChanged(),
            onRequest: () => this.spend.add('audit'),
            hold: () => this.scheduler.inFirstSync()
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
      this.scheduler.mergeIgnoredFiats()
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
      syncSoon: (type, fiat) => this.scheduler.syncSoon(type, fiat),
      reveal: (type, fiat) => (fiat === undefined ? this.discovery?.revealType(type) : this.discovery?.reveal(type, fiat, 'webhook')),
      changed: (c, source, written) => this.statusChanged(c, source, written)
    })
    if (!this.discovery) this.setScopes(o.fiatTypes)
  }

  private setScopes(fiatTypes: readonly number[]): void {
    this.scheduler.setScopes(fiatTypes, this.o.offrampFiatTypes ?? [1])
  }

  // ---------------------------------------------------------------- lifecycle

  /** Starts syncing every scope now and polling pinned orders. Idempotent. */
  start(): void {
    if (this.started) return
    this.started = true
    if (this.controller.signal.aborted) this.controller = serviceAbortController()
    this.scheduler.armAll()
    this.watches.start(this.controller.signal)
    this.discovery?.start(this.controller.signal)
    this.scheduler.mergeIgnoredFiats()
    this.audit?.start(this.controller.signal)
    this.freshness?.start(this.controller.signal)
  }

  /** Stops timers, aborts requests in flight and waits until they have settled. */
  async stop(): Promise<void> {
    this.started = false
    this.scheduler.disarmAll()
    this.controller.abort()
    if (this.coverageTimer !== undefined) this.timers.clearTimeout(this.coverageTimer)
    this.coverageTimer = undefined
    await Promise.allSettled([
      this.watches.stop(),
      this.discovery?.stop(),
      this.audit?.stop(),
      this.freshness?.stop(),
      this.webhooks.settle(),
      ...this.scheduler.runs()
    ])
  }

  /**
   * Runs every scope now; resolves with the states after. A run already going is joined and
   * followed at once by one that starts after the call: the one going may have read its
   * listing before the network came back, or spent the outage in its retries ("Try again
   * now" tries again, it does not wait for that scope's next turn after its back-off).
   */
  async syncNow(): Promise<SyncState[]> {
    if (this.controller.signal.aborted) this.controller = serviceAbortController()
    this.o.client.probeNow?.()
    // The scopes known run at once; those found by probing what is not probed yet follow.
    const scopes = this.scheduler.scopes
    const ran = new Set(scopes.values())
    const known = [...ran].map((s) => this.scheduler.runAfresh(s))
    await this.discovery?.settle()
    const found = [...scopes.values()].filter((s) => !ran.has(s))
    await Promise.allSettled([...known, ...found.map((s) => this.scheduler.runScope(s))])
    return this.states()
  }

  /**
   * Reads every scope's whole history again (the operator's "Re-sync everything"), with
   * progress in sync:state; cheap in writes when nothing changed (identical records are
   * recognised by hash). Resolves with the states after.
   */
  async resyncAll(): Promise<SyncState[]> {
    if (this.controller.signal.aborted) this.controller = serviceAbortController()
    this.o.client.probeNow?.()
    await this.scheduler.resyncAll()
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
    if (o.freshnessMs !== undefined) this.freshness?.configure({ boundMs: o.freshnessMs })
    // With discovery the fiat types are a preference only: they decide nothing synced, the order scopes are listed in.
    if (o.fiatTypes) {
      this.preferred = o.fiatTypes
      if (!this.discovery) this.setScopes(o.fiatTypes)
      else this.coverageChanged()
    }
    this.scheduler.configure(o.historyPollMs)
  }

  // ---------------------------------------------------------------- state and events

  states(): SyncState[] {
    return this.scheduler.states()
  }

  /** Subscribes to a monitor event (contract events and 'order:terminal'); returns the unsubscribe function. */
  on<E extends MonitorEventName>(event: E, listener: (payload: MonitorEvents[E]) => void): () => void {
    return this.events.on(event, listener)
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
    this.o.client.probeNow?.()
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
    for (const s of this.scheduler.scopes.values()) {
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
      if (this.started) this.events.emit('coverage:changed', this.coverage())
    }, 250)
  }

  private statusChanged(c: StatusChange, source: StatusSource, written?: StoredOrder): void {
    this.watches.noteChange(c.type, c.orderId, c.new)
    this.events.statusChanged(c, source, written)
  }
}
