// The change-detection bench's ledger: every change the sandbox made (when, to which
// order, and whether that order was watched at the time) and, per detector, when the
// change was first reported. A change not yet reported when the order changes again is
// reported by the same event as the later one, so its latency runs to that event: the
// time until the operator learned the order had moved at all.

export type ChangeLabel = 'watched' | 'unwatched'

interface Pending {
  at: number
  label: ChangeLabel
}

export class ChangeLog {
  private readonly counts: Record<ChangeLabel, number> = { watched: 0, unwatched: 0 }
  private readonly pending = new Map<string, Map<string, Pending[]>>()
  private readonly samples = new Map<string, Record<ChangeLabel, number[]>>()

  constructor(private readonly now: () => number) {}

  /** Starts tracking a detector; the function it returns reports an order as seen to change now. */
  detector(name: string): (key: string) => void {
    const pending = new Map<string, Pending[]>()
    const samples: Record<ChangeLabel, number[]> = { watched: [], unwatched: [] }
    this.pending.set(name, pending)
    this.samples.set(name, samples)
    return (key) => {
      const changes = pending.get(key)
      if (!changes) return
      const now = this.now()
      for (const c of changes) samples[c.label].push(now - c.at)
      pending.delete(key)
    }
  }

  /** A change made now, owed to every detector. */
  record(key: string, label: ChangeLabel): void {
    this.counts[label]++
    const at = this.now()
    for (const pending of this.pending.values()) {
      const list = pending.get(key)
      if (list) list.push({ at, label })
      else pending.set(key, [{ at, label }])
    }
  }

  made(label?: ChangeLabel): number {
    return label ? this.counts[label] : this.counts.watched + this.counts.unwatched
  }

  /** Latencies (ms) of the changes a detector reported, for one label or both. */
  latencies(name: string, label?: ChangeLabel): number[] {
    const s = this.samples.get(name)
    if (!s) return []
    return label ? [...s[label]] : [...s.watched, ...s.unwatched]
  }

  /** Changes a detector has not reported yet. */
  unseen(name: string, label?: ChangeLabel): number {
    let n = 0
    for (const list of this.pending.get(name)?.values() ?? []) n += label ? list.filter((c) => c.label === label).length : list.length
    return n
  }

  /** How long the oldest change a detector has not reported has waited (0 when none). */
  oldestUnseenMs(name: string): number {
    let oldest = Infinity
    for (const list of this.pending.get(name)?.values() ?? []) for (const c of list) oldest = Math.min(oldest, c.at)
    return Number.isFinite(oldest) ? this.now() - oldest : 0
  }
}
