// The client's own request budget, one per profile, one lane per endpoint. The service
// counts a sliding 60 s window and sends no Retry-After, so we keep a log of send times
// and never let more than `limit` of them fall into any window (a refilling token
// bucket would let limit+1 through). Operators' requests (interactive) jump ahead of
// polling (background) and have a few slots per window reserved for them; checks that
// can wait (low: probing empty scopes, audits and their repairs) go when no poll waits,
// and leave a slot of the window to polling; but a low caller that has waited two windows
// goes before the polls, so a lane that polls keep busy, or one whose background share is
// a single slot, never starves them.
//
// A 429 on an endpoint with a documented limit blocks it for a while and tightens its
// limit, which recovers minute by minute. An endpoint whose limit the spec does not show
// starts at a generous default; its first 429 teaches the budget a limit (the requests
// the service did answer in the window before it), which is kept per profile across
// restarts (LimitStore) and probed upward one request at a time, slowly, while the lane
// is busy enough to tell.
import { endpointNames, endpoints, type EndpointName } from '../../shared/api/endpoints'
import { ApiError } from '../../shared/api/errors'
import type { SharedBudget, SharedClaim } from './shared-budget'

export type Priority = 'interactive' | 'background' | 'low'

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

export type LimitSource = 'documented' | 'learned' | 'default'

/** The limit assumed for an endpoint the spec gives none, until the service's 429s teach one. */
export const DEFAULT_LIMIT_PER_MINUTE = 120

/** A limit the budget learned for an endpoint the spec gives none. */
export interface LearnedLimit {
  limit: number
  /** When the last 429 taught or lowered it (epoch ms). */
  learnedAt: number
  /** The next time the limit may be raised by one, if the lane is busy then. */
  nextProbeAt: number
  /** Grows after every 429 that follows a raise. */
  probeIntervalMs: number
  /** When the limit was last raised by a probe; null if it has not been since it was learned. */
  raisedAt: number | null
}

/** Where learned limits live between runs (the profile database). */
export interface LimitStore {
  load(): Partial<Record<EndpointName, LearnedLimit>>
  save(endpoint: EndpointName, value: LearnedLimit): void
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

interface Waiter {
  priority: Priority
  /** When it started to wait. */
  since: number
  resolve: () => void
  reject: (e: ApiError) => void
  cleanup: () => void
}

interface Lane {
  endpoint: EndpointName
  /** The spec gives this endpoint a limit. */
  documented: boolean
  learned: LearnedLimit | null
  /** End of the last 429 block: requests before it belong to an earlier window of the service. */
  lastBlockEnd: number
  /** Answers before the last 429 that taught less than the floor, waiting for a second like it. */
  lowSeen: number | null
  /** A request had to wait for the limit since the last probe: the lane is busy enough to probe. */
  saturated: boolean
  baseLimit: number
  limit: number
  /** Send times inside the last window, oldest first. */
  log: number[]
  interactive: Waiter[]
  background: Waiter[]
  low: Waiter[]
  blockedUntil: number
  strikes: number
  /** Start of the current clean period that earns back one slot per window. */
  recoverFrom: number
  timer?: unknown
}

/** How soon a shared budget that failed to answer is asked again. */
const SHARED_RETRY_MS = 1_000

/** Answers the service gave in its window before a 429 for the 429 to teach a limit. */
const MIN_ANSWERS_TO_LEARN = 2
/**
 * The lowest limit one 429 teaches. One refusal cannot tell a limit from a storm (an
 * overloaded service refusing at random after a few answers); the spec's documented
 * limits are 10 a minute, so a lesson goes no lower unless two refusals came after the
 * same number of answers (give or take one), as a real limit refuses and a storm does not.
 */
const FIRST_LEARNED_FLOOR = 10
/** A low caller waiting this many windows takes its turn among background callers. */
const LOW_AGE_WINDOWS = 2

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
  private readonly learnBlockMs: number
  private readonly maxPenaltyMs: number
  private readonly interactiveMaxWaitMs: number
  private readonly probeIntervalMs: number
  private readonly store: LimitStore | undefined
  private readonly stored: Partial<Record<EndpointName, LearnedLimit>>
  private readonly now: () => number
  private readonly timers: Timers
  private shared: SharedBudget | null = null
  private onSharedError: (e: unknown) => void = () => undefined

