// A claim or note as a row of the hubs' order_handling table (hub.db and PostgreSQL share
// its columns) and back.
import type { HandlingEntry } from '../main/store/order-claims-repo'
import type { OrderType } from '../shared/ipc/contract'
import type { StoredHandling } from './hub-backend'

export interface HandlingRow {
  id: number | string
  type: number
  order_id: number
  kind: string
  actor: string
  handler: string | null
  text: string | null
  at: number | string
}

/** The columns after id, in the order handlingValues gives them. */
export const HANDLING_COLUMNS = 'type, order_id, kind, actor, handler, text, at'

export function handlingValues(e: HandlingEntry): [number, number, string, string, string | null, string | null, number] {
  const handler = e.kind === 'hand' ? e.to : e.kind === 'claim' ? e.actor : null
  return [e.type, e.orderId, e.kind, e.actor, handler, e.kind === 'note' ? e.text : null, e.at]
}

export function toStoredHandling(r: HandlingRow): StoredHandling {
  const base = { type: r.type as OrderType, orderId: Number(r.order_id), actor: r.actor, at: Number(r.at) }
  const id = Number(r.id)
  switch (r.kind) {
    case 'note':
      return { id, entry: { ...base, kind: 'note', text: r.text ?? '' } }
    case 'hand':
      return { id, entry: { ...base, kind: 'hand', to: r.handler ?? '' } }
    case 'release':
      return { id, entry: { ...base, kind: 'release' } }
    default:
      return { id, entry: { ...base, kind: 'claim' } }
  }
}
