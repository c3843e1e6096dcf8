// A sync scope's state for tests: onramp INR, never run, not running, no error; a test
// names only what it sets. runningState: the same scope with a run in progress (a poll,
// no page yet unless said).
import type { SyncState } from '../../src/shared/ipc/contract'

type Common = Omit<SyncState, 'running' | 'nextRunAt' | 'mode' | 'progress'>
type Progress = { pages: number; orders: number }

const common: Common = {
  type: 1,
  fiatType: 1,
  cursor: null,
  lastSuccessAt: null,
  lagMs: null,
  lastError: null,
  lastReconcileAt: null
}

export function syncState(over: Partial<Common> & { nextRunAt?: number | null } = {}): SyncState {
  return { ...common, running: false, nextRunAt: null, mode: null, progress: null, ...over }
}

export function runningState(over: Partial<Common> & { mode?: 'poll' | 'reconcile' | 'full'; progress?: Progress } = {}): SyncState {
  return { ...common, running: true, nextRunAt: null, mode: 'poll', progress: { pages: 0, orders: 0 }, ...over }
}
