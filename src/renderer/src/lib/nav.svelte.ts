// Which view of the main window is shown, kept in the URL hash (#/orders), and a
// request to open one order (from the tray, a notification or a link).
import type { OrderRef, OrderType } from '../../../shared/ipc/contract'

import { VIEWS, type ViewId } from './views'

export { VIEWS, type ViewId }

function parse(hash: string): ViewId {
  const v = hash.replace(/^#\/?/, '').split('?')[0] as ViewId
  return (VIEWS as readonly string[]).includes(v) ? v : 'tickers'
}

class Nav {
  view = $state<ViewId>(parse(location.hash))
  /** An order to open in the orders view; the view clears it once shown. */
  pendingOrder = $state<OrderRef | null>(null)

  start(): void {
    window.addEventListener('hashchange', () => (this.view = parse(location.hash)))
  }
  go(v: ViewId): void {
    location.hash = `#/${v}`
    this.view = v
  }
  openOrder(type: OrderType, orderId: number): void {
    this.pendingOrder = { type, orderId }
    this.go('orders')
  }
}

export const nav = new Nav()
