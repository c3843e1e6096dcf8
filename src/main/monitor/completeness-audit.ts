// The completeness audit: on a fixed schedule (every `everyMs` per scope: a small, fixed
// share of the merchantHistory budget), each synced scope counts the orders the service
// holds by page arithmetic without `since` (usually two requests: the page where the local
// count ends, and the one before or after it) and compares with the local copy. A
// shortfall gets a poll first (orders created since the last one); if that does not make
// it up, the readings are doubted (checked again before the next sync) and the scope is
// read again end to end in the background, with progress (k of n pages). A difference a
// full read did not close (the service counting records its listing never gives) is not
// read in full at every check: the same difference (here minus at the service, which stays
// the same while new orders grow both counts) waits twice as long after each read (the
// audit's interval, then double, up to a day), and the scope says so meanwhile. The local
// count is taken before the service's, so an order polled in between is a shortfall, never
// a false surplus. A full read collects the ids it lists; held orders it did not list are
// asked about with orderStatus (a few each check, at low priority): one the service says it
// does not have (417 "order no longer exists", "Invalid orderId") is kept, marked gone
// ("no longer listed by the service" in its detail) and left out of the local count, so
// orders deleted at the service are no gap; only what remains is one. Records held as
// unreadable count as held (the service counts them). The counts and
// the repair's pages go at low priority: behind every poll (rate-budget.ts). Each scope's
// state is "complete: N orders, checked HH:MM" or "incomplete: repairing (k of n pages)"
// wherever the operator looks (coverage.ts).
import type { Timers } from '../api/rate-budget'
import { DueLoop } from './due-loop'
import { realTimers, type WatchClient } from './watches'
import { toErrorInfo, type ApiErrorInfo } from '../../shared/api/errors'
import { AUDIT_OVERDUE_MS, AUDIT_TIMEOUT_MS } from '../../shared/domain/coverage-text'
import type { OrderType, ScopeCoverage } from '../../shared/ipc/contract'
import type { HistoryClient } from './history-walk'
import { isClientRefusal, type HistoryReadings } from './history-readings'

export type AuditState = ScopeCoverage['audit']

/** At most this many requests per count; beyond it the count is a lower bound (enough to know orders are missing). */
const MAX_COUNT_REQUESTS = 6
/** After a failed check, the next one comes this soon (or at the schedule, if sooner). */
const RETRY_MS = 5 * 60_000
/**
 * A check's count not answered within this long is given up (the loop moves on to other
 * scopes): longer than MAX_COUNT_REQUESTS low requests may wait in a busy lane (two windows
 * each at most, rate-budget.ts). Past AUDIT_OVERDUE_MS a check still running is shown as
 * overdue ("check overdue: running since 14:05 ...; given up at 14:20"), a gap.
 */
const CHECK_TIMEOUT_MS = AUDIT_TIMEOUT_MS
/** The longest wait before a difference a full read did not close is read in full again. */
const MAX_REPAIR_WAIT_MS = 24 * 60 * 60_000

export interface ServiceCount {
  count: number
  /** False when the count stopped at MAX_COUNT_REQUESTS: the service holds at least `count`. */
  exact: boolean
  requests: number
}

/**
 * How many orders the service holds in a scope, by page arithmetic around `hint` (the
 * local count): pages of `pageSize` without since, numbered as the service numbers them.
 */
export async function countOnService(
  client: HistoryClient,
  o: {
    type: OrderType
    fiatType: number
    pageSize: number
    wirePage: (p: number) => number
    hint: number
    signal?: AbortSignal
    onRequest?: () => void
  }
): Promise<ServiceCount> {
  const P = o.pageSize
  let requests = 0
  const size = async (k: number): Promise<number> => {
    requests++
    o.onRequest?.()
    const r = await client
      .historyPage(
        { type: o.type, fiatType: o.fiatType, order: 'ASC', page: o.wirePage(k), pageSize: P },
        { priority: 'low', ...(o.signal ? { signal: o.signal } : {}) }
      )
      // A page past the data refused with a 4xx (not 401/403/429) holds nothing (history-readings.ts).
      .catch((e: unknown) => (isClientRefusal(e) ? { size: 0 } : Promise.reject(e)))
    return r.size
  }
  let k = Math.floor(o.hint / P) + 1
  let r = await size(k)
  if (r === 0) {
    while (k > 1) {
      if (requests >= MAX_COUNT_REQUESTS) return { count: (k - 1) * P, exact: false, requests }
      k--
      r = await size(k)
      if (r > 0) return { count: (k - 1) * P + r, exact: true, requests }
    }
    return { count: 0, exact: true, requests }
  }
  while (r >= P) {
    if (requests >= MAX_COUNT_REQUESTS) return { count: k * P, exact: false, requests }
    k++
    r = await size(k)
  }
  return { count: (k - 1) * P + r, exact: true, requests }
}

