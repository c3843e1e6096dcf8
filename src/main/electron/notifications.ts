// Native notifications for the order changes the operator chose; a click opens that order.
import { Notification } from 'electron'
import type { OrderNotification } from '../notification-policy'
import type { OrderRef } from '../../shared/ipc/contract'

export function notify(n: OrderNotification, openOrder: (o?: OrderRef) => void): void {
  if (!Notification.isSupported()) return
  const note = new Notification({ title: n.title, body: n.body, silent: false })
  note.on('click', () => openOrder(n.order))
  note.show()
}
