// The offset walk of one scope, for a service whose order is not on updatedAt (createdAt
// or orderId, fields that never change), whose `since` does not filter on updatedAt, or
// that answers newest first whatever `order` asks (history-readings.ts says when): one
// listing read page by page to its end, newest first (DESC). Whatever the order sorts by,
// what churn does then lands before the position read: an order that changes moves to
// the front (order on updatedAt) or stays where it is (createdAt, orderId); a new order
// comes at the front; an older order that joins the listing (since on updatedAt) comes in
// at its place. Each shifts the records after it forward, so a page may read a record
// again, never skip one. (A service that answers oldest first whatever is asked is read
// oldest first: safe on a field that never changes; on updatedAt churn can shift a record
// past the reader, which the completeness audit finds and repairs.)
//
// Where a listing starts: a full pass and a first sync from the beginning; a reconcile
// from the recent window; a poll from the look-back before the cursor when since filters
// on updatedAt or the answers run newest first by it, otherwise from the look-back before
// the newest createdAt held (new orders only: changes to older open orders are confirmed
// by the freshness sweep, freshness.ts). Answers that run newest first let a poll stop
// after the page that passes where it starts, so a service that ignores `since` costs
// one page a poll, not the whole listing.
import { ApiError } from '../../shared/api/errors'
import type { SyncCursor } from '../store/sync-cursors-repo'
import type { KeysetTiming } from './history-keyset'
import { msBefore, type PageItem, type Walk } from './history-walk'

const iso = (ms: number): string => new Date(ms).toISOString()

/** Where a listing read newest first may stop: after a record older than `before` on `field`, all that follow are older too. */
interface Stop {
  field: 'updatedAt' | 'createdAt'
  before: string
}

/**
 * The listing a run reads: `since` only on the field the service was found to filter on
 * (a `since` it reads on another field, or ignores, selects the wrong records or none),
 * and a stop where the answers come newest first by the field the run needs, so that a
 * poll reads one page whatever the service does with `since`.
 */
function offsetListing(w: Walk, c: SyncCursor, t: KeysetTiming): { since?: string; stop?: Stop } {
  if (w.mode === 'full' || c.cursor === null || (c.repairFrom !== null && c.repairFrom <= FROM_THE_START)) return {}
  const sinceOn = w.readingOfSince()
  const newestFirst = w.newestFirstBy()
  const owed = c.repairFrom === null ? null : msBefore(c.repairFrom)
  const earliest = (from: string): string => (owed !== null && owed < from ? owed : from)
  const fromUpdate = earliest(
    w.mode === 'reconcile'
      ? msBefore(iso(t.now() - t.reconcileWindowMs))
      : msBefore(iso(Math.min(Date.parse(c.cursor), t.serviceNow?.() ?? Infinity) - t.lookbackMs))
  )
  if (sinceOn === 'updatedAt' || newestFirst === 'updatedAt')
    return {
      ...(sinceOn === 'updatedAt' ? { since: fromUpdate } : {}),
      ...(newestFirst === 'updatedAt' ? { stop: { field: 'updatedAt', before: fromUpdate } } : {})
    }
  // Neither `since` nor the order follows the last change: a poll finds new orders by
  // their creation; changes to older open orders are the freshness sweep's.
  let from: string | undefined = fromUpdate
  if (w.mode === 'poll') {
    const newest = w.newestCreatedAt()
    from = newest === null ? undefined : earliest(msBefore(iso(Date.parse(newest) - t.lookbackMs)))
  }
  if (from === undefined) return {}
  return {
    ...(sinceOn === 'createdAt' ? { since: from } : {}),
    ...(newestFirst === 'createdAt' ? { stop: { field: 'createdAt', before: from } } : {})
  }
}

const passed = (items: readonly PageItem[], stop: Stop | undefined): boolean =>
  stop !== undefined && items.some((it) => it[stop.field] !== null && (it[stop.field] as string) < stop.before)

/** Owed from the start: a first sync or a full pass left unfinished. */
const FROM_THE_START = '1970-01-01T00:00:00.000Z'

export async function offsetWalk(w: Walk, start: SyncCursor, t: KeysetTiming): Promise<void> {
  const { since, stop } = offsetListing(w, start, t)
  // Newest first, each committed page moves the cursor to the newest record: a walk that
  // stops part way (an error, an abort) owes the older part. Kept with every page (the
  // earliest instant the listing reads, or the start), so the next run reads from there;
  // cleared when the walk reaches its end.
  const owed = since ?? (stop ? stop.before : FROM_THE_START)
  const owedNow = start.repairFrom !== null && start.repairFrom < owed ? start.repairFrom : owed
  if (since !== undefined) await w.ensureSince()
  const known = new Map<number, number>()
  let previous = ''
  for (let page = 1; ; page++) {
    const baseKnown = w.pageBaseKnown()
    const { res, items } = await w.fetch(since, page, w.size, 'DESC', known, true)
    if (page === 1) items.forEach((it, i) => it.orderId !== null && known.set(i, it.orderId))
    const fingerprint = items.map((i) => i.orderId).join(',')
    // Page 2 asked by the 0-based number of a service whose count is not known yet may be
    // page 1 again: read twice, not a service that does not page.
    if (page > 1 && items.length > 0 && fingerprint === previous && !(page === 2 && !baseKnown))
      throw new ApiError({
        kind: 'schema',
        endpoint: 'merchantHistory',
        message: `the service answered page ${page} with the same records again: it does not page`
      })
    previous = fingerprint
    const full = items.length >= w.size
    w.apply(res, items, { repairFrom: owedNow })
    // Checked after the page is committed: a check that fails loses nothing read.
    if (!full && page === 1) await w.verifyShort(since, items, w.size, 'DESC')
    if (!full || passed(items, stop)) return void w.store.syncCursors.setRepairFrom(w.type, w.fiatType, null)
  }
}
