// One endpoint's sends as the service counts them: a sliding window of `windowMs` and no
// Retry-After. So the send times inside the window are kept, and a send fits when fewer
// than the limit of them are (a refilling token bucket would let limit+1 through).

export class SlidingWindow {
  /** Send times inside the last window, oldest first. */
  private readonly sends: number[] = []

  constructor(readonly windowMs: number) {}

  /** Sends inside the window. */
  get used(): number {
    return this.sends.length
  }

  /** Forgets sends that left the window. */
  forget(now: number): void {
    while (this.sends.length > 0 && this.sends[0]! <= now - this.windowMs) this.sends.shift()
  }

  take(at: number): void {
    this.sends.push(at)
  }

  /** Sends made at `at` or before by an earlier run (never looser than the truth when `at` is their latest time). */
  carry(count: number, at: number): void {
    this.sends.push(...Array.from({ length: count }, () => at))
    this.sends.sort((a, b) => a - b)
  }

  /** Sends at `from` or later. */
  usedSince(from: number): number {
    return this.sends.filter((t) => t >= from).length
  }

  /** When one more send fits under `cap` sends a window: now when it does already. */
  fitsAt(cap: number, now: number): number {
    const used = this.sends.length
    return used < cap ? now : this.sends[used - cap]! + this.windowMs
  }

  /** When the oldest send leaves the window (Infinity: none is in it). */
  nextExpiry(): number {
    return (this.sends[0] ?? Infinity) + this.windowMs
  }
}
