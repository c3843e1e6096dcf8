// A fake merchantHistory with the service's paging rules (spec 4.4): records of one
// (type, fiat) ordered by updatedAt, page/pageSize offsets, and either reading of what
// the spec leaves open: `since` inclusive or exclusive, ties ordered by orderId or by a
// hidden row order. Records are already in the client's parsed shape (historyPage), or
// raw and unreadable (putUnreadable). Tests change orders between (or during) requests
// to reproduce what a live service does while a sync pages through it.
import { expect } from 'vitest'
import { ApiError } from '../../../../src/shared/api/errors'
import type { LocalStore } from '../../../../src/main/store/local-store'
import type { OnrampOrder } from '../../../../src/shared/api/schemas'
import type { HistoryPageResult } from '../../../../src/main/api/client'

export const CUTOVER_ISO = '2022-11-09T16:58:07.000Z'

export interface HistoryCall {
  type: number
  fiatType: number
  since: string | undefined
  /** The page the request reads (the default first page when none was sent). */
  page: number
  /** The page number as sent; undefined when the request left it to the default. */
  wirePage: number | undefined
  pageSize: number
  order: string | undefined
  priority: string | undefined
}

export function onramp(orderId: number, updatedAt: string, status = 0, fiatType = 1, createdAt = '2022-01-01T00:00:00.000Z'): OnrampOrder {
  return {
    orderId,
    walletAddress: `0x${orderId.toString(16).padStart(40, '0')}`,
    coinId: 54,
    chainId: 1,
    fiatType,
    paymentType: 1,
    fiatAmount: '1000',
    expectedCryptoAmount: '11.5',
    expectedPrice: '86.9',
    actualCryptoAmount: null,
    actualPrice: null,
    kycNeeded: 0,
    createdAt,
    updatedAt,
    status,
    referenceId: null,
    merchantRecognitionId: `m-${orderId}`,
    onrampFee: '2.5',
    gasFee: '0.1',
    clientFee: '0',
    gatewayFee: '5'
  } as OnrampOrder
}

export interface FakeReadings {
  since: 'inclusive' | 'exclusive'
  /**
   * orderId, or a hidden row order: a fixed pseudo-random rank per order id; 'limit': a
   * hidden order that also depends on the page size asked (SQL `ORDER BY updatedAt LIMIT n`
   * with no tie-breaker may return ties differently for different LIMITs).
   */
  tieOrder: 'orderId' | 'hidden' | 'limit'
  /** The field since filters on (default updatedAt); 'ignored': since selects nothing, every record is listed. */
  sinceField?: 'updatedAt' | 'createdAt' | 'ignored'
  /** The field the order sorts by (default updatedAt). */
  orderBy?: 'updatedAt' | 'createdAt'
  /** The number of the first page (default 1); a 1-based service refuses page 0 (see pageZeroStatus). */
  firstPage?: 0 | 1
  /**
   * What a request without `page` answers: 'first' (default), the first page whatever the
   * service counts from; 'one', the page numbered 1 (the spec's literal default), which on a
   * service counting from 0 is the second page.
   */
  missingPage?: 'first' | 'one'
  /** The HTTP status a 1-based service refuses page 0 with (default 400). */
  pageZeroStatus?: number
  /** The direction answered whatever `order` asks (default: the one asked). */
  direction?: 'ASC' | 'DESC'
  /** An answer with no records comes as an error of this HTTP status instead (e.g. 404 "No transactions found"). */
  emptyStatus?: number
  /** The most records a page holds, whatever pageSize asks (offsets in it). */
  pageSizeCap?: number
  /** A fiat the service does not know, answered with another fiat's listing (its default): asked -> served. */
  answerFiatAs?: Record<number, number>
}

/** A rank that is stable per id and unrelated to its order. */
const hiddenRank = (id: number): number => Math.imul(id ^ 0x5bd1e995, 0x27d4eb2d) >>> 0

export class FakeHistory {
  /** key `${type}:${fiat}` -> orderId -> record */
  private readonly data = new Map<string, Map<number, OnrampOrder>>()
  /** Records the client cannot read, by order id: served in place of the readable copy. */
  private readonly broken = new Map<number, { raw: Record<string, unknown>; reason: string }>()
  readings: FakeReadings = { since: 'inclusive', tieOrder: 'orderId' }
  readonly calls: HistoryCall[] = []
  private failures: Array<{ atCall: number; error: Error }> = []
  private served = 0
  /** Runs before a request is answered (after it is logged): lets a test change data mid-sync. */
  beforeAnswer?: (call: HistoryCall, n: number) => void
  /**
   * An error in place of the answer, given the records it would hold (a service that says
   * 404 "No transactions found" for an empty listing, or refuses a fiat with 422).
   */
  refuse?: (call: HistoryCall, rows: readonly OnrampOrder[]) => Error | undefined

