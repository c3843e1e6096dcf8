// A window onto the filtered orders of the local database for the virtualized table:
// rows are fetched in fixed pages (orders:query) as the table scrolls to them, a small
// number of pages stays cached, and live changes patch cached rows at once and then
// refetch what is on screen. A generation number drops answers to an older filter, so
// the view may reset on every keystroke and the last filter's answer is the one shown.
// The first pages of the last few filters are kept while nothing changes
// (recent-first-pages.ts): going back to one shows it at once, and its query still runs
// and replaces it. Where the current filter's answer stands is one explicit phase.
import { call } from './bridge'
import type { ChannelOutput, ErrorInfo, OrderFilter, OrderRow, OrderSort, OrderType } from '../../../shared/ipc/contract'
import { errorInfoOf } from './app-state.svelte'
import { afterPaint } from './after-paint'
import { RecentFirstPages, type FirstPage } from './recent-first-pages'

export const PAGE_SIZE = 100
const MAX_CACHED_PAGES = 24
/** Pages fetched beyond the rows in view in the direction of the scroll (more when it moves fast). */
const AHEAD_PAGES = 1
const MAX_AHEAD_PAGES = 6
/** First pages of recent filters kept for going back to them. */
const RECENT_FILTERS = 8
/** First-page queries (of any filter) on their way at once; a filter typed while they are waits. */
const FIRST_PAGES_IN_FLIGHT = 2

/**
 * Change signals, one per page modulo SIGNAL_SLOTS: a row reads only its own page's, so a
 * page arriving re-renders its rows alone. They are made once, up front: Svelte does not
 * track a signal in the reaction that created it, so making them lazily inside a row's
 * read would lose updates. Pages SIGNAL_SLOTS apart share one, which only costs a
 * re-render of rows that are never on screen together (the view holds < 1 page).
 */
const SIGNAL_SLOTS = 64
class PageSignal {
  v = $state(0)
}

/** Whether two pages hold the same rows, field for field (a row's fields are plain values). */
export function sameRows(a: readonly OrderRow[], b: readonly OrderRow[]): boolean {
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) {
    const x = a[i]! as Record<string, unknown>
    const y = b[i]! as Record<string, unknown>
    const keys = Object.keys(x)
    if (keys.length !== Object.keys(y).length) return false
    for (const k of keys) if (x[k] !== y[k]) return false
  }
  return true
}

/**
 * Where the current filter's answer stands:
 * - previous: reset, no answer yet; the previous filter's rows stay on screen, all stale,
 *   until the first answer replaces them (rows then update in place instead of being torn
 *   down to "loading…" and built again);
 * - recent: reset, no answer yet; the first page this filter had a moment ago is shown;
 * - answered: the first answer (or its error) is in; the pages ahead wait until it has
 *   been painted (sending them costs the frame that answers the operator a few ms);
 * - painted: pages ahead are fetched as the table scrolls.
 */
export type AnswerPhase = 'previous' | 'recent' | 'answered' | 'painted'

export class OrderWindow {
  total = $state(0)
  /** More orders match than `total` says: a search matching most orders is counted up to a cap (main's BROAD_TOTAL_CAP). */
  totalAtLeast = $state(false)
  /** Where the current filter's answer stands (AnswerPhase). */
  phase = $state<AnswerPhase>('previous')
  error = $state<ErrorInfo | null>(null)
  /** With a search: how many orders of the other type the same filter matches (null: not asked, or no search). */
  otherTypeTotal = $state<number | null>(null)
  /** The other type holds more matches than otherTypeTotal says. */
  otherTypeTotalAtLeast = $state(false)
  /** Counts the first answers to a new filter (the table draws the rows in view first). */
  answers = $state(0)
  /** Pages fetched since the last reset (for tests and diagnostics). */
  fetches = 0

