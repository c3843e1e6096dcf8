// The client's own request budget, one per profile, one lane per endpoint. The service
// counts a sliding 60 s window and sends no Retry-After, so we keep a log of send times
// and never let more than `limit` of them fall into any window (a refilling token
// bucket would let limit+1 through). Operators' requests (interactive) jump ahead of
// polling (background) and have a few slots per window reserved for them. A 429 blocks
// the endpoint for a while and tightens its limit, which recovers minute by minute.
import { endpointNames, endpoints, type EndpointName } from '../../shared/api/endpoints'
import { ApiError } from '../../shared/api/errors'

export type Priority = 'interactive' | 'background'

export interface AcquireOptions {
  priority?: Priority
  signal?: AbortSignal
  /** Give up after this long with kind 'rate_limited'. Default: 1000 ms interactive, no limit background. */
  maxWaitMs?: number
}

export interface BudgetEntry {
  endpoint: EndpointName
  limit: number
  usedInWindow: number
  queued: number
  /** When the next slot opens (epoch ms); now when one is free. */
  nextSlotAt: number
  blockedUntil: number | null
}

export interface BudgetSnapshot {
  profileId: string
  endpoints: BudgetEntry[]
}

export interface Timers {
  setTimeout(fn: () => void, ms: number): unknown
  clearTimeout(handle: unknown): void
}

export interface RateBudgetOptions {
  profileId: string
  /** Limit for endpoints the spec gives none. Default 120. */
  defaultLimitPerMinute?: number
  /** Slots per window only interactive callers may use. Default 2. */
  reservedInteractive?: number
  /** Default 61 000: the service's 60 s plus a second for latency between our clock and its counter. */
  windowMs?: number
  /** First block after a 429; doubles with each further strike (one is forgiven per clean window). Default 15 s. */
  penaltyMs?: number
  /** The longest block, however many strikes. Default 2 min. */
  maxPenaltyMs?: number
  interactiveMaxWaitMs?: number
  now?: () => number
  timers?: Timers
}

interface Waiter {
  priority: Priority
  resolve: () => void
  reject: (e: ApiError) => void
  cleanup: () => void
}

interface Lane {
  endpoint: EndpointName
  baseLimit: number
  limit: number
  /** Send times inside the last window, oldest first. */
  log: number[]
  interactive: Waiter[]
  background: Waiter[]
  blockedUntil: number
  strikes: number
  /** Start of the current clean period that earns back one slot per window. */
  recoverFrom: number
  timer?: unknown
}

const realTimers: Timers = {
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (h) => clearTimeout(h as ReturnType<typeof setTimeout>)
}

export class RateBudget {
  readonly profileId: string
  private readonly lanes = new Map<EndpointName, Lane>()
  private readonly listeners = new Set<(s: BudgetSnapshot) => void>()
  private readonly windowMs: number
  private readonly reserved: number
  private readonly defaultLimit: number
  private readonly penaltyMs: number
  private readonly maxPenaltyMs: number
  private readonly interactiveMaxWaitMs: number
  private readonly now: () => number
  private readonly timers: Timers

  constructor(o: RateBudgetOptions) {
    this.profileId = o.profileId
    this.windowMs = o.windowMs ?? 61_000
    this.reserved = o.reservedInteractive ?? 2
    this.defaultLimit = o.defaultLimitPerMinute ?? 120
    this.penaltyMs = o.penaltyMs ?? 15_000
    this.maxPenaltyMs = o.maxPenaltyMs ?? 2 * 60_000
    this.interactiveMaxWaitMs = o.interactiveMaxWaitMs ?? 1_000
    this.now = o.now ?? (() => Date.now())
    this.timers = o.timers ?? realTimers
  }

  /** Resolves when a slot is taken for one request to `endpoint`; the caller must send right away. */
  acquire(endpoint: EndpointName, opts: AcquireOptions = {}): Promise<void> {
    const priority = opts.priority ?? 'background'
    const maxWaitMs = opts.maxWaitMs ?? (priority === 'interactive' ? this.interactiveMaxWaitMs : Infinity)
    const lane = this.lane(endpoint)
    const now = this.now()
    this.refresh(lane, now)
    if (opts.signal?.aborted) return Promise.reject(aborted(endpoint))
    const ahead = priority === 'interactive' ? lane.interactive.length : lane.interactive.length + lane.background.length
    if (ahead === 0 && this.freeAt(lane, priority, now) <= now) {
      this.take(lane, now)
      this.changed()
      return Promise.resolve()
    }
    const nextSlotAt = this.freeAt(lane, priority, now)
    // Nothing can make a slot open sooner, so say so at once instead of after maxWaitMs.
    if (nextSlotAt - now > maxWaitMs) return Promise.reject(exhausted(endpoint, nextSlotAt))

    return new Promise<void>((resolve, reject) => {
      const queue = lane[priority]
      let deadline: unknown
      const onAbort = () => {
        drop()
        reject(aborted(endpoint))
      }
      const drop = () => {
        const i = queue.indexOf(waiter)
        if (i >= 0) queue.splice(i, 1)
        waiter.cleanup()
        this.schedule(lane)
        this.changed()
      }
      const waiter: Waiter = {
        priority,
        resolve,
        reject,
        cleanup: () => {
          if (deadline !== undefined) this.timers.clearTimeout(deadline)
          opts.signal?.removeEventListener('abort', onAbort)
        }
      }
      if (Number.isFinite(maxWaitMs))
        deadline = this.timers.setTimeout(() => {
          deadline = undefined
          drop()
          reject(exhausted(endpoint, this.freeAt(lane, priority, this.now())))
        }, maxWaitMs)
      opts.signal?.addEventListener('abort', onAbort, { once: true })
      queue.push(waiter)
      this.pump(lane)
    })
  }

