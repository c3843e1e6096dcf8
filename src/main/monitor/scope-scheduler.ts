// When each history scope syncs: on a timer per scope, every historyPollMs after a success
// and with a doubling back-off after failures; a reconcile of the recent window when one
// is due, a full pass when the operator or the audit asks; at most maxConcurrentScopes at
// once, the rest waiting their turn. The runs themselves are history-sync.ts's.
import { toErrorInfo } from '../../shared/api/errors'
import { EVERY_FIAT_TYPE } from '../../shared/domain/fiat-scope'
import type { OrderType, StatusSource, SyncState } from '../../shared/ipc/contract'
import type { Timers } from '../api/timers'
import type { LocalStore } from '../store/local-store'
import type { OrderSummary, StatusChange } from '../store/orders-repo'
import type { HistorySync, PageApplied, SyncMode } from './history-sync'
import { failuresOf, newScope, runOf, scopeKey, stateOf, waitingOf, type Scope, type WaitingPhase } from './sync-scope'

export interface ScopeSchedulerOptions {
  store: Pick<LocalStore, 'syncCursors'>
  history: Pick<HistorySync, 'run'>
  historyPollMs: number
  /** First retry after a failed sync; doubles per failure. Default 5 s. */
  retryBaseMs?: number
  /** Longest wait between failed syncs. Default max(historyPollMs, 5 min). */
  retryMaxMs?: number
  /** How often each scope's recent window is read again end to end. Default 1 hour. */
  reconcileEveryMs?: number
  /** No per-order 'order:created' during a scope's first sync. Default true. */
  quietInitialSync?: boolean
  /** Scopes syncing at once at most. Default 1. */
  maxConcurrentScopes?: number
  /** Names this start of the monitor in every scope's writeMark. */
  startId: string
  now: () => number
  timers: Timers
  /** Whether the monitor runs (timers fire only then), and the signal its runs are cancelled with. */
  running: () => { started: boolean; signal: AbortSignal }
  /** The service lists every fiat of this type together (history-readings.ts). */
  fiatIgnored: (type: OrderType) => boolean
  /** A scope synced for the first time, or again since the start: audit it from `at`. */
  track: (type: OrderType, fiatType: number, at: number) => void
  untrack: (type: OrderType, fiatType: number) => void
  /** A record of `fiatType` turned up in another scope: orders may be there. */
  reveal: (type: OrderType, fiatType: number) => void
  created: (c: OrderSummary) => void
  statusChanged: (c: StatusChange, source: StatusSource) => void
  syncState: (s: SyncState) => void
  coverageChanged: () => void
  /** How long after a scope's first success ('firstSync'), or after the start for a scope synced before ('start'), it is first audited. */
  firstAuditDelay: (after: 'start' | 'firstSync') => number
}

/** How often, at most, the orders held are told while a first sync writes them. */
const FIRST_SYNC_TELL_MS = 1000

export class ScopeScheduler {
  readonly scopes = new Map<string, Scope>()
  historyPollMs: number
  private readonly maxConcurrent: number
  private active = 0
  private readonly waiting: Array<() => void> = []
  /** Pages that wrote orders, across scopes: a scope's mark never comes back to an earlier value. */
  private writes = 0
  /** When the orders held were last told during a first sync (pageApplied). */
  private firstSyncToldAt = 0

  constructor(private readonly o: ScopeSchedulerOptions) {
    this.historyPollMs = o.historyPollMs
    this.maxConcurrent = Math.max(1, o.maxConcurrentScopes ?? 1)
  }

  states(): SyncState[] {
    const now = this.o.now()
    return [...this.scopes.values()].map((s) => stateOf(s, now, this.o.startId))
  }

  /**
   * Whether a scope is in its first sync: never read to its end, and running or waiting
   * for its turn (one whose first sync failed and backs off is not: it may fail for long).
   */
  inFirstSync(): boolean {
    for (const s of this.scopes.values()) if (s.lastSuccessAt === null && (s.phase.kind === 'running' || s.lastError === null)) return true
    return false
  }

