// One history scope the monitor syncs (an order type, and one fiat type or every fiat) and
// the state the operator is shown of it. Its phase is one of three, each with what only it
// has: waiting for its next run, running (what the run does and how far it got), or backing
// off after failed runs. A run's start sets the whole phase at once, so nothing can read a
// scope as running without its mode, or idle with a run's progress.
import { toErrorInfo, type ApiErrorInfo } from '../../shared/api/errors'
import type { OrderType, SyncState } from '../../shared/ipc/contract'
import type { PageApplied, SyncMode } from './history-sync'

export interface SyncProgress {
  pages: number
  orders: number
}

/** A scope between runs: its next run (null: none armed yet). */
export type IdlePhase = { kind: 'idle'; nextRunAt: number | null }
/** A scope whose last `failures` runs failed in a row: its next try. */
export type BackingOffPhase = { kind: 'backingOff'; failures: number; nextRunAt: number }
export type WaitingPhase = IdlePhase | BackingOffPhase
/**
 * A scope syncing. `done` settles when the run has ended and the scope waits again; `from`
 * is the phase it waited in, which a run cancelled by stop() leaves it in. `turn`: waiting
 * for a slot ('queued'), reading the listing ('reading'), or reading with a sync asked for
 * meanwhile ('askedAgain': a webhook about an order not held yet, which the run may have
 * read too early to see, so the scope runs once more when it ends; after a failure, at its
 * back-off). A sync asked for while queued needs nothing: the run reads everything after.
 */
export type RunningPhase = {
  kind: 'running'
  mode: SyncMode
  progress: SyncProgress
  done: Promise<void>
  from: WaitingPhase
  turn: 'queued' | 'reading' | 'askedAgain'
}
export type ScopePhase = WaitingPhase | RunningPhase

export interface Scope {
  readonly type: OrderType
  readonly fiatType: number
  phase: ScopePhase
  /** The timer that starts the next run, while one is armed. */
  timer: unknown
  cursor: string | null
  lastSuccessAt: number | null
  lastError: ApiErrorInfo | null
  lastReconcileAt: number | null
  /** The operator asked for a full re-read: the next run of this scope is one. */
  fullRequested: boolean
  /** The monitor's write count when this scope's sync last wrote an order (0: not since the start). */
  lastWrite: number
  /** A run asked for by the audit: its mode and progress per page. */
  forced: { mode: 'poll' | 'full'; onPage?: (p: PageApplied) => void; done: (read: boolean) => void } | null
}

/** What a scope starts from: its sync position as the store keeps it. */
export interface StoredPosition {
  cursor: string | null
  lastSuccessAt: string | null
  lastError: string | null
  lastReconcileAt: string | null
}

export const scopeKey = (type: number, fiatType: number): string => `${type}:${fiatType}`

export function newScope(type: OrderType, fiatType: number, c: StoredPosition): Scope {
  return {
    type,
    fiatType,
    phase: { kind: 'idle', nextRunAt: null },
    timer: undefined,
    cursor: c.cursor,
    lastSuccessAt: c.lastSuccessAt ? Date.parse(c.lastSuccessAt) : null,
    lastError: parseStoredError(c.lastError),
    lastReconcileAt: c.lastReconcileAt ? Date.parse(c.lastReconcileAt) : null,
    fullRequested: false,
    lastWrite: 0,
    forced: null
  }
}

/** The run in progress, to wait for; null when the scope waits. */
export function runOf(s: Scope): Promise<void> | null {
  return s.phase.kind === 'running' ? s.phase.done : null
}

/** The phase a scope waits in (the one its run started from while it runs). */
export function waitingOf(s: Scope): WaitingPhase {
  return s.phase.kind === 'running' ? s.phase.from : s.phase
}

/** Runs that failed in a row before now (the run in progress not counted). */
export function failuresOf(s: Scope): number {
  const w = waitingOf(s)
  return w.kind === 'backingOff' ? w.failures : 0
}

/** The scope as the contract shows it; `writeMark` names this start of the monitor and its writes. */
export function stateOf(s: Scope, now: number, startId: string): SyncState {
  const p = s.phase
  const waiting = {
    type: s.type,
    fiatType: s.fiatType,
    cursor: s.cursor,
    lastSuccessAt: s.lastSuccessAt,
    nextRunAt: p.kind === 'running' ? null : p.nextRunAt,
    lagMs: s.lastSuccessAt === null ? null : Math.max(0, now - s.lastSuccessAt),
    running: false as const,
    mode: null,
    progress: null,
    lastError: s.lastError,
    lastReconcileAt: s.lastReconcileAt,
    writeMark: `${startId}:${s.lastWrite}`
  }
  return p.kind === 'running' ? { ...waiting, nextRunAt: null, running: true, mode: p.mode, progress: { ...p.progress } } : waiting
}

function parseStoredError(text: string | null): ApiErrorInfo | null {
  if (!text) return null
  try {
    return toErrorInfo(JSON.parse(text))
  } catch {
    return { kind: 'network', message: text, retryable: true }
  }
}
