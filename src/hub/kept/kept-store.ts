// Where kept deliveries live: hub.db for a hub on its own (sqlite-kept-store.ts), the
// PostgreSQL database for hubs that share one (pg/pg-kept-store.ts). Both keep the same
// columns and answer the same questions; a delivery is kept once per content, however many
// hubs it was posted to and however often the service sent it.
import type { OrderType, RelayCounts } from '../../shared/ipc/contract'

export type { RelayCounts }
import type { KeepOutcome, KeptDelivery, RelayAttempt, RelayJob, RelayNext, RelayView } from './kept-delivery'

/** A kept delivery whose order the leader has not applied yet. */
export interface Unapplied {
  id: number
  orderType: OrderType | null
  body: Buffer
}

export interface KeptStore {
  /**
   * Keeps each delivery durably (committed before this resolves), in order; a delivery whose
   * content is kept already is counted again, not kept twice.
   */
  keep(batch: readonly KeptDelivery[]): Promise<Array<{ id: number; outcome: KeepOutcome }>>
  /**
   * Claims up to `limit` relays that are due, oldest first, none behind an unfinished earlier
   * relay of its order, for `hub` until `now + claimMs`; answers them with the store's clock.
   */
  claimRelays(hub: string, limit: number, claimMs: number): Promise<{ now: number; jobs: RelayJob[] }>
  /** Records an attempt and the relay's next step; false when the claim was no longer this hub's (it ran out). */
  settleRelay(id: number, hub: string, attempt: RelayAttempt, next: RelayNext): Promise<boolean>
  /** Gives back every relay this hub claimed (a hub that starts again after a kill). */
  releaseClaims(hub: string): Promise<number>
  /** The relays an admin looks at: failed and waiting first, then the newest. */
  relays(limit: number): Promise<{ counts: RelayCounts; rows: RelayView[] }>
  /** Queues failed relays again (these ids, or every failed one), with a new retry window. */
  retryRelays(ids: readonly number[] | 'failed'): Promise<number>
  /** Kept deliveries whose order is not applied yet, oldest first. */
  unapplied(limit: number): Promise<Unapplied[]>
  /** Marks these applied; false when this hub no longer leads (nothing marked: the leading hub applies them). */
  markApplied(ids: readonly number[]): Promise<boolean>
  /** The relays of these orders (order keys, kept-delivery.ts orderKey), each with its last attempt: what became of their notices. */
  orderRelays(keys: readonly string[]): Promise<OrderRelayRow[]>
  /** When the first delivery still kept for relay was received (epoch ms), or null: since when notices are relayed. */
  relayingSince(): Promise<number | null>
  /**
   * Sends the order's newest kept delivery at one of these statuses to the receiver again, now,
   * with a new retry window: 'queued'; 'sending' when one is in flight already; 'none' when
   * none is kept.
   */
  requeueOrder(key: string, statuses: readonly number[]): Promise<'queued' | 'sending' | 'none'>
  /** Answers when the store answers (a cheap statement): is it back? */
  ping(): Promise<void>
  /** Forgets finished deliveries older than KEPT_MEMORY_MS. */
  prune(): Promise<number>
}

/** One kept delivery of an order, for what became of its notice. */
export interface OrderRelayRow {
  order_type: number | null
  order_id: number | null
  status: number | null
  relay_state: string
  attempts: number
  received_at: number
  a_http_status: number | null
  a_answer: string | null
}

/** The columns both stores read a relay view from. */
export interface RelayViewRow {
  id: number
  order_type: number | null
  order_id: number | null
  status: number | null
  received_at: number
  attempts: number
  relay_state: string
  next_at: number | null
  claimed_by: string | null
  claim_until: number | null
  finished_at: number | null
  last_answer: string | null
  a_at: number | null
  a_hub: string | null
  a_http_status: number | null
  a_answer: string | null
  a_ms: number | null
}
