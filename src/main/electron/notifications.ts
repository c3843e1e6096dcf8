// Native notifications for the order changes the operator chose; a click opens that order.
import { Notification } from 'electron'

export interface OrderRef {
  type: 1 | 2
  orderId: number
}

export function notify(n: { title: string; body: string; order?: OrderRef }, openOrder: (o?: OrderRef) => void): void {
  if (!Notification.isSupported()) return
  const note = new Notification({ title: n.title, body: n.body, silent: false })
  note.on('click', () => openOrder(n.order))
  note.show()
}