  put(type: number, fiatType: number, record: OnrampOrder): void {
    const k = `${type}:${fiatType}`
    let m = this.data.get(k)
    if (!m) this.data.set(k, (m = new Map()))
    m.set(record.orderId, record)
  }

  /** The service no longer lists this order (removed, or moved out of the listing). */
  remove(type: number, fiatType: number, orderId: number): void {
    this.data.get(`${type}:${fiatType}`)?.delete(orderId)
  }

  /** Serves this order as a record the client cannot read (until fixed with put or change). */
  putUnreadable(type: number, fiatType: number, record: OnrampOrder, reason = 'status: expected an integer'): void {
    this.put(type, fiatType, record)
    this.broken.set(record.orderId, { raw: { ...record, status: 'broken' }, reason })
  }

  /** Changes an order's status at a new updatedAt (it moves to the end of the listing). */
  change(type: number, fiatType: number, orderId: number, status: number, updatedAt: string): void {
    const r = this.data.get(`${type}:${fiatType}`)?.get(orderId)
    if (!r) throw new Error(`no order ${orderId}`)
    this.broken.delete(orderId)
    this.put(type, fiatType, { ...r, status, updatedAt })
  }

  truth(type: number, fiatType: number): OnrampOrder[] {
    return [...(this.data.get(`${type}:${fiatType}`)?.values() ?? [])].sort((a, b) => a.orderId - b.orderId)
  }

  /** The n-th call from now (1 = the next) fails with error. */
  failAt(n: number, error: Error = new ApiError({ kind: 'network', endpoint: 'merchantHistory', message: 'connection reset' })): void {
    this.failures.push({ atCall: this.served + n, error })
  }

  /** Drops failures not reached yet. */
  clearFailures(): void {
    this.failures = []
  }

  readonly statusCalls: Array<{ type: number; orderId: number; priority: string | undefined }> = []
  /** Makes orderStatus wait until released (or aborted). */
  holdStatus = false
  private held: Array<() => void> = []

  releaseStatus(): void {
    for (const r of this.held.splice(0)) r()
  }

  /** orderStatus over the same data: the status of the order in any fiat scope. */
  orderStatus = async (
    req: { orderId: number | string; type: 1 | 2 },
    opts: { priority?: string; signal?: AbortSignal } = {}
  ): Promise<{ orderStatus: number }> => {
    this.statusCalls.push({ type: req.type, orderId: Number(req.orderId), priority: opts.priority })
    if (this.holdStatus) {
      await new Promise<void>((resolve, reject) => {
        this.held.push(resolve)
        opts.signal?.addEventListener(
          'abort',
          () => reject(new ApiError({ kind: 'aborted', endpoint: 'orderStatus', message: 'aborted' })),
          { once: true }
        )
      })
    }
    await Promise.resolve()
    for (const [k, m] of this.data) {
      if (!k.startsWith(`${req.type}:`)) continue
      const r = m.get(Number(req.orderId))
      if (r) return { orderStatus: r.status }
    }
    throw new ApiError({ kind: 'api', endpoint: 'orderStatus', code: 417, httpStatus: 417, message: 'order no longer exists' })
  }

  callsFor(type: number, fiatType: number): HistoryCall[] {
    return this.calls.filter((c) => c.type === type && c.fiatType === fiatType)
  }

