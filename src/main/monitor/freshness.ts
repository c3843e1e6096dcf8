// The status freshness bound: every order not in a terminal status has its status
// confirmed by the service at least every `boundMs` (Settings: freshnessMinutes). History
// answers that include an order and verified webhooks confirm it as they come
// (OrdersRepo); the sweep asks orderStatus about the open orders nothing confirmed lately,
// the oldest confirmation first, a little before the bound runs out, at background
// priority and within a fixed share of the orderStatus lane. Whatever the service's
// reading of merchantHistory's `since`, no open order stays unconfirmed past the bound
// unless the budget cannot carry them all; then info() says how many, and the UI shows it.
// Each request is noted on the order: one the service cannot tell about (orderStatus
// failing for it) goes behind the others rather than using up every sweep, and after
// UNCONFIRMABLE_AFTER failures in a row is counted apart as "cannot be confirmed".
import type { CallOptions } from '../api/client'
import type { Timers } from '../api/rate-budget'
import { toErrorInfo } from '../../shared/api/errors'
import { UNCONFIRMABLE_AFTER } from '../../shared/domain/coverage-text'
import type { FreshnessInfo, OrderType } from '../../shared/ipc/contract'
import type { ApplyStatusResult, OrdersRepo } from '../store/orders-repo'
import { realTimers } from './watches'

export interface FreshnessClient {
  orderStatus(req: { orderId: number; type: 1 | 2 }, opts?: CallOptions): Promise<{ orderStatus: number }>
  budget?: { snapshot(): { endpoints: readonly { endpoint: string; limit: number }[] } }
}

export interface FreshnessOptions {
  client: FreshnessClient
  store: { orders: Pick<OrdersRepo, 'unconfirmedOpen' | 'openConfirmations' | 'openSummary' | 'applyStatus' | 'noteStatusCheck'> }
  boundMs: number
  /** Share of the orderStatus lane's per-minute limit the sweep may use. Default 0.25. */
  share?: number
  /** How often the sweep looks. Default 30 s. */
  tickMs?: number
  now?: () => number
  timers?: Timers
  /** After each confirmation (result.change set when the status moved). */
  onStatus?: (w: { type: OrderType; orderId: number; result: ApplyStatusResult }) => void
  /** Each orderStatus request the sweep makes. */
  onRequest?: () => void
}

/** The orderStatus lane's limit when the budget does not say (RateBudget's default for endpoints the spec gives none). */
const DEFAULT_LANE = 120
export const DEFAULT_FRESHNESS_SHARE = 0.25

/** Errors that are the service's answer about the order itself, not the way to it (network, budget, credentials). */
const ABOUT_THE_ORDER = new Set(['api', 'http', 'schema'])

const iso = (ms: number): string => new Date(ms).toISOString()

export class FreshnessSweeper {
  private boundMs: number
  private readonly tickMs: number
  private readonly now: () => number
  private readonly timers: Timers
  private timer: unknown = undefined
  private signal: AbortSignal | null = null
  private running: Promise<void> | null = null
  private lastSweepAt: number | null = null
  private error: string | null = null

  constructor(private readonly o: FreshnessOptions) {
    this.boundMs = o.boundMs
    this.tickMs = o.tickMs ?? 30_000
    this.now = o.now ?? Date.now
    this.timers = o.timers ?? realTimers
  }

  start(signal: AbortSignal): void {
    this.signal = signal
    this.arm()
  }

  async stop(): Promise<void> {
    this.signal = null
    if (this.timer !== undefined) this.timers.clearTimeout(this.timer)
    this.timer = undefined
    await this.running
  }

  configure(o: { boundMs: number }): void {
    this.boundMs = o.boundMs
  }

  /** Requests per sweep: the share of the lane's minute, over the sweeps in a minute (at least one). */
  allowance(): number {
    const lane = this.o.client.budget?.snapshot().endpoints.find((e) => e.endpoint === 'orderStatus')?.limit ?? DEFAULT_LANE
    return Math.max(1, Math.floor((lane * (this.o.share ?? DEFAULT_FRESHNESS_SHARE) * this.tickMs) / 60_000))
  }

