// Which (type, fiat type) scopes the merchant has orders in, found rather than configured:
// every fiat id the service's configuration names (and any seen in the database, a record
// or a webhook), for onramp and offramp alike, probed with the cheapest history request
// there is (one record, no page, no since). A scope that answers a record is synced from
// then on; an empty one is probed again on a slow schedule (every 10 minutes: SCOPE_PROBE_EVERY_MS in order-monitor.ts)
// and at once when a record, a webhook or a search reveals an order there. A 404 (or an
// error saying there are no transactions) is an empty answer, as some services give one;
// any other refusal (an unknown fiat) is asked again on the same schedule, and once a
// record or a webhook showed an order there, a scope still refused is a gap the operator
// sees (coverage.ts), never a scope quietly left out. Probes run one at a time
// at low priority (behind every poll, rate-budget.ts), so they never crowd out a sync or
// an operator's request.
import type { Timers } from '../api/rate-budget'
import { DueLoop } from './due-loop'
import { isClientRefusal, isEmptyAnswer } from './history-readings'
import { toErrorInfo } from '../../shared/api/errors'
import type { ConfigSnapshot, ErrorInfo, OrderType, ScopeCoverage } from '../../shared/ipc/contract'
import { FIAT_SYMBOLS } from '../../shared/domain/names'
import type { HistoryClient } from './history-walk'

export type ProbeState = ScopeCoverage['probe']

export interface Candidate {
  type: OrderType
  fiatType: number
  state: ProbeState
  probedAt: number | null
  nextAt: number | null
  error: string | null
  /** The error of the latest failed probe, whole (for the notice that names what helps). */
  errorInfo: ErrorInfo | null
  failures: number
  /** An order of this scope was seen (a record of another scope, a webhook) since the last probe that answered. */
  revealed: { at: number; by: RevealSource } | null
}

/** What showed an order in a scope: a history record listed in another scope, or a verified webhook. */
export type RevealSource = 'record' | 'webhook'

export interface DiscoveryOptions {
  client: HistoryClient
  /** The fiat ids the configuration names (fiatSymbolMapping, gatewayFee, limits, ...). */
  fiats: () => readonly number[]
  /** Fiats the database holds orders of (or a sync position for), per type: active without a probe. */
  held: (type: OrderType) => readonly number[]
  probeEveryMs: number
  now?: () => number
  timers?: Timers
  /** A scope was found to hold orders: sync it. */
  onActive: (type: OrderType, fiatType: number) => void
  onChange?: () => void
  /** Each request a probe makes (paid from the merchantHistory budget). */
  onRequest?: () => void
  /** Types whose scopes are not probed one fiat at a time (the service lists every fiat together). */
  merged?: (type: OrderType) => boolean
  /**
   * The page number of the service's first page once known (undefined: left out, the
   * spec's default). A service counting from 0 may answer a missing page as page 1, its
   * second, and a scope holding one order would read as empty.
   */
  firstPage?: () => number | undefined
}

/**
 * Every fiat id the configuration names: fiatSymbolMapping, and the keys of the gateway
 * fee table, minimumSellAmount, the limits of both types and allCoinLimits. Before any
 * configuration was read, the ids of the spec's own table (2.1).
 */
export function fiatIdsNamedBy(c: ConfigSnapshot | null): number[] {
  const ids = new Set<number>()
  const add = (k: string | number) => {
    const n = Number(k)
    if (Number.isSafeInteger(n) && n > 0) ids.add(n)
  }
  if (c) {
    for (const f of c.fiats) add(f.id)
    for (const m of [c.gatewayFee, c.minimumSellAmount, c.limits.onramp, c.limits.offramp, c.coinLimits])
      for (const k of Object.keys(m)) add(k)
  }
  if (ids.size === 0) for (const k of Object.keys(FIAT_SYMBOLS)) add(k)
  return [...ids].sort((a, b) => a - b)
}

