// The one table of order statuses, keyed by (type, status): the same number means
// different things for onramp (type 1), offramp (type 2) and the service's swap orders
// (the live-service notes, "Order status values"). For each status it holds the service's
// own words (for support and the sandbox) and what an operator with a customer on the
// phone needs: a short label that fits the orders table's status column, what the status
// means, and what to tell the customer, in plain words. Every view, the notifications, the
// tray and the CSV export read statuses from here. Unknown values never throw and never
// hide an order: they show as "Unknown status N", still in progress.
// From the orders namespace's file, not the contract's index: the sandbox reads statuses
// here, and the index would load the client's API schemas into the simulator with it.
import { StatusGroup } from '../ipc/contract/orders'
import type { OrderType } from '../ipc/contract'

export type StatusTone = 'success' | 'failure' | 'progress' | 'attention'

/** The kinds of order the table knows: onramp (1), offramp (2) and the service's swap orders. */
export type StatusKind = OrderType | 'swap'

/** Filter groups in display order. */
export const STATUS_GROUPS: readonly StatusGroup[] = StatusGroup.options

const ORDER_KIND_LABELS: Record<OrderType, string> = { 1: 'Onramp', 2: 'Offramp' }

/** "Onramp" / "Offramp", or "onramp" / "offramp" inside a sentence. */
export function orderKindLabel(type: OrderType, form: 'capitalized' | 'lowercase' = 'capitalized'): string {
  const label = ORDER_KIND_LABELS[type]
  return form === 'lowercase' ? label.toLowerCase() : label
}

export interface StatusInfo {
  type: number | 'swap'
  status: number
  /** The status in the operator's words, short enough for the orders table's status column ("Complete"). */
  label: string
  /** The same as label (kept for the views that read it under this name). */
  short: string
  /** What the status means, in one sentence. */
  meaning: string
  /** What to tell the customer about the order. */
  tell: string
  /** The service's own words for it, as the live-service notes give them (support, the sandbox), or null when unknown. */
  serviceLabel: string | null
  terminal: boolean
  tone: StatusTone
  group: StatusGroup
  /** false for values outside the table ("Unknown status N"). */
  known: boolean
}

/** One line of the table: the statuses it covers and its words. */
export interface StatusRow {
  statuses: readonly number[]
  /** The live-service notes' words. */
  service: string
  label: string
  meaning: string
  tell: string
  tone: StatusTone
}

const range = (from: number, to: number): number[] => Array.from({ length: to - from + 1 }, (_, i) => from + i)

const SENT_TO_WALLET =
  'Their crypto has been sent to their wallet. If they cannot see it yet, read them the transaction hash from the order details to look it up.'
const PAID_TO_BANK = 'The money has been sent to their bank account. If it has not arrived yet, their bank may still be processing it.'
const BUYING = 'Their payment has arrived and their crypto is being bought. They do not need to do anything.'

const ONRAMP: readonly StatusRow[] = [
  {
    statuses: [-4],
    service: 'amount mismatch',
    label: 'Amount mismatch',
    meaning: 'The amount the customer paid did not match the order, so the order was stopped and no crypto was bought.',
    tell: 'The amount they paid did not match the order, so no crypto was sent. Ask them not to pay again while you check with the service about the payment they made.',
    tone: 'failure'
  },
  {
    statuses: [-3],
    service: 'bank and KYC name mismatch',
    label: 'Name mismatch',
    meaning:
      'The name on the bank account that paid is not the name the customer verified, so the order was stopped and no crypto was bought.',
    tell: 'The payment came from an account in another name than the one they verified, so no crypto was sent. They need to pay from an account in their own name; check with the service about the payment already made.',
    tone: 'failure'
  },
  {
    statuses: [-2],
    service: 'abandoned by the user',
    label: 'Abandoned',
    meaning: 'The customer left the order before it went through, so it was closed.',
    tell: 'The order was closed because it was not finished. If they still want crypto they can place a new order; if they paid anyway, take the payment details and check with the service.',
    tone: 'failure'
  },
  {
    statuses: [-1],
    service: 'timed out',
    label: 'Timed out',
    meaning: 'No payment arrived in time, so the order expired.',
    tell: 'The order expired before a payment arrived. They should not pay into it now; if they already paid, take the payment details and check with the service.',
    tone: 'failure'
  },
  {
    statuses: [0],
    service: 'created',
    label: 'Created',
    meaning: 'The order was placed; no payment has been seen yet.',
    tell: 'Their order is open and waiting for their payment. Once they pay, it moves on by itself.',
    tone: 'progress'
  },
  {
    statuses: [1],
    service: 'reference id claimed',
    label: 'Checking payment',
    meaning: "The customer says they have paid and gave the payment's details; the service is matching them with the money received.",
    tell: 'Their payment details have been received and the payment is being checked. They do not need to pay again.',
    tone: 'progress'
  },
  {
    statuses: [2],
    service: 'deposit secured',
    label: 'Payment received',
    meaning: "The customer's payment has arrived.",
    tell: 'Their payment has arrived. Their crypto is being bought next.',
    tone: 'progress'
  },
  {
    statuses: [3, 13],
    service: 'crypto purchased',
    label: 'Crypto bought',
    meaning: 'The crypto for this order has been bought and is about to be sent.',
    tell: 'Their crypto has been bought and will be sent to their wallet next.',
    tone: 'progress'
  },
  {
    statuses: [11],
    service: 'order placement initiated',
    label: 'Placing purchase',
    meaning: 'The payment has arrived and the purchase of the crypto is being placed.',
    tell: BUYING,
    tone: 'progress'
  },
  {
    statuses: [12],
    service: 'purchasing crypto',
    label: 'Buying crypto',
    meaning: 'The crypto for this order is being bought.',
    tell: BUYING,
    tone: 'progress'
  },
  {
    statuses: [14],
    service: 'withdrawal initiated',
    label: 'Sending crypto',
    meaning: "The crypto is being sent to the customer's wallet.",
    tell: 'Their crypto is on its way to their wallet. It can take a few minutes to show there, depending on the network.',
    tone: 'progress'
  },
  {
    statuses: [4, 15],
    service: 'withdrawal complete',
    label: 'Complete',
    meaning: "The crypto was sent to the customer's wallet.",
    tell: SENT_TO_WALLET,
    tone: 'success'
  },
  {
    statuses: [5, 16],
    service: 'webhook sent (after completion)',
    label: 'Complete',
    meaning: "The crypto was sent to the customer's wallet and your system was told.",
    tell: SENT_TO_WALLET,
    tone: 'success'
  }
]

