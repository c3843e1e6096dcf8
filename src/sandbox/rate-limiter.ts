// The per-minute limits of spec section 8 as a sliding window: for each API key and
// endpoint, the times of the requests accepted in the last 60 s; a request that would
// be the 11th inside any 60 s window is refused with 429 and not counted.

export class SlidingWindowLimiter {
  private readonly log = new Map<string, number[]>()
  constructor(private readonly windowMs = 60_000) {}

  /** Records a request at now; returns undefined when allowed, else the time the next slot opens. */
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
