// Records an older Rampdesk could not read are parsed again when the app was updated:
// the newer schema may read them (that is usually why a release changed it). A record
// that now parses is applied like any synced record and leaves the unreadable list; one
// that still does not keeps its place, marked as tried by this version.
import { OfframpOrder, OnrampOrder } from '../../shared/api/schemas'
import type { LocalStore } from '../store/local-store'

export interface RetryResult {
  recovered: number
  stillUnreadable: number
}

export function retryUnreadable(store: Pick<LocalStore, 'orders' | 'unreadableOrders' | 'database'>): RetryResult {
  const out: RetryResult = { recovered: 0, stillUnreadable: 0 }
  for (const u of store.unreadableOrders.fromOlderVersions()) {
    const parsed = u.type === 2 ? OfframpOrder.safeParse(u.raw) : OnrampOrder.safeParse(u.raw)
    if (!parsed.success) {
      const issue = parsed.error.issues[0]
      store.unreadableOrders.markTried(u, issue ? `${issue.path.map(String).join('.') || 'record'}: ${issue.message}` : u.reason)
      out.stillUnreadable++
      continue
    }
    store.database.sql.transaction(() => {
      if (u.type === 2) store.orders.applyRecord(2, parsed.data as OfframpOrder, 'sync')
      else store.orders.applyRecord(1, parsed.data as OnrampOrder, 'sync')
      store.unreadableOrders.remove(u)
    })
    out.recovered++
  }
  return out
}
