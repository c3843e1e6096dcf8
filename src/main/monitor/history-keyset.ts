// The keyset walk of one scope, for a service whose `since` filters on updatedAt and
// whose order sorts by it (history-readings.ts says when), built to lose no order
// whichever way the service reads the rest of what the spec leaves open:
//   - `since` inclusive or exclusive: we never ask from an instant we need; we ask from
//     one millisecond before it (timestamps carry milliseconds), which both readings
//     answer with every record at or after the instant we need;
//   - ties in updatedAt ordered by order id or by a row order we cannot see: positions
//     are used only inside one run of equal updatedAt, and never trusted there either.
//
// The walk: page 1 of a listing (one `since`). A short page ends the run. After a full
// page whose newest updatedAt M is past the instant the listing starts at, a new listing
// starts from just before M (keyset paging: the records at M are read again and
// recognised as unchanged). Only when a whole page sits at one instant — a run longer
// than a page, like the spec's cutover instant (4.4) — does the walk page by offset, and
// then every page re-reads the end of the one before (pageSize is chosen per page so that
// page boundaries overlap what was read) and checks those ids are where they were. If an
// order left the run while we paged (churn), the ids are not where they were: the run is
// read again from its start, so nothing that shifted is skipped.
//
// Where a poll starts: a look-back window before the cursor (records committed late with
// an earlier updatedAt are caught); or, when the cursor sits in a run longer than a page,
// a page overlapping the last ids read there, checked the same way (positions in the run
// are kept with the cursor). A reconcile pass reads a recent window again end to end, a
// full pass the whole history. Each page is applied in ONE store transaction with the
// cursor it leads to, so a run killed at any point resumes without loss.
import { ApiError } from '../../shared/api/errors'
import type { SyncCursor } from '../store/sync-cursors-repo'
import { msBefore, Restart, type PageItem, type Walk } from './history-walk'

/** Times a run reads a long run from its start again because orders kept leaving it. */
const MAX_RESTARTS = 3

export interface KeysetTiming {
  lookbackMs: number
  reconcileWindowMs: number
  now: () => number
  serviceNow?: () => number
}

/** A request of one listing: which page of which size. */
interface Window {
  page: number
  size: number
}

/** One `since`: pages of it are positions in one ordering. */
interface Listing {
  since: string | undefined
  window: Window
  /** Ids read at known positions of this listing, for the overlap check. */
  known: Map<number, number>
  /** The run being paged by offset: its instant and the listing position it starts at. */
  run: { instant: string; start: number } | null
  /**
   * Ids read last at an instant this listing starts at or before: a `since` on updatedAt
   * lists them still (a change only moves them later), so a first page without them that
   * is short, or starts after that instant, may not have been the first (the base unknown).
   */
  expect?: { instant: string; ids: readonly number[] }
}

const minIso = (a: string | null, b: string): string => (a !== null && a < b ? a : b)

/**
 * Records the overlap of two pages inside a run must hold. One record can sit where it was
 * by chance when the service orders ties differently for each page size (SQL LIMIT with no
 * tie-breaker: about one chance in the run's length per page); two make that rare.
 */
const MIN_OVERLAP = 2

/**
 * The next page of a run paged by offset after position `last` was read: a page size at
 * most `max` whose page starts at least MIN_OVERLAP records before `last`'s end (the
 * overlap to check) and ends past it, the overlap as small as can be. Null when no size
 * allows it (then the next page starts right after `last`, unchecked).
 */
export function overlappingWindow(last: number, max: number): Window | null {
  let best: Window | null = null
  let bestGain = 0
  for (let size = Math.min(max, last + 1); size >= 2; size--) {
    const start = Math.floor(last / size) * size
    if (last - start + 1 < MIN_OVERLAP) continue
    const gain = start + size - 1 - last
    if (gain > bestGain) {
      best = { page: start / size + 1, size }
      bestGain = gain
      if (gain >= size - 1 - Math.ceil(size / 100)) break
    }
  }
  return best
}

/** The largest page size at most `max` whose pages start exactly at `next`. */
function alignedWindow(next: number, max: number): Window {
  for (let size = Math.min(max, next || max); size >= 1; size--) if (next % size === 0) return { page: next / size + 1, size }
  return { page: next + 1, size: 1 }
}