const OFFRAMP: readonly StatusRow[] = [
  {
    statuses: [-4],
    service: 'amount mismatch',
    label: 'Amount mismatch',
    meaning: 'The crypto the customer sent did not match the order, so the order was stopped and nothing was paid out.',
    tell: 'The crypto they sent did not match the order, so no money was paid out. Ask them not to send more while you check with the service about the crypto they sent.',
    tone: 'failure'
  },
  {
    statuses: [-2],
    service: 'abandoned',
    label: 'Abandoned',
    meaning: 'The customer left the order before it went through, so it was closed.',
    tell: 'The order was closed because it was not finished. If they still want to sell they can place a new order; if they sent crypto anyway, take the transaction hash and check with the service.',
    tone: 'failure'
  },
  {
    statuses: [-1],
    service: 'timed out',
    label: 'Timed out',
    meaning: 'No crypto arrived in time, so the order expired.',
    tell: 'The order expired before their crypto arrived. They should not send crypto for it now; if they already did, take the transaction hash and check with the service.',
    tone: 'failure'
  },
  {
    statuses: [0],
    service: 'created',
    label: 'Created',
    meaning: 'The order was placed; no crypto has been seen yet.',
    tell: 'Their order is open and waiting for their crypto.',
    tone: 'progress'
  },
  {
    statuses: [1],
    service: 'confirmed, deposit hash generated',
    label: 'Awaiting crypto',
    meaning: 'The order is confirmed and the customer has the address to send their crypto to; it has not arrived yet.',
    tell: 'Their order is confirmed and waiting for their crypto at the address they were given.',
    tone: 'progress'
  },
  {
    statuses: [2, 10, 11],
    service: 'deposit found, selling crypto',
    label: 'Selling crypto',
    meaning: "The customer's crypto has arrived and is being sold.",
    tell: 'Their crypto has arrived and is being sold; the money goes to their bank account next.',
    tone: 'progress'
  },
  {
    statuses: [3],
    service: 'over limit, held for manual review',
    label: 'Held for review',
    meaning: "The order is over a limit (such as the customer's monthly limit) and is held until the service reviews it.",
    tell: 'Their order is over a limit and is held for a review before it can go on. Check with the service how long the review takes before giving them a time.',
    tone: 'attention'
  },
  {
    statuses: [4, 12],
    service: 'crypto sold',
    label: 'Crypto sold',
    meaning: "The crypto was sold; the money is sent to the customer's bank account next.",
    tell: 'Their crypto has been sold and the money will be sent to their bank account next.',
    tone: 'progress'
  },
  {
    statuses: [5, 13, ...range(30, 36)],
    service: 'fiat withdrawal to bank initiated',
    label: 'Paying out',
    meaning: "The money is being sent to the customer's bank account.",
    tell: 'The money is on its way to their bank account. Their bank may take some time to show it.',
    tone: 'progress'
  },
  {
    statuses: [17],
    service: 'user must provide an alternate bank',
    label: 'Needs other bank',
    meaning: "The money could not be paid into the customer's bank account; they must give another one.",
    tell: 'Their bank account could not receive the money. They need to give another bank account in their own name to be paid.',
    tone: 'attention'
  },
  {
    statuses: [18],
    service: 'paying out to the alternate bank',
    label: 'Paying other bank',
    meaning: 'The money is being sent to the other bank account the customer gave.',
    tell: 'The money is on its way to the other bank account they gave. Their bank may take some time to show it.',
    tone: 'progress'
  },
  {
    statuses: [6, 14, 40],
    service: 'fiat withdrawal processed',
    label: 'Paid out',
    meaning: "The money was sent to the customer's bank account.",
    tell: PAID_TO_BANK,
    tone: 'success'
  },
  {
    statuses: [7, 15, 41],
    service: 'webhook sent',
    label: 'Paid out',
    meaning: "The money was sent to the customer's bank account and your system was told.",
    tell: PAID_TO_BANK,
    tone: 'success'
  },
  {
    statuses: [19],
    service: 'success',
    label: 'Complete',
    meaning: "The order is complete: the money was sent to the customer's bank account.",
    tell: PAID_TO_BANK,
    tone: 'success'
  }
]

