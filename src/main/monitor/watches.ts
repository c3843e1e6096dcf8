// Polling of pinned orders through orderStatus. A pinned order that is not terminal is
// polled on its own adaptive schedule: soon after it changed, then at the operator's
// interval for as long as it was moving lately (STEADY_MS after it was pinned or last
// changed: an order being watched on the phone keeps the pace the setting promises),
// then less and less often while nothing changes, and never more often than the profile's orderStatus budget can
// carry for all watches together. A terminal order stays pinned but is no longer polled.
// Polls run one at a time at background priority, so operators' requests go first.
import type { CallOptions } from '../api/client'
import type { Timers } from '../api/rate-budget'
import type { ApiErrorInfo } from '../../shared/api/errors'
import { toErrorInfo } from '../../shared/api/errors'
import { statusInfo } from '../../shared/domain/status'
import type { OrderType } from '../../shared/ipc/contract'
import type { ApplyStatusResult, OrdersRepo } from '../store/orders-repo'
import type { WatchesRepo } from '../store/watches-repo'

export interface WatchClient {
  orderStatus(req: { orderId: number; type: 1 | 2 }, opts?: CallOptions): Promise<{ orderStatus: number }>
  /** When present, the watches' share of the orderStatus lane is derived from its current limit. */
  budget?: { snapshot(): { endpoints: readonly { endpoint: string; limit: number }[] } }
}

export interface WatchStore {
  watches: Pick<WatchesRepo, 'list' | 'get'>
  orders: Pick<OrdersRepo, 'applyStatus' | 'get'>
}

export interface WatchPollerOptions {
  client: WatchClient
  store: WatchStore
  /** The operator's watch interval (settings.watchPollSeconds): the pace while an order is moving. */
  pollMs: number
  /** Longest interval while nothing changes. Default 8 x pollMs, at most 10 min (never below pollMs). */
  maxPollMs?: number
  /** Share of the orderStatus lane's background capacity the watches may use together. Default 0.5. */
  budgetShare?: number
  now?: () => number
  timers?: Timers
  /** After each poll that was applied; `result.change` is set when the status moved. */
  onStatus?: (w: { type: OrderType; orderId: number; status: number; result: ApplyStatusResult }) => void
  onError?: (w: { type: OrderType; orderId: number; error: ApiErrorInfo }) => void
}

export interface WatchSchedule {
  type: OrderType
  orderId: number
  /** Null when not polled (terminal). */
  nextPollAt: number | null
  intervalMs: number
  lastStatus: number | null
  lastError: ApiErrorInfo | null
}

/** How long after being pinned or changing an order is polled at the operator's interval before backing off. */
export const STEADY_MS = 5 * 60_000

interface Entry {
  type: OrderType
  orderId: number
  intervalMs: number
  /** Until then, unchanged polls keep the operator's interval instead of backing off. */
  steadyUntil: number
  nextAt: number
  lastStatus: number | null
  lastError: ApiErrorInfo | null
}

const BUDGET_WINDOW_MS = 60_000
/** Slots per window the rate budget keeps for interactive callers (RateBudget's default). */
const RESERVED_INTERACTIVE = 2
const DEFAULT_ORDER_STATUS_LIMIT = 120

/** setTimeout/clearTimeout of the runtime, for the monitor's injectable Timers. */
export const realTimers: Timers = {
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (h) => clearTimeout(h as ReturnType<typeof setTimeout>)
}

const key = (type: number, orderId: number) => `${type}:${orderId}`

export class WatchPoller {
  private readonly entries = new Map<string, Entry>()
  private readonly now: () => number
  private readonly timers: Timers
  private pollMs: number
  private timer: unknown = undefined
  private signal: AbortSignal | null = null
  private loop: Promise<void> | null = null

  constructor(private readonly o: WatchPollerOptions) {
    this.now = o.now ?? (() => Date.now())
    this.timers = o.timers ?? realTimers
    this.pollMs = o.pollMs
  }

  /** Loads every pinned, non-terminal order and starts polling (aborted through `signal`). */
  start(signal: AbortSignal): void {
    this.signal = signal
    const now = this.now()
    for (const w of this.o.store.watches.list()) {
      const status = this.o.store.orders.get(w.type, w.orderId)?.status ?? w.lastStatus
      this.track(w.type, w.orderId, status, now)
    }
    this.arm()
  }

  /** Stops the timer; waits for a poll in flight (the caller aborts it through the signal). */
  async stop(): Promise<void> {
    this.signal = null
    this.disarm()
    await this.loop
  }

  /** A newly pinned order: polled right away unless its known status is terminal. */
  watch(type: OrderType, orderId: number): void {
    const known = this.o.store.orders.get(type, orderId)?.status ?? this.o.store.watches.get(type, orderId)?.lastStatus ?? null
    this.entries.delete(key(type, orderId))
    this.track(type, orderId, known, this.now())
    this.arm()
  }

  unwatch(type: OrderType, orderId: number): void {
    this.entries.delete(key(type, orderId))
    this.arm()
  }

  /** Sync or a webhook saw this order change: poll it at the fast pace again, or stop when terminal. */
  noteChange(type: OrderType, orderId: number, status: number): void {
    const e = this.entries.get(key(type, orderId))
    if (!e) return
    if (statusInfo(type, status).terminal) {
      this.entries.delete(key(type, orderId))
    } else {
      e.lastStatus = status
      e.intervalMs = this.fastMs()
      e.steadyUntil = this.now() + STEADY_MS
      e.nextAt = this.now() + this.paced(e.intervalMs)
    }
    this.arm()
  }

