// Per-token request cap of the hub: a token bucket per operator, so one desktop gone
// wrong (or one stolen token) cannot crowd out the team. It guards the hub, not the
// merchant's service: the service only ever sees the hub's one budgeted client.
export interface RateCapOptions {
  /** Sustained requests per minute per operator. */
  perMinute: number
  /** Requests an operator may make at once after a quiet spell. */
  burst: number
  now?: () => number
}

interface Bucket {
  tokens: number
  at: number
}

export class RateCap {
  private readonly buckets = new Map<string, Bucket>()
  private readonly now: () => number
  private sweptAt = 0

  constructor(private readonly o: RateCapOptions) {
    this.now = o.now ?? Date.now
  }

  /** Takes one request from the key's bucket: 0 when allowed, else the ms until one is. */
  take(key: string): number {
    const now = this.now()
    const perMs = this.o.perMinute / 60_000
    // Keys come from strangers (addresses): a bucket full again is forgotten, so a flood from
    // many addresses leaves at most the last minutes' worth behind.
    if (now - this.sweptAt >= 60_000) {
      this.sweptAt = now
      for (const [k, old] of this.buckets) if (old.tokens + (now - old.at) * perMs >= this.o.burst) this.buckets.delete(k)
    }
    const b = this.buckets.get(key) ?? { tokens: this.o.burst, at: now }
    b.tokens = Math.min(this.o.burst, b.tokens + (now - b.at) * perMs)
    b.at = now
    this.buckets.set(key, b)
    if (b.tokens >= 1) {
      b.tokens -= 1
      return 0
    }
    return Math.ceil((1 - b.tokens) / perMs)
  }

  /** Keys held now (full buckets are forgotten within a minute of being full). */
  get size(): number {
    return this.buckets.size
  }

  forget(key: string): void {
    this.buckets.delete(key)
  }
}