/**
 * A probe not answered within this long is given up (failed, asked again soon), so it never
 * holds up the others. Longer than a low request may wait in a busy lane (two windows, then
 * it goes before the polls: rate-budget.ts), so a probe is never given up just before its turn.
 */
const PROBE_TIMEOUT_MS = 5 * 60_000

/** A reveal of a whole type (an order search found nothing) probes its empty scopes at most this often. */
const REVEAL_TYPE_EVERY_MS = 60_000

const pageOf = (page: number | undefined): { page?: number } => (page === undefined ? {} : { page })

const key = (type: number, fiat: number) => `${type}:${fiat}`

export class ScopeDiscovery {
  private readonly candidates = new Map<string, Candidate>()
  private readonly now: () => number
  private probeEveryMs: number
  private readonly loop: DueLoop<Candidate>
  private readonly revealedTypeAt = new Map<OrderType, number>()

  constructor(private readonly o: DiscoveryOptions) {
    this.now = o.now ?? Date.now
    this.probeEveryMs = o.probeEveryMs
    this.loop = new DueLoop({
      items: () => [...this.candidates.values()].filter((c) => c.state !== 'active' && !o.merged?.(c.type)),
      run: (c, signal) => this.probe(c, signal),
      now: this.now,
      timers: o.timers,
      timeoutMs: PROBE_TIMEOUT_MS
    })
  }

  private get signal(): AbortSignal | null {
    return this.loop.signalOrNull
  }

  /** Known fiats of both types: held ones are active at once, the others are probed now. */
  start(signal: AbortSignal): void {
    this.loop.start(signal)
    for (const type of [1, 2] as const) for (const fiat of this.o.held(type)) this.activate(type, fiat)
    this.refresh()
  }

  stop(): Promise<void> {
    return this.loop.stop()
  }

  configure(o: { probeEveryMs: number }): void {
    this.probeEveryMs = o.probeEveryMs
    for (const c of this.candidates.values())
      if (c.state === 'empty' && c.probedAt !== null) c.nextAt = Math.min(c.nextAt ?? Infinity, c.probedAt + o.probeEveryMs)
    this.schedule()
  }

  /** The configuration changed (or arrived): fiats it names for the first time are probed now. */
  refresh(): void {
    for (const fiat of new Set(this.o.fiats())) for (const type of [1, 2] as const) this.ensure(type, fiat)
    this.schedule()
  }

  /** A record or a webhook revealed an order of this type in this fiat: probe it now unless it is synced. */
  reveal(type: OrderType, fiatType: number, by: RevealSource): void {
    const c = this.ensure(type, fiatType)
    if (c.state === 'active') return
    // Remembered until a probe answers: if the service refuses the scope, the order seen there is a gap.
    c.revealed ??= { at: this.now(), by }
    this.o.onChange?.()
    if (c.state === 'probing') return
    c.nextAt = this.now()
    this.schedule()
  }

  /** An order of this type was looked for and is not held: probe the type's empty scopes now (at most once a minute). */
  revealType(type: OrderType): void {
    const last = this.revealedTypeAt.get(type)
    if (last !== undefined && this.now() - last < REVEAL_TYPE_EVERY_MS) return
    this.revealedTypeAt.set(type, this.now())
    for (const c of this.candidates.values()) if (c.type === type && c.state !== 'active' && c.state !== 'probing') c.nextAt = this.now()
    this.schedule()
  }

  /**
   * Probes every scope not probed yet, or whose probe failed, now; resolves when they are
   * done. Probes in progress finish first, so one that fails then is asked again here, not
   * after its back-off.
   */
  async settle(): Promise<void> {
    await this.loop.idle()
    const now = this.now()
    for (const c of this.candidates.values()) if (c.state === 'unprobed' || c.state === 'failed') c.nextAt = Math.min(c.nextAt ?? now, now)
    await this.loop.runNow()
  }