export async function keysetWalk(w: Walk, start: SyncCursor, t: KeysetTiming): Promise<void> {
  const { type, fiatType, out } = w
  const store = w.store
  const listingFrom = (since: string | undefined): Listing => ({ since, window: { page: 1, size: w.size }, known: new Map(), run: null })
  const began = t.now()
  let listing = firstListing(w, start, t, listingFrom)
  // A run a previous sync could not finish checking starts again from its top.
  const owed = start.repairFrom
  if (owed !== null && listing.since !== undefined && (listing.run !== null || msBefore(owed) < listing.since))
    listing = listingFrom(msBefore(owed))
  // Where the walk's first listing starts: read to the end with nothing left owed, every
  // order changed since then has been read (a restart reads the same listing again).
  const from = listing.run === null ? listing.since : undefined
  let pendingOverlap = overlapOf(listing)
  // The repair position as committed (from a previous run at first), and the earliest run
  // this one paged without an overlap to check (page sizes too small to overlap): that
  // run stays owed a reading from its top.
  let persisted = owed
  // Owed from before: it moves forward with the walk (everything before the instant a
  // new listing starts from has been read again) and is paid when the walk ends. A
  // repair position may stand for several unchecked runs, so passing the first of
  // them does not pay it.
  let carried = owed
  let unchecked: string | null = null
  let previous = ''
  for (;;) {
    if (listing.since !== undefined) await w.ensureSince()
    const { page, size } = listing.window
    const { res, items } = await w.fetch(listing.since, page, size, 'ASC', listing.known)
    const first = (page - 1) * size
    const fingerprint = `${listing.since}|${first}|${items.map((i) => i.orderId).join(',')}`
    if (page > 1 && fingerprint === previous)
      throw new ApiError({
        kind: 'schema',
        endpoint: 'merchantHistory',
        message: `the service answered page ${page} with the same records again: it does not page`
      })
    previous = fingerprint
    if (page === 1 && listing.expect && !w.pageBaseKnown() && missesStart(items, size, listing.expect))
      await w.doubtFirstPage(listing.since, 'ASC', items)

    const runAt = listing.run?.instant ?? null
    if (!pendingOverlap.every(([pos, id]) => samePlace(items[pos - first], id, runAt))) {
      // The ids read last are not where they were: orders left (or joined) the run
      // while we paged it, or the service orders ties differently for each page size
      // (SQL LIMIT without a tie-breaker). The page's records are real: kept, but not the
      // cursor (its positions are not known). Read the run again from its start.
      w.apply(res, items, { holdCursor: true })
      out.restarts++
      if (out.restarts > MAX_RESTARTS) {
        // Whatever else is owed stays owed (the earliest position wins), until the offset
        // walk, at one page size throughout, reads the listing to its end.
        if (listing.run) store.syncCursors.setRepairFrom(type, fiatType, minIso(persisted, listing.run.instant))
        throw new Restart(
          `the run of orders sharing one updatedAt (${listing.run?.instant ?? '?'}) could not be read page by page; read by offset`,
          true
        )
      }
      listing = listingFrom(listing.since)
      pendingOverlap = []
      continue
    }

    // Where this page leaves the walk, decided before the page is committed so that
    // what it owes is committed with it.
    items.forEach((it, i) => it.orderId !== null && listing.known.set(first + i, it.orderId))
    const { oldest, newest } = instantsOf(items)
    const full = items.length >= size
    // A listing's first page shows where it really starts (nothing before the beginning;
    // nothing at our `since` instant if those records have moved on).
    const startsAt =
      page === 1 && oldest !== null
        ? oldest
        : (listing.run?.instant ?? (listing.since === undefined ? null : new Date(Date.parse(listing.since) + 1).toISOString()))
    const jump = full && newest !== null && (startsAt === null || newest > startsAt)
    let next: { listing: Listing; overlap: [number, number][] } | null = null
    if (full && jump) {
      const ids = items.flatMap((it) => (it.orderId !== null && it.updatedAt === newest ? [it.orderId] : []))
      next = { listing: { ...listingFrom(msBefore(newest)), expect: { instant: newest, ids } }, overlap: [] }
      if (carried !== null && newest > carried) carried = newest
    } else if (full) {
      // A whole page at one instant: a run longer than a page, read on by offset.
      const run = listing.run ?? { instant: startsAt ?? newest ?? '', start: 0 }
      const lastPos = first + items.length - 1
      const nextWindow = overlappingWindow(lastPos, w.size) ?? alignedWindow(lastPos + 1, w.size)
      const overlap = positionsBetween(listing.known, (nextWindow.page - 1) * nextWindow.size, lastPos)
      if (overlap.length === 0) unchecked = minIso(unchecked, run.instant)
      next = { listing: { ...listing, window: nextWindow, run }, overlap }
    }
    if (!next) carried = null
    const owedNow = carried === null ? unchecked : minIso(unchecked, carried)
    w.apply(res, items, {
      runPositions: runPositionsOf(items, first, listing.run, newest),
      ...(owedNow !== persisted ? { repairFrom: owedNow } : {})
    })
    persisted = owedNow
    // Checked after the page is committed: a check that fails loses nothing read.
    if (!full && page === 1) await w.verifyShort(listing.since, items, size)
    if (!next) {
      if (from !== undefined && owedNow === null) w.confirmUnchanged(from, began)
      return
    }
    listing = next.listing
    pendingOverlap = next.overlap
  }
}

