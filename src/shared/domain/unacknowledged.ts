// Completions the merchant's system never confirmed: orders that reached a successful
// terminal status at the service (its order list says so) whose notice the merchant's
// receiver has not answered 2xx, a grace period after the order completed. Pure, so the
// grace edges, the success statuses of each type and what clears an order are unit-tested;
// a hub that relays (src/hub/unacknowledged) and a desktop inbox (src/main/alerts) give it
// what their stores hold.
import type { CompletionDelivery, OrderType, UnacknowledgedAlert } from '../ipc/contract'
import { knownStatuses, statusInfo } from './status'
import { stalledFor } from './stalled'

/**
 * How long after an order completed its notice may still be on its way before the order is
 * raised: the service sends it at completion and retries a receiver that fails (up to 10
 * times, its schedule not published); a hub relays with back-off to every 30 s; the history
 * poll that proves the completion runs every minute by default. Ten minutes covers all of
 * that with room, and is still well inside the time a customer calls about a missing credit.
 */
export const UNACKNOWLEDGED_GRACE_MS = 10 * 60_000

/**
 * How far back completions are compared: a week. Older ones are the audit's business, not an
 * alert's, and the hub forgets relays after 30 days, so an older order could not be told
 * apart from one never relayed.
 */
export const UNACKNOWLEDGED_LOOKBACK_MS = 7 * 24 * 60 * 60_000

/** The statuses of a type that are a successful end (the status table's success tone). */
export function successStatuses(type: OrderType): number[] {
  return knownStatuses(type).filter((s) => statusInfo(type, s).tone === 'success')
}

export const isSuccess = (type: OrderType, status: number): boolean => statusInfo(type, status).tone === 'success'

/** An order the store holds at a successful status. */
export interface CompletedOrder {
  type: OrderType
  orderId: number
  status: number
  /** When it completed (epoch ms). */
  completedAt: number
}

/** What the hub or inbox knows of one order's completion notice. */
export type OrderNotice = { kind: 'acknowledged' } | Exclude<CompletionDelivery, { kind: 'not-received' }>

export interface UnacknowledgedInput {
  completed: readonly CompletedOrder[]
  /** Per order ("type:orderId"), what became of its notice; an order absent here was never received. */
  notices: ReadonlyMap<string, OrderNotice>
  now: number
  /** Completions before this instant are not compared (the relay or inbox was not there yet). */
  from: number
  graceMs?: number
  /** Where the notices arrive, for the words: a team hub or this desktop's inbox. */
  where: 'hub' | 'inbox'
}

export const orderKeyOf = (type: OrderType, orderId: number): string => `${type}:${orderId}`

/** "Completed 25 min ago; the merchant's system has not confirmed it" */
export function unacknowledgedText(forMs: number): string {
  const when = forMs < 60_000 ? 'just now' : `${stalledFor(forMs)} ago`
  return `Completed ${when}; the merchant's system has not confirmed it`
}

/** Why the merchant's system has not confirmed it, in words. */
export function unacknowledgedWhy(d: CompletionDelivery, where: 'hub' | 'inbox'): string {
  switch (d.kind) {
    case 'not-received':
      return where === 'hub'
        ? "The service's notice of this completion never reached the team hub, so it was never passed on."
        : "The service's notice of this completion never reached this desktop's inbox."
    case 'not-passed-on':
      return "The hub received the notice but did not pass it on to the merchant's system."
    case 'sending':
      return d.attempts === 0
        ? "The notice is on its way to the merchant's system."
        : `Passed on ${tries(d.attempts)}; the merchant's system has not accepted it yet, and the hub keeps trying.`
    case 'stopped':
      return `Passed on ${tries(d.attempts)}; the merchant's system did not accept it and the hub stopped trying.`
  }
}

const tries = (n: number) => (n === 1 ? 'once' : `${n} times`)

/** What to tell a customer whose completed order the merchant's records may not show yet. */
export function unacknowledgedTell(type: OrderType): string {
  return type === 1
    ? "Their purchase is complete and the crypto was sent. The merchant's records may still show it as pending for a while: they need not pay or send anything again."
    : "Their sale is complete and the money was paid out to their bank. The merchant's records may still show it as pending for a while: they need not start another sale."
}

/** The completions the merchant's system has not confirmed at `now`, longest waiting first. */
export function unacknowledgedAlerts(i: UnacknowledgedInput): UnacknowledgedAlert[] {
  const grace = i.graceMs ?? UNACKNOWLEDGED_GRACE_MS
  const out: UnacknowledgedAlert[] = []
  for (const o of i.completed) {
    if (!isSuccess(o.type, o.status)) continue
    if (o.completedAt < i.from || i.now - o.completedAt < grace) continue
    const notice = i.notices.get(orderKeyOf(o.type, o.orderId))
    if (notice?.kind === 'acknowledged') continue
    const delivery: CompletionDelivery = notice ?? { kind: 'not-received' }
    out.push({
      kind: 'unacknowledged',
      id: `unacknowledged:${o.type}:${o.orderId}`,
      order: { type: o.type, orderId: o.orderId },
      status: o.status,
      since: o.completedAt,
      delivery,
      text: unacknowledgedText(i.now - o.completedAt),
      why: unacknowledgedWhy(delivery, i.where),
      tell: unacknowledgedTell(o.type)
    })
  }
  return out.sort((a, b) => a.since - b.since || a.order.orderId - b.order.orderId)
}

/**
 * One order's notices summed up: acknowledged as soon as one was answered 2xx; otherwise the
 * one still being sent, else the one that stopped, else one received and not passed on.
 */
export function noticeOf(rows: readonly OrderNotice[]): OrderNotice | undefined {
  const rank = { acknowledged: 0, sending: 1, stopped: 2, 'not-passed-on': 3 } as const
  return [...rows].sort((a, b) => rank[a.kind] - rank[b.kind])[0]
}