  constructor(o: RateBudgetOptions) {
    this.profileId = o.profileId
    this.windowMs = o.windowMs ?? 61_000
    this.reserved = o.reservedInteractive ?? 2
    this.defaultLimit = o.defaultLimitPerMinute ?? DEFAULT_LIMIT_PER_MINUTE
    this.penaltyMs = o.penaltyMs ?? 15_000
    this.learnBlockMs = o.learnBlockMs ?? this.windowMs
    this.maxPenaltyMs = o.maxPenaltyMs ?? 2 * 60_000
    this.interactiveMaxWaitMs = o.interactiveMaxWaitMs ?? 1_000
    this.probeIntervalMs = o.probeIntervalMs ?? 30 * 60_000
    this.store = o.limits
    this.stored = o.limits?.load() ?? {}
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
    await this.acquireHere(endpoint, opts)
    if (shared) await this.claimShared(shared, endpoint, opts, started)
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
    const deadline = started + (opts.maxWaitMs ?? (priority === 'interactive' ? this.interactiveMaxWaitMs : Infinity))
    for (;;) {
      if (opts.signal?.aborted) throw aborted(endpoint)
      let r: SharedClaim | null = null
      let failure: string | null = null
      try {
        r = await shared.claim(endpoint, this.capacity(this.lane(endpoint), priority), this.windowMs)
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

  private acquireHere(endpoint: EndpointName, opts: AcquireOptions = {}): Promise<void> {
    const priority = opts.priority ?? 'background'
    const maxWaitMs = opts.maxWaitMs ?? (priority === 'interactive' ? this.interactiveMaxWaitMs : Infinity)
    const lane = this.lane(endpoint)
    const now = this.now()
    this.refresh(lane, now)
    if (opts.signal?.aborted) return Promise.reject(aborted(endpoint))
    const ahead =
      priority === 'interactive'
        ? lane.interactive.length
        : priority === 'background'
          ? lane.interactive.length + lane.background.length
          : lane.interactive.length + lane.background.length + lane.low.length
    if (ahead === 0 && this.freeAt(lane, priority, now) <= now) {
      this.take(lane, now)
      this.changed()
      return Promise.resolve()
    }
    const nextSlotAt = this.freeAt(lane, priority, now)
    if (lane.log.length >= this.capacity(lane, priority)) lane.saturated = true
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
        since: now,
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

  /** The service answered 429: block the endpoint and tighten (or learn) its limit. Returns when it unblocks. */
  penalize(endpoint: EndpointName): number {
    const lane = this.lane(endpoint)
    const now = this.now()
    this.refresh(lane, now)
    if (!lane.documented) {
      const from = Math.max(now - this.windowMs + 1, lane.lastBlockEnd)
      const answered = lane.log.filter((t) => t >= from).length - 1
      // Too few answers before the refusal to say anything about a limit (another client
      // on the same key, a storm): back off as for any 429, learn nothing.
      if (answered >= MIN_ANSWERS_TO_LEARN) return this.learn(lane, now, answered)
    }
    lane.strikes++
    if (lane.documented) lane.limit = Math.max(1, Math.floor(lane.limit * 0.8))
    lane.blockedUntil = Math.max(lane.blockedUntil, now + Math.min(this.maxPenaltyMs, this.penaltyMs * 2 ** (lane.strikes - 1)))
    lane.recoverFrom = lane.blockedUntil
    this.schedule(lane)
    this.changed()
    return lane.blockedUntil
  }

  /**
   * A 429 where the spec shows no limit. The service answered the requests sent in its
   * window before this one, so that many is the limit, at most. Only requests since the
   * last block count: the service's window may be fixed minutes rather than sliding, and
   * then requests before a block fell in an earlier window of its own. The block lasts a
   * whole window, after which any window of the service's, sliding or fixed, starts afresh.
   */
  private learn(lane: Lane, now: number, answered: number): number {
    const before = lane.learned
    // A 429 right after a raise: the raise was one too many; wait longer before the next.
    const raisedRecently = before?.raisedAt != null && now - before.raisedAt < before.probeIntervalMs
    const cap = before ? lane.limit - (raisedRecently ? 1 : 0) : Infinity
    let limit: number
    if (answered >= cap) limit = cap
    else if (answered >= FIRST_LEARNED_FLOOR) limit = answered
    else if (lane.lowSeen !== null && Math.abs(lane.lowSeen - answered) <= 1) limit = Math.min(answered, lane.lowSeen)
    else limit = Math.min(cap, FIRST_LEARNED_FLOOR)
    lane.lowSeen = answered < FIRST_LEARNED_FLOOR && limit > answered ? answered : null
    limit = Math.max(1, limit)
    const probeIntervalMs =
      before && raisedRecently ? Math.min(24 * 60 * 60_000, before.probeIntervalMs * 2) : (before?.probeIntervalMs ?? this.probeIntervalMs)
    lane.learned = { limit, learnedAt: now, nextProbeAt: now + probeIntervalMs, probeIntervalMs, raisedAt: null }
    lane.limit = lane.baseLimit = limit
    lane.blockedUntil = Math.max(lane.blockedUntil, now + this.learnBlockMs)
    lane.lastBlockEnd = lane.blockedUntil
    lane.saturated = false
    this.store?.save(lane.endpoint, lane.learned)
    this.schedule(lane)
    this.changed()
    return lane.blockedUntil
  }

  /** One more request per window for a learned lane that has been busy and clean for a probe interval. */
  private probe(lane: Lane, now: number): void {
    const l = lane.learned
    if (!l || now < l.nextProbeAt || now < lane.blockedUntil) return
    if (!lane.saturated) return
    lane.learned = { ...l, limit: l.limit + 1, nextProbeAt: now + l.probeIntervalMs, raisedAt: now }
    lane.limit = lane.baseLimit = lane.learned.limit
    lane.saturated = false
    this.store?.save(lane.endpoint, lane.learned)
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
    this.refresh(lane, now)
    const taken = Math.max(0, Math.min(count, lane.limit - lane.log.length))
    if (taken === 0) return 0
    // At `at` (not now): the sends were at or before it, so this is never looser than the truth.
    lane.log.push(...Array.from({ length: taken }, () => Math.min(at, now)))
    lane.log.sort((a, b) => a - b)
    this.changed()
    return taken
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
          limitSource: lane.documented ? 'documented' : lane.learned ? 'learned' : 'default',
          usedInWindow: lane.log.length,
          queued: lane.interactive.length + lane.background.length + lane.low.length,
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
      const documented = endpoints[endpoint].rateLimitPerMinute
      const learned = documented === null ? (this.stored[endpoint] ?? null) : null
      const baseLimit = documented ?? learned?.limit ?? this.defaultLimit
      lane = {
        endpoint,
        documented: documented !== null,
        learned,
        lastBlockEnd: 0,
        lowSeen: null,
        saturated: false,
        baseLimit,
        limit: baseLimit,
        log: [],
        interactive: [],
        background: [],
        low: [],
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
    if (lane.learned) return this.probe(lane, now)
    if ((lane.limit < lane.baseLimit || lane.strikes > 0) && now >= lane.recoverFrom + this.windowMs) {
      const windows = Math.floor((now - lane.recoverFrom) / this.windowMs)
      for (let i = 0; i < windows && lane.limit < lane.baseLimit; i++)
        lane.limit = Math.min(lane.baseLimit, Math.max(lane.limit + 1, Math.ceil(lane.limit * 1.25)))
      lane.strikes = Math.max(0, lane.strikes - windows)
      lane.recoverFrom += windows * this.windowMs
    }
  }

  private capacity(lane: Lane, priority: Priority): number {
    // Background keeps at least one slot, or a tightened limit of 1 would starve polling;
    // low leaves one of background's to it (when it has more than one; an aged low caller
    // is served as background, see next()).
    const background = Math.max(1, lane.limit - this.reserved)
    return priority === 'interactive' ? lane.limit : priority === 'background' ? background : Math.max(1, background - 1)
  }

  /**
   * The waiter to serve next and the priority it is served at: interactive first, then
   * background, then low; but a low caller that has waited LOW_AGE_WINDOWS goes before
   * background callers, at background's share. Low callers come one after another (a
   * probe, an audit's count, a repair's page), so this gives each chain of them a slot
   * every two windows at least, however busy the polls keep the lane.
   */
  private next(lane: Lane, now: number): { queue: Waiter[]; head: Waiter; as: Priority } | null {
    if (lane.interactive[0]) return { queue: lane.interactive, head: lane.interactive[0], as: 'interactive' }
    const bg = lane.background[0]
    const low = lane.low[0]
    if (low && now - low.since >= LOW_AGE_WINDOWS * this.windowMs) return { queue: lane.low, head: low, as: 'background' }
    if (bg) return { queue: lane.background, head: bg, as: 'background' }
    return low ? { queue: lane.low, head: low, as: 'low' } : null
  }

  /** Earliest time a request of this priority fits, ignoring callers queued ahead. */
  private freeAt(lane: Lane, priority: Priority, now: number): number {
    const cap = this.capacity(lane, priority)
    if (cap <= 0) return Infinity
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
      const n = this.next(lane, now)
      if (!n || this.freeAt(lane, n.as, now) > now) break
      const { queue, head } = n
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
    const n = this.next(lane, now)
    const head = n?.head
    const times = [n ? this.freeAt(lane, n.as, now) : Infinity, (lane.log[0] ?? Infinity) + this.windowMs]
    if (lane.blockedUntil > now) times.push(lane.blockedUntil)
    // The oldest low caller comes of age: it may go sooner then.
    const low = lane.low[0]
    if (low && n?.head !== low) times.push(low.since + LOW_AGE_WINDOWS * this.windowMs)
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

function refusedShared(endpoint: EndpointName, why: string): ApiError {
  return new ApiError({ kind: 'aborted', endpoint, retryable: false, message: `not sent to ${endpoint}: ${why}` })
}

function sharedUnreachable(endpoint: EndpointName, why: string): ApiError {
  return new ApiError({
    kind: 'rate_limited',
    origin: 'budget',
    endpoint,
    message: `the request budget shared with the other hubs could not be reached (${why}); nothing is sent to ${endpoint} without it`
  })
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
