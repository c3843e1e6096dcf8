// Failed operator tokens, throttled (docs/security.md, "The team hub"). Every failed bearer
// token is counted against two keys: the client's source (the forwarded client behind a
// trusted proxy, trusted-proxies.ts; the peer otherwise) and the token's first characters
// (a stranger who rotates addresses while trying one token's variations shares that key).
// Past FREE_FAILURES on a key, its failures are answered 429 with Retry-After instead of 401,
// the back-off doubling each time the key fails again after its last one ran out, up to
// MAX_BACKOFF; a key quiet for a while is forgotten.
//
// A valid token is checked before any of this and is never throttled: a throttle that refused
// before looking at the token would let whoever shares a key with the team (one desktop still
// running with a revoked token in an office behind one address, every stranger behind a proxy
// nobody declared trusted, anyone who saw a token's first characters) lock valid operators
// out. What that costs is nothing a guesser could use: a token is 32 random bytes.
//
// Memory is bounded: at most MAX_KEYS keys, the least recently failed forgotten first. The
// log gets one line per minute in which a key was throttled, besides the refusal log's own
// per-source lines (refusal-log.ts).
import type { HubLog } from './hub-log'

/** Failures a key may have (within QUIET_MS of each other) before its failures are throttled. */
export const FREE_FAILURES = 10
/** The first back-off; each further one doubles, up to MAX_BACKOFF_MS. */
export const FIRST_BACKOFF_MS = 1_000
export const MAX_BACKOFF_MS = 15 * 60_000
/** A key with no failure for this long (or for twice its back-off, when that is longer) starts afresh. */
export const QUIET_MS = 10 * 60_000
/** Keys remembered at most (about 100 bytes each). */
export const MAX_KEYS = 20_000
/** The characters of a token its prefix key is made of (`rdh_` and four of the random part). */
export const PREFIX_CHARS = 8

export type AuthVerdict = { throttled: false } | { throttled: true; retryAfterMs: number; by: 'source' | 'prefix' }

interface Entry {
  failures: number
  /** Back-offs started so far (0: not throttled yet). */
  level: number
  /** Until when the current back-off runs (epoch ms; 0: none). */
  until: number
  lastAt: number
}

export interface AuthThrottleOptions {
  now?: () => number
  log?: Pick<HubLog, 'warn'>
  /** The summary period (default 60 s). */
  windowMs?: number
  maxKeys?: number
}

export class AuthThrottle {
  private readonly entries = new Map<string, Entry>()
  private readonly now: () => number
  private readonly windowMs: number
  private readonly maxKeys: number
  /** What was throttled in the current period, for its summary line. */
  private period = { sources: new Set<string>(), prefixes: 0, refusals: 0, longestMs: 0 }
  private timer: NodeJS.Timeout | null = null

  constructor(private readonly o: AuthThrottleOptions = {}) {
    this.now = o.now ?? Date.now
    this.windowMs = o.windowMs ?? 60_000
    this.maxKeys = o.maxKeys ?? MAX_KEYS
  }

  /** Keys remembered now. */
  get size(): number {
    return this.entries.size
  }

  /** Counts a failed token (null: none was sent) from `source`; says whether it is answered 429, and for how long. */
  failed(source: string, token: string | null): AuthVerdict {
    const t = this.now()
    const bySource = this.count(`s ${source}`, t)
    const byPrefix = token ? this.count(`p ${token.slice(0, PREFIX_CHARS)}`, t) : 0
    if (bySource === 0 && byPrefix === 0) return { throttled: false }
    const by = bySource >= byPrefix ? 'source' : 'prefix'
    const retryAfterMs = Math.max(bySource, byPrefix)
    this.noteThrottled(source, by, retryAfterMs)
    return { throttled: true, retryAfterMs, by }
  }

  /** One failure on the key; the back-off left to run (0: not throttled). */
  private count(key: string, t: number): number {
    let e = this.entries.get(key)
    if (e && t - e.lastAt > Math.max(QUIET_MS, 2 * (e.until - e.lastAt))) e = undefined
    if (e) this.entries.delete(key)
    else {
      e = { failures: 0, level: 0, until: 0, lastAt: t }
      while (this.entries.size >= this.maxKeys) this.entries.delete(this.entries.keys().next().value!)
    }
    // Re-inserted: the map's order is the order of the latest failures, oldest first.
    this.entries.set(key, e)
    e.failures++
    e.lastAt = t
    if (e.failures <= FREE_FAILURES) return 0
    if (t >= e.until) {
      e.until = t + Math.min(MAX_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** e.level)
      e.level++
    }
    return e.until - t
  }

  private noteThrottled(source: string, by: 'source' | 'prefix', ms: number): void {
    const p = this.period
    if (p.sources.size < 100) p.sources.add(source)
    if (by === 'prefix') p.prefixes++
    p.refusals++
    p.longestMs = Math.max(p.longestMs, ms)
    if (!this.timer) {
      this.timer = setTimeout(() => this.flush(), this.windowMs)
      this.timer.unref()
    }
  }

  /** Writes the period's summary (when anything was throttled) and starts a new period. */
  flush(): void {
    if (this.timer) clearTimeout(this.timer)
    this.timer = null
    const p = this.period
    this.period = { sources: new Set(), prefixes: 0, refusals: 0, longestMs: 0 }
    if (!p.refusals) return
    const sources = [...p.sources]
    const shown = sources.slice(0, 5).join(', ') + (sources.length > 5 ? ` and ${sources.length - 5} more` : '')
    this.o.log?.warn(
      `throttled ${p.refusals.toLocaleString('en-US')} failed token${p.refusals === 1 ? '' : 's'} in the last ${Math.round(this.windowMs / 1000)} s (429, back-off up to ${Math.ceil(p.longestMs / 1000)} s) from ${shown}${p.prefixes ? `; ${p.prefixes.toLocaleString('en-US')} by a token prefix tried from several addresses` : ''}`,
      { throttled: p.refusals, sources: sources.length, byPrefix: p.prefixes, backoffSeconds: Math.ceil(p.longestMs / 1000) }
    )
  }

  close(): void {
    this.flush()
  }
}
