// The budget baseline a competent engineer would write: a
// counter per endpoint reset at every minute of the client's own clock, at the spec's
// "10 requests per minute" for the six endpoints that document it and no limit for the
// others; callers wait in one queue per endpoint, first come first served (no priority
// for operators); a 429 stops the endpoint until the next minute of the client's clock.
// It learns nothing: an endpoint the spec gives no limit meets the service's limit again
// every minute it is busy. It plugs into ApiClient in place of RateBudget.
import { endpoints, type EndpointName } from '../../src/shared/api/endpoints'
import { RateBudget, type AcquireOptions, type Timers } from '../../src/main/api/rate-budget'

const MINUTE = 60_000

/** Start of the minute of the client's clock that `t` falls in. */
export const minuteStart = (t: number): number => Math.floor(t / MINUTE) * MINUTE

interface Lane {
  windowStart: number
  used: number
  blockedUntil: number
  queue: Array<() => void>
  timer: unknown
}

export class FixedWindowBudget extends RateBudget {
  private readonly fw = new Map<EndpointName, Lane>()
  private readonly clockNow: () => number
  private readonly clockTimers: Timers

  constructor(o: { profileId: string; now: () => number; timers: Timers }) {
    super(o)
    this.clockNow = o.now
    this.clockTimers = o.timers
  }

  override acquire(endpoint: EndpointName, _opts?: AcquireOptions): Promise<void> {
    const lane = this.laneOf(endpoint)
    return new Promise<void>((resolve) => {
      lane.queue.push(resolve)
      this.release(endpoint, lane)
    })
  }

  override penalize(endpoint: EndpointName): number {
    const lane = this.laneOf(endpoint)
    lane.blockedUntil = Math.max(lane.blockedUntil, minuteStart(this.clockNow()) + MINUTE)
    this.release(endpoint, lane)
    return lane.blockedUntil
  }

  private laneOf(endpoint: EndpointName): Lane {
    let lane = this.fw.get(endpoint)
    if (!lane) {
      lane = { windowStart: 0, used: 0, blockedUntil: 0, queue: [], timer: undefined }
      this.fw.set(endpoint, lane)
    }
    return lane
  }

  private release(endpoint: EndpointName, lane: Lane): void {
    const limit = endpoints[endpoint].rateLimitPerMinute ?? Infinity
    const now = this.clockNow()
    if (minuteStart(now) !== lane.windowStart) {
      lane.windowStart = minuteStart(now)
      lane.used = 0
    }
    while (lane.queue.length > 0 && now >= lane.blockedUntil && lane.used < limit) {
      lane.used++
      lane.queue.shift()!()
    }
    if (lane.queue.length === 0 || lane.timer !== undefined) return
    const at = Math.max(lane.blockedUntil, lane.used >= limit ? lane.windowStart + MINUTE : now)
    lane.timer = this.clockTimers.setTimeout(
      () => {
        lane.timer = undefined
        this.release(endpoint, lane)
      },
      Math.max(0, at - now)
    )
  }
}