/** The overlap a listing's first request must show (a resume inside a long run), as [position, id]. */
function overlapOf(l: Listing): [number, number][] {
  if (!l.run) return []
  const first = (l.window.page - 1) * l.window.size
  return [...l.known].filter(([pos]) => pos >= first)
}

function firstListing(w: Walk, c: SyncCursor, t: KeysetTiming, listingFrom: (since: string | undefined) => Listing): Listing {
  if (w.mode === 'full' || c.cursor === null) return listingFrom(undefined)
  const poll = pollListing(w, c, c.cursor, t, listingFrom)
  if (w.mode === 'reconcile') {
    // The recent window, or from where a poll starts if that is earlier (a cursor behind
    // the window: a sync that has not caught up yet must not skip to the window).
    const from = msBefore(new Date(t.now() - t.reconcileWindowMs).toISOString())
    if (poll.since === undefined || from < poll.since) return listingFrom(from)
  }
  return poll
}

function pollListing(
  w: Walk,
  c: SyncCursor,
  cursor: string,
  t: KeysetTiming,
  listingFrom: (since: string | undefined) => Listing
): Listing {
  if (c.seenAtCursor >= w.size) {
    // The cursor sits in a run longer than a page: resume at a page overlapping the last
    // ids read there (checked), rather than reading the whole run again.
    const ids = w.store.syncCursors.runAtCursor(c.type, c.fiatType)
    if (ids && ids.length === c.seenAtCursor) {
      const last = ids.length - 1
      const window = overlappingWindow(last, w.size)
      if (window)
        return {
          since: msBefore(cursor),
          window,
          known: new Map(ids.map((id, pos) => [pos, id])),
          run: { instant: cursor, start: 0 }
        }
    }
    return listingFrom(msBefore(cursor))
  }
  const serviceNow = t.serviceNow?.() ?? Infinity
  const from = Math.min(Date.parse(cursor), serviceNow) - t.lookbackMs
  const ids = w.store.syncCursors.idsAtCursor?.(c.type, c.fiatType) ?? []
  return { ...listingFrom(msBefore(new Date(from).toISOString())), ...(ids.length > 0 ? { expect: { instant: cursor, ids } } : {}) }
}

/** A first page that should hold some of `expect.ids` (see Listing.expect) and does not: short, or starting after their instant. */
function missesStart(items: readonly PageItem[], size: number, expect: NonNullable<Listing['expect']>): boolean {
  if (expect.ids.length === 0 || items.some((it) => it.orderId !== null && expect.ids.includes(it.orderId))) return false
  const { oldest } = instantsOf(items)
  return items.length < size || (oldest !== null && oldest > expect.instant)
}

/**
 * Whether an overlap record is where it was: the same id, still in the run (an order that
 * changed has a new updatedAt even if it happens to sit at the same position). An
 * unreadable record whose id could not be read neither confirms nor refutes it.
 */
const samePlace = (item: PageItem | undefined, id: number, instant: string | null) =>
  item !== undefined && (item.orderId === null || (item.orderId === id && (instant === null || item.updatedAt === instant)))

function instantsOf(items: readonly PageItem[]): { oldest: string | null; newest: string | null } {
  let oldest: string | null = null
  let newest: string | null = null
  for (const { updatedAt: t } of items) {
    if (t === null) continue
    if (oldest === null || t < oldest) oldest = t
    if (newest === null || t > newest) newest = t
  }
  return { oldest, newest }
}

function positionsBetween(known: ReadonlyMap<number, number>, from: number, to: number): [number, number][] {
  const out: [number, number][] = []
  for (let p = from; p <= to; p++) {
    const id = known.get(p)
    if (id !== undefined) out.push([p, id])
  }
  return out
}

/**
 * Positions in their run of the page's records at its newest instant, kept with the
 * cursor so a later run can resume inside a long run and check it by overlap. A run
 * being paged by offset starts where the listing found it; otherwise the run of the
 * newest instant starts at its first record on this page.
 */
function runPositionsOf(items: readonly PageItem[], first: number, run: Listing['run'], newest: string | null): Map<number, number> {
  const out = new Map<number, number>()
  if (newest === null) return out
  const start = run && run.instant === newest ? run.start : first + items.findIndex((i) => i.updatedAt === newest)
  items.forEach((it, i) => {
    if (it.orderId !== null && it.updatedAt === newest) out.set(it.orderId, first + i - start)
  })
  return out
}