  /** Runs in progress, to wait for. */
  runs(): Promise<void>[] {
    return [...this.scopes.values()].flatMap((s) => runOf(s) ?? [])
  }

  armAll(): void {
    for (const s of this.scopes.values()) this.arm(s, 0)
  }

  disarmAll(): void {
    for (const s of this.scopes.values()) this.disarm(s)
  }

  /** The configured scopes (without discovery): onramp for each fiat, offramp for those it exists in. */
  setScopes(fiatTypes: readonly number[], offramp: readonly number[] | 'all'): void {
    const wanted = new Set<string>()
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
  addScope(type: OrderType, fiatType: number): void {
    const k = scopeKey(type, fiatType)
    if (this.scopes.has(k)) return
    // A service listing every fiat of the type together is synced as one scope.
    if (fiatType !== EVERY_FIAT_TYPE && this.o.fiatIgnored(type)) return this.addScope(type, EVERY_FIAT_TYPE)
    const s = newScope(type, fiatType, this.o.store.syncCursors.get(type, fiatType))
    this.scopes.set(k, s)
    if (s.lastSuccessAt !== null) this.o.track(type, fiatType, this.o.now() + this.o.firstAuditDelay('start'))
    if (this.o.running().started) this.arm(s, 0)
    this.o.coverageChanged()
  }

  private removeScope(s: Scope): void {
    this.disarm(s)
    this.scopes.delete(scopeKey(s.type, s.fiatType))
    this.o.untrack(s.type, s.fiatType)
    this.o.coverageChanged()
  }

  /** The service lists every fiat of a type together: its per-fiat scopes become one. */
  mergeIgnoredFiats(): void {
    for (const type of [1, 2] as const) {
      if (!this.o.fiatIgnored(type)) continue
      const split = [...this.scopes.values()].filter((s) => s.type === type && s.fiatType !== EVERY_FIAT_TYPE)
      if (split.length === 0) continue
      for (const s of split) if (!runOf(s)) this.removeScope(s)
      this.addScope(type, EVERY_FIAT_TYPE)
    }
  }

  /** A new poll interval: every waiting scope is armed again for its next run under it. */
  configure(historyPollMs: number | undefined): void {
    if (historyPollMs !== undefined) this.historyPollMs = historyPollMs
    if (!this.o.running().started) return
    const now = this.o.now()
    for (const s of this.scopes.values()) {
      const p = s.phase
      if (p.kind === 'running') continue
      const due = p.kind === 'backingOff' ? p.nextRunAt : s.lastSuccessAt === null ? now : s.lastSuccessAt + this.historyPollMs
      this.arm(s, Math.max(0, due - now))
    }
  }

  /** Syncs soon the scopes of `type` (every scope when absent) that can hold `fiat` (any when absent). */
  syncSoon(type?: OrderType, fiat?: number): void {
    for (const s of this.scopes.values())
      if (type === undefined || (s.type === type && (fiat === undefined || s.fiatType === fiat || s.fiatType === EVERY_FIAT_TYPE)))
        this.soon(s)
  }

  /**
   * Runs the scope now; a run in progress is waited for and followed by a run that starts
   * after the call (its own, or one another caller started as it ended), since the one in
   * progress may have read its listing before whatever the caller knows changed (the
   * network back, an order made meanwhile) or spent an outage failing.
   */
  async runAfresh(s: Scope): Promise<void> {
    const run = runOf(s)
    if (run) {
      await run
      if (this.o.running().signal.aborted) return
    }
    await this.runScope(s)
  }

  /** Every scope's next run reads its whole history; after any run in progress. */
  async resyncAll(): Promise<void> {
    for (const s of this.scopes.values()) s.fullRequested = true
    await Promise.allSettled(
      [...this.scopes.values()].map(async (s) => {
        // Runs already going finish first (another caller's run may follow the one going
        // and take the full pass: it is waited for too); the full pass follows them. The
        // last check and the run are one step: nothing can start a run between them.
        for (let run = runOf(s); run; run = runOf(s)) await run
        if (s.fullRequested) await this.runScope(s)
      })
    )
  }

  /**
   * A run the audit asks for (a poll, or a full read with progress and the ids each page
   * listed), after any run in progress. Resolves true when it read its listing to the end.
   */
  async forcedRun(type: OrderType, fiatType: number, mode: 'poll' | 'full', onPage?: (p: PageApplied) => void): Promise<boolean> {
    const s = this.scopes.get(scopeKey(type, fiatType))
    if (!s) return false
    // After every run in progress: one another caller starts as the last ends would not
    // carry what is asked here. The last check and the run are one step, as above.
    for (let run = runOf(s); run; run = runOf(s)) await run
    return new Promise<boolean>((resolve) => {
      s.forced = { mode, onPage, done: resolve }
      void this.runScope(s)
    })
  }

  private disarm(s: Scope): void {
    if (s.timer !== undefined) this.o.timers.clearTimeout(s.timer)
    s.timer = undefined
  }

  private arm(s: Scope, delayMs: number): void {
    this.disarm(s)
    const nextRunAt = this.o.now() + delayMs
    const p = s.phase
    // Armed while it runs (the monitor started again): the run decides, unless it is cancelled.
    if (p.kind === 'running') p.from = { ...p.from, nextRunAt }
    else s.phase = { ...p, nextRunAt }
    s.timer = this.o.timers.setTimeout(() => {
      s.timer = undefined
      if (this.o.running().started) void this.runScope(s)
    }, delayMs)
  }

  /** A sync of this scope shortly: after the run in progress, or now unless one is due already. */
  private soon(s: Scope): void {
    const p = s.phase
    if (!this.o.running().started) return
    if (p.kind === 'running') {
      if (p.turn === 'reading') p.turn = 'askedAgain'
      return
    }
    if (s.timer !== undefined && p.nextRunAt !== null && p.nextRunAt <= this.o.now()) return
    this.arm(s, 0)
  }

  /** What the next run of a scope does: a full pass if asked for, a reconcile when one is due, else a poll. */
  private modeFor(s: Scope, cursor: string | null): SyncMode {
    if (s.fullRequested) return 'full'
    if (cursor === null) return 'poll'
    const every = this.o.reconcileEveryMs ?? 60 * 60_000
    return s.lastReconcileAt === null || this.o.now() - s.lastReconcileAt >= every ? 'reconcile' : 'poll'
  }

  runScope(s: Scope): Promise<void> {
    const running = runOf(s)
    if (running) return running
    this.disarm(s)
    const signal = this.o.running().signal
    const cursor = this.o.store.syncCursors.get(s.type, s.fiatType).cursor
    const quiet = (this.o.quietInitialSync ?? true) && cursor === null
    const forced = s.forced
    s.forced = null
    const mode = forced?.mode ?? this.modeFor(s, cursor)
    if (mode === 'full') s.fullRequested = false
    else if (!forced) s.fullRequested = false
    // The phase is set whole before the run starts: whatever the run emits reads it running.
    let settle!: (run: Promise<void>) => void
    const done = new Promise<void>((resolve) => (settle = resolve))
    s.phase = { kind: 'running', mode, progress: { pages: 0, orders: 0 }, done, from: waitingOf(s), turn: 'queued' }
    // Whether the run read its listing to the end (what the audit asked for is done).
    let read = false
    // The phase the run leaves the scope in; none when it was cancelled.
    let next: WaitingPhase | null = null
    const run = (async () => {
      let slot = false
      try {
        await this.acquire(signal)
        slot = true
        signal.throwIfAborted()
        if (s.phase.kind === 'running') s.phase.turn = 'reading'
        const r = await this.o.history.run(s.type, s.fiatType, {
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
        const at = this.o.now()
        // First success of a scope: audited from now on.
        if (s.lastSuccessAt === null) this.o.track(s.type, s.fiatType, at + this.o.firstAuditDelay('firstSync'))
        s.lastError = null
        s.lastSuccessAt = at
        const nextRunAt = at + this.historyPollMs
        next = { kind: 'idle', nextRunAt }
        // A first sync or a full pass read everything: as good as a reconcile.
        const reconciled = mode !== 'poll' || r.startedFrom === null
        if (reconciled) s.lastReconcileAt = at
        this.o.store.syncCursors.markSuccess(s.type, s.fiatType, {
          at: new Date(at).toISOString(),
          nextRunAt: new Date(nextRunAt).toISOString(),
          reconciled
        })
      } catch (e) {
        if (signal.aborted) {
          // The operator's full pass cancelled by stop() is still owed (the audit asks again itself).
          if (mode === 'full' && !forced) s.fullRequested = true
          return
        }
        // A full pass that failed is still owed.
        if (mode === 'full') s.fullRequested = true
        const info = toErrorInfo(e)
        const failures = failuresOf(s) + 1
        s.lastError = info
        const base = this.o.retryBaseMs ?? 5_000
        const max = this.o.retryMaxMs ?? Math.max(this.historyPollMs, 5 * 60_000)
        let delay = Math.min(max, base * 2 ** (failures - 1))
        if (info.kind === 'rate_limited' && info.nextSlotAt) delay = Math.max(delay, info.nextSlotAt - this.o.now())
        const nextRunAt = this.o.now() + delay
        next = { kind: 'backingOff', failures, nextRunAt }
        this.o.store.syncCursors.markError(s.type, s.fiatType, JSON.stringify(info), { nextRunAt: new Date(nextRunAt).toISOString() })
      } finally {
        if (slot) this.release()
      }
    })().finally(() => {
      const again = s.phase.kind === 'running' && s.phase.turn === 'askedAgain'
      s.phase = next ?? waitingOf(s)
      // Asked again while it ran and it succeeded: at once (a failure keeps its back-off).
      if (again && next?.kind === 'idle') s.phase = { kind: 'idle', nextRunAt: this.o.now() }
      forced?.done(read)
      // A scope merged into its type's every-fiat scope while it ran goes now.
      if (s.fiatType !== EVERY_FIAT_TYPE && this.o.fiatIgnored(s.type)) this.mergeIgnoredFiats()
      this.o.coverageChanged()
      if (this.o.running().started && !signal.aborted && this.scopes.get(scopeKey(s.type, s.fiatType)) === s) {
        this.arm(s, Math.max(0, (s.phase.nextRunAt ?? this.o.now()) - this.o.now()))
      }
      this.emitState(s)
    })
    settle(run)
    this.emitState(s)
    return done
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
    if (s.phase.kind === 'running') s.phase.progress = { pages: p.pages, orders: p.orders }
    if (r.created.length > 0 || r.statusChanged.length > 0 || r.updated.length > 0) s.lastWrite = ++this.writes
    if (!quiet) for (const c of r.created) this.o.created(c)
    for (const c of r.statusChanged) this.o.statusChanged(c, 'sync')
    // A record of another fiat than the scope's reveals orders there.
    if (s.fiatType !== EVERY_FIAT_TYPE)
      for (const c of r.created) if (c.fiatType !== null && c.fiatType !== s.fiatType) this.o.reveal(c.type, c.fiatType)
    // A first sync writes a scope's orders page by page: the orders held are told as they
    // grow (at most once a second), so the first sync's banner counts what is already here.
    if (s.lastSuccessAt === null && r.created.length > 0 && this.o.now() - this.firstSyncToldAt >= FIRST_SYNC_TELL_MS) {
      this.firstSyncToldAt = this.o.now()
      this.o.coverageChanged()
    }
    this.emitState(s)
  }

  private emitState(s: Scope): void {
    this.o.syncState(stateOf(s, this.o.now(), this.o.startId))
  }
}
