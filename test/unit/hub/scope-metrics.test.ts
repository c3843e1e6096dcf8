// A scope's sync state for the metrics: never synced, its first sync running, synced, or failing.
import { describe, expect, it } from 'vitest'
import { scopeLabels, syncScopeState } from '../../../src/hub/scope-metrics'
import { runningState, syncState } from '../../support/sync-state'

const base = syncState({ fiatType: 3 })
const error = { kind: 'network', message: 'down', retryable: true }

describe('scope state', () => {
  it('tells the four states apart', () => {
    expect(syncScopeState(base)).toBe('never_synced')
    expect(syncScopeState(runningState({ fiatType: 3 }))).toBe('first_sync')
    expect(syncScopeState({ ...base, lastSuccessAt: 1 })).toBe('synced')
    expect(syncScopeState(runningState({ fiatType: 3, lastSuccessAt: 1 }))).toBe('synced')
    expect(syncScopeState({ ...base, lastSuccessAt: 1, lastError: error })).toBe('failing')
    expect(syncScopeState({ ...base, lastError: error })).toBe('failing')
  })

  it('labels a scope by type name and fiat', () => {
    expect(scopeLabels(base)).toEqual({ type: 'onramp', fiat: '3' })
    expect(scopeLabels({ type: 2, fiatType: 1 })).toEqual({ type: 'offramp', fiat: '1' })
  })
})
