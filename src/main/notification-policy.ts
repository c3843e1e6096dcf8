// Which order changes become a desktop notification, decided from the operator's
// notification settings alone: a pure function, so every setting is unit-tested and the
// shells only show what it returns.
import type { EventPayload, OrderRef, Settings, StalledAlert } from '../shared/ipc/contract'
import { orderKindLabel, statusInfo } from '../shared/domain/status'

export interface OrderNotification {
  title: string
  body: string
  /** The order a click on the notification opens. */
  order?: OrderRef
}

/** The notification for an order change, or null when the settings do not ask for one. */
export function orderNotification(notify: Settings['notify'], change: EventPayload<'order:changed'>): OrderNotification | null {
  const { row, oldStatus, newStatus } = change
  if (notify.watchedOnly && !row.watched) return null
  const info = statusInfo(row.type, newStatus)
  const wanted =
    notify.anyChange ||
    (info.terminal && info.tone === 'success' && notify.terminalSuccess) ||
    (info.terminal && info.tone === 'failure' && notify.terminalFailure) ||
    (info.tone === 'attention' && notify.needsAttention)
  if (!wanted) return null
  return {
    // In the operator's words, without the status number (the order's detail has it).
    title: `${orderKindLabel(row.type)} order ${row.orderId}: ${info.label}`,
    body: oldStatus === null ? `New order. ${info.meaning}` : `${info.meaning} Before: ${statusInfo(row.type, oldStatus).label}.`,
    order: { type: row.type, orderId: row.orderId }
  }
}

/** A stalled order, raised once per stall (alerts/stalled-notices.ts): what it waits on and what to tell the customer. */
export function stalledNotification(a: StalledAlert): OrderNotification {
  return {
    title: `${orderKindLabel(a.order.type)} order ${a.order.orderId}: ${a.text}`,
    body: a.tell,
    order: a.order
  }
}