  merchantHistory = async (
    req: { type: 1 | 2; fiatType?: number | string; since?: string; page?: number; pageSize?: number; order?: 'ASC' | 'DESC' },
    opts: { priority?: string; signal?: AbortSignal } = {}
  ): Promise<OnrampOrder[]> => {
    const call: HistoryCall = {
      type: req.type,
      fiatType: Number(req.fiatType ?? 1),
      since: req.since,
      page: req.page ?? (this.readings.missingPage === 'one' ? 1 : (this.readings.firstPage ?? 1)),
      wirePage: req.page,
      pageSize: req.pageSize ?? 50,
      order: req.order,
      priority: opts.priority
    }
    this.calls.push(call)
    const n = ++this.served
    await Promise.resolve()
    if (opts.signal?.aborted) throw new ApiError({ kind: 'aborted', endpoint: 'merchantHistory', message: 'aborted' })
    const failure = this.failures.find((f) => f.atCall === n)
    if (failure) throw failure.error
    this.beforeAnswer?.(call, n)
    const { since, tieOrder, sinceField = 'updatedAt', orderBy = 'updatedAt', firstPage = 1, pageSizeCap } = this.readings
    const refuse = (status: number, message: string) =>
      new ApiError({ kind: 'api', endpoint: 'merchantHistory', code: status, httpStatus: status, message })
    if (req.page !== undefined && req.page < firstPage) throw refuse(this.readings.pageZeroStatus ?? 400, 'Invalid page')
    const size = Math.min(call.pageSize, pageSizeCap ?? Infinity)
    const rank = (id: number) => hiddenRank(tieOrder === 'limit' ? id ^ Math.imul(size, 0x9e3779b1) : id)
    const tie = (a: OnrampOrder, b: OnrampOrder) => (tieOrder === 'orderId' ? a.orderId - b.orderId : rank(a.orderId) - rank(b.orderId))
    const key = (r: OnrampOrder) => (orderBy === 'createdAt' ? r.createdAt : r.updatedAt)
    const served = this.readings.answerFiatAs?.[call.fiatType as number] ?? call.fiatType
    const rows = [...(this.data.get(`${call.type}:${served}`)?.values() ?? [])]
      .filter(
        (r) =>
          call.since === undefined ||
          sinceField === 'ignored' ||
          (since === 'inclusive' ? r[sinceField] >= call.since : r[sinceField] > call.since)
      )
      .sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : tie(a, b)))
    if ((this.readings.direction ?? req.order ?? 'ASC') === 'DESC') rows.reverse()
    const skip = (call.page - firstPage) * size
    const page = rows.slice(skip, skip + size)
    if (page.length === 0 && this.readings.emptyStatus !== undefined) throw refuse(this.readings.emptyStatus, 'No transactions found')
    const refusal = this.refuse?.(call, page)
    if (refusal) throw refusal
    return page.map((r) => ({ ...r }))
  }

  /** The client's tolerant page: readable records, and the unreadable ones apart. */
  historyPage = async (
    req: Parameters<FakeHistory['merchantHistory']>[0],
    opts: Parameters<FakeHistory['merchantHistory']>[1] = {}
  ): Promise<HistoryPageResult<OnrampOrder>> => {
    const rows = await this.merchantHistory(req, opts)
    const out: HistoryPageResult<OnrampOrder> = { records: [], rejected: [], size: rows.length }
    rows.forEach((r, index) => {
      const b = this.broken.get(r.orderId)
      if (!b) return void out.records.push(r)
      out.rejected.push({ index, raw: b.raw, reason: b.reason, path: 'status', orderId: r.orderId, updatedAt: r.updatedAt })
    })
    return out
  }
}

/** A merchantHistory error answer with this HTTP status (the live notes' error shape). */
export const httpError = (httpStatus: number, message: string): ApiError =>
  new ApiError({
    kind: httpStatus === 429 ? 'rate_limited' : httpStatus === 401 ? 'auth' : 'api',
    endpoint: 'merchantHistory',
    code: httpStatus,
    httpStatus,
    message
  })

/** An ISO instant `i` seconds after a base, for distinct updatedAt values. */
export const at = (i: number, base = Date.parse('2025-03-01T00:00:00.000Z')): string => new Date(base + i * 1000).toISOString()

/** Injected clock and timers: advance() runs due timers in time order and lets promises settle between them. */
export class FakeClock {
  t = Date.parse('2026-01-01T00:00:00.000Z')
  private seq = 0
  private tasks: Array<{ id: number; at: number; fn: () => void }> = []
  now = (): number => this.t
  timers = {
    setTimeout: (fn: () => void, ms: number): unknown => {
      const id = ++this.seq
      this.tasks.push({ id, at: this.t + Math.max(0, ms), fn })
      return id
    },
    clearTimeout: (h: unknown): void => {
      this.tasks = this.tasks.filter((x) => x.id !== h)
    }
  }

  pending(): number[] {
    return this.tasks.map((x) => x.at - this.t).sort((a, b) => a - b)
  }

  async advance(ms: number): Promise<void> {
    const end = this.t + ms
    await settle()
    for (;;) {
      const next = this.tasks.filter((x) => x.at <= end).sort((a, b) => a.at - b.at || a.id - b.id)[0]
      if (!next) break
      this.tasks = this.tasks.filter((x) => x !== next)
      this.t = next.at
      next.fn()
      await settle()
    }
    this.t = end
  }

  /** Time passes by `ms` at once (a slow answer, inside a request), running what fell due, in order. */
  jump(ms: number): void {
    this.t += ms
    for (;;) {
      const next = this.tasks.filter((x) => x.at <= this.t).sort((a, b) => a.at - b.at || a.id - b.id)[0]
      if (!next) return
      this.tasks = this.tasks.filter((x) => x !== next)
      next.fn()
    }
  }
}

/** Lets queued promise callbacks and I/O run. */
export async function settle(rounds = 20): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise<void>((r) => setImmediate(r))
}

/** The database equals the fake's ground truth for (type, fiat): same ids, statuses and updatedAt, nothing extra. */
export function expectStoreMatchesTruth(store: LocalStore, fake: FakeHistory, type: 1 | 2 = 1, fiat = 1): void {
  const truth = fake.truth(type, fiat)
  expect(store.orders.count(type)).toBe(truth.length)
  for (const r of truth) {
    const row = store.orders.get(type, r.orderId)
    expect(row, `order ${r.orderId}`).toBeDefined()
    expect([row!.orderId, row!.status, row!.updatedAt]).toEqual([r.orderId, r.status, r.updatedAt])
  }
}
