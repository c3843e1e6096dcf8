// The client's own request budget, one per profile, one lane per endpoint: each lane
// counts its sends in a sliding window (sliding-window.ts), is held to a limit that 429s
// tighten or teach (limit-policy.ts), and serves its callers by priority (lane-scheduler.ts).
// Given a budget shared with other processes (shared-budget.ts), every send is claimed
// there too. Its use is carried over a restart by budget-carry.ts.
import { endpointNames, type EndpointName } from '../../shared/api/endpoints'
import { aborted, exhausted, refusedShared, sharedUnreachable } from './budget-errors'
import { Lane, type Priority } from './lane-scheduler'
import { DEFAULT_LIMIT_PER_MINUTE, LimitPolicy, type LimitSource, type LimitStore } from './limit-policy'
import type { SharedBudget, SharedClaim } from './shared-budget'
import { SlidingWindow } from './sliding-window'
import { realTimers, type Timers } from './timers'

export type { Priority } from './lane-scheduler'
export { DEFAULT_LIMIT_PER_MINUTE, type LearnedLimit, type LimitSource, type LimitStore } from './limit-policy'
export type { Timers } from './timers'

export interface AcquireOptions {
  priority?: Priority
  signal?: AbortSignal
  /** Give up after this long with kind 'rate_limited'. Default: 1000 ms interactive, no limit background. */
  maxWaitMs?: number
}

/** One endpoint's lane as the budget sees it; the contract's BudgetEntry is what the renderer is shown of it. */
export interface EndpointBudget {
  endpoint: EndpointName
  limit: number
  /** Where the limit comes from: the spec, a limit learned from the service's 429s, or the default for unknown limits. */
  limitSource: LimitSource
  usedInWindow: number
  queued: number
  /** When the next slot opens (epoch ms); now when one is free. */
  nextSlotAt: number
  blockedUntil: number | null
}

export interface BudgetSnapshot {
  profileId: string
  endpoints: EndpointBudget[]
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
  /** How long a 429 blocks an endpoint whose limit is being learned. Default one window (windowMs). */
  learnBlockMs?: number
  /** The longest block, however many strikes. Default 2 min. */
  maxPenaltyMs?: number
  interactiveMaxWaitMs?: number
  /** Learned limits of endpoints without a documented one, kept between runs. */
  limits?: LimitStore
  /** First wait before a learned limit is raised by one. Default 30 min; doubles after each 429 that follows a raise, up to a day. */
  probeIntervalMs?: number
  now?: () => number
  timers?: Timers
}

/** How soon a shared budget that failed to answer is asked again. */
const SHARED_RETRY_MS = 1_000

export class RateBudget {
  readonly profileId: string
  private readonly lanes = new Map<EndpointName, Lane>()
  private readonly listeners = new Set<(s: BudgetSnapshot) => void>()
  private readonly windowMs: number
  private readonly reserved: number
  private readonly interactiveMaxWaitMs: number
  private readonly limits: LimitPolicy
  private readonly now: () => number
  private readonly timers: Timers
  private shared: SharedBudget | null = null
  private onSharedError: (e: unknown) => void = () => undefined

  constructor(o: RateBudgetOptions) {
    this.profileId = o.profileId
    this.windowMs = o.windowMs ?? 61_000
    this.reserved = o.reservedInteractive ?? 2
    this.interactiveMaxWaitMs = o.interactiveMaxWaitMs ?? 1_000
    this.limits = new LimitPolicy({
      windowMs: this.windowMs,
      defaultLimit: o.defaultLimitPerMinute ?? DEFAULT_LIMIT_PER_MINUTE,
      penaltyMs: o.penaltyMs ?? 15_000,
      learnBlockMs: o.learnBlockMs ?? this.windowMs,
      maxPenaltyMs: o.maxPenaltyMs ?? 2 * 60_000,
      probeIntervalMs: o.probeIntervalMs ?? 30 * 60_000,
      ...(o.limits ? { store: o.limits } : {})
    })
    this.now = o.now ?? (() => Date.now())
    this.timers = o.timers ?? realTimers
  }

  /**
   * Makes every acquire also claim its send in a budget shared with other processes (null:
   * this budget alone, the default). Set before requests are sent.
   */
  share(shared: SharedBudget | null, onError?: (e: unknown) => void): void {
    this.shared = shared
    this.onSharedError = onError ?? (() => undefined)
  }

  /** Resolves when a slot is taken for one request to `endpoint`; the caller must send right away. */
  async acquire(endpoint: EndpointName, opts: AcquireOptions = {}): Promise<void> {
    const shared = this.shared
    const started = this.now()
    const priority = opts.priority ?? 'background'
    await this.lane(endpoint).acquire(priority, opts.maxWaitMs ?? this.defaultMaxWait(priority), opts.signal)
    if (shared) await this.claimShared(shared, endpoint, opts, started)
  }

