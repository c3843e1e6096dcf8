// A verified webhook delivery the hub has answered 2xx: what it keeps of it, durably, before
// the answer goes out (delivery-keeper.ts), and the relay of it to the merchant's receiver
// (--forward-to) that works from what was kept (relay-worker.ts). The service never sends a
// delivery again once it got a 2xx, so a delivery the hub answered and did not keep is lost
// for good: the merchant's backend never credits that customer.
//
// The relay sends the bytes that were verified, not a re-serialisation: the body as received,
// its content type and the service's payload and signature headers. A receiver that checks
// the signature and then reads the body gets exactly what the service signed.
import { createHash } from 'node:crypto'
import type { OrderType, RelayAttempt, RelayState } from '../../shared/ipc/contract'

export type { RelayAttempt, RelayState, WebhookRelay as RelayView } from '../../shared/ipc/contract'
import type { WebhookDeliveryInput } from '../../main/store/webhook-deliveries-repo'
import { REPLAY_WINDOW_MS } from '../../main/webhooks/replay-guard'
import { readExact, type ExactValue } from '../../shared/api/exact-json'

/** The request headers a relay sends on, as received (the relay adds Basic authentication of its own). */
export interface RelayedHeaders {
  'content-type': string
  'x-payload': string
  'x-signature': string
  'user-agent': string | null
}

export interface KeptDelivery {
  /** The delivery's content without its attempt counters: one relay per content (relayContent). */
  contentKey: string
  /** The delivery log's key (the inbox's dedupe key): one log row however often it arrives. */
  dedupeKey: string
  /** When this hub received it (epoch ms). */
  receivedAt: number
  /** The hub that received it (its id, stable across restarts). */
  hub: string
  orderType: OrderType | null
  orderId: number | null
  status: number | null
  /** The body exactly as received, base64. */
  body: string
  headers: RelayedHeaders
  /** Whether the receiving hub relays (--forward-to): the delivery then waits for its relay. */
  relay: boolean
  /** The delivery log's row of it (the log every hub on a PostgreSQL database shares). */
  log: WebhookDeliveryInput
}

/** What keeping a delivery did to its relay. */
export type KeepOutcome =
  | { relay: 'queued' }
  /** The same content failed before and is queued again (the service resent it). */
  | { relay: 'requeued' }
  /** Already kept: relayed, or queued, already; nothing new to send. */
  | { relay: 'known'; state: RelayState['kind']; since: number }
  /** Another content of the same order and status went out (or is queued) within the window. */
  | { relay: 'skipped'; since: number }
  | { relay: 'none' }

/** A relay the worker has claimed: what to send, and how many attempts came before. */
export interface RelayJob {
  id: number
  body: Buffer
  headers: RelayedHeaders
  orderType: OrderType | null
  orderId: number | null
  status: number | null
  attempts: number
  /** When the retry window of this relay started (its first keep, or an admin's retry). */
  windowFrom: number
}

/** How long a failing relay is tried again before it waits for an admin: a day. */
export const RELAY_RETRY_WINDOW_MS = 24 * 60 * 60_000
/** The longest wait between two attempts, so a receiver that comes back is relayed to within it. */
export const RELAY_MAX_BACKOFF_MS = 30_000
/** A claim on a relay lasts this long: a hub killed mid-relay frees its relays when it runs out. */
export const RELAY_CLAIM_MS = 30_000
/** How long a kept delivery is remembered (its content is not relayed again meanwhile): as long as the delivery log keeps it by default. */
export const KEPT_MEMORY_MS = 30 * 24 * 60 * 60_000
/** Another content of the same order and status inside this window is not relayed again. */
export const SAME_STATUS_WINDOW_MS = REPLAY_WINDOW_MS

/** The wait before the next attempt after `attempts` failed ones: 1 s, 2 s, 4 s ... up to 30 s. */
export function relayBackoffMs(attempts: number): number {
  return Math.min(RELAY_MAX_BACKOFF_MS, 1_000 * 2 ** Math.max(0, Math.min(20, attempts - 1)))
}

/** Whether a receiver's answer is worth trying again (it is down, overloaded or slow), or final. */
export function retryable(httpStatus: number | null): boolean {
  return httpStatus === null || httpStatus >= 500 || httpStatus === 408 || httpStatus === 429
}

