// The webhook inbox's replay window. A verified payload whose
// timestamp lies more than the window (5 min) from the service's clock is refused, and
// within the window each exact payload is accepted once: a captured delivery can be
// neither replayed later nor repeated now.
//
// What a legitimate retry looks like: the service signs every attempt afresh, with a new
// timestamp and webhookTrials + 1 (the sandbox does the same), so its retries never repeat
// a payload byte for byte. They pass this guard and are recognised as duplicates of the
// delivery by the inbox's dedupe key, which ignores the attempt counters and the
// timestamp: answered 200, applied once. A byte-identical repeat of a payload already
// accepted can only come from someone who saw the first one.
//
// The clock is the service's, skew-corrected (the API client's SkewClock), not ours:
// the timestamps are written with the service's clock, and an operator's machine a few
// minutes off must not refuse every delivery.
import { createHash } from 'node:crypto'

export const REPLAY_WINDOW_MS = 5 * 60_000
/** Payloads remembered at most. Only verified payloads enter, so only the secret's holders can fill it. */
export const REPLAY_CACHE_MAX = 10_000

export type ReplayVerdict = { ok: true } | { ok: false; kind: 'stale' | 'future' | 'repeat'; reason: string }

export interface ReplayGuardOptions {
  /** The service's clock, skew-corrected (ms since the epoch). */
  serviceNow: () => number
  windowMs?: number
  maxEntries?: number
}

export class ReplayGuard {
  /** sha256(payload header) -> when it may be forgotten, and when it was first accepted (service clock). */
  private readonly seen = new Map<string, { forgetAt: number; firstAt: number }>()
  private readonly windowMs: number
  private readonly maxEntries: number

  constructor(private readonly o: ReplayGuardOptions) {
    this.windowMs = o.windowMs ?? REPLAY_WINDOW_MS
    this.maxEntries = o.maxEntries ?? REPLAY_CACHE_MAX
  }

  get size(): number {
    return this.seen.size
  }

  /**
   * Checks a verified payload's timestamp against the window and, if it is inside, admits
   * the payload exactly once (check and record in one synchronous step, so two copies
   * arriving together cannot both pass).
   */
  admit(payloadHeader: string, timestamp: number): ReplayVerdict {
    const now = this.o.serviceNow()
    const age = now - timestamp
    const window = span(this.windowMs)
    if (age > this.windowMs) {
      return { ok: false, kind: 'stale', reason: `replay refused: the signed payload is ${span(age)} old, beyond the ${window} window` }
    }
    if (-age > this.windowMs) {
      return {
        ok: false,
        kind: 'future',
        reason: `replay refused: the signed payload is dated ${span(-age)} ahead of the service's clock, beyond the ${window} window`
      }
    }
    const key = createHash('sha256').update(payloadHeader).digest('hex')
    const prev = this.seen.get(key)
    if (prev && prev.forgetAt >= now) {
      return {
        ok: false,
        kind: 'repeat',
        reason: `replay refused: this exact signed payload was already accepted ${span(now - prev.firstAt)} ago (a retry is signed afresh)`
      }
    }
    this.forgetExpired(now)
    // Kept for two windows past its timestamp, not one: the skew estimate may move, and a
    // payload must not be forgotten while a corrected clock still finds it inside the window.
    this.seen.set(key, { forgetAt: timestamp + 2 * this.windowMs, firstAt: now })
    return { ok: true }
  }

  /** Forgets an admitted payload: one that was answered without being accepted (it will come again). */
  release(payloadHeader: string): void {
    this.seen.delete(createHash('sha256').update(payloadHeader).digest('hex'))
  }

  private forgetExpired(now: number): void {
    // Entries go in roughly in expiry order: drop from the oldest while they have expired.
    for (const [k, v] of this.seen) {
      if (v.forgetAt >= now) break
      this.seen.delete(k)
    }
    if (this.seen.size < this.maxEntries) return
    for (const [k, v] of this.seen) if (v.forgetAt < now) this.seen.delete(k)
    // Still full of live entries: forget the oldest. Reaching this needs maxEntries verified
    // deliveries within two windows, which only the service (or the secret's holder) can send.
    for (const k of this.seen.keys()) {
      if (this.seen.size < this.maxEntries) break
      this.seen.delete(k)
    }
  }
}

/** "42 s", "12.5 min", "3.0 h": enough for a log line. */
function span(ms: number): string {
  if (ms < 120_000) return `${Math.round(ms / 1000)} s`
  if (ms < 7_200_000) return `${(ms / 60_000).toFixed(1)} min`
  return `${(ms / 3_600_000).toFixed(1)} h`
}
