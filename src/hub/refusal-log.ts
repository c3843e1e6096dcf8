// Refusals in the hub's log without giving strangers the disk: a flood of refused requests
// must not become a flood of log lines. The first refusal from a source in each minute is
// logged as it happens, with a clipped path at most; the rest from that source in the minute
// are counted and summarised in one line when the minute is over ("refused 1,204 more
// requests from 203.0.113.9 in the last 60 s: 401 ×1200, 431 ×4"). The sources remembered
// are bounded: past the cap, the rest are counted together.
import type { HubLog } from './hub-log'

export interface RefusalLogOptions {
  /** The summary period (default 60 s). */
  windowMs?: number
  /** Sources tracked individually per period (default 100; the rest are counted together). */
  maxSources?: number
}

interface Tally {
  more: number
  byStatus: Map<number, number>
}

const OTHERS = '(other sources)'

export class RefusalLog {
  private readonly windowMs: number
  private readonly maxSources: number
  private tallies = new Map<string, Tally>()
  private timer: NodeJS.Timeout | null = null

  constructor(
    private readonly log: Pick<HubLog, 'warn'>,
    o: RefusalLogOptions = {}
  ) {
    this.windowMs = o.windowMs ?? 60_000
    // At most this many lines as they happen, plus as many summaries, a minute: ~40 KB.
    this.maxSources = o.maxSources ?? 100
  }

  /**
   * A refusal of `what` (a few words, a clipped path at most) with `status` (0: no HTTP
   * status, e.g. a failed TLS handshake). True when it was logged as it happened (the first
   * from its source this period); false when it was only counted.
   */
  refused(source: string, status: number, what: string): boolean {
    let key = source
    let tally = this.tallies.get(key)
    if (!tally && this.tallies.size >= this.maxSources) {
      key = OTHERS
      tally = this.tallies.get(key)
    }
    if (!tally) {
      this.tallies.set(key, { more: 0, byStatus: new Map() })
      this.log.warn(`refused ${status ? `${status} ` : ''}${what} from ${source}`, { source, status, refused: what })
      this.arm()
      return true
    }
    tally.more++
    tally.byStatus.set(status, (tally.byStatus.get(status) ?? 0) + 1)
    return false
  }

  private arm(): void {
    if (this.timer) return
    this.timer = setTimeout(() => this.flush(), this.windowMs)
    this.timer.unref()
  }

  /** Writes the period's summaries and starts a new period. */
  flush(): void {
    if (this.timer) clearTimeout(this.timer)
    this.timer = null
    const tallies = this.tallies
    this.tallies = new Map()
    for (const [source, t] of tallies) {
      if (t.more === 0) continue
      const parts = [...t.byStatus].map(([status, n]) => `${status || 'no status'} ×${n.toLocaleString('en-US')}`).join(', ')
      this.log.warn(
        `refused ${t.more.toLocaleString('en-US')} more request${t.more === 1 ? '' : 's'} from ${source} in the last ${Math.round(this.windowMs / 1000)} s: ${parts}`,
        { source, refusedMore: t.more, byStatus: Object.fromEntries([...t.byStatus].map(([status, n]) => [String(status), n])) }
      )
    }
  }

  close(): void {
    this.flush()
  }
}