  #filter: OrderFilter
  #sort: OrderSort = 'updatedAt:desc'
  // Plain collections on purpose: up to thousands of rows change per scroll. Reactivity
  // is one signal per page (#signals) plus #epoch for a reset, instead of proxying rows
  // or one counter that made every visible row re-read whenever any page arrived.
  // eslint-disable-next-line svelte/prefer-svelte-reactivity
  #pages = new Map<number, OrderRow[]>()
  #signals: PageSignal[] = Array.from({ length: SIGNAL_SLOTS }, () => new PageSignal())
  // eslint-disable-next-line svelte/prefer-svelte-reactivity
  #inflight = new Set<number>()
  // eslint-disable-next-line svelte/prefer-svelte-reactivity
  #stale = new Set<number>()
  #epoch = $state(0)
  #gen = 0
  /** First-page queries (of any filter) on their way. */
  #firstInFlight = 0
  /** The current filter's first page waits for one of them to come back: a burst of keystrokes sends the latest. */
  #firstQueued = false
  #cancelAhead: () => void = () => {}
  #recent = new RecentFirstPages(RECENT_FILTERS)
  #lastRange: [number, number] = [0, 0]
  /** +1 scrolling down, -1 up: where the next pages are fetched ahead. */
  #direction = 1
  /** A first page asked for ahead of its filter (prefetch): the reset to that filter takes its answer instead of asking again. */
  #ahead: { key: string; mark: number; answer: Promise<ChannelOutput<'orders:query'>> } | null = null

  constructor(filter: OrderFilter) {
    this.#filter = filter
  }

  /** Whether the rows shown answer the current filter (or a recent first page of it does). */
  get loaded(): boolean {
    return this.phase !== 'previous'
  }

