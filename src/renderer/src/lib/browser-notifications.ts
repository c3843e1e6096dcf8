// Order notifications in the browser harness, through the browser's Notification API (the
// desktop app shows them natively and never sends notify:order). The permission is asked
// once: at the first notification, or when the operator asks in Settings; a refusal is
// the browser's to keep, and the page does not ask again.
import { on } from './bridge'
import type { EventPayload } from '../../../shared/ipc/contract'

/** Remembers in this browser that the permission was asked, so it is asked once. */
const ASKED_KEY = 'rampdesk.notifications.asked'

export type BrowserPermission = 'unsupported' | 'default' | 'granted' | 'denied'

export function browserPermission(): BrowserPermission {
  return typeof Notification === 'undefined' ? 'unsupported' : Notification.permission
}

function asked(): boolean {
  try {
    return localStorage.getItem(ASKED_KEY) === '1'
  } catch {
    return false
  }
}

/** Asks the browser for permission (once per browser, unless the operator asks again from Settings). */
export async function askPermission(again = false): Promise<BrowserPermission> {
  if (typeof Notification === 'undefined') return 'unsupported'
  if (Notification.permission !== 'default' || (asked() && !again)) return Notification.permission
  try {
    localStorage.setItem(ASKED_KEY, '1')
  } catch {
    // A browser that keeps nothing asks again next time; nothing else to do.
  }
  return Notification.requestPermission()
}

/** Shows notify:order events as browser notifications; a click opens the order. Returns the unsubscribe. */
export function startBrowserNotifications(openOrder: (o: NonNullable<EventPayload<'notify:order'>['order']>) => void): () => void {
  if (typeof Notification === 'undefined') return () => {}
  return on('notify:order', (n) => void show(n, openOrder))
}

async function show(n: EventPayload<'notify:order'>, openOrder: (o: NonNullable<EventPayload<'notify:order'>['order']>) => void) {
  if ((await askPermission()) !== 'granted') return
  // One notification per order at a time, however many tabs show the app.
  const note = new Notification(n.title, { body: n.body, tag: n.order ? `rampdesk-${n.order.type}-${n.order.orderId}` : undefined })
  note.onclick = () => {
    window.focus()
    if (n.order) openOrder(n.order)
    note.close()
  }
}
