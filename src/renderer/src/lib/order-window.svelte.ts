// A window onto the filtered orders of the local database for the virtualized table:
// rows are fetched in fixed pages (orders:query) as the table scrolls to them, a small
// number of pages stays cached, and live changes patch cached rows at once and then
// refetch what is on screen. A generation number drops answers to an older filter.
import { call } from './bridge'
import type { ErrorInfo, OrderFilter, OrderRow } from '../../../shared/ipc/contract'
import { errorInfoOf } from './app-state.svelte'

export const PAGE_SIZE = 100
const MAX_CACHED_PAGES = 24

export type OrderSort = 'updatedAt:desc' | 'updatedAt:asc' | 'createdAt:desc' | 'createdAt:asc' | 'orderId:desc' | 'orderId:asc'

export class OrderWindow {
  total = $state(0)
  loaded = $state(false)
  error = $state<ErrorInfo | null>(null)
  /** Bumped whenever cached rows change, so the table re-reads them. */
  version = $state(0)
  /** Pages fetched since the last reset (for tests and diagnostics). */
  fetches = 0

  #filter: OrderFilter
  #sort: OrderSort = 'updatedAt:desc'
  // Plain collections on purpose: up to thousands of rows change per scroll, and one
  // `version` bump tells the table to re-read instead of proxying every row.
  // eslint-disable-next-line svelte/prefer-svelte-reactivity
  #pages = new Map<number, OrderRow[]>()
  // eslint-disable-next-line svelte/prefer-svelte-reactivity
  #inflight = new Set<number>()
  // eslint-disable-next-line svelte/prefer-svelte-reactivity
  #stale = new Set<number>()
  #gen = 0
  #lastRange: [number, number] = [0, 0]

  constructor(filter: OrderFilter) {
    this.#filter = filter
  }

  get filter(): OrderFilter {
    return this.#filter
  }

  reset(filter: OrderFilter, sort: OrderSort = this.#sort): void {
    this.#filter = filter
    this.#sort = sort
    this.#gen++
    this.#pages.clear()
    this.#inflight.clear()
    this.#stale.clear()
    this.loaded = false
    this.fetches = 0
    this.version++
    void this.#fetch(0)
  }

  rowAt(i: number): OrderRow | undefined {
    void this.version
    return this.#pages.get(Math.floor(i / PAGE_SIZE))?.[i % PAGE_SIZE]
  }

  /** Makes sure the rows [start, end) are (being) fetched, and the pages either side, so scrolling rarely waits. */
  ensure(start: number, end: number): void {
    this.#lastRange = [start, end]
    const first = Math.floor(Math.max(0, start - PAGE_SIZE / 2) / PAGE_SIZE)
    const last = Math.floor(Math.max(0, Math.min(end + PAGE_SIZE / 2, this.total) - 1) / PAGE_SIZE)
    for (let p = first; p <= last; p++) {
      if ((!this.#pages.has(p) || this.#stale.has(p)) && !this.#inflight.has(p)) void this.#fetch(p)
    }
  }

  /** A changed row replaces its cached copy at once; the refresh that follows puts it where the sort says. */
  patch(row: OrderRow): void {
    for (const rows of this.#pages.values()) {
      const i = rows.findIndex((r) => r.orderId === row.orderId && r.type === row.type)
      if (i >= 0) {
        rows[i] = row
        this.version++
      }
    }
  }

  /** Marks every cached page stale and refetches the visible ones (and the total). */
  refresh(): void {
    for (const p of this.#pages.keys()) this.#stale.add(p)
    const [s, e] = this.#lastRange
    this.ensure(s, Math.max(e, 1))
    if (!this.#inflight.size) void this.#fetch(Math.floor(s / PAGE_SIZE))
  }

  async #fetch(page: number): Promise<void> {
    const gen = this.#gen
    this.#inflight.add(page)
    this.fetches++
    try {
      const r = await call('orders:query', { filter: this.#filter, sort: this.#sort, offset: page * PAGE_SIZE, limit: PAGE_SIZE })
      if (gen !== this.#gen) return
      this.#pages.set(page, r.rows)
      this.#stale.delete(page)
      this.total = r.total
      this.error = null
      this.#evict(page)
    } catch (e) {
      if (gen === this.#gen) this.error = errorInfoOf(e)
    } finally {
      if (gen === this.#gen) {
        this.#inflight.delete(page)
        this.loaded = true
        this.version++
      }
    }
  }

  /** Keeps the cache small: drop the pages farthest from the one just fetched. */
  #evict(near: number): void {
    if (this.#pages.size <= MAX_CACHED_PAGES) return
    const far = [...this.#pages.keys()].sort((a, b) => Math.abs(b - near) - Math.abs(a - near))
    for (const p of far.slice(0, this.#pages.size - MAX_CACHED_PAGES)) this.#pages.delete(p)
  }

  get cachedPages(): number {
    void this.version
    return this.#pages.size
  }
}