  /** The service answered 429: block the endpoint and tighten its limit. Returns when it unblocks. */
  penalize(endpoint: EndpointName): number {
    const lane = this.lane(endpoint)
    const now = this.now()
    this.refresh(lane, now)
    lane.strikes++
    lane.limit = Math.max(1, Math.floor(lane.limit * 0.8))
    lane.blockedUntil = Math.max(lane.blockedUntil, now + Math.min(this.maxPenaltyMs, this.penaltyMs * 2 ** (lane.strikes - 1)))
    lane.recoverFrom = lane.blockedUntil
    this.schedule(lane)
    this.changed()
    return lane.blockedUntil
  }

  snapshot(): BudgetSnapshot {
    const now = this.now()
    return {
      profileId: this.profileId,
      endpoints: endpointNames.map((name) => {
        const lane = this.lane(name)
        this.refresh(lane, now)
        return {
          endpoint: name,
          limit: lane.limit,
          usedInWindow: lane.log.length,
          queued: lane.interactive.length + lane.background.length,
          nextSlotAt: this.freeAt(lane, 'interactive', now),
          blockedUntil: lane.blockedUntil > now ? lane.blockedUntil : null
        }
      })
    }
  }

  /** Called with a fresh snapshot whenever a lane changes; returns the unsubscribe function. */
  onChange(listener: (s: BudgetSnapshot) => void): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  private lane(endpoint: EndpointName): Lane {
    let lane = this.lanes.get(endpoint)
    if (!lane) {
      const baseLimit = endpoints[endpoint].rateLimitPerMinute ?? this.defaultLimit
      lane = {
        endpoint,
        baseLimit,
        limit: baseLimit,
        log: [],
        interactive: [],
        background: [],
        blockedUntil: 0,
        strikes: 0,
        recoverFrom: 0
      }
      this.lanes.set(endpoint, lane)
    }
    return lane
  }

  /**
   * Forgets sends that left the window. After a 429, each clean window earns back a
   * quarter of the limit (at least one slot: the inverse of the cut) and forgives one
   * strike, so a short storm does not leave long blocks behind it.
   */
  private refresh(lane: Lane, now: number): void {
    while (lane.log.length > 0 && lane.log[0]! <= now - this.windowMs) lane.log.shift()
    if ((lane.limit < lane.baseLimit || lane.strikes > 0) && now >= lane.recoverFrom + this.windowMs) {
      const windows = Math.floor((now - lane.recoverFrom) / this.windowMs)
      for (let i = 0; i < windows && lane.limit < lane.baseLimit; i++)
        lane.limit = Math.min(lane.baseLimit, Math.max(lane.limit + 1, Math.ceil(lane.limit * 1.25)))
      lane.strikes = Math.max(0, lane.strikes - windows)
      lane.recoverFrom += windows * this.windowMs
    }
  }

  private capacity(lane: Lane, priority: Priority): number {
    // Background keeps at least one slot, or a tightened limit of 1 would starve polling.
    return priority === 'interactive' ? lane.limit : Math.max(1, lane.limit - this.reserved)
  }

  /** Earliest time a request of this priority fits, ignoring callers queued ahead. */
  private freeAt(lane: Lane, priority: Priority, now: number): number {
    const cap = this.capacity(lane, priority)
    const used = lane.log.length
    const byWindow = used < cap ? now : lane.log[used - cap]! + this.windowMs
    return Math.max(byWindow, lane.blockedUntil, now)
  }

  private take(lane: Lane, now: number): void {
    lane.log.push(now)
    this.schedule(lane)
  }

  private pump(lane: Lane): void {
    const now = this.now()
    this.refresh(lane, now)
    for (;;) {
      const queue = lane.interactive.length > 0 ? lane.interactive : lane.background
      const head = queue[0]
      if (!head || this.freeAt(lane, head.priority, now) > now) break
      queue.shift()
      head.cleanup()
      lane.log.push(now)
      head.resolve()
    }
    this.schedule(lane)
    this.changed()
  }

  /** One timer per lane, for the next moment something changes: a waiter can go, or a send leaves the window. */
  private schedule(lane: Lane): void {
    if (lane.timer !== undefined) this.timers.clearTimeout(lane.timer)
    lane.timer = undefined
    const now = this.now()
    const head = lane.interactive[0] ?? lane.background[0]
    const times = [head ? this.freeAt(lane, head.priority, now) : Infinity, (lane.log[0] ?? Infinity) + this.windowMs]
    if (lane.blockedUntil > now) times.push(lane.blockedUntil)
    const at = Math.min(...times)
    if (!Number.isFinite(at)) return
    lane.timer = this.timers.setTimeout(
      () => {
        lane.timer = undefined
        this.pump(lane)
      },
      Math.max(0, at - now)
    )
    // A timer that only refreshes the snapshot must not keep a CLI or benchmark process alive.
    if (!head) (lane.timer as { unref?: () => void }).unref?.()
  }

  private changed(): void {
    if (this.listeners.size === 0) return
    const snap = this.snapshot()
    for (const l of this.listeners) l(snap)
  }
}

function aborted(endpoint: EndpointName): ApiError {
  return new ApiError({ kind: 'aborted', endpoint, message: 'request cancelled while waiting for the rate budget' })
}

function exhausted(endpoint: EndpointName, nextSlotAt: number): ApiError {
  return new ApiError({
    kind: 'rate_limited',
    origin: 'budget',
    endpoint,
    nextSlotAt,
    message: `budget exhausted for ${endpoint}, next slot at ${new Date(nextSlotAt).toISOString()}`
  })
}