/** What the audit asks the service: history pages to count, and orderStatus about orders a full read did not list. */
export type AuditClient = HistoryClient & Pick<WatchClient, 'orderStatus'>

export interface AuditOptions {
  client: AuditClient
  readings: HistoryReadings
  /** Records per page of the sync (the count uses the same, capped by what the service holds). */
  pageSize: number
  everyMs: number
  /** Orders held in the scope that the service was not found to no longer have (markGone), unreadable records included. */
  localCount: (type: OrderType, fiatType: number) => number
  requestFiat: (type: OrderType, fiatType: number) => number
  /**
   * Runs a sync of the scope through the monitor: a poll, or a full read with progress and
   * the ids each page listed. Resolves true when the run read its listing to the end.
   */
  sync: (
    type: OrderType,
    fiatType: number,
    mode: 'poll' | 'full',
    onPage?: (p: { pages: number; listed: readonly number[] }) => void
  ) => Promise<boolean>
  /** Ids held in the scope, not marked gone, that are not in `listed`: at most `limit`, lowest first. */
  unlisted: (type: OrderType, fiatType: number, listed: ReadonlySet<number>, limit: number) => number[]
  /** orderStatus answered that the service does not have this order: kept, marked, counted no more. */
  markGone: (type: OrderType, orderId: number) => void
  now?: () => number
  timers?: Timers
  onChange?: () => void
  /** Each request the audit makes (history pages to count, orderStatus about an unlisted order). */
  onRequest?: () => void
  /**
   * While true no check starts (the operator's checkNow aside); wake() when it turns false.
   * The monitor holds the checks while a scope's first sync fills the merchantHistory lane:
   * a count would wait behind its pages (up to two windows a request, lane-scheduler.ts),
   * showing "checking" all along, and once aged go before them; the operator's proof waits
   * for every first sync anyway, so the checks lose nothing by coming after.
   */
  hold?: () => boolean
}

interface Tracked extends AuditState {
  type: OrderType
  fiatType: number
  /**
   * The last full read that left a difference: the difference it left (here minus at the
   * service), how many such reads in a row, when the next may run.
   */
  unclosed: { diff: number; reads: number; nextAt: number } | null
  /** Held orders the last full read did not list, not asked about yet (a few each check). */
  unlisted: number[]
}

/** orderStatus requests about orders a full read did not list, at most, per check (at low priority). */
export const MAX_UNLISTED_ASKED = 20
/** Unlisted ids kept from one full read to ask about over the checks that follow. */
const MAX_UNLISTED_KEPT = 1000

/**
 * The service's answer that an order does not exist, and only that (the live notes: code 417
 * "order no longer exists"; the text "Invalid orderId" for orderStatus of an unknown order, in
 * any case, with or without a space or a closing full stop).
 * Any other refusal, e.g. 400 "Invalid orderId format", says nothing of the order's existence.
 */
export function isOrderGone(info: ApiErrorInfo): boolean {
  if (info.kind !== 'api' && info.kind !== 'http') return false
  return info.code === 417 || info.httpStatus === 417 || /^invalid order ?id\.?$/i.test(info.message.trim())
}

const clock = (ms: number): string => `${new Date(ms).toISOString().slice(11, 16)} UTC`
const orders = (n: number): string => (n === 1 ? '1 order the service holds is' : `${n} orders the service holds are`)

const key = (type: number, fiat: number) => `${type}:${fiat}`

export class CompletenessAudit {
  private readonly scopes = new Map<string, Tracked>()
  private readonly now: () => number
  private everyMs: number
  private readonly loop: DueLoop<Tracked>
  private readonly timers: Timers

  constructor(private readonly o: AuditOptions) {
    this.now = o.now ?? Date.now
    this.everyMs = o.everyMs
    this.timers = o.timers ?? realTimers
    this.loop = new DueLoop({
      items: () => this.scopes.values(),
      run: (t, signal) => this.check(t, signal),
      now: this.now,
      timers: o.timers,
      // A count stuck in a request is given up so other scopes are checked; a repair goes on in the background.
      timeoutMs: CHECK_TIMEOUT_MS,
      ready: () => !(o.hold?.() ?? false)
    })
  }

  start(signal: AbortSignal): void {
    this.loop.start(signal)
  }

  stop(): Promise<void> {
    return this.loop.stop()
  }

  private get signal(): AbortSignal | null {
    return this.loop.signalOrNull
  }

  configure(o: { everyMs: number }): void {
    this.everyMs = o.everyMs
  }

