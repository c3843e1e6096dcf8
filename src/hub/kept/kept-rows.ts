// Rows of kept_deliveries and relay_attempts read into their types, the same for both stores.
import type { OrderType } from '../../shared/ipc/contract'
import { relayStateOf, type KeepOutcome, type RelayedHeaders, type RelayJob, type RelayView } from './kept-delivery'
import type { RelayCounts, RelayViewRow } from './kept-store'

export interface JobRow {
  id: number
  body: string
  headers_json: string
  order_type: number | null
  order_id: number | null
  status: number | null
  attempts: number
  window_from: number
}

export function relayJobOf(r: JobRow): RelayJob {
  return {
    id: Number(r.id),
    body: Buffer.from(r.body, 'base64'),
    headers: JSON.parse(r.headers_json) as RelayedHeaders,
    orderType: r.order_type as OrderType | null,
    orderId: r.order_id === null ? null : Number(r.order_id),
    status: r.status,
    attempts: r.attempts,
    windowFrom: Number(r.window_from)
  }
}

export function relayViewOf(r: RelayViewRow): RelayView {
  return {
    id: Number(r.id),
    orderType: r.order_type as OrderType | null,
    orderId: r.order_id === null ? null : Number(r.order_id),
    status: r.status,
    receivedAt: Number(r.received_at),
    attempts: r.attempts,
    state: relayStateOf(r),
    lastAttempt:
      r.a_at === null
        ? null
        : { at: Number(r.a_at), hub: r.a_hub ?? '?', httpStatus: r.a_http_status, answer: r.a_answer ?? '', ms: Number(r.a_ms ?? 0) }
  }
}

export function relayCountsOf(
  rows: ReadonlyArray<{ relay_state: string; n: number | string; oldest: number | string | null }>
): RelayCounts {
  const counts: RelayCounts = { waiting: 0, sending: 0, failed: 0, oldestWaitingAt: null }
  for (const r of rows) {
    const n = Number(r.n)
    if (r.relay_state === 'waiting' || r.relay_state === 'sending') {
      counts[r.relay_state] = n
      const oldest = r.oldest === null ? null : Number(r.oldest)
      if (oldest !== null) counts.oldestWaitingAt = Math.min(counts.oldestWaitingAt ?? oldest, oldest)
    } else if (r.relay_state === 'failed') counts.failed = n
  }
  return counts
}

/** What keeping a delivery that was kept already did to its relay. */
export function keepOutcomeOf(o: { requeue: boolean; prevState: string; since: number; relay: boolean }): KeepOutcome {
  if (o.requeue) return { relay: 'requeued' }
  if (!o.relay) return { relay: 'none' }
  const state = o.prevState as 'none' | 'waiting' | 'sending' | 'delivered' | 'failed'
  return { relay: 'known', state, since: Number(o.since) }
}
