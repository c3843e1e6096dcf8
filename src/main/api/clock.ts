// Estimates how far the service's clock is from ours, from the Date header of its
// answers, so requests are signed with the service's time: it refuses timestamps
// ahead of its clock ("Ahead of Time") and accepts ones a little in the past.
export interface SkewClockOptions {
  /** Local clock. */
  now?: () => number
  /** Weight of a new sample in the running estimate. Default 0.25. */
  smoothing?: number
}

/** The Date header has whole seconds: the true server time lies anywhere in the next second. */
const DATE_RESOLUTION_MIDPOINT_MS = 500
/** A sample this far from the estimate is a clock change, not jitter. */
const JUMP_MS = 5_000

export class SkewClock {
  private offset = 0
  private samples = 0
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

  /** Folds in one answer: its Date header and the local times the request left and the answer came. */
  observe(serverDate: number, sentAt: number, receivedAt: number): void {
    const sample = this.sample(serverDate, sentAt, receivedAt)
    // Smoothing absorbs the Date header's whole-second jitter; a jump far beyond it means
    // one of the clocks was set, and creeping towards it would sign stale times for minutes.
    const jumped = Math.abs(sample - this.offset) > JUMP_MS
    this.offset = this.samples === 0 || jumped ? sample : this.offset + this.smoothing * (sample - this.offset)
    this.samples++
  }

  /** Replaces the estimate with one sample: after the service said our time was ahead, history is wrong. */
  resync(serverDate: number, sentAt: number, receivedAt: number): void {
    this.offset = this.sample(serverDate, sentAt, receivedAt)
    this.samples++
  }

  private sample(serverDate: number, sentAt: number, receivedAt: number): number {
    return serverDate + DATE_RESOLUTION_MIDPOINT_MS - (sentAt + receivedAt) / 2
  }
}
