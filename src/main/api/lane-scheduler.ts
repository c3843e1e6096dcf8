// One endpoint's lane: who goes next, and when. Operators' requests (interactive) jump
// ahead of polling (background) and have a few slots per window reserved for them; checks
// that can wait (low: probing empty scopes, audits and their repairs) go when no poll
// waits, and leave a slot of the window to polling; but a low caller that has waited two
// windows goes before the polls, so a lane that polls keep busy, or one whose background
// share is a single slot, never starves them. One timer per lane wakes it when something
// can change.
import type { EndpointName } from '../../shared/api/endpoints'
import type { ApiError } from '../../shared/api/errors'
import { aborted, exhausted } from './budget-errors'
import type { LaneLimit } from './limit-policy'
import type { SlidingWindow } from './sliding-window'
import type { Timers } from './timers'

export type Priority = 'interactive' | 'background' | 'low'

export interface SchedulerSettings {
  /** Slots per window only interactive callers may use. */
  reserved: number
  now: () => number
  timers: Timers
  /** Something a snapshot shows changed (a slot taken, a caller queued or gone). */
  onChange: () => void
}

interface Waiter {
  /** When it started to wait. */
  since: number
  resolve: () => void
  reject: (e: ApiError) => void
  cleanup: () => void
}

/** A low caller waiting this many windows takes its turn among background callers. */
const LOW_AGE_WINDOWS = 2

export class Lane {
  private readonly queues: Record<Priority, Waiter[]> = { interactive: [], background: [], low: [] }
  private timer: unknown = undefined

  constructor(
    readonly endpoint: EndpointName,
    readonly window: SlidingWindow,
    readonly limit: LaneLimit,
    private readonly s: SchedulerSettings
  ) {}

  /** Callers waiting, of every priority. */
  get queued(): number {
    return this.queues.interactive.length + this.queues.background.length + this.queues.low.length
  }

  /** Forgets sends that left the window, and lets the limit follow the time. */
  refresh(now: number): void {
    this.window.forget(now)
    this.limit.refresh(now)
  }

  /** Whether a request of `priority` would take a slot at once (none of its rank or above queued, one free). */
  readyNow(priority: Priority, now: number): boolean {
    const q = this.queues
    const ahead =
      priority === 'interactive'
        ? q.interactive.length
        : priority === 'background'
          ? q.interactive.length + q.background.length
          : q.interactive.length + q.background.length + q.low.length
    return ahead === 0 && this.freeAt(priority, now) <= now
  }

  /** Resolves when a slot is taken for one request; rejects when none opens within maxWaitMs, or on abort. */
  acquire(priority: Priority, maxWaitMs: number, signal: AbortSignal | undefined): Promise<void> {
    const endpoint = this.endpoint
    const now = this.s.now()
    this.refresh(now)
    if (signal?.aborted) return Promise.reject(aborted(endpoint))
    if (this.readyNow(priority, now)) {
      this.window.take(now)
      this.schedule()
      this.s.onChange()
      return Promise.resolve()
    }
    const nextSlotAt = this.freeAt(priority, now)
    if (this.window.used >= this.capacity(priority)) this.limit.noteSaturated()
    // Nothing can make a slot open sooner, so say so at once instead of after maxWaitMs.
    if (nextSlotAt - now > maxWaitMs) return Promise.reject(exhausted(endpoint, nextSlotAt))

    return new Promise<void>((resolve, reject) => {
      const queue = this.queues[priority]
      let deadline: unknown
      const onAbort = () => {
        drop()
        reject(aborted(endpoint))
      }
      const drop = () => {
        const i = queue.indexOf(waiter)
        if (i >= 0) queue.splice(i, 1)
        waiter.cleanup()
        this.schedule()
        this.s.onChange()
      }
      const waiter: Waiter = {
        since: now,
        resolve,
        reject,
        cleanup: () => {
          if (deadline !== undefined) this.s.timers.clearTimeout(deadline)
          signal?.removeEventListener('abort', onAbort)
        }
      }
      if (Number.isFinite(maxWaitMs))
        deadline = this.s.timers.setTimeout(() => {
          deadline = undefined
          drop()
          reject(exhausted(endpoint, this.freeAt(priority, this.s.now())))
        }, maxWaitMs)
      signal?.addEventListener('abort', onAbort, { once: true })
      queue.push(waiter)
      this.pump()
    })
  }

  /** The sends per window a caller of this priority may use. */
  capacity(priority: Priority): number {
    // Background keeps at least one slot, or a tightened limit of 1 would starve polling;
    // low leaves one of background's to it (when it has more than one; an aged low caller
    // is served as background, see next()).
    const limit = this.limit.limit
    const background = Math.max(1, limit - this.s.reserved)
    return priority === 'interactive' ? limit : priority === 'background' ? background : Math.max(1, background - 1)
  }

  /** Earliest time a request of this priority fits, ignoring callers queued ahead. */
  freeAt(priority: Priority, now: number): number {
    const cap = this.capacity(priority)
    if (cap <= 0) return Infinity
    return Math.max(this.window.fitsAt(cap, now), this.limit.blockedUntil(now) ?? now, now)
  }

  /**
   * The waiter to serve next and the priority it is served at: interactive first, then
   * background, then low; but a low caller that has waited LOW_AGE_WINDOWS goes before
   * background callers, at background's share. Low callers come one after another (a
   * probe, an audit's count, a repair's page), so this gives each chain of them a slot
   * every two windows at least, however busy the polls keep the lane.
   */
  private next(now: number): { queue: Waiter[]; head: Waiter; as: Priority } | null {
    const q = this.queues
    if (q.interactive[0]) return { queue: q.interactive, head: q.interactive[0], as: 'interactive' }
    const bg = q.background[0]
    const low = q.low[0]
    if (low && now - low.since >= LOW_AGE_WINDOWS * this.window.windowMs) return { queue: q.low, head: low, as: 'background' }
    if (bg) return { queue: q.background, head: bg, as: 'background' }
    return low ? { queue: q.low, head: low, as: 'low' } : null
  }

  private pump(): void {
    const now = this.s.now()
    this.refresh(now)
    for (;;) {
      const n = this.next(now)
      if (!n || this.freeAt(n.as, now) > now) break
      const { queue, head } = n
      queue.shift()
      head.cleanup()
      this.window.take(now)
      head.resolve()
    }
    this.schedule()
    this.s.onChange()
  }

  /** One timer per lane, for the next moment something changes: a waiter can go, or a send leaves the window. */
  schedule(): void {
    if (this.timer !== undefined) this.s.timers.clearTimeout(this.timer)
    this.timer = undefined
    const now = this.s.now()
    const n = this.next(now)
    const head = n?.head
    const times = [n ? this.freeAt(n.as, now) : Infinity, this.window.nextExpiry()]
    const blockedUntil = this.limit.blockedUntil(now)
    if (blockedUntil !== null) times.push(blockedUntil)
    // The oldest low caller comes of age: it may go sooner then.
    const low = this.queues.low[0]
    if (low && n?.head !== low) times.push(low.since + LOW_AGE_WINDOWS * this.window.windowMs)
    const at = Math.min(...times)
    if (!Number.isFinite(at)) return
    this.timer = this.s.timers.setTimeout(
      () => {
        this.timer = undefined
        this.pump()
      },
      Math.max(0, at - now)
    )
    // A timer that only refreshes the snapshot must not keep a CLI or benchmark process alive.
    if (!head) (this.timer as { unref?: () => void }).unref?.()
  }
}
