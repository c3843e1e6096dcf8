// Cheap merchantHistory requests that check a reading the sync relies on, against orders
// the service already holds (docs/spec-readings.md, "merchantHistory readings checked at
// run time"):
//   - firstPage: page 1 and page 0 of one record each (the run's probe, and the walk's
//     check when it needs page 2 before the base is known). A service counting from 1 refuses
//     page 0, answers it as page 1, or answers nothing; one counting from 0 answers page 0
//     with a record before page 1's. Page 1 is asked twice around page 0, so an order that
//     moved between the requests makes the check inconclusive rather than wrong. 3 requests,
//     2 when page 0 is refused: that refusal is the answer asked for (never an error in the
//     diagnostics or the log) and settles the reading, so page 0 is not asked again until
//     the audit doubts the readings.
//   - sinceField: `since` one millisecond before the last change of an order changed a
//     while after it was created. Filtering on updatedAt lists it (first, when the order
//     is on updatedAt too); on createdAt leaves it out and lists only orders created
//     after. 1 request.
// Both answer null when the answers fit no reading (checked again later).
import type { CallOptions, HistoryPageResult } from '../api/client'
import type { OfframpOrder, OnrampOrder } from '../../shared/api/schemas'
import type { OrderType } from '../../shared/ipc/contract'
import type { MerchantHistoryRequest } from '../../shared/api/endpoints'
import { failsTheRun, isClientRefusal, type HistoryField } from './history-readings'

interface ProbeClient {
  historyPage(req: MerchantHistoryRequest & { type: 1 | 2 }, opts?: CallOptions): Promise<HistoryPageResult<OnrampOrder | OfframpOrder>>
}

/** An order the service holds, changed at least a second after it was created. */
export interface SinceSample {
  orderId: number
  createdAt: string
  updatedAt: string
}

export interface Found<V> {
  value: V
  how: string
  /** An answer time does not change (page 0 refused: pages count from 1): not checked again until doubted. */
  settled?: boolean
}

const firstId = (r: HistoryPageResult<OnrampOrder | OfframpOrder>): number | null => r.records[0]?.orderId ?? r.rejected[0]?.orderId ?? null

/** What the first-page check found: the base (null when inconclusive), its cost, and the listing's first record as named by its page. */
export interface FirstPageAnswer {
  found: Found<0 | 1> | null
  requests: number
  /** The id of the listing's first record, read from the page found to be the first (null when inconclusive or empty). */
  first: number | null
}

/**
 * The first page's number (the one check both the run's probe and a walk that needs page 2
 * use): page 1, page 0 and page 1 again, one record each, of the listing asked (`since`,
 * `order`: a walk checks its own listing; the run's probe the whole scope).
 */
export async function probeFirstPage(
  client: ProbeClient,
  o: { type: OrderType; fiatType: number; since?: string; order?: 'ASC' | 'DESC'; priority?: CallOptions['priority']; signal?: AbortSignal }
): Promise<FirstPageAnswer> {
  const opts: CallOptions = { priority: o.priority ?? 'background', signal: o.signal }
  // A service counting from 1 refuses page 0 (the live one: 400 "Invalid page: must be at
  // least 1"): that refusal is the answer asked for, kept out of the endpoint's failures.
  const zeroOpts: CallOptions = { ...opts, refusalExpected: isClientRefusal }
  let requests = 0
  const ask = async (page: number) => {
    requests++
    const req = { type: o.type, fiatType: o.fiatType, page, pageSize: 1 }
    return firstId(
      await client.historyPage(
        { ...req, ...(o.order !== undefined ? { order: o.order } : {}), ...(o.since !== undefined ? { since: o.since } : {}) },
        page === 0 ? zeroOpts : opts
      )
    )
  }
  try {
    const one = await ask(1)
    let zero: number | null
    try {
      zero = await ask(0)
    } catch (e) {
      // Any 4xx but 401/403/429 is a refusal of page 0, the spec's reading, whatever its
      // status (400, 404, 409, 413, 422...).
      if (!isClientRefusal(e)) throw e
      const x = e as { httpStatus?: number; code?: number }
      return { found: { value: 1, how: `page 0 refused (${x.httpStatus ?? x.code ?? 'error'})`, settled: true }, requests, first: one }
    }
    const again = await ask(1)
    // Orders moved between the requests, or nothing answered at all (an empty listing says
    // nothing of how pages count): inconclusive, backed off.
    if (one !== again || (one === null && zero === null)) return { found: null, requests, first: null }
    if (zero === null || zero === one)
      return {
        found: { value: 1, how: zero === null ? 'page 0 answered nothing' : 'page 0 answered as page 1' },
        requests,
        first: one
      }
    return { found: { value: 0, how: `page 0 answered order ${zero}, before page 1's ${one ?? '(none)'}` }, requests, first: zero }
  } catch (e) {
    // Anything else (a 5xx, the network, a 429) tells nothing: inconclusive, asked again
    // later (backed off: history-readings.ts); the sync pages so that the base does not
    // matter meanwhile. Auth failures and aborts are the run's to report.
    if (failsTheRun(e)) throw e
    return { found: null, requests, first: null }
  }
}

export async function probeSinceField(
  client: ProbeClient,
  o: {
    type: OrderType
    fiatType: number
    sample: SinceSample
    pageSize: number
    /** Pages were seen sorted by updatedAt: filtered on it, the order would come first. */
    orderedByUpdate: boolean
    /** The first page's number once known (else left out: the spec's default). */
    page?: number
    signal?: AbortSignal
  }
): Promise<Found<HistoryField> | null> {
  const since = new Date(Date.parse(o.sample.updatedAt) - 1).toISOString()
  let res: HistoryPageResult<OnrampOrder | OfframpOrder>
  try {
    res = await client.historyPage(
      // The first page by its number once known: a service counting from 0 may answer a
      // missing page as page 1, its second.
      { type: o.type, fiatType: o.fiatType, since, order: 'ASC', ...(o.page !== undefined ? { page: o.page } : {}), pageSize: o.pageSize },
      { priority: 'background', signal: o.signal }
    )
  } catch (e) {
    // A refusal (404 "No transactions found"...) is an empty answer; anything else but
    // auth and aborts tells nothing (inconclusive, checked again later), never fails the run.
    if (failsTheRun(e)) throw e
    if (!isClientRefusal(e)) return null
    res = { records: [], rejected: [], size: 0 }
  }
  const listed = res.records.some((r) => r.orderId === o.sample.orderId)
  const createdBefore = res.records.some((r) => r.createdAt < since)
  const updatedBefore = res.records.some((r) => r.updatedAt < since)
  const what = `order ${o.sample.orderId} (created ${o.sample.createdAt}, changed ${o.sample.updatedAt}) with since ${since}`
  const full = res.size >= o.pageSize
  if (listed && !updatedBefore) return { value: 'updatedAt', how: `${what} was listed` }
  if (!listed && !createdBefore && !full) return { value: 'createdAt', how: `${what} was not listed; only orders created since were` }
  // Sorted by updatedAt and filtered on it, the order would be among the first; with
  // another order, a full page without it may have it further on: not enough to tell.
  if (!listed && !createdBefore && o.orderedByUpdate)
    return { value: 'createdAt', how: `${what} was not first, as it would be; only orders created since were listed` }
  if (!listed && !updatedBefore && full) return null
  return { value: 'unknown', how: `${what}: the answer fits neither field` }
}
