// Completions the merchant's system never confirmed, on a hub that relays (--forward-to): the
// orders its store holds at a successful status (proven by the service's order list, the
// completeness audit keeps it whole) against the relay's log (kept deliveries and their
// attempts, shared by every hub on one database). An order is confirmed once a relay of one of
// its completion notices was answered 2xx; until then, after the grace period, it is an
// `unacknowledged` alert, whether the notice is still being relayed, the relay gave up, or the
// service's notice never reached the hub at all. Resend relays the kept notice again now, or,
// with none kept, asks the service to send it again (it then comes through the hub).
import { CompletionsWatch } from '../main/alerts/unacknowledged-source'
import type { ProfileSession } from '../main/profile-session'
import { completedOrders } from '../main/store/completions'
import {
  noticeOf,
  orderKeyOf,
  successStatuses,
  isSuccess,
  UNACKNOWLEDGED_LOOKBACK_MS,
  type OrderNotice
} from '../shared/domain/unacknowledged'
import { ContractError, type OrderRef, type OrderType, type ResendCompletion } from '../shared/ipc/contract'
import type { HubLog } from './hub-log'
import { answerText, orderKey } from './kept/kept-delivery'
import type { KeptStore, OrderRelayRow } from './kept/kept-store'
import type { RelayWorker } from './kept/relay-worker'

const relayKey = (type: OrderType, orderId: number) => orderKey({ orderType: type, orderId, contentKey: '' })

/** What one kept delivery says of its order's notice. */
function noticeOfRow(r: OrderRelayRow): OrderNotice {
  const lastAnswer =
    r.a_http_status === null && r.a_answer === null ? null : answerText({ httpStatus: r.a_http_status, answer: r.a_answer ?? '' })
  switch (r.relay_state) {
    case 'delivered':
      return { kind: 'acknowledged' }
    case 'waiting':
    case 'sending':
      return { kind: 'sending', attempts: r.attempts, lastAnswer }
    case 'failed':
      return { kind: 'stopped', attempts: r.attempts, lastAnswer }
    default:
      return { kind: 'not-passed-on', receivedAt: Number(r.received_at) }
  }
}

/** Per order ("type:orderId"), its completion notices summed up (only notices at a successful status count). */
export function noticesFrom(rows: readonly OrderRelayRow[]): Map<string, OrderNotice> {
  const by = new Map<string, OrderNotice[]>()
  for (const r of rows) {
    if (r.order_id === null || (r.order_type !== 1 && r.order_type !== 2) || r.status === null) continue
    if (!isSuccess(r.order_type, r.status)) continue
    const k = orderKeyOf(r.order_type, Number(r.order_id))
    by.set(k, [...(by.get(k) ?? []), noticeOfRow(r)])
  }
  const out = new Map<string, OrderNotice>()
  for (const [k, list] of by) out.set(k, noticeOf(list)!)
  return out
}

export interface HubCompletionsOptions {
  kept: Pick<KeptStore, 'orderRelays' | 'relayingSince'>
  session: Pick<ProfileSession, 'store'>
  /** Whether this hub relays (--forward-to); without, nothing is compared. */
  relaying: boolean
  /** When this hub started: completions are compared from the first notice kept for relay, or from then. */
  startedAt: number
  now: () => number
  graceMs?: number
  log: Pick<HubLog, 'error'>
}

export function hubCompletions(o: HubCompletionsOptions): CompletionsWatch {
  return new CompletionsWatch({
    where: 'hub',
    graceMs: o.graceMs,
    onError: (m) => o.log.error(m),
    read: async () => {
      if (!o.relaying) return null
      const first = await o.kept.relayingSince()
      const from = Math.max(Math.min(o.startedAt, first ?? o.startedAt), o.now() - UNACKNOWLEDGED_LOOKBACK_MS)
      const completed = completedOrders(o.session.store.database.sql, from)
      const rows = await o.kept.orderRelays(completed.map((c) => relayKey(c.type, c.orderId)))
      return { from, completed, notices: noticesFrom(rows) }
    }
  })
}

export interface ResendParts {
  kept: Pick<KeptStore, 'requeueOrder'>
  relay: Pick<RelayWorker, 'wake'> | null
  session: Pick<ProfileSession, 'store' | 'client'>
}

/** alerts:resend on a hub: the kept notice relayed again now, or the service asked to send one. */
export async function resendCompletion(p: ResendParts, ref: OrderRef): Promise<ResendCompletion> {
  if (!p.session.store.orders.get(ref.type, ref.orderId)) throw new ContractError('invalid_input', 'This order is not in the database')
  if (!p.relay)
    throw new ContractError(
      'invalid_input',
      "This team hub passes nothing on to the merchant's system (it runs without a receiver to relay to), so it has nothing to send again. Resend webhook in the order's detail asks the service to send its notice to the URL set there."
    )
  const done = await p.kept.requeueOrder(relayKey(ref.type, ref.orderId), successStatuses(ref.type))
  if (done === 'queued') {
    p.relay.wake()
    return {
      done: 'relay-queued',
      message: "Sent again to the merchant's system. The alert clears as soon as their system confirms it."
    }
  }
  if (done === 'sending') return { done: 'relay-sending', message: "It is being sent to the merchant's system right now." }
  await p.session.client.resendWebhook({ orderId: ref.orderId }, { priority: 'interactive' })
  return {
    done: 'service-asked',
    message:
      "The hub never received the service's notice of this completion, so it has no copy to send. The service was asked to send it again; the hub passes it on when it arrives."
  }
}
