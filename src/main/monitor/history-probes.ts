// Cheap merchantHistory requests that check a reading the sync relies on, against orders
// the service already holds (docs/spec-readings.md, "merchantHistory readings checked at
// run time"):
//   - firstPage: page 1 and page 0 of one record each. A service counting from 1 refuses
//     page 0, answers it as page 1, or answers nothing; one counting from 0 answers page 0
//     with a record before page 1's. Page 1 is asked twice around page 0, so an order that
//     moved between the requests makes the check inconclusive rather than wrong. 3 requests.
//   - sinceField: `since` one millisecond before the last change of an order changed a
//     while after it was created. Filtering on updatedAt lists it (first, when the order
//     is on updatedAt too); on createdAt leaves it out and lists only orders created
//     after. 1 request.
// Both answer null when the answers fit no reading (checked again later).
import type { CallOptions, HistoryPageResult } from '../api/client'
import type { OfframpOrder, OnrampOrder } from '../../shared/api/schemas'
import type { OrderType } from '../../shared/ipc/contract'
import type { MerchantHistoryRequest } from '../../shared/api/endpoints'
import type { HistoryField } from './history-readings'

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
}

const firstId = (r: HistoryPageResult<OnrampOrder | OfframpOrder>): number | null => r.records[0]?.orderId ?? r.rejected[0]?.orderId ?? null

export async function probeFirstPage(
  client: ProbeClient,
  o: { type: OrderType; fiatType: number; signal?: AbortSignal }
): Promise<(Found<0 | 1> & { requests: number }) | null> {
  const opts: CallOptions = { priority: 'background', signal: o.signal }
  const ask = (page: number) => client.historyPage({ type: o.type, fiatType: o.fiatType, page, pageSize: 1 }, opts)
  const one = firstId(await ask(1))
  let zero: number | null
  try {
    zero = firstId(await ask(0))
  } catch (e) {
    // A refusal of page 0 (400) is the spec's reading; anything else is a failure to report.
    if ((e as { kind?: string; httpStatus?: number }).httpStatus === 400) return { value: 1, how: 'page 0 refused (400)', requests: 2 }
    throw e
  }
  const again = firstId(await ask(1))
  if (one !== again) return null
  if (zero === null || zero === one)
    return { value: 1, how: zero === null ? 'page 0 answered nothing' : 'page 0 answered as page 1', requests: 3 }
  return { value: 0, how: `page 0 answered order ${zero}, before page 1's ${one ?? '(none)'}`, requests: 3 }
}

export async function probeSinceField(
  client: ProbeClient,
  o: {
    type: OrderType
    fiatType: number
    sample: SinceSample
    page: number
    pageSize: number
    /** Pages were seen sorted by updatedAt: filtered on it, the order would come first. */
    orderedByUpdate: boolean
    signal?: AbortSignal
  }
): Promise<Found<HistoryField> | null> {
  const since = new Date(Date.parse(o.sample.updatedAt) - 1).toISOString()
  const res = await client.historyPage(
    { type: o.type, fiatType: o.fiatType, since, order: 'ASC', page: o.page, pageSize: o.pageSize },
    { priority: 'background', signal: o.signal }
  )
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
