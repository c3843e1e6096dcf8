// The one table of order status labels, keyed by (type, status): the same number
// means different things for onramp (type 1) and offramp (type 2)
// (the live-service notes, "Order status values"). Every view, the notifications and
// the CSV export read labels from here. Unknown values never throw and never hide
// an order: they show as "unknown status N", still in progress.
import { StatusGroup, type OrderType } from '../ipc/contract'

export type StatusTone = 'success' | 'failure' | 'progress' | 'attention'

/** Filter groups in display order. */
export const STATUS_GROUPS: readonly StatusGroup[] = StatusGroup.options

const ORDER_KIND_LABELS: Record<OrderType, string> = { 1: 'Onramp', 2: 'Offramp' }

/** "Onramp" / "Offramp", or "onramp" / "offramp" inside a sentence. */
export function orderKindLabel(type: OrderType, form: 'capitalized' | 'lowercase' = 'capitalized'): string {
  const label = ORDER_KIND_LABELS[type]
  return form === 'lowercase' ? label.toLowerCase() : label
}

export interface StatusInfo {
  type: number
  status: number
  label: string
  /** The label in a few words, for a table column or the tray ("webhook sent"); the whole label goes in its title. */
  short: string
  terminal: boolean
  tone: StatusTone
  group: StatusGroup
  /** false for values outside the table ("unknown status N"). */
  known: boolean
}

interface Row {
  statuses: readonly number[]
  label: string
  short?: string
  tone: StatusTone
}

const range = (from: number, to: number): number[] => Array.from({ length: to - from + 1 }, (_, i) => from + i)

const ONRAMP: readonly Row[] = [
  { statuses: [-4], label: 'amount mismatch', tone: 'failure' },
  { statuses: [-3], label: 'bank and KYC name mismatch', short: 'name mismatch', tone: 'failure' },
  { statuses: [-2], label: 'abandoned by the user', short: 'abandoned', tone: 'failure' },
  { statuses: [-1], label: 'timed out', tone: 'failure' },
  { statuses: [0], label: 'created', tone: 'progress' },
  { statuses: [1], label: 'reference id claimed', short: 'reference claimed', tone: 'progress' },
  { statuses: [2], label: 'deposit secured', tone: 'progress' },
  { statuses: [3, 13], label: 'crypto purchased', short: 'crypto bought', tone: 'progress' },
  { statuses: [11], label: 'order placement initiated', short: 'placing order', tone: 'progress' },
  { statuses: [12], label: 'purchasing crypto', short: 'buying crypto', tone: 'progress' },
  { statuses: [14], label: 'withdrawal initiated', short: 'withdrawing', tone: 'progress' },
  { statuses: [4, 15], label: 'withdrawal complete', short: 'withdrawn', tone: 'success' },
  { statuses: [5, 16], label: 'webhook sent (after completion)', short: 'webhook sent', tone: 'success' }
]

const OFFRAMP: readonly Row[] = [
  { statuses: [-4], label: 'amount mismatch', tone: 'failure' },
  { statuses: [-2], label: 'abandoned', tone: 'failure' },
  { statuses: [-1], label: 'timed out', tone: 'failure' },
  { statuses: [0], label: 'created', tone: 'progress' },
  { statuses: [1], label: 'confirmed, deposit hash generated', short: 'confirmed', tone: 'progress' },
  { statuses: [2, 10, 11], label: 'deposit found, selling crypto', short: 'selling crypto', tone: 'progress' },
  { statuses: [3], label: 'over limit, held for manual review', short: 'manual review', tone: 'attention' },
  { statuses: [4, 12], label: 'crypto sold', tone: 'progress' },
  { statuses: [5, 13, ...range(30, 36)], label: 'fiat withdrawal to bank initiated', short: 'paying out', tone: 'progress' },
  { statuses: [17], label: 'user must provide an alternate bank', short: 'needs other bank', tone: 'attention' },
  { statuses: [18], label: 'paying out to the alternate bank', short: 'paying other bank', tone: 'progress' },
  { statuses: [6, 14, 40], label: 'fiat withdrawal processed', short: 'paid out', tone: 'success' },
  { statuses: [7, 15, 41], label: 'webhook sent', tone: 'success' },
  { statuses: [19], label: 'success', tone: 'success' }
]

const GROUP_OF_TONE: Record<StatusTone, StatusGroup> = {
  progress: 'in progress',
  attention: 'needs attention',
  success: 'completed',
  failure: 'failed'
}

function index(rows: readonly Row[]): ReadonlyMap<number, Row> {
  const m = new Map<number, Row>()
  for (const r of rows) for (const s of r.statuses) m.set(s, r)
  return m
}

const TABLE: Record<OrderType, ReadonlyMap<number, Row>> = { 1: index(ONRAMP), 2: index(OFFRAMP) }

function tableFor(type: number): ReadonlyMap<number, Row> | undefined {
  return type === 1 || type === 2 ? TABLE[type] : undefined
}

/** Label, terminal flag, tone and filter group of a status. Never throws. */
export function statusInfo(type: number, status: number): StatusInfo {
  const row = tableFor(type)?.get(status)
  if (!row) {
    return {
      type,
      status,
      label: `unknown status ${String(status)}`,
      short: `unknown status ${String(status)}`,
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
    short: row.short ?? row.label,
    terminal: row.tone === 'success' || row.tone === 'failure',
    tone: row.tone,
    group: GROUP_OF_TONE[row.tone],
    known: true
  }
}

/** "withdrawal complete (4)": the number is always shown next to the label. */
export function statusText(type: number, status: number): string {
  const info = statusInfo(type, status)
  return info.known ? `${info.label} (${status})` : info.label
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