export const delivered = (httpStatus: number | null): boolean => httpStatus !== null && httpStatus >= 200 && httpStatus < 300

/** The key that keeps one order's relays in the order they were kept. */
export function orderKey(d: Pick<KeptDelivery, 'orderType' | 'orderId' | 'contentKey'>): string {
  return d.orderId === null ? `content:${d.contentKey}` : `order:${d.orderType ?? '?'}:${d.orderId}`
}

export const sha256 = (s: string | Buffer): string => createHash('sha256').update(s).digest('hex')

/** Fields a retry or a resend of the same delivery renews (the service counts its attempts). */
const ATTEMPT_COUNTERS = new Set(['webhookTrials', 'trials'])

/** A JSON value written one way: members in order, every number its canonical decimal. */
function canonical(v: ExactValue): string {
  switch (v.kind) {
    case 'number':
      return v.decimal
    case 'string':
      return JSON.stringify(v.value)
    case 'literal':
      return String(v.value)
    case 'array':
      return `[${v.items.map(canonical).join(',')}]`
    case 'object':
      return `{${[...v.members.keys()]
        .sort()
        .map((k) => `${JSON.stringify(k)}:${canonical(v.members.get(k)!)}`)
        .join(',')}}`
  }
}

/**
 * A verified JSON body as deliveries are compared: without its attempt counters, members in
 * order, numbers as the decimals their text writes (two amounts a float cannot tell apart are
 * two contents).
 */
export function relayContent(body: string): string {
  const value = readExact(body)
  if (value.kind !== 'object') return canonical(value)
  for (const k of ATTEMPT_COUNTERS) value.members.delete(k)
  return canonical(value)
}

export const contentKeyOf = (body: string): string => sha256(relayContent(body))

/** The relay's state read from a row's columns (both stores keep the same ones). */
export function relayStateOf(r: {
  relay_state: string
  next_at: number | null
  claimed_by: string | null
  claim_until: number | null
  finished_at: number | null
  last_answer: string | null
}): RelayState {
  switch (r.relay_state) {
    case 'waiting':
      return { kind: 'waiting', nextAt: r.next_at ?? 0 }
    case 'sending':
      return { kind: 'sending', hub: r.claimed_by ?? '?', until: r.claim_until ?? 0 }
    case 'delivered':
      return { kind: 'delivered', at: r.finished_at ?? 0 }
    case 'failed':
      return { kind: 'failed', at: r.finished_at ?? 0, why: r.last_answer ?? '' }
    default:
      return { kind: 'none' }
  }
}

/** What a relay does next after an attempt: done, wait and try again, or wait for an admin. */
export type RelayNext = { kind: 'delivered' } | { kind: 'waiting'; nextAt: number } | { kind: 'failed'; why: string }

/** The receiver's answer in a few words, for the log and the admin's view. */
export function answerText(a: Pick<RelayAttempt, 'httpStatus' | 'answer'>): string {
  return a.httpStatus === null ? `no answer (${a.answer})` : `HTTP ${a.httpStatus}: ${JSON.stringify(a.answer.slice(0, 120))}`
}

/**
 * The relay's next step after an attempt that ended at `now` (by the store's clock, the one
 * `windowFrom` was written with).
 */
export function nextAfter(
  job: Pick<RelayJob, 'attempts' | 'windowFrom'>,
  a: Pick<RelayAttempt, 'httpStatus'>,
  now: number,
  windowMs = RELAY_RETRY_WINDOW_MS
): RelayNext {
  if (delivered(a.httpStatus)) return { kind: 'delivered' }
  // The receiver's answer itself is in the attempt: `why` says only why the tries stopped.
  if (!retryable(a.httpStatus)) return { kind: 'failed', why: 'the receiver refused it' }
  const nextAt = Math.ceil(now + relayBackoffMs(job.attempts + 1))
  if (nextAt > job.windowFrom + windowMs)
    return { kind: 'failed', why: `the receiver did not take it in ${windowMs / 3_600_000} h of tries` }
  return { kind: 'waiting', nextAt }
}
