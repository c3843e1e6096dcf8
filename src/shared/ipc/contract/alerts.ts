// The alerts namespace: what needs a person now, worked out from the orders the store holds
// and the configuration: orders stalled in a status longer than their threshold, and open
// orders on a chain whose node is out of sync or whose deposits are closed.
import { z } from 'zod'
import { ch, EpochMs, IdNum, none, OrderRef, OrderType } from './primitives'

export const AlertKind = z.enum(['stalled', 'chain', 'gap'])
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

export const Alert = z.discriminatedUnion('kind', [StalledAlert, ChainAlert, GapAlert])
export type Alert = z.infer<typeof Alert>

export const AlertList = z.object({ alerts: z.array(Alert), at: EpochMs })
export type AlertList = z.infer<typeof AlertList>

export const alertsChannels = {
  'alerts:list': ch(
    none,
    AlertList,
    'What needs a person now: stalled orders, open orders on an unwell chain and orders missing from the copy, each with its words'
  )
} as const
