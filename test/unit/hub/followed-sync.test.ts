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
})
