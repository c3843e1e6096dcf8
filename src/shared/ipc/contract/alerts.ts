// The alerts namespace: what needs a person now, worked out from the orders the store holds
// and the configuration: orders stalled in a status longer than their threshold, open
// orders on a chain whose node is out of sync or whose deposits are closed, and completed
// orders the merchant's system never confirmed receiving (a hub that relays, a desktop inbox).
import { z } from 'zod'
import { ch, EpochMs, IdNum, none, OrderRef, OrderType } from './primitives'

export const AlertKind = z.enum(['stalled', 'chain', 'unacknowledged', 'gap'])
export type AlertKind = z.infer<typeof AlertKind>

export const StalledAlert = z.object({
  kind: z.literal('stalled'),
  /** Stable while the alert stands ("stalled:2:123"). */
  id: z.string(),
  order: OrderRef,
  status: z.number().int(),
  /** Since when the order has been as it is (its last observed change). */
  since: EpochMs,
  thresholdMinutes: z.number().int().positive(),
  /** "Stalled 42 min in Held for review" */
  text: z.string(),
  /** What to tell the customer, from the status table. */
  tell: z.string()
})
export type StalledAlert = z.infer<typeof StalledAlert>

export const ChainAlert = z.object({
  kind: z.literal('chain'),
  /** Stable while the alert stands ("chain:54:3:node_out_of_sync"). */
  id: z.string(),
  coinId: IdNum,
  chainId: IdNum,
  problem: z.enum(['node_out_of_sync', 'deposits_closed']),
  /** The open orders it touches. */
  orders: z.array(OrderRef),
  /** Since when the app has seen the chain so (the configuration answer that first said it). */
  since: EpochMs,
  /** "7 withdrawals of USDT on TRC20 while its node is out of sync" */
  text: z.string()
})
export type ChainAlert = z.infer<typeof ChainAlert>

/**
 * Where a completion's notice stands between the service and the merchant's system.
 * `not-received`: no notice of the completion reached the hub or inbox (the service's order
 * list shows it completed). `not-passed-on`: received, not relayed (no relay where it came
 * in). `sending`: relayed, the merchant's system has not accepted it yet, tries go on.
 * `stopped`: the relay gave up (the receiver refused it, or a day of tries passed).
 */
export const CompletionDelivery = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('not-received') }),
  z.object({ kind: z.literal('not-passed-on'), receivedAt: EpochMs }),
  z.object({
    kind: z.literal('sending'),
    attempts: z.number().int().nonnegative(),
    /** The receiver's last answer, technical ("HTTP 500: down"), for a tooltip; null before any. */
    lastAnswer: z.string().nullable()
  }),
  z.object({ kind: z.literal('stopped'), attempts: z.number().int().nonnegative(), lastAnswer: z.string().nullable() })
])
export type CompletionDelivery = z.infer<typeof CompletionDelivery>

export const UnacknowledgedAlert = z.object({
  kind: z.literal('unacknowledged'),
  /** Stable while the alert stands ("unacknowledged:1:123"). */
  id: z.string(),
  order: OrderRef,
  /** The successful status it completed at. */
  status: z.number().int(),
  /** When the order completed (the service's time of its last change, never later than it was seen). */
  since: EpochMs,
  delivery: CompletionDelivery,
  /** "Completed 25 min ago; the merchant's system has not confirmed it" */
  text: z.string(),
  /** Why, in words ("The service's notice never reached the hub"). */
  why: z.string(),
  /** What to tell the customer. */
  tell: z.string()
})
export type UnacknowledgedAlert = z.infer<typeof UnacknowledgedAlert>

export const GapAlert = z.object({
  kind: z.literal('gap'),
  /** Stable while the alert stands ("gap:2:1"). */
  id: z.string(),
  type: OrderType,
  fiatType: IdNum,
  /** Orders the service holds there that the local copy lacks, at the last check (null: not counted). */
  missing: z.number().int().nullable(),
  /** Since when the app has seen the scope so (the check that first found it). */
  since: EpochMs,
  /** "Offramp EUR: 14 orders missing here, being read again" */
  text: z.string()
})
export type GapAlert = z.infer<typeof GapAlert>

export const Alert = z.discriminatedUnion('kind', [StalledAlert, ChainAlert, UnacknowledgedAlert, GapAlert])
export type Alert = z.infer<typeof Alert>

export const AlertList = z.object({ alerts: z.array(Alert), at: EpochMs })
export type AlertList = z.infer<typeof AlertList>

/** What a resend did: the kept notice queued to the merchant's system again, or the service asked to send it again. */
export const ResendCompletion = z.object({
  done: z.enum(['relay-queued', 'relay-sending', 'service-asked']),
  /** In the operator's words. */
  message: z.string()
})
export type ResendCompletion = z.infer<typeof ResendCompletion>

export const alertsChannels = {
  'alerts:list': ch(
    none,
    AlertList,
    "What needs a person now: stalled orders, open orders on an unwell chain, completions the merchant's system has not confirmed, orders missing from the copy, each with its words"
  ),
  'alerts:resend': ch(
    OrderRef.strict(),
    ResendCompletion,
    "Get an unconfirmed completion to the merchant's system again: a hub relays its kept notice again now; without one kept (or on a desktop, which passes nothing on) the service is asked to resend its webhook"
  )
} as const
