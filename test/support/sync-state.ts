// A sync scope's state for tests: onramp INR, never run, not running, no error; a test
// names only what it sets.
import type { SyncState } from '../../src/shared/ipc/contract'

export function syncState(over: Partial<SyncState> = {}): SyncState {
  return {
    type: 1,
    fiatType: 1,
    cursor: null,
    lastSuccessAt: null,
    nextRunAt: null,
    lagMs: null,
    running: false,
    mode: null,
    progress: null,
    lastError: null,
    lastReconcileAt: null,
    ...over
  }
}
