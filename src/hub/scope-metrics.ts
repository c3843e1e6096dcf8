// How each synced scope (an order type in a fiat) stands, as Prometheus state sets: one
// series per state, 1 for the state the scope is in and 0 for the others, so a dashboard
// counts scopes per state and an alert names the scope.
//
// Each family here reads one SyncState: whether a scope has ever completed a sync and
// whether its latest run failed (`rampdesk_hub_sync_scope_state`). The probe and the
// completeness audit of each scope come from the monitor's Coverage instead
// (hub-metrics.ts: `rampdesk_hub_scope_probe_state`, `rampdesk_hub_scope_completeness`).
import type { SyncState } from '../shared/ipc/contract'

export interface ScopeFamily {
  name: string
  help: string
  states: readonly string[]
  of(s: SyncState): string
}

const TYPE_NAMES: Record<number, string> = { 1: 'onramp', 2: 'offramp' }

export function scopeLabels(s: Pick<SyncState, 'type' | 'fiatType'>): { type: string; fiat: string } {
  return { type: TYPE_NAMES[s.type] ?? String(s.type), fiat: String(s.fiatType) }
}

export const SYNC_SCOPE_STATES = ['never_synced', 'first_sync', 'synced', 'failing'] as const
export type SyncScopeState = (typeof SYNC_SCOPE_STATES)[number]

/**
 * never_synced: no sync has completed and none runs; first_sync: the first one runs;
 * synced: a sync completed and the latest did not fail (the copy is complete up to the
 * lag); failing: the latest run failed (the copy may miss what changed since lastSuccessAt).
 */
export function syncScopeState(s: SyncState): SyncScopeState {
  if (s.lastError !== null) return 'failing'
  if (s.lastSuccessAt !== null) return 'synced'
  return s.running ? 'first_sync' : 'never_synced'
}

export const scopeFamilies: readonly ScopeFamily[] = [
  {
    name: 'rampdesk_hub_sync_scope_state',
    help: "Each scope's sync: never_synced, first_sync, synced (complete up to the lag) or failing (1 for the state it is in).",
    states: SYNC_SCOPE_STATES,
    of: syncScopeState
  }
]
