// The limit an endpoint's lane is held to, and what a 429 does to it. A limit the spec
// documents is held to; a 429 blocks the lane for a while and cuts the limit, which
// recovers minute by minute. An endpoint whose limit the spec does not show starts at a
// generous default; its first 429 teaches the budget a limit (the requests the service did
// answer in the window before it), which is kept per profile across restarts (LimitStore)
// and probed upward one request at a time, slowly, while the lane is busy enough to tell.
import { endpoints, type EndpointName } from '../../shared/api/endpoints'
import type { SlidingWindow } from './sliding-window'

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

/**
 * What the requests answered before 429s taught so far: when the last block a lesson set
 * ends (requests before it belong to an earlier window of the service), and the answers
 * before the last 429 that taught less than the floor, waiting for a second like it.
 */
interface Lesson {
  lastBlockEnd: number
  lowSeen: number | null
}

/**
 * Where a lane's limit comes from, and what each source keeps. Strikes (429s that taught
 * nothing) lengthen the next block; a documented or default limit has one forgiven per
 * clean window since recoverFrom, and a documented one earns back what 429s cut from it.
 * A learned limit is raised by probes while the lane is saturated (a request had to wait
 * for the limit since the last raise).
 */
export type LimitMode =
  | { source: 'documented'; base: number; limit: number; strikes: number; recoverFrom: number }
  | { source: 'default'; limit: number; strikes: number; recoverFrom: number; lesson: Lesson }
  | { source: 'learned'; learned: LearnedLimit; strikes: number; lesson: Lesson; saturated: boolean }

/** Whether a lane may send: freely, or not before a 429's block ends. */
export type Block = { kind: 'open' } | { kind: 'blocked'; until: number }

export interface LimitSettings {
  windowMs: number
  /** Limit for endpoints the spec gives none, until one is learned. */
  defaultLimit: number
  /** First block after a 429; doubles with each further strike. */
  penaltyMs: number
  /** How long a 429 that teaches a limit blocks the lane. */
  learnBlockMs: number
  /** The longest block, however many strikes. */
  maxPenaltyMs: number
  /** First wait before a learned limit is raised by one. */
  probeIntervalMs: number
  /** Learned limits kept between runs. */
  store?: LimitStore
}

/** Answers the service gave in its window before a 429 for the 429 to teach a limit. */
const MIN_ANSWERS_TO_LEARN = 2
/**
 * The lowest limit one 429 teaches. One refusal cannot tell a limit from a storm (an
 * overloaded service refusing at random after a few answers); the spec's documented
 * limits are 10 a minute, so a lesson goes no lower unless two refusals came after the
 * same number of answers (give or take one), as a real limit refuses and a storm does not.
 */
const FIRST_LEARNED_FLOOR = 10
/** The longest wait between probes, however many raises met a 429. */
const MAX_PROBE_INTERVAL_MS = 24 * 60 * 60_000

const OPEN: Block = { kind: 'open' }

/** The limits of a budget's lanes: the settings they share, and the limits learned in earlier runs. */
export class LimitPolicy {
  private readonly stored: Partial<Record<EndpointName, LearnedLimit>>

  constructor(private readonly s: LimitSettings) {
    this.stored = s.store?.load() ?? {}
  }

  /** The limit of one endpoint's lane as it starts. */
  lane(endpoint: EndpointName): LaneLimit {
    const documented = endpoints[endpoint].rateLimitPerMinute
    const learned = documented === null ? (this.stored[endpoint] ?? null) : null
    const lesson = { lastBlockEnd: 0, lowSeen: null }
    const mode: LimitMode =
      documented !== null
        ? { source: 'documented', base: documented, limit: documented, strikes: 0, recoverFrom: 0 }
        : learned
          ? { source: 'learned', learned, strikes: 0, lesson, saturated: false }
          : { source: 'default', limit: this.s.defaultLimit, strikes: 0, recoverFrom: 0, lesson }
    return new LaneLimit(endpoint, mode, this.s)
  }
}

export class LaneLimit {
  private block: Block = OPEN

  constructor(
    private readonly endpoint: EndpointName,
    private mode: LimitMode,
    private readonly s: LimitSettings
  ) {}

  get limit(): number {
    return this.mode.source === 'learned' ? this.mode.learned.limit : this.mode.limit
  }

  get source(): LimitSource {
    return this.mode.source
  }

  /** When the lane's block ends, or null when it is not blocked at `now`. */
  blockedUntil(now: number): number | null {
    return this.block.kind === 'blocked' && this.block.until > now ? this.block.until : null
  }

  /** A request had to wait for the limit: the lane is busy enough for a learned limit to be probed. */
  noteSaturated(): void {
    if (this.mode.source === 'learned') this.mode.saturated = true
  }

