// The first pages (and totals) of the last few filters the orders table answered, kept
// while no order changes: going back to one (a search cleared, a select set back to "any")
// shows it at once while its query runs again. A change to orders forgets them all, and an
// answer to a query sent before that change is not kept.
import type { OrderRow } from '../../../shared/ipc/contract'

export interface FirstPage {
  rows: OrderRow[]
  total: number
  /** More match than `total` (a broad search counted up to its cap). */
  totalAtLeast: boolean
}

export class RecentFirstPages {
  // Plain on purpose: nothing draws from this map; the window shows what it hands out.
  readonly #pages = new Map<string, FirstPage>()
  /** Bumped whenever orders change: an answer to a query sent before that is not kept. */
  #changes = 0

  constructor(private readonly limit: number) {}

  /** Where orders stand now, to hand back with an answer to a query sent now (see remember). */
  get mark(): number {
    return this.#changes
  }

  /** Whether orders changed since `mark` was read. */
  changedSince(mark: number): boolean {
    return mark !== this.#changes
  }

  get(key: string): FirstPage | undefined {
    return this.#pages.get(key)
  }

  /** Keeps a filter's first page, unless orders changed after its query was sent; the oldest goes past the limit. */
  remember(key: string, page: FirstPage, mark: number): void {
    if (this.changedSince(mark)) return
    this.#pages.delete(key)
    this.#pages.set(key, page)
    if (this.#pages.size > this.limit) this.#pages.delete(this.#pages.keys().next().value!)
  }

  /** Orders changed: no first page kept so far can be shown as the answer any more. */
  forget(): void {
    this.#pages.clear()
    this.#changes++
  }
}