  /** The latest failure among the scopes whose probe failed (not those the service refused), or null. */
  latestError(): ErrorInfo | null {
    let latest: Candidate | null = null
    for (const c of this.candidates.values())
      if (c.state === 'failed' && c.errorInfo && (latest === null || (c.probedAt ?? 0) > (latest.probedAt ?? 0))) latest = c
    return latest?.errorInfo ?? null
  }

  list(): Candidate[] {
    return [...this.candidates.values()].map((c) => ({ ...c })).sort((a, b) => a.type - b.type || a.fiatType - b.fiatType)
  }

  private ensure(type: OrderType, fiatType: number): Candidate {
    let c = this.candidates.get(key(type, fiatType))
    if (!c) {
      c = {
        type,
        fiatType,
        state: 'unprobed',
        probedAt: null,
        nextAt: this.now(),
        error: null,
        errorInfo: null,
        failures: 0,
        revealed: null
      }
      this.candidates.set(key(type, fiatType), c)
      this.o.onChange?.()
    }
    return c
  }

  private activate(type: OrderType, fiatType: number): void {
    const c = this.ensure(type, fiatType)
    if (c.state === 'active') return
    c.state = 'active'
    c.nextAt = null
    c.error = null
    c.errorInfo = null
    c.revealed = null
    this.o.onActive(type, fiatType)
    this.o.onChange?.()
  }

  private schedule(): void {
    this.loop.schedule()
  }

  /** The service answered a probe: the scope holds orders (synced from now on) or none. */
  private answered(c: Candidate, holds: boolean): void {
    c.probedAt = this.now()
    c.failures = 0
    c.error = null
    c.errorInfo = null
    if (holds) return this.activate(c.type, c.fiatType)
    c.state = 'empty'
    c.revealed = null
    c.nextAt = c.probedAt + this.probeEveryMs
  }

  private async probe(c: Candidate, signal: AbortSignal): Promise<void> {
    c.state = 'probing'
    this.o.onChange?.()
    try {
      this.o.onRequest?.()
      const r = await this.o.client.historyPage(
        { type: c.type, fiatType: c.fiatType, ...pageOf(this.o.firstPage?.()), pageSize: 1 },
        // Behind every poll: a probe can wait, a sync should not.
        { priority: 'low', signal }
      )
      // A record of another fiat only: the service answered a fiat it does not list with
      // another's listing (its default), so nothing shows an order of this one.
      const otherFiatOnly =
        r.records.length > 0 &&
        r.records.length === r.size &&
        r.records.every((rec) => typeof rec.fiatType === 'number' && rec.fiatType !== c.fiatType)
      this.answered(c, r.size > 0 && !otherFiatOnly)
      // That fiat holds orders: its own scope is probed (it may not be a candidate yet).
      if (otherFiatOnly) for (const f of new Set(r.records.map((rec) => rec.fiatType as number))) this.reveal(c.type, f, 'record')
    } catch (e) {
      if (this.signal?.aborted) {
        c.state = 'unprobed'
        return
      }
      // Its time ran out (due-loop.ts): a failure like any other, named for what happened.
      const info: ErrorInfo = signal.aborted
        ? { kind: 'timeout', message: `no answer within ${PROBE_TIMEOUT_MS / 60_000} min`, retryable: true }
        : toErrorInfo(e)
      if (isEmptyAnswer(info)) return this.answered(c, false)
      c.probedAt = this.now()
      c.error = info.message
      c.errorInfo = info
      // A refusal of the scope itself (an unknown fiat, a parameter the service does not take):
      // not our budget, the credentials or the service being down.
      if (isClientRefusal(info)) {
        // The service does not take this fiat for this type: asked again on the empty scopes' schedule, in case it starts to.
        c.state = 'refused'
        c.failures = 0
        c.nextAt = c.probedAt + this.probeEveryMs
      } else {
        c.state = 'failed'
        c.failures++
        c.nextAt = c.probedAt + Math.min(this.probeEveryMs, 15_000 * 2 ** (c.failures - 1))
      }
    } finally {
      this.o.onChange?.()
    }
  }
}
