// Per-source caps of the webhook inbox: a token bucket of requests and
// a maximum of sockets held open at once, per source address, so one sender flooding or
// holding connections cannot starve the service's deliveries from another address.
//
// A source is an IPv4 address, or an IPv6 /64 (one host usually owns a whole /64, so
// per-address caps there would be no cap). Behind a tunnel or reverse proxy every request
// comes from the proxy's address and the caps apply to all senders together; the
// Forwarded headers are not trusted, since anyone can write them.
//
// The defaults sit far above what the service sends: it delivers once per completed order
// and retries a failed delivery at most 10 times with backoff.
import { isIPv4, isIPv6 } from 'node:net'

export const SOURCE_LIMIT_DEFAULTS = {
  /** Requests a source may send at once before the refill rate applies. */
  burst: 120,
  /** Requests per second a source may send sustained. */
  perSecond: 10,
  /** Sockets a source may hold open at once. */
  maxSockets: 32
} as const

export interface SourceLimitsOptions {
  burst?: number
  perSecond?: number
  maxSockets?: number
  /** Monotonic clock in ms (default performance.now). */
  now?: () => number
  /** Sources remembered at most; idle ones are forgotten first. Default 10,000. */
  maxSources?: number
}

export type TakeResult = { ok: true } | { ok: false; retryAfterSeconds: number }

export class SourceLimits {
  readonly burst: number
  readonly perSecond: number
  readonly maxSockets: number
  private readonly now: () => number
  private readonly maxSources: number
  private readonly buckets = new Map<string, { tokens: number; at: number }>()
  private readonly sockets = new Map<string, number>()

  constructor(o: SourceLimitsOptions = {}) {
    this.burst = o.burst ?? SOURCE_LIMIT_DEFAULTS.burst
    this.perSecond = o.perSecond ?? SOURCE_LIMIT_DEFAULTS.perSecond
    this.maxSockets = o.maxSockets ?? SOURCE_LIMIT_DEFAULTS.maxSockets
    this.now = o.now ?? (() => performance.now())
    this.maxSources = o.maxSources ?? 10_000
    if (!(this.burst >= 1 && this.perSecond > 0 && this.maxSockets >= 1)) throw new RangeError('inbox source limits must be positive')
  }

  /** Spends one request of the source's budget; refused when its bucket is empty. */
  take(source: string): TakeResult {
    const t = this.now()
    let b = this.buckets.get(source)
    if (!b) {
      if (this.buckets.size >= this.maxSources) this.forgetIdle(t)
      b = { tokens: this.burst, at: t }
      this.buckets.set(source, b)
    }
    b.tokens = Math.min(this.burst, b.tokens + ((t - b.at) / 1000) * this.perSecond)
    b.at = t
    if (b.tokens < 1) return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil((1 - b.tokens) / this.perSecond)) }
    b.tokens -= 1
    return { ok: true }
  }

  /** Counts a new socket of the source; false (and not counted) when it already holds the maximum. */
  openSocket(source: string): boolean {
    const n = this.sockets.get(source) ?? 0
    if (n >= this.maxSockets) return false
    this.sockets.set(source, n + 1)
    return true
  }

  closeSocket(source: string): void {
    const n = (this.sockets.get(source) ?? 0) - 1
    if (n > 0) this.sockets.set(source, n)
    else this.sockets.delete(source)
  }

  /** Sources whose request budget is remembered. */
  get trackedSources(): number {
    return this.buckets.size
  }

  openSockets(source: string): number {
    return this.sockets.get(source) ?? 0
  }

  /** Drops buckets that have refilled (nothing to remember), else the oldest: the map stays bounded. */
  private forgetIdle(t: number): void {
    for (const [k, b] of this.buckets) {
      if (b.tokens + ((t - b.at) / 1000) * this.perSecond >= this.burst) this.buckets.delete(k)
    }
    for (const k of this.buckets.keys()) {
      if (this.buckets.size < this.maxSources) break
      this.buckets.delete(k)
    }
  }
}

/** The source a socket's remote address belongs to: the IPv4 address, or the IPv6 /64. */
export function sourceOf(address: string | undefined): string {
  if (!address) return 'unknown'
  const a = address.toLowerCase()
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/.exec(a)
  if (mapped) return mapped[1]!
  if (isIPv4(a) || !isIPv6(a)) return a
  return `${expandIPv6(a).slice(0, 4).join(':')}::/64`
}

/** The eight hextets of an IPv6 address (zone dropped; '::' and a dotted IPv4 tail expanded). */
function expandIPv6(a: string): string[] {
  let s = a.split('%')[0]!
  const v4 = /(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(s)
  if (v4) {
    const [b0, b1, b2, b3] = v4.slice(1).map(Number) as [number, number, number, number]
    s = s.slice(0, v4.index) + ((b0 << 8) | b1).toString(16) + ':' + ((b2 << 8) | b3).toString(16)
  }
  const [head, tail] = s.includes('::') ? (s.split('::') as [string, string]) : [s, undefined]
  const h = head ? head.split(':') : []
  const t = tail ? tail.split(':') : []
  const middle = tail === undefined ? [] : Array<string>(8 - h.length - t.length).fill('0')
  return [...h, ...middle, ...t].map((x) => x.replace(/^0+(?=.)/, ''))
}