  /** After sleep or a network outage: every pinned order is due now (still polled one at a time). */
  dueNow(): void {
    const now = this.now()
    for (const e of this.entries.values()) e.nextAt = Math.min(e.nextAt, now)
    this.arm()
  }

  configure(o: { pollMs: number }): void {
    this.pollMs = o.pollMs
    const now = this.now()
    for (const e of this.entries.values()) {
      e.intervalMs = Math.min(Math.max(e.intervalMs, this.fastMs()), this.maxMs())
      e.nextAt = Math.min(e.nextAt, now + this.paced(e.intervalMs))
    }
    this.arm()
  }

  schedule(): WatchSchedule[] {
    return [...this.entries.values()].map((e) => ({
      type: e.type,
      orderId: e.orderId,
      nextPollAt: e.nextAt,
      intervalMs: e.intervalMs,
      lastStatus: e.lastStatus,
      lastError: e.lastError
    }))
  }

  /** Whether an order is being polled (pinned and not terminal). */
  isPolling(type: OrderType, orderId: number): boolean {
    return this.entries.has(key(type, orderId))
  }

  private track(type: OrderType, orderId: number, status: number | null, now: number): void {
    if (status !== null && statusInfo(type, status).terminal) return
    this.entries.set(key(type, orderId), {
      type,
      orderId,
      intervalMs: this.pollMs,
      steadyUntil: now + STEADY_MS,
      nextAt: now,
      lastStatus: status,
      lastError: null
    })
  }

  private fastMs(): number {
    return Math.max(1_000, Math.round(this.pollMs / 2))
  }

  private maxMs(): number {
    return Math.max(this.pollMs, this.o.maxPollMs ?? Math.min(this.pollMs * 8, 10 * 60_000))
  }

  /**
   * The interval actually used: the adaptive one, but never shorter than what keeps all
   * polled watches together within their share of the orderStatus budget.
   */
  private paced(intervalMs: number): number {
    const lane = this.o.client.budget?.snapshot().endpoints.find((e) => e.endpoint === 'orderStatus')
    const limit = lane?.limit ?? DEFAULT_ORDER_STATUS_LIMIT
    const perWindow = Math.max(1, Math.floor(Math.max(1, limit - RESERVED_INTERACTIVE) * (this.o.budgetShare ?? 0.5)))
    const floor = (Math.max(1, this.entries.size) * BUDGET_WINDOW_MS) / perWindow
    return Math.max(intervalMs, Math.ceil(floor))
  }

  private disarm(): void {
    if (this.timer !== undefined) this.timers.clearTimeout(this.timer)
    this.timer = undefined
  }

  /** One timer for the earliest due watch. */
  private arm(): void {
    this.disarm()
    if (!this.signal || this.loop) return
    let next = Infinity
    for (const e of this.entries.values()) next = Math.min(next, e.nextAt)
    if (!Number.isFinite(next)) return
    this.timer = this.timers.setTimeout(
      () => {
        this.timer = undefined
        this.loop = this.pollDue().finally(() => {
          this.loop = null
          this.arm()
        })
      },
      Math.max(0, next - this.now())
    )
  }

  private async pollDue(): Promise<void> {
    for (;;) {
      const signal = this.signal
      if (!signal || signal.aborted) return
      const now = this.now()
      const due = [...this.entries.values()].filter((e) => e.nextAt <= now).sort((a, b) => a.nextAt - b.nextAt)[0]
      if (!due) return
      await this.poll(due, signal)
    }
  }

  private async poll(e: Entry, signal: AbortSignal): Promise<void> {
    let status: number
    try {
      status = (await this.o.client.orderStatus({ orderId: e.orderId, type: e.type }, { priority: 'background', signal })).orderStatus
    } catch (err) {
      if (signal.aborted) return
      const info = toErrorInfo(err)
      e.lastError = info
      // 417: the order no longer exists at the service; nothing will change soon.
      e.intervalMs = info.code === 417 ? this.maxMs() : Math.min(this.maxMs(), Math.max(this.pollMs, e.intervalMs * 2))
      const wait = info.kind === 'rate_limited' && info.nextSlotAt ? Math.max(0, info.nextSlotAt - this.now()) : 0
      e.nextAt = this.now() + Math.max(this.paced(e.intervalMs), wait)
      this.o.onError?.({ type: e.type, orderId: e.orderId, error: info })
      return
    }
    if (signal.aborted || this.entries.get(key(e.type, e.orderId)) !== e) return
    e.lastError = null
    const result = this.o.store.orders.applyStatus(e.type, e.orderId, status, 'watch')
    const changed = e.lastStatus !== null && e.lastStatus !== status
    e.lastStatus = status
    if (statusInfo(e.type, status).terminal) this.entries.delete(key(e.type, e.orderId))
    else {
      const now = this.now()
      if (changed || result.change) {
        e.intervalMs = this.fastMs()
        e.steadyUntil = now + STEADY_MS
      } else if (now < e.steadyUntil) e.intervalMs = this.pollMs
      else e.intervalMs = Math.min(this.maxMs(), Math.max(this.pollMs, Math.round(e.intervalMs * 1.5)))
      e.nextAt = now + this.paced(e.intervalMs)
    }
    this.o.onStatus?.({ type: e.type, orderId: e.orderId, status, result })
  }
}