  /** One sweep now (joining one in progress). */
  sweep(): Promise<void> {
    this.running ??= this.sweepOnce().finally(() => (this.running = null))
    return this.running
  }

  info(): FreshnessInfo {
    const s = this.o.store.orders.openSummary(iso(this.now() - this.boundMs), UNCONFIRMABLE_AFTER)
    return {
      boundMinutes: Math.round(this.boundMs / 60_000),
      open: s.open,
      stale: s.unconfirmed,
      unconfirmable: s.unconfirmable,
      unconfirmableAfter: UNCONFIRMABLE_AFTER,
      oldestConfirmedAt: s.oldestConfirmedAt === null ? null : Date.parse(s.oldestConfirmedAt),
      lastSweepAt: this.lastSweepAt,
      error: this.error
    }
  }

  private arm(): void {
    if (!this.signal || this.signal.aborted) return
    this.timer = this.timers.setTimeout(() => {
      this.timer = undefined
      void this.sweep().finally(() => this.arm())
    }, this.tickMs)
  }

  /**
   * How many open orders this sweep must ask about so that each is asked before its bound
   * runs out, as late as that allows (each request as late as possible is the fewest
   * requests). A sweep asks at most `allowance`; the sweeps j ticks from now (j = 0 is this
   * one) must together have reached every order whose bound ends before sweep j + 1 could
   * come, one tick to spare (the next sweep may come a tick later and a request waits its
   * turn). Open orders confirmed together (a first sync, a reconnect) so start as many
   * ticks early as they need; more than the share carries are swept at the full share,
   * and info() counts the ones past the bound.
   *
   * Only the oldest confirmations the sweeps of one bound can ask about are read (an
   * indexed query: migration 9): every open order is due within the bound plus a tick, so
   * once the sweeps until then, (bound / tick + 1) × allowance requests, are spoken for,
   * this sweep asks its full allowance whatever the orders after them.
   */
  private dueNow(): number {
    const allowance = this.allowance()
    const confirmed = this.o.store.orders.openConfirmations((Math.ceil(this.boundMs / this.tickMs) + 1) * allowance)
    const now = this.now()
    let need = 0
    let reached = 0
    for (let j = 0; j * allowance < confirmed.length; j++) {
      // Bounds ending before sweep j + 1 could come, with the tick to spare.
      const by = iso(now - this.boundMs + (j + 2) * this.tickMs)
      while (reached < confirmed.length && ((confirmed[reached] ?? '') as string) < by) reached++
      need = Math.max(need, reached - j * allowance)
    }
    return Math.min(allowance, need)
  }

  private async sweepOnce(): Promise<void> {
    const take = this.dueNow()
    const due = take === 0 ? [] : this.o.store.orders.unconfirmedOpen(iso(this.now()), take)
    this.error = null
    for (const d of due) {
      if (this.signal?.aborted) return
      try {
        this.o.onRequest?.()
        const r = await this.o.client.orderStatus(
          { orderId: d.orderId, type: d.type },
          { priority: 'background', ...(this.signal ? { signal: this.signal } : {}) }
        )
        const result = this.o.store.orders.applyStatus(d.type, d.orderId, r.orderStatus, 'watch')
        this.o.store.orders.noteStatusCheck(d.type, d.orderId, true)
        this.o.onStatus?.({ type: d.type, orderId: d.orderId, result })
      } catch (e) {
        if (this.signal?.aborted) return
        const info = toErrorInfo(e)
        // Its turn is taken either way; only an answer about this order counts against it.
        this.o.store.orders.noteStatusCheck(d.type, d.orderId, !ABOUT_THE_ORDER.has(info.kind))
        this.error = `orderStatus for ${d.type === 1 ? 'onramp' : 'offramp'} order ${d.orderId}: ${info.message}`
        // The service cannot be reached or is refusing: the rest waits for the next sweep.
        if (info.kind !== 'api') break
      }
    }
    this.lastSweepAt = this.now()
  }
}
