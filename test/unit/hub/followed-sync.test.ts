// What a follower hub shows of the history sync: the leader's states, their lag worked out on
// this hub's clock, and write marks that change both when the leader's sync wrote orders and
// when this hub applied the leader's rows of the scope's type (a desktop's orders view reads
// its rows again when a mark changes, lib/sync-writes.ts).
import { describe, expect, it } from 'vitest'
import { FollowedSync } from '../../../src/hub/followed-sync'
import { SyncWrites } from '../../../src/renderer/src/lib/sync-writes'
import type { SyncState } from '../../../src/shared/ipc/contract'
import { syncState } from '../../support/sync-state'

const state = (type: 1 | 2, fiatType: number, writeMark: string): SyncState =>
  syncState({ type, fiatType, lastSuccessAt: 1_000, writeMark })

describe('FollowedSync', () => {
  it("shows the leader's states with their lag, and a new write mark for the types whose rows this hub applied", () => {
    let now = 5_000
    const f = new FollowedSync(() => now)
    expect(f.shown([])).toEqual([])
    let leader = [state(1, 1, 'a:3'), state(1, 2, 'a:1'), state(2, 1, 'a:2')]
    const shown = f.shown(leader)
    expect(shown.map((s) => s.lagMs)).toEqual([4_000, 4_000, 4_000])
    const writes = new SyncWrites(shown)
    now = 6_000
    // Rows of onramp orders applied: both onramp scopes show marks that changed; offramp's does not.
    f.rowsApplied([1])
    const after = f.shown(leader)
    expect(after.map((s) => writes.wrote(s))).toEqual([true, true, false])
    expect(after[0]!.lagMs).toBe(5_000)
    // The leader's sync wrote: its mark changes what is shown too; the same states again change nothing.
    leader = [state(1, 1, 'a:4'), state(1, 2, 'a:1'), state(2, 1, 'a:2')]
    expect(f.shown(leader).map((s) => writes.wrote(s))).toEqual([true, false, false])
    expect(f.shown(leader).some((s) => writes.wrote(s))).toBe(false)
  })

  it('streams only the scopes whose state or write mark changed, keyed by type and fiat', () => {
    let now = 5_000
    const f = new FollowedSync(() => now)
    const key = (states: SyncState[]) => states.map((s) => `${s.type}:${s.fiatType}`)
    let leader = [state(1, 1, 'a:3'), state(1, 2, 'a:1'), state(2, 1, 'a:2')]
    expect(key(f.news(leader))).toEqual(['1:1', '1:2', '2:1'])
    // Time passes (the lag grows), nothing changed: nothing to tell.
    now = 9_000
    expect(f.news(leader)).toEqual([])
    // One scope of the leader's changed (it failed): that scope only, with its lag as now.
    leader = [
      state(1, 1, 'a:3'),
      { ...state(1, 2, 'a:1'), lastError: { kind: 'network', message: 'down', retryable: true } },
      state(2, 1, 'a:2')
    ]
    const told = f.news(leader)
    expect(key(told)).toEqual(['1:2'])
    expect(told[0]!.lagMs).toBe(8_000)
    // Rows of offramp orders applied here: the offramp scope's mark changed, only it is told.
    f.rowsApplied([2])
    expect(key(f.news(leader))).toEqual(['2:1'])
    // This hub led meanwhile (its desktops saw its own states): every scope is told again.
    f.forget()
    expect(key(f.news(leader))).toEqual(['1:1', '1:2', '2:1'])
  })
})
