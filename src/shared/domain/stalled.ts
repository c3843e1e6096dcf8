// When an open order has sat too long in one status: per (type, status) thresholds in
// minutes, keyed "type:status" ("2:3" offramp held for manual review), with "type:*" for
// any other non-terminal status of that type. Terminal statuses never stall. Pure, so the
// threshold edges (exactly at, just before, just after) are unit-tested; the alert service
// (src/main/alerts) applies it to the orders the store holds.
import type { OrderType } from '../ipc/contract'
import { statusInfo } from './status'

export { DEFAULT_STALLED_MINUTES, STALLED_KEY } from '../ipc/contract'

/** The threshold in minutes for an order in this status, or null when it cannot stall (terminal). */
export function stalledThreshold(thresholds: Readonly<Record<string, number>>, type: OrderType, status: number): number | null {
  if (statusInfo(type, status).terminal) return null
  return thresholds[`${type}:${status}`] ?? thresholds[`${type}:*`] ?? null
}

export interface StalledInput {
  type: OrderType
  orderId: number
  status: number
  /** Since when (epoch ms) the order has been as it is: its last observed change. */
  since: number
}

export interface Stalled {
  type: OrderType
  orderId: number
  status: number
  since: number
  thresholdMinutes: number
  /** How long it has been in the status, in ms. */
  forMs: number
}

/** Is the order stalled at `now`? It is from exactly its threshold on. */
export function stalledOrder(thresholds: Readonly<Record<string, number>>, o: StalledInput, now: number): Stalled | null {
  const minutes = stalledThreshold(thresholds, o.type, o.status)
  if (minutes === null) return null
  const forMs = now - o.since
  if (forMs < minutes * 60_000) return null
  return { type: o.type, orderId: o.orderId, status: o.status, since: o.since, thresholdMinutes: minutes, forMs }
}

/** "42 min", "2 h 5 min", "3 d 4 h": how long, for the operator. */
export function stalledFor(ms: number): string {
  const min = Math.floor(ms / 60_000)
  if (min < 60) return `${min} min`
  const h = Math.floor(min / 60)
  if (h < 24) return min % 60 ? `${h} h ${min % 60} min` : `${h} h`
  const d = Math.floor(h / 24)
  return h % 24 ? `${d} d ${h % 24} h` : `${d} d`
}

/** "Stalled 42 min in Held for review": the mark's words (the detail adds what to tell the customer). */
export function stalledText(s: Pick<Stalled, 'type' | 'status' | 'forMs'>): string {
  return `Stalled ${stalledFor(s.forMs)} in ${statusInfo(s.type, s.status).label}`
}
