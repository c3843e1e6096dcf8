// Estimates how far the service's clock is from ours, so requests are signed with the
// service's time: it refuses timestamps ahead of its clock ("Ahead of Time") and accepts
// ones a little in the past. Two sources, best first:
//   - currentTimestamp, the service's own clock in ms (live-service notes), asked for
//     directly where it answers;
//   - the Date header of successful answers (whole seconds). Error answers are ignored:
//     they may come from a proxy, a cache or a maintenance page with a clock of its own.
// A sample that would move the estimate by more than an hour is not believed on its own
// (a misconfigured proxy, a captive portal): it is held until a second source agrees
// with it, or, where the service offers only one source, until three answers in a row do.
export type ClockSource = 'currentTimestamp' | 'date'

export interface SkewClockOptions {
  /** Local clock. */
  now?: () => number
  /** Weight of a new sample in the running estimate. Default 0.25. */
  smoothing?: number
}

export interface ClockInfo {
  /** Estimated server minus local time, ms. */
  skewMs: number
  /** Where the estimate comes from; null before the first sample. */
  source: ClockSource | null
  samples: number
  /** Local time of the last sample folded in. */
  lastSampleAt: number | null
  /** Samples held back as implausible jumps (> 1 h) so far. */
  rejectedJumps: number
  /** The last held-back jump, for diagnostics. */
  lastRejected: { skewMs: number; source: ClockSource; at: number } | null
}

/** The Date header has whole seconds: the true server time lies anywhere in the next second. */
const DATE_RESOLUTION_MIDPOINT_MS = 500
/** A sample this far from the estimate is a clock change, not jitter. */
const JUMP_MS = 5_000
/** Beyond this, a sample needs a second opinion. */
export const MAX_UNCONFIRMED_JUMP_MS = 60 * 60_000
/** Two samples of a held-back jump "agree" within this (the Date header's second plus latency). */
const AGREE_MS = 3_000
/** While currentTimestamp samples are this fresh, Date headers do not move the estimate. */
const PREFER_PRECISE_MS = 15 * 60_000
/** Same-source answers needed to believe a jump when no second source exists. */
const SAME_SOURCE_CONFIRMATIONS = 3

export class SkewClock {
  private offset = 0
  private samples = 0
  private source: ClockSource | null = null
  private lastSampleAt: number | null = null
  private lastPreciseAt: number | null = null
  private rejectedJumps = 0
  private lastRejected: ClockInfo['lastRejected'] = null
  /** Held-back jump samples, newest last. */
  private pending: { sample: number; source: ClockSource }[] = []
  /** The local clock that samples are measured with. */
  readonly local: () => number
  private readonly smoothing: number

  constructor(o: SkewClockOptions = {}) {
    this.local = o.now ?? (() => Date.now())
    this.smoothing = o.smoothing ?? 0.25
  }

  /** The service's time, as best we know it. */
  now(): number {
    return this.local() + this.offset
  }

  /** Estimated server minus local time, ms. */
  get skewMs(): number {
    return Math.round(this.offset)
  }

  get sampleCount(): number {
    return this.samples
  }

  info(): ClockInfo {
    return {
      skewMs: this.skewMs,
      source: this.source,
      samples: this.samples,
      lastSampleAt: this.lastSampleAt,
      rejectedJumps: this.rejectedJumps,
      lastRejected: this.lastRejected ? { ...this.lastRejected } : null
    }
  }

  /**
   * Folds in one reading of the service's clock: `serverTime` (ms; for 'date' the header's
   * whole second) and the local times the request left and the answer came. Returns
   * whether the estimate took it (false: held back as an implausible jump, or a Date
   * header while a precise source is fresh).
   */
  observe(serverTime: number, sentAt: number, receivedAt: number, source: ClockSource = 'date'): boolean {
    const sample = this.sample(serverTime, sentAt, receivedAt, source)
    if (!this.plausible(sample, source)) return false
    if (source === 'date' && this.lastPreciseAt !== null && receivedAt - this.lastPreciseAt < PREFER_PRECISE_MS) return false
    // Smoothing absorbs the Date header's whole-second jitter; a jump far beyond it means
    // one of the clocks was set, and creeping towards it would sign stale times for minutes.
    // A precise source is taken as it is.
    const jumped = Math.abs(sample - this.offset) > JUMP_MS
    this.offset =
      this.samples === 0 || jumped || source === 'currentTimestamp' ? sample : this.offset + this.smoothing * (sample - this.offset)
    this.note(source, receivedAt)
    return true
  }

  /**
   * Replaces the estimate with one fresh sample: after the service said our time was
   * wrong, the running estimate is. Still bounded like observe().
   */
  resync(serverTime: number, sentAt: number, receivedAt: number, source: ClockSource): boolean {
    const sample = this.sample(serverTime, sentAt, receivedAt, source)
    if (!this.plausible(sample, source)) return false
    this.offset = sample
    this.note(source, receivedAt)
    return true
  }

  private note(source: ClockSource, at: number): void {
    this.samples++
    this.source = source
    this.lastSampleAt = at
    if (source === 'currentTimestamp') this.lastPreciseAt = at
    this.pending = []
  }

  /** Whether a sample may move the estimate; records and holds back the ones that may not yet. */
  private plausible(sample: number, source: ClockSource): boolean {
    if (this.samples === 0 && this.pending.length === 0) {
      // The very first reading has nothing to disagree with, but an hour or more off the
      // local clock is itself a jump: the local clock is a source too.
      if (Math.abs(sample) <= MAX_UNCONFIRMED_JUMP_MS) return true
    } else if (Math.abs(sample - this.offset) <= MAX_UNCONFIRMED_JUMP_MS) return true
    const agreeing = this.pending.filter((p) => Math.abs(p.sample - sample) <= AGREE_MS)
    const otherSource = agreeing.some((p) => p.source !== source)
    if (otherSource || agreeing.length + 1 >= SAME_SOURCE_CONFIRMATIONS) return true
    this.pending = [...this.pending.slice(-7), { sample, source }]
    this.rejectedJumps++
    this.lastRejected = { skewMs: Math.round(sample), source, at: this.local() }
    return false
  }

  private sample(serverTime: number, sentAt: number, receivedAt: number, source: ClockSource): number {
    const resolution = source === 'date' ? DATE_RESOLUTION_MIDPOINT_MS : 0
    return serverTime + resolution - (sentAt + receivedAt) / 2
  }
}