/**
 * Swap orders (the live-service notes): updates seen through the history only. The app
 * keeps onramp and offramp orders; a swap record it meets is named with these words.
 */
const SWAP: readonly StatusRow[] = [
  {
    statuses: [-1],
    service: 'expired',
    label: 'Expired',
    meaning: 'No crypto arrived in time, so the swap expired.',
    tell: 'The swap expired before their crypto arrived. They should not send crypto for it now; if they already did, take the transaction hash and check with the service.',
    tone: 'failure'
  },
  {
    statuses: [0],
    service: 'created',
    label: 'Created',
    meaning: 'The swap was placed; no crypto has been seen yet.',
    tell: 'Their swap is open and waiting for their crypto.',
    tone: 'progress'
  },
  {
    statuses: [1],
    service: 'deposit secured',
    label: 'Crypto received',
    meaning: "The customer's crypto has arrived.",
    tell: 'Their crypto has arrived and is being checked.',
    tone: 'progress'
  },
  {
    statuses: [2],
    service: 'deposit confirmed',
    label: 'Crypto confirmed',
    meaning: "The customer's crypto has arrived and is confirmed on its network.",
    tell: 'Their crypto has arrived and is confirmed; the swap is placed next.',
    tone: 'progress'
  },
  {
    statuses: [3],
    service: 'placing the swap',
    label: 'Placing swap',
    meaning: 'The swap is being placed.',
    tell: 'Their swap is being placed. They do not need to do anything.',
    tone: 'progress'
  },
  {
    statuses: [4],
    service: 'swap placed',
    label: 'Swap placed',
    meaning: 'The swap has been placed and is being carried out.',
    tell: 'Their swap is under way. They do not need to do anything.',
    tone: 'progress'
  },
  {
    statuses: [5],
    service: 'error: contact the service',
    label: 'Swap problem',
    meaning: 'The swap hit a problem that only the service can resolve.',
    tell: 'Their swap hit a problem on the service side. Tell them it is being looked into, and check with the service.',
    tone: 'attention'
  },
  {
    statuses: [6],
    service: 'processing',
    label: 'Swapping',
    meaning: 'The swap is being carried out.',
    tell: 'Their swap is under way. They do not need to do anything.',
    tone: 'progress'
  },
  {
    statuses: [7],
    service: 'processed',
    label: 'Swapped',
    meaning: "The swap is done; the new crypto is sent to the customer's wallet next.",
    tell: 'Their swap is done and the crypto will be sent to their wallet next.',
    tone: 'progress'
  },
  {
    statuses: [8],
    service: 'error withdrawing',
    label: 'Sending failed',
    meaning: "The swapped crypto could not be sent to the customer's wallet.",
    tell: 'Their crypto could not be sent to their wallet yet. Tell them it is being looked into, and check with the service.',
    tone: 'attention'
  },
  {
    statuses: [9],
    service: 'withdrawal initiated',
    label: 'Sending crypto',
    meaning: "The swapped crypto is being sent to the customer's wallet.",
    tell: 'Their crypto is on its way to their wallet. It can take a few minutes to show there, depending on the network.',
    tone: 'progress'
  },
  {
    statuses: [10],
    service: 'withdrawal processed',
    label: 'Complete',
    meaning: "The swapped crypto was sent to the customer's wallet.",
    tell: SENT_TO_WALLET,
    tone: 'success'
  }
]

/** What an unknown status means and what to tell, whatever its number. */
export const UNKNOWN_STATUS_MEANING = 'The service reported a status this app does not know. Check with the service what it means.'
export const UNKNOWN_STATUS_TELL = 'Do not tell them anything definite yet: check with the service what this status means first.'