  /** A scope to audit, first at `firstAt` (after its first sync). */
  track(type: OrderType, fiatType: number, firstAt: number): void {
    const k = key(type, fiatType)
    const t = this.scopes.get(k)
    if (t) {
      if (t.nextAt === null || t.nextAt > firstAt) t.nextAt = firstAt
    } else
      this.scopes.set(k, {
        type,
        fiatType,
        state: 'unchecked',
        serviceOrders: null,
        checkedAt: null,
        nextAt: firstAt,
        repair: null,
        error: null,
        startedAt: null,
        unclosed: null,
        unlisted: []
      })
    this.loop.schedule()
  }

  /** What held the checks (AuditOptions.hold) may have ended: those due run now. */
  wake(): void {
    this.loop.schedule()
  }

  untrack(type: OrderType, fiatType: number): void {
    this.scopes.delete(key(type, fiatType))
  }

  /** Every scope checked now (the operator's "Check now"); resolves when the checks and repairs are done. */
  async checkNow(): Promise<void> {
    for (const t of this.scopes.values()) t.nextAt = this.now()
    await this.loop.runNow()
  }

  get(type: OrderType, fiatType: number): AuditState | null {
    const t = this.scopes.get(key(type, fiatType))
    if (!t) return null
    const { type: _t, fiatType: _f, unclosed: _u, unlisted: _l, ...state } = t
    return { ...state, repair: state.repair ? { ...state.repair } : null }
  }

  /** The service's count, by page arithmetic around `local` (counted before: see checkOnce). */
  private async count(t: Tracked, local: number, signal: AbortSignal | null = this.signal): Promise<ServiceCount> {
    return countOnService(this.o.client, {
      type: t.type,
      fiatType: this.o.requestFiat(t.type, t.fiatType),
      pageSize: this.o.readings.pageSize(this.o.pageSize),
      wirePage: (p) => this.o.readings.wirePage(p),
      hint: local,
      ...(signal ? { signal } : {}),
      onRequest: this.o.onRequest
    })
  }

  /** The local count, then the service's: an order a poll brings in between is then a shortfall (a poll follows), never a false surplus. */
  private async counts(t: Tracked, signal: AbortSignal | null = this.signal): Promise<{ local: number; service: ServiceCount }> {
    const local = this.o.localCount(t.type, t.fiatType)
    return { local, service: await this.count(t, local, signal) }
  }

  private changed(t: Tracked, patch: Partial<AuditState>): void {
    Object.assign(t, patch)
    this.o.onChange?.()
  }

  private async check(t: Tracked, signal: AbortSignal): Promise<void> {
    const was = t.state
    this.changed(t, { state: t.state === 'incomplete' ? 'incomplete' : 'checking', nextAt: null, error: null, startedAt: this.now() })
    // Still running when it falls overdue: said at once (coverage:changed), not at the next change.
    const overdue = this.timers.setTimeout(() => {
      if (t.startedAt !== null) this.o.onChange?.()
    }, AUDIT_OVERDUE_MS)
    try {
      await this.checkOnce(t, signal, was)
    } finally {
      this.timers.clearTimeout(overdue)
      if (t.startedAt !== null) this.changed(t, { startedAt: null })
    }
  }

