// A discrete-event clock for simulating hours in seconds: virtual time only moves when
// everything started at the current instant has settled (no HTTP request in flight and
// the event loop drained), then jumps to the next due timer. Real work (HTTP over
// loopback, JSON, SQLite) takes no simulated time, so the client's budget and the
// sandbox's limiter see the same instants, and the result does not depend on how busy
// the machine is. Both sides share `now`; the client's timers, the budget's timers and
// retry sleeps go through `timers`.
import type { HttpTransport, TransportRequest, TransportResponse } from '../../src/main/api/transport'
import type { Timers } from '../../src/main/api/rate-budget'

interface Entry {
  at: number
  seq: number
  fn: () => void
  cancelled: boolean
}

export class VirtualClock {
  private t: number
  private seq = 0
  private readonly queue: Entry[] = []
  private inflight = 0
  /** Real milliseconds spent waiting for HTTP answers, per request, for reporting. */
  readonly transitMs: number[] = []

  constructor(start: number) {
    this.t = start
  }

  readonly now = (): number => this.t

  readonly timers: Timers = {
    setTimeout: (fn, ms) => this.schedule(fn, ms),
    clearTimeout: (h) => {
      if (h) (h as Entry).cancelled = true
    }
  }

  /** Like setTimeout on the virtual clock; the handle has a no-op unref(). */
  schedule(fn: () => void, ms: number): Entry & { unref(): void } {
    const e = Object.assign({ at: this.t + Math.max(0, ms), seq: this.seq++, fn, cancelled: false }, { unref: () => undefined })
    // Sorted insert: the queue stays small (a few dozen timers).
    let i = this.queue.length
    while (i > 0 && (this.queue[i - 1]!.at > e.at || (this.queue[i - 1]!.at === e.at && this.queue[i - 1]!.seq > e.seq))) i--
    this.queue.splice(i, 0, e)
    return e
  }

  /** A sleep on the virtual clock; its abort listener goes when it ends, as long-lived signals outlive many sleeps. */
  sleep = (ms: number, signal?: AbortSignal): Promise<void> =>
    new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason)
      const onAbort = () => {
        h.cancelled = true
        reject(signal!.reason)
      }
      const h = this.schedule(() => {
        signal?.removeEventListener('abort', onAbort)
        resolve()
      }, ms)
      signal?.addEventListener('abort', onAbort, { once: true })
    })

  /** Wraps a transport so the clock knows when requests are in flight. */
  track(inner: HttpTransport): HttpTransport {
    return {
      request: async (req: TransportRequest): Promise<TransportResponse> => {
        this.inflight++
        const t0 = performance.now()
        try {
          return await inner.request(req)
        } finally {
          this.transitMs.push(performance.now() - t0)
          this.inflight--
        }
      },
      close: () => inner.close()
    }
  }

  /** Resolves once nothing is in flight for two turns of the event loop in a row. */
  private async settle(): Promise<void> {
    let quiet = 0
    let turns = 0
    while (quiet < 2) {
      if (++turns % 100000 === 0 && process.env.BENCH_DEBUG)
        console.error(`virtual clock: ${this.inflight} in flight at ${new Date(this.t).toISOString()}`)
      await new Promise<void>((r) => setImmediate(r))
      quiet = this.inflight === 0 ? quiet + 1 : 0
    }
  }

  /** Runs timers in virtual-time order until `until` (or until `enough()` says so); returns the number fired. */
  async runUntil(until: number, enough: () => boolean = () => false): Promise<number> {
    let fired = 0
    for (;;) {
      await this.settle()
      if (enough()) return fired
      const next = this.queue[0]
      if (!next || next.at > until) break
      this.queue.shift()
      if (next.cancelled) continue
      this.t = Math.max(this.t, next.at)
      fired++
      next.fn()
    }
    this.t = Math.max(this.t, until)
    return fired
  }

  /**
   * Waits for `work` (a monitor's stop, say) on this clock. It gets the event loop first, so
   * work that ends by itself leaves the clock where it was; work that waits on the clock (a
   * request's simulated network delay) then gets up to `limitMs` of simulated time; past that
   * it is named as a hang instead of being awaited for ever with the clock standing still.
   */
  async finish<T>(work: Promise<T>, what: string, limitMs = 60_000): Promise<T> {
    let done = false
    const watched = work.finally(() => {
      done = true
    })
    watched.catch(() => undefined)
    await this.runUntil(this.t, () => done)
    if (!done) await this.runUntil(this.t + limitMs, () => done)
    if (!done) throw new Error(`${what} did not end within ${limitMs / 1000} s of simulated time`)
    return watched
  }
}
