// The offset walk of one scope, for a service whose order is not on updatedAt (createdAt
// or orderId, fields that never change) or whose `since` does not filter on updatedAt
// (history-readings.ts says when): one listing read page by page to its end, newest
// first (DESC). Whatever the order sorts by, what churn does then lands before the
// position read: an order that changes moves to the front (order on updatedAt) or stays
// where it is (createdAt, orderId); a new order comes at the front; an older order that
// joins the listing (since on updatedAt) comes in at its place. Each shifts the records
// after it forward, so a page may read a record again, never skip one.
//
// Where a listing starts: a full pass and a first sync from the beginning; a reconcile
// from the recent window; a poll from the look-back before the cursor when since filters
// on updatedAt, otherwise from the look-back before the newest createdAt held (new orders
// only: changes to older open orders are confirmed by the freshness sweep, freshness.ts).
import { ApiError } from '../../shared/api/errors'
import type { SyncCursor } from '../store/sync-cursors-repo'
import type { KeysetTiming } from './history-keyset'
import { msBefore, type Walk } from './history-walk'

const iso = (ms: number): string => new Date(ms).toISOString()

function listingSince(w: Walk, c: SyncCursor, t: KeysetTiming): string | undefined {
  if (w.mode === 'full' || c.cursor === null) return undefined
  if (w.mode === 'reconcile') return msBefore(iso(t.now() - t.reconcileWindowMs))
  if (w.readingOfSince() === 'updatedAt') {
    const from = Math.min(Date.parse(c.cursor), t.serviceNow?.() ?? Infinity) - t.lookbackMs
    return msBefore(iso(from))
  }
  const newest = w.newestCreatedAt()
  return newest === null ? undefined : msBefore(iso(Date.parse(newest) - t.lookbackMs))
}

export async function offsetWalk(w: Walk, start: SyncCursor, t: KeysetTiming): Promise<void> {
  const since = listingSince(w, start, t)
  if (since !== undefined) await w.ensureSince()
  let previous = ''
  for (let page = 1; ; page++) {
    const { res, items } = await w.fetch(since, page, w.size, 'DESC')
    const fingerprint = items.map((i) => i.orderId).join(',')
    if (page > 1 && items.length > 0 && fingerprint === previous)
      throw new ApiError({
        kind: 'schema',
        endpoint: 'merchantHistory',
        message: `the service answered page ${page} with the same records again: it does not page`
      })
    previous = fingerprint
    const full = items.length >= w.size
    if (!full && page === 1) await w.verifyShort(since, items.length, w.size, 'DESC')
    w.apply(res, items)
    if (!full) return
  }
}
