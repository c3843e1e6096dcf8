// Which sync states say that orders were written. Every scope's sync sends a state as it
// starts, after each page and as it ends, every poll: most write nothing. A view that
// refetches its orders on each of them queries main for nothing several times a minute,
// and forgets the pages it keeps for going back to a filter. The state's writeMark
// changes only when its scope wrote orders (or the service restarted).
import type { SyncState } from '../../../shared/ipc/contract'

type Marked = Pick<SyncState, 'type' | 'fiatType' | 'writeMark'>

export class SyncWrites {
  #seen = new Map<string, string>()

  /** The states already reflected in what the view shows (the ones known when it loaded). */
  constructor(known: readonly Marked[] = []) {
    for (const s of known) this.wrote(s)
  }

  /**
   * Whether the state's scope wrote orders since the last state seen for it: a scope not
   * seen before, or a state without a mark (a hub of an older version), counts as written.
   */
  wrote(s: Marked): boolean {
    const key = `${s.type}:${s.fiatType}`
    const before = this.#seen.get(key)
    if (s.writeMark === undefined) {
      this.#seen.delete(key)
      return true
    }
    this.#seen.set(key, s.writeMark)
    return before !== s.writeMark
  }
}