/** Every row of the table per kind, for the tests and the status-width check. */
export const STATUS_TABLE: Readonly<Record<StatusKind, readonly StatusRow[]>> = { 1: ONRAMP, 2: OFFRAMP, swap: SWAP }

const GROUP_OF_TONE: Record<StatusTone, StatusGroup> = {
  progress: 'in progress',
  attention: 'needs attention',
  success: 'completed',
  failure: 'failed'
}

function index(rows: readonly StatusRow[]): ReadonlyMap<number, StatusRow> {
  const m = new Map<number, StatusRow>()
  for (const r of rows) for (const s of r.statuses) m.set(s, r)
  return m
}

const TABLE: Record<StatusKind, ReadonlyMap<number, StatusRow>> = { 1: index(ONRAMP), 2: index(OFFRAMP), swap: index(SWAP) }

function tableFor(type: number | 'swap'): ReadonlyMap<number, StatusRow> | undefined {
  return type === 1 || type === 2 || type === 'swap' ? TABLE[type] : undefined
}

/** "Unknown status 77": the label of a status outside the table. */
export const unknownStatusLabel = (status: number): string => `Unknown status ${String(status)}`

/** Label, meaning, what to tell, terminal flag, tone and filter group of a status. Never throws. */
export function statusInfo(type: number | 'swap', status: number): StatusInfo {
  const row = tableFor(type)?.get(status)
  if (!row) {
    const label = unknownStatusLabel(status)
    return {
      type,
      status,
      label,
      short: label,
      meaning: UNKNOWN_STATUS_MEANING,
      tell: UNKNOWN_STATUS_TELL,
      serviceLabel: null,
      terminal: false,
      tone: 'progress',
      group: 'in progress',
      known: false
    }
  }
  return {
    type,
    status,
    label: row.label,
    short: row.label,
    meaning: row.meaning,
    tell: row.tell,
    serviceLabel: row.service,
    terminal: row.tone === 'success' || row.tone === 'failure',
    tone: row.tone,
    group: GROUP_OF_TONE[row.tone],
    known: true
  }
}

/** "Complete (16)": the label with its number, for the order detail (an unknown status names its number already). */
export function statusText(type: number | 'swap', status: number): string {
  const info = statusInfo(type, status)
  return info.known ? `${info.label} (${status})` : info.label
}

/** A status's tooltip: its label with the number, then what it means ("Complete (status 16): The crypto was sent …"). */
export function statusTooltip(type: number | 'swap', status: number): string {
  const info = statusInfo(type, status)
  return info.known ? `${info.label} (status ${status}): ${info.meaning}` : `${info.label}: ${info.meaning}`
}

/** Every status value in the table for a type, ascending. */
export function knownStatuses(type: OrderType): number[] {
  return [...TABLE[type].keys()].sort((a, b) => a - b)
}

function groupStatuses(type: OrderType): Record<StatusGroup, readonly number[]> {
  const out: Record<StatusGroup, number[]> = { 'in progress': [], 'needs attention': [], completed: [], failed: [] }
  for (const s of knownStatuses(type)) out[statusInfo(type, s).group].push(s)
  return out
}

/**
 * Statuses of each group per type, for filters. Unknown statuses belong to
 * 'in progress' (UNKNOWN_STATUS_GROUP): a filter on that group must also match every
 * status not listed under any group, or such orders would disappear from view.
 */
export const STATUSES_BY_GROUP: Readonly<Record<OrderType, Readonly<Record<StatusGroup, readonly number[]>>>> = {
  1: groupStatuses(1),
  2: groupStatuses(2)
}

const UNKNOWN_STATUS_GROUP: StatusGroup = 'in progress'

/**
 * The groups of orders still going (not final). An order the service no longer has (its
 * row's goneAt) is in none of them, whatever its last status: nothing will move it on.
 */
export const OPEN_GROUPS: readonly StatusGroup[] = ['needs attention', 'in progress']

/**
 * What the orders table and the tray add to the status of an order the service no longer
 * has (short enough to fit the status column beside the status; the title says it whole).
 */
export const GONE_NOTE = 'unlisted'

/** Statuses of one group for one type (ascending). */
export function statusesInGroup(type: OrderType, group: StatusGroup): readonly number[] {
  return STATUSES_BY_GROUP[type][group]
}

/**
 * A filter a query can apply: `in` lists the statuses that match; when
 * `includeUnknown` is set, any status missing from knownStatuses(type) matches too.
 */
export function statusGroupFilter(
  type: OrderType,
  group: StatusGroup
): { in: readonly number[]; includeUnknown: boolean; known: readonly number[] } {
  return { in: statusesInGroup(type, group), includeUnknown: group === UNKNOWN_STATUS_GROUP, known: knownStatuses(type) }
}
