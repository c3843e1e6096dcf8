// What a follower hub shows of the history sync (hubs on one PostgreSQL database): the
// leader's sync states (pg/pg-leader-coverage.ts), never its own idle monitor's (no scope:
// nothing to show), each with a write mark of this hub's. The leader's mark changes when
// its sync writes orders, but this hub's copy has them only once it has applied them, and
// the rows the leader changed without an event (an amount corrected) may come after. So a
// follower shows the leader's mark followed by a count of the times it applied rows of the
// scope's type: a desktop's orders view reads its rows again whenever it changes
// (renderer lib/sync-writes.ts), as on the leader. It streams only the scopes whose state
// changed, as the leader does. Pure, so unit-tested.
import type { SyncState } from '../shared/ipc/contract'

export class FollowedSync {
  private readonly applied = new Map<number, number>()
  private count = 0
  /** What desktops were last told of each scope (type:fiatType), its lag left out. */
  private readonly told = new Map<string, string>()

  constructor(private readonly now: () => number) {}

  /** This hub applied the leader's rows of orders of these types. */
  rowsApplied(types: readonly number[]): void {
    for (const t of types) this.applied.set(t, ++this.count)
  }

  /** The leader's states as this hub shows them: the lag worked out here, the write mark with this hub's part. */
  shown(leader: readonly SyncState[]): SyncState[] {
    const now = this.now()
    return leader.map((s) => ({
      ...s,
      lagMs: s.lastSuccessAt === null ? null : Math.max(0, now - s.lastSuccessAt),
      writeMark: `${s.writeMark ?? ''}+${this.applied.get(s.type) ?? 0}`
    }))
  }

  /**
   * The states to stream to desktops: only the scopes whose state (or write mark) changed since
   * they were last told, as the leader streams only the scope that changed. A scope the leader
   * dropped needs no event (it streams none either).
   */
  news(leader: readonly SyncState[]): SyncState[] {
    return this.shown(leader).filter((s) => {
      const key = `${s.type}:${s.fiatType}`
      const json = JSON.stringify({ ...s, lagMs: null })
      if (this.told.get(key) === json) return false
      this.told.set(key, json)
      return true
    })
  }

  /** This hub led meanwhile: its desktops were told its own states, so every scope of the leader's is news again. */
  forget(): void {
    this.told.clear()
  }
}
