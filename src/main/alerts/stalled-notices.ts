// Which stalled orders to notify of: each once when it is raised, not at every look. An
// order is notified again only after it changed (its `since` moved) and stalled anew.
// Kept per window of alerts:changed events, so it serves a Team profile's hub events as it
// serves a live profile's own.
import type { AlertList, StalledAlert } from '../../shared/ipc/contract'

export class StalledNotices {
  /** Order alert id -> the `since` it was notified for. */
  private readonly notified = new Map<string, number>()

  /** The stalled alerts of this list not yet notified; forgets the orders no longer stalled. */
  take(list: AlertList): StalledAlert[] {
    const fresh: StalledAlert[] = []
    const standing = new Set<string>()
    for (const a of list.alerts) {
      if (a.kind !== 'stalled') continue
      standing.add(a.id)
      if (this.notified.get(a.id) === a.since) continue
      this.notified.set(a.id, a.since)
      fresh.push(a)
    }
    for (const id of [...this.notified.keys()]) if (!standing.has(id)) this.notified.delete(id)
    return fresh
  }
}