  private async checkOnce(t: Tracked, signal: AbortSignal, was: AuditState['state']): Promise<void> {
    try {
      // The first count may be cut short by the check's time (due-loop.ts); a repair, and the count after it, may take long.
      let { local, service } = await this.counts(t, signal)
      if (local < service.count) {
        // Orders created since the last poll are not a gap: a poll first. Orders created
        // after the count may come with it: counted again then.
        await this.o.sync(t.type, t.fiatType, 'poll')
        local = this.o.localCount(t.type, t.fiatType)
        if (local !== service.count) ({ local, service } = await this.counts(t, signal))
      }
      // Held orders the last full read did not list: a few asked about at each check.
      if (local > service.count && t.unlisted.length > 0) local -= await this.askUnlisted(t, signal)
      // The difference is what is compared, not the counts: on a busy scope both grow.
      const u = t.unclosed
      const same = u !== null && u.diff === local - service.count
      if (local !== service.count && same && this.now() < u.nextAt) {
        // The difference a full read left, unchanged: read in full again only when its wait is over.
        return this.changed(t, {
          state: 'incomplete',
          serviceOrders: service.count,
          checkedAt: this.now(),
          repair: null,
          error: this.unclosedText(service, local, u),
          nextAt: this.now() + this.everyMs
        })
      }
      // More here than the service lists (orders it no longer lists, or relabelled into this
      // scope) hides as many missing ones from a count: a difference either way is read in full.
      if (local !== service.count) {
        // A new difference: the readings may be wrong. The same one again: they were checked after the last read.
        if (!same) this.o.readings.doubt()
        const pages = Math.max(1, Math.ceil(service.count / this.o.readings.pageSize(this.o.pageSize)))
        this.changed(t, { state: 'repairing', serviceOrders: service.count, repair: { page: 0, pages } })
        const listed = new Set<number>()
        const read = await this.o.sync(t.type, t.fiatType, 'full', (p) => {
          for (const id of p.listed) listed.add(id)
          this.changed(t, { repair: { page: Math.min(p.pages, pages), pages } })
        })
        // Held orders the whole listing left out: the service is asked whether it still has them.
        if (read) t.unlisted = this.o.unlisted(t.type, t.fiatType, listed, MAX_UNLISTED_KEPT)
        ;({ local, service } = await this.counts(t))
        if (local > service.count && t.unlisted.length > 0) local -= await this.askUnlisted(t, signal)
        if (local !== service.count) {
          const reads = same && u ? u.reads + 1 : 1
          t.unclosed = {
            diff: local - service.count,
            reads,
            nextAt: this.now() + Math.min(MAX_REPAIR_WAIT_MS, this.everyMs * 2 ** (reads - 1))
          }
        }
      }
      const complete = local === service.count && service.exact
      if (complete) t.unclosed = null
      this.changed(t, {
        state: complete ? 'complete' : 'incomplete',
        serviceOrders: service.count,
        checkedAt: this.now(),
        repair: null,
        error: complete
          ? null
          : t.unclosed
            ? this.unclosedText(service, local, t.unclosed)
            : local > service.count
              ? this.extraText(service, local)
              : `${service.count - local}${service.exact ? '' : ' or more'} orders the service holds are not here after a full read`,
        nextAt: this.now() + (complete || t.unclosed ? this.everyMs : Math.min(this.everyMs, RETRY_MS))
      })
    } catch (e) {
      if (this.signal?.aborted) return
      this.changed(t, {
        // A repair cut short leaves the scope incomplete; a count that failed leaves what was known.
        state: t.state === 'repairing' ? 'incomplete' : was,
        repair: null,
        error: `the check could not finish: ${signal.aborted ? `no answer within ${CHECK_TIMEOUT_MS / 60_000} min` : toErrorInfo(e).message}`,
        nextAt: this.now() + Math.min(this.everyMs, RETRY_MS)
      })
    }
  }

  /**
   * Asks orderStatus about up to MAX_UNLISTED_ASKED held orders the last full read did not
   * list, at low priority (behind every poll and sweep). One the service says it does not
   * have (417, "Invalid orderId") is marked gone: kept, shown as no longer listed, counted
   * no more. One it answers exists (listed in another scope, or missed by the listing) stays
   * a difference. Any other error (the network, the budget) leaves the rest for the next
   * check. Answers how many were found gone; a difference a full read left shrinks by as
   * many (they explain it: not a new one).
   */
  private async askUnlisted(t: Tracked, signal: AbortSignal): Promise<number> {
    let gone = 0
    for (let asked = 0; asked < MAX_UNLISTED_ASKED && t.unlisted.length > 0; asked++) {
      const orderId = t.unlisted[0] as number
      this.o.onRequest?.()
      try {
        await this.o.client.orderStatus({ orderId, type: t.type }, { priority: 'low', signal })
      } catch (e) {
        if (signal.aborted) throw e
        if (!isOrderGone(toErrorInfo(e))) break
        this.o.markGone(t.type, orderId)
        gone++
      }
      t.unlisted.shift()
    }
    if (t.unclosed && gone > 0) t.unclosed.diff -= gone
    return gone
  }

  /** "2 orders here the service does not list (…)": what a count cannot tell apart from orders missing. */
  private extraText(service: ServiceCount, local: number): string {
    const n = local - service.count
    return `${n} order${n === 1 ? '' : 's'} here the service does not list${service.exact ? '' : ' (or fewer)'} (removed at the service, or listed in another scope): as many missing ones would not show in a count`
  }

  /** "3 orders the service holds are not here after 2 full reads; read again in full after 14:05 UTC". */
  private unclosedText(service: ServiceCount, local: number, u: NonNullable<Tracked['unclosed']>): string {
    if (local > service.count)
      return `${this.extraText(service, local)}; after ${u.reads} full read${u.reads === 1 ? '' : 's'}, read again in full after ${clock(u.nextAt)}`
    const n = service.count - local
    const more = service.exact ? '' : ' or more'
    return (
      `${more ? `${n}${more} orders the service holds are` : orders(n)} not here after ${u.reads} full read${u.reads === 1 ? '' : 's'}; ` +
      `read again in full after ${clock(u.nextAt)}`
    )
  }
}