  /** No answer of the current filter has arrived yet (a recent first page does not count). */
  get #waiting(): boolean {
    return this.phase === 'previous' || this.phase === 'recent'
  }

  get filter(): OrderFilter {
    return this.#filter
  }

  reset(filter: OrderFilter, sort: OrderSort = this.#sort): void {
    this.#filter = filter
    this.#sort = sort
    this.#gen++
    // The old rows stay on screen, all stale, until the new filter's first answer replaces
    // them ('previous'): rendering them again was most of a filter change's render time.
    this.phase = 'previous'
    this.otherTypeTotal = null
    this.otherTypeTotalAtLeast = false
    this.#inflight.clear()
    // eslint-disable-next-line svelte/prefer-svelte-reactivity
    this.#stale = new Set(this.#pages.keys())
    this.#lastRange = [0, 0]
    this.#direction = 1
    this.fetches = 0
    this.#cancelAhead()
    // Main answers one query after another: the first pages of filters typed past would
    // only delay the latest one. Two may be on their way, so the latest reaches main while
    // the one before is answered (not a round trip after it); past that it waits, and
    // the filters typed in between are never sent.
    const recent = this.#recent.get(this.#key())
    if (recent) this.#showRecent(recent)
    this.#inflight.add(0)
    if (this.#firstInFlight >= FIRST_PAGES_IN_FLIGHT) this.#firstQueued = true
    else void this.#fetch(0)
  }

  /**
   * Asks main now for the first page of a filter the view is about to show (a short search
   * while its pause runs out), so the reset to it shows the answer without a round trip.
   * Nothing shown changes; a reset to another filter leaves the answer unused.
   */
  prefetch(filter: OrderFilter, sort: OrderSort = this.#sort): void {
    const key = JSON.stringify([filter, sort])
    if (this.#ahead?.key === key) return
    const answer = call('orders:query', { filter, sort, offset: 0, limit: PAGE_SIZE })
    // Its failure is the reset's to show, if the reset comes; unused, it is dropped.
    answer.catch(() => undefined)
    this.#ahead = { key, mark: this.#recent.mark, answer }
  }

  /** The first page of a filter seen a moment ago, shown while its query runs again. */
  #showRecent({ rows, total, totalAtLeast }: FirstPage): void {
    this.#dropOldRows()
    this.phase = 'recent'
    this.#pages.set(0, rows)
    this.#stale.add(0)
    this.total = total
    this.totalAtLeast = totalAtLeast
    this.error = null
  }

  #key(): string {
    return JSON.stringify([this.#filter, this.#sort])
  }

  rowAt(i: number): OrderRow | undefined {
    return this.pageOf(i)?.[i % PAGE_SIZE]
  }

  /** Where an order is among the rows fetched, or null when it is in none of them. */
  indexOf(orderId: number): number | null {
    for (const [page, rows] of this.#pages) {
      if (this.#stale.has(page)) continue
      const i = rows.findIndex((r) => r.orderId === orderId)
      if (i >= 0) return page * PAGE_SIZE + i
    }
    return null
  }

  /**
   * The fetched page holding row i (its index there is i % PAGE_SIZE), or undefined. A
   * page's array is never changed in place: a new answer or a patch replaces it, so
   * what is derived from one array (formatted rows) stays true to it.
   */
  pageOf(i: number): readonly OrderRow[] | undefined {
    const page = Math.floor(i / PAGE_SIZE)
    void this.#epoch
    void this.#signal(page).v
    return this.#pages.get(page)
  }

  /**
   * Makes sure the rows [start, end) are (being) fetched, with half a page either side,
   * and pages ahead in the direction of the scroll: a page or more, growing with the
   * distance moved since the last call, so a fling finds its rows already there.
   */
  ensure(start: number, end: number): void {
    const [prevStart] = this.#lastRange
    const moved = start - prevStart
    if (moved !== 0) this.#direction = moved > 0 ? 1 : -1
    this.#lastRange = [start, end]
    const aheadPages = Math.min(MAX_AHEAD_PAGES, AHEAD_PAGES + Math.ceil((Math.abs(moved) * 4) / PAGE_SIZE))
    const lastPage = Math.max(0, Math.ceil(this.total / PAGE_SIZE) - 1)
    const first = Math.floor(Math.max(0, start - PAGE_SIZE / 2) / PAGE_SIZE)
    const last = Math.floor(Math.max(0, Math.min(end + PAGE_SIZE / 2, this.total) - 1) / PAGE_SIZE)
    // The rows in view first, then the ones ahead, so the view never waits behind a prefetch.
    for (let p = first; p <= last; p++) this.#want(p)
    if (this.phase !== 'painted') return
    if (this.#direction > 0) for (let p = last + 1; p <= Math.min(lastPage, last + aheadPages); p++) this.#want(p)
    else for (let p = first - 1; p >= Math.max(0, first - aheadPages); p--) this.#want(p)
  }

  /** A changed row replaces its cached copy at once; the refresh that follows puts it where the sort says. */
  patch(row: OrderRow): void {
    this.#recent.forget()
    for (const [page, rows] of this.#pages) {
      const i = rows.findIndex((r) => r.orderId === row.orderId && r.type === row.type)
      if (i >= 0) {
        const next = rows.slice()
        // An order event's row does not say who handles the order: the row keeps its handler.
        next[i] = row.handledBy === undefined ? { ...row, handledBy: rows[i]!.handledBy } : row
        this.#pages.set(page, next)
        this.#bump(page)
      }
    }
  }

  /** Who handles an order changed (order:handling): its row shows the new handler in place. */
  patchHandler(type: OrderType, orderId: number, handledBy: string | null): void {
    for (const rows of this.#pages.values()) {
      const r = rows.find((x) => x.orderId === orderId && x.type === type)
      if (r) this.patch({ ...r, handledBy })
    }
  }

  /** Marks every cached page stale and refetches the visible ones (and the total). */
  refresh(): void {
    this.#recent.forget()
    for (const p of this.#pages.keys()) this.#stale.add(p)
    const [s, e] = this.#lastRange
    this.ensure(s, Math.max(e, 1))
    if (!this.#inflight.size) void this.#fetch(Math.floor(s / PAGE_SIZE))
  }

  #want(page: number): void {
    if ((!this.#pages.has(page) || this.#stale.has(page)) && !this.#inflight.has(page)) void this.#fetch(page)
  }

  /** At the first answer after a reset: the previous filter's rows go, all at once. */
  #dropOldRows(): void {
    if (this.phase !== 'previous') return
    this.#clearPages()
    this.answers++
  }

  #clearPages(): void {
    this.#pages.clear()
    this.#stale.clear()
    this.#epoch++
  }

  #signal(page: number): PageSignal {
    return this.#signals[page % SIGNAL_SLOTS]!
  }

  #bump(page: number): void {
    this.#signal(page).v++
  }

  async #fetch(page: number): Promise<void> {
    const gen = this.#gen
    this.#inflight.add(page)
    this.fetches++
    if (page === 0) this.#firstInFlight++
    const key = this.#key()
    const ahead = page === 0 && this.#ahead?.key === key ? this.#ahead : null
    if (page === 0) this.#ahead = null
    // An answer asked for ahead counts from when it was asked: orders changed since then, it is stale.
    const mark = ahead?.mark ?? this.#recent.mark
    try {
      const r = await (ahead?.answer ??
        call('orders:query', { filter: this.#filter, sort: this.#sort, offset: page * PAGE_SIZE, limit: PAGE_SIZE }))
      // Orders changed while the query was on its way: its answer may predate the change.
      const current = !this.#recent.changedSince(mark)
      if (page === 0) this.#recent.remember(key, { rows: r.rows, total: r.total, totalAtLeast: r.totalAtLeast ?? false }, mark)
      if (gen !== this.#gen) return
      this.#dropOldRows()
      // An answer equal to the page shown (a recent first page confirmed, a refresh that
      // found nothing new) keeps its array: its rows are not formatted and drawn again.
      const shown = this.#pages.get(page)
      if (!shown || !sameRows(shown, r.rows)) {
        this.#pages.set(page, r.rows)
        this.#bump(page)
      }
      if (current) this.#stale.delete(page)
      else this.#stale.add(page)
      this.total = r.total
      this.totalAtLeast = r.totalAtLeast ?? false
      if (page === 0) {
        this.otherTypeTotal = r.otherTypeTotal ?? null
        this.otherTypeTotalAtLeast = r.otherTypeTotalAtLeast ?? false
      }
      this.error = null
      this.#evict()
    } catch (e) {
      if (gen === this.#gen) {
        // An error must not leave the previous filter's rows standing as if they answered
        // this one, nor a recent first page as if it had been confirmed.
        this.#dropOldRows()
        if (page === 0 && this.#waiting && this.#pages.size > 0) this.#clearPages()
        this.error = errorInfoOf(e)
      }
    } finally {
      if (page === 0) {
        this.#firstInFlight--
        if (this.#firstQueued) {
          this.#firstQueued = false
          void this.#fetch(0)
        }
      }
      if (gen === this.#gen) {
        this.#inflight.delete(page)
        const first = this.#waiting
        // The first answer gives the total, so the pages ahead can be fetched once it shows.
        if (first) {
          this.phase = 'answered'
          this.#cancelAhead = afterPaint(() => {
            this.phase = 'painted'
            this.ensure(...this.#lastRange)
          })
        }
        // Asked again if in view: the refresh that came while it was on its way.
        else if (this.#stale.has(page)) this.ensure(...this.#lastRange)
      }
    }
  }

  /** Keeps the cache small: drop the pages farthest from the rows in view. */
  #evict(): void {
    if (this.#pages.size <= MAX_CACHED_PAGES) return
    const [s, e] = this.#lastRange
    const near = Math.floor((s + e) / 2 / PAGE_SIZE)
    const far = [...this.#pages.keys()].sort((a, b) => Math.abs(b - near) - Math.abs(a - near))
    for (const p of far.slice(0, this.#pages.size - MAX_CACHED_PAGES)) {
      this.#pages.delete(p)
      this.#bump(p)
    }
  }

  get cachedPages(): number {
    void this.#epoch
    for (const s of this.#signals) void s.v
    return this.#pages.size
  }
}