  /**
   * Time passed: an ended block opens; after a 429, each clean window earns back a quarter
   * of a documented limit (at least one slot: the inverse of the cut) and forgives one
   * strike, so a short storm does not leave long blocks behind it; a learned limit may be
   * probed.
   */
  refresh(now: number): void {
    if (this.block.kind === 'blocked' && this.block.until <= now) this.block = OPEN
    const m = this.mode
    if (m.source === 'learned') return this.probe(m, now)
    const { windowMs } = this.s
    if (((m.source === 'documented' && m.limit < m.base) || m.strikes > 0) && now >= m.recoverFrom + windowMs) {
      const windows = Math.floor((now - m.recoverFrom) / windowMs)
      if (m.source === 'documented')
        for (let i = 0; i < windows && m.limit < m.base; i++) m.limit = Math.min(m.base, Math.max(m.limit + 1, Math.ceil(m.limit * 1.25)))
      m.strikes = Math.max(0, m.strikes - windows)
      m.recoverFrom += windows * windowMs
    }
  }

  /**
   * The service answered 429: block the lane and tighten (or learn) its limit, from the
   * sends in `window` (refreshed to `now`). Returns when the block ends.
   */
  penalize(now: number, window: SlidingWindow): number {
    const m = this.mode
    if (m.source !== 'documented') {
      const answered = window.usedSince(Math.max(now - this.s.windowMs + 1, m.lesson.lastBlockEnd)) - 1
      // Too few answers before the refusal to say anything about a limit (another client
      // on the same key, a storm): back off as for any 429, learn nothing.
      if (answered >= MIN_ANSWERS_TO_LEARN) return this.learn(m, now, answered)
    }
    m.strikes++
    if (m.source === 'documented') m.limit = Math.max(1, Math.floor(m.limit * 0.8))
    const until = this.blockTo(now + Math.min(this.s.maxPenaltyMs, this.s.penaltyMs * 2 ** (m.strikes - 1)))
    if (m.source !== 'learned') m.recoverFrom = until
    return until
  }

  /**
   * A 429 where the spec shows no limit. The service answered the requests sent in its
   * window before this one, so that many is the limit, at most. Only requests since the
   * last block count: the service's window may be fixed minutes rather than sliding, and
   * then requests before a block fell in an earlier window of its own. The block lasts a
   * whole window, after which any window of the service's, sliding or fixed, starts afresh.
   */
  private learn(m: Exclude<LimitMode, { source: 'documented' }>, now: number, answered: number): number {
    const before = m.source === 'learned' ? m.learned : null
    // A 429 right after a raise: the raise was one too many; wait longer before the next.
    const raisedRecently = before?.raisedAt != null && now - before.raisedAt < before.probeIntervalMs
    const cap = before ? before.limit - (raisedRecently ? 1 : 0) : Infinity
    const lowSeen = m.lesson.lowSeen
    let limit: number
    if (answered >= cap) limit = cap
    else if (answered >= FIRST_LEARNED_FLOOR) limit = answered
    else if (lowSeen !== null && Math.abs(lowSeen - answered) <= 1) limit = Math.min(answered, lowSeen)
    else limit = Math.min(cap, FIRST_LEARNED_FLOOR)
    const nextLowSeen = answered < FIRST_LEARNED_FLOOR && limit > answered ? answered : null
    limit = Math.max(1, limit)
    const probeIntervalMs =
      before && raisedRecently
        ? Math.min(MAX_PROBE_INTERVAL_MS, before.probeIntervalMs * 2)
        : (before?.probeIntervalMs ?? this.s.probeIntervalMs)
    const learned = { limit, learnedAt: now, nextProbeAt: now + probeIntervalMs, probeIntervalMs, raisedAt: null }
    const until = this.blockTo(now + this.s.learnBlockMs)
    this.mode = { source: 'learned', learned, strikes: m.strikes, lesson: { lastBlockEnd: until, lowSeen: nextLowSeen }, saturated: false }
    this.s.store?.save(this.endpoint, learned)
    return until
  }

  /** One more request per window for a learned lane that has been busy and clean for a probe interval. */
  private probe(m: Extract<LimitMode, { source: 'learned' }>, now: number): void {
    const l = m.learned
    if (now < l.nextProbeAt || this.blockedUntil(now) !== null) return
    if (!m.saturated) return
    m.learned = { ...l, limit: l.limit + 1, nextProbeAt: now + l.probeIntervalMs, raisedAt: now }
    m.saturated = false
    this.s.store?.save(this.endpoint, m.learned)
  }

  /** Blocks the lane until `end` at least; returns when the block ends. */
  private blockTo(end: number): number {
    const until = Math.max(this.block.kind === 'blocked' ? this.block.until : 0, end)
    this.block = { kind: 'blocked', until }
    return until
  }
}