  /** Whether a request to `endpoint` would be sent at once (this budget's lane; a shared budget is asked only when it is sent). */
  ready(endpoint: EndpointName, priority: Priority = 'background'): boolean {
    const lane = this.lane(endpoint)
    const now = this.now()
    lane.refresh(now)
    return lane.readyNow(priority, now)
  }

  private defaultMaxWait(priority: Priority): number {
    return priority === 'interactive' ? this.interactiveMaxWaitMs : Infinity
  }

  /**
   * Claims the send in the shared budget, waiting while it is full (within the caller's
   * maxWaitMs, counted from the acquire). The slot taken here stays taken meanwhile: this
   * budget is then stricter than the shared one, never looser. A shared budget that does not
   * answer is asked again every second: nothing is sent on this budget's word alone. A claim
   * the shared budget refuses outright (a hub that no longer leads) fails at once, aborted.
   */
  private async claimShared(shared: SharedBudget, endpoint: EndpointName, opts: AcquireOptions, started: number): Promise<void> {
    const priority = opts.priority ?? 'background'
    const deadline = started + (opts.maxWaitMs ?? this.defaultMaxWait(priority))
    for (;;) {
      if (opts.signal?.aborted) throw aborted(endpoint)
      let r: SharedClaim | null = null
      let failure: string | null = null
      try {
        r = await shared.claim(endpoint, this.lane(endpoint).capacity(priority), this.windowMs)
      } catch (e) {
        this.onSharedError(e)
        failure = e instanceof Error ? e.message : String(e)
      }
      if (r?.ok) return
      if (r && 'refused' in r) throw refusedShared(endpoint, r.refused)
      const waitMs = r ? Math.max(1, r.waitMs) : SHARED_RETRY_MS
      const now = this.now()
      if (now + waitMs > deadline) throw failure === null ? exhausted(endpoint, now + waitMs) : sharedUnreachable(endpoint, failure)
      await new Promise<void>((resolve, reject) => {
        const onAbort = () => {
          this.timers.clearTimeout(t)
          reject(aborted(endpoint))
        }
        const t = this.timers.setTimeout(() => {
          opts.signal?.removeEventListener('abort', onAbort)
          resolve()
        }, waitMs)
        opts.signal?.addEventListener('abort', onAbort, { once: true })
      })
    }
  }

  /** The service answered 429: block the endpoint and tighten (or learn) its limit. Returns when it unblocks. */
  penalize(endpoint: EndpointName): number {
    const lane = this.lane(endpoint)
    const now = this.now()
    lane.refresh(now)
    const until = lane.limit.penalize(now, lane.window)
    lane.schedule()
    this.changed()
    return until
  }

  /**
   * Counts `count` requests sent by an earlier run at `at` or before (carried over a
   * restart, api/budget-carry.ts): they fill the window until `at` + window, as the
   * service counts them, and never more than the lane holds. Returns how many were taken.
   */
  carryOver(endpoint: EndpointName, count: number, at: number): number {
    const now = this.now()
    if (count <= 0 || at <= now - this.windowMs) return 0
    const lane = this.lane(endpoint)
    lane.refresh(now)
    const taken = Math.max(0, Math.min(count, lane.limit.limit - lane.window.used))
    if (taken === 0) return 0
    // At `at` (not now): the sends were at or before it, so this is never looser than the truth.
    lane.window.carry(taken, Math.min(at, now))
    this.changed()
    return taken
  }

  snapshot(): BudgetSnapshot {
    const now = this.now()
    return {
      profileId: this.profileId,
      endpoints: endpointNames.map((name) => {
        const lane = this.lane(name)
        lane.refresh(now)
        return {
          endpoint: name,
          limit: lane.limit.limit,
          limitSource: lane.limit.source,
          usedInWindow: lane.window.used,
          queued: lane.queued,
          nextSlotAt: lane.freeAt('interactive', now),
          blockedUntil: lane.limit.blockedUntil(now)
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
      lane = new Lane(endpoint, new SlidingWindow(this.windowMs), this.limits.lane(endpoint), {
        reserved: this.reserved,
        now: this.now,
        timers: this.timers,
        onChange: () => this.changed()
      })
      this.lanes.set(endpoint, lane)
    }
    return lane
  }

  private changed(): void {
    if (this.listeners.size === 0) return
    const snap = this.snapshot()
    for (const l of this.listeners) l(snap)
  }
}
