// Per-minute request limits (spec section 8, and the unknownLimits reading), counted one
// of two ways a real service might (the limiter reading): a sliding window (the times of
// the requests accepted in the last 60 s; the 11th inside any 60 s is refused) or fixed
// one-minute windows per key (the count since the start of the current clock minute).
// Refused requests are not counted either way.

export interface MinuteLimiter {
  /** Records a request at now; returns undefined when allowed, else the time the next slot opens. */
  take(key: string, limit: number, now: number): number | undefined
  reset(): void
}

export class SlidingWindowLimiter implements MinuteLimiter {
  private readonly log = new Map<string, number[]>()
  constructor(private readonly windowMs = 60_000) {}

  take(key: string, limit: number, now: number): number | undefined {
    let times = this.log.get(key)
    if (!times) {
      times = []
      this.log.set(key, times)
    }
    const from = now - this.windowMs
    let drop = 0
    while (drop < times.length && (times[drop] ?? 0) <= from) drop++
    if (drop > 0) times.splice(0, drop)
    if (times.length >= limit) return (times[0] ?? now) + this.windowMs
    times.push(now)
    return undefined
  }

  reset(): void {
    this.log.clear()
  }
}

export class FixedWindowLimiter implements MinuteLimiter {
  private readonly windows = new Map<string, { start: number; count: number }>()
  constructor(private readonly windowMs = 60_000) {}

  take(key: string, limit: number, now: number): number | undefined {
    const start = Math.floor(now / this.windowMs) * this.windowMs
    let w = this.windows.get(key)
    if (!w || w.start !== start) {
      w = { start, count: 0 }
      this.windows.set(key, w)
    }
    if (w.count >= limit) return start + this.windowMs
    w.count++
    return undefined
  }

  reset(): void {
    this.windows.clear()
  }
}
