// Nothing moves under the operator: while they are on the orders table (an order's detail
// open, the focus in the table, the pointer over it), updates that would put rows in a new
// order wait, counted and announced ("5 updates — show"), and are applied when the
// operator asks or moves away. A changed order's own row still shows its new status in
// place; only re-ordering and new rows wait. Two states, live and held, each with what it
// needs, rather than flags.

/** What keeps the table still: the detail of an order open, the focus in the table, the pointer over it. */
export type Engagement = 'detail' | 'focus' | 'pointer'

/** Updates that arrived while the rows were held. */
export interface Waiting {
  /** Orders created or changed (each counted once). */
  orders: number
  /** A sync wrote orders without an event per order (a first sync, changes other than a status). */
  synced: boolean
}

export type HoldState = { kind: 'live' } | { kind: 'held'; by: readonly Engagement[]; waiting: Waiting | null }

export class UpdateHold {
  state = $state<HoldState>({ kind: 'live' })
  // Plain: only its size is shown, through state.
  // eslint-disable-next-line svelte/prefer-svelte-reactivity
  #orders = new Set<string>()

  /** apply: put the rows as the updates say (refetch what is shown). */
  constructor(private readonly apply: () => void) {}

  /** What waits, or null. */
  get waiting(): Waiting | null {
    return this.state.kind === 'held' ? this.state.waiting : null
  }

  /** The operator is on the table (on: true) or has left it by this way; leaving the last way applies what waits. */
  engage(way: Engagement, on: boolean): void {
    const by = this.state.kind === 'held' ? this.state.by : []
    if (on === by.includes(way)) return
    const next = on ? [...by, way] : by.filter((w) => w !== way)
    if (next.length > 0) {
      this.state = { kind: 'held', by: next, waiting: this.waiting }
      return
    }
    const waited = this.waiting !== null
    this.#clear()
    this.state = { kind: 'live' }
    if (waited) this.apply()
  }

  /**
   * An update arrived: applied at once while live, else counted. `order` names the order
   * ("1:100526"); null for a sync that wrote orders without saying which.
   */
  arrive(order: string | null): void {
    if (this.state.kind === 'live') {
      this.apply()
      return
    }
    if (order !== null) this.#orders.add(order)
    const w = this.state.waiting
    this.state = {
      kind: 'held',
      by: this.state.by,
      waiting: { orders: this.#orders.size, synced: (w?.synced ?? false) || order === null }
    }
  }

  /** The operator asked to see them: applied now, the rows stay held for what comes next. */
  show(): void {
    if (this.state.kind !== 'held' || this.state.waiting === null) return
    this.#clear()
    this.state = { kind: 'held', by: this.state.by, waiting: null }
    this.apply()
  }

  /** The rows were fetched again for another reason (a new filter): nothing waits any more. */
  discard(): void {
    this.#clear()
    if (this.state.kind === 'held') this.state = { kind: 'held', by: this.state.by, waiting: null }
  }

  #clear(): void {
    this.#orders.clear()
  }
}

/** "5 updates — show": what the announcement says of what waits. */
export function waitingText(w: Waiting): string {
  if (w.orders === 0) return 'New orders synced'
  return w.orders === 1 ? '1 update' : `${w.orders} updates`
}
