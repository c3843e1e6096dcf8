// The alerts of the active profile (alerts:list, kept current by alerts:changed): stalled
// orders, open orders on an unwell chain and completions the merchant's system has not
// confirmed, looked up by order for the table's mark, the
// order's detail and the tray. How long an order has stalled is counted here from its
// `since`, on the app's ticking clock, so the words move on between events.
import { call, on } from './bridge'
import { app, errorInfoOf } from './app-state.svelte'
import { stalledFor, stalledText } from '../../../shared/domain/stalled'
import { unacknowledgedText } from '../../../shared/domain/unacknowledged'
import type { Alert, ChainAlert, ErrorInfo, OrderType, StalledAlert, UnacknowledgedAlert } from '../../../shared/ipc/contract'

const key = (type: OrderType, orderId: number) => `${type}:${orderId}`

class AlertsState {
  list = $state<Alert[]>([])
  /** Why the alerts could not be read (shown where they would be), or null. */
  error = $state<ErrorInfo | null>(null)
  readonly stalledList = $derived(this.list.filter((a): a is StalledAlert => a.kind === 'stalled'))
  readonly chainList = $derived(this.list.filter((a): a is ChainAlert => a.kind === 'chain'))
  readonly unacknowledgedList = $derived(this.list.filter((a): a is UnacknowledgedAlert => a.kind === 'unacknowledged'))
  readonly #unacknowledged = $derived(new Map(this.unacknowledgedList.map((a) => [key(a.order.type, a.order.orderId), a])))
  readonly #stalled = $derived(new Map(this.stalledList.map((a) => [key(a.order.type, a.order.orderId), a])))
  /** Order key -> the chain alerts naming it (an object built anew with each list, never changed in place). */
  readonly #chains = $derived(
    this.chainList.reduce<Record<string, ChainAlert[]>>((by, a) => {
      for (const o of a.orders) by[key(o.type, o.orderId)] = [...(by[key(o.type, o.orderId)] ?? []), a]
      return by
    }, {})
  )
  #started = false

  start(): void {
    if (this.#started) return
    this.#started = true
    void this.load()
    on('alerts:changed', (l) => {
      this.list = l.alerts
      this.error = null
    })
    on('profile:changed', () => void this.load())
    on('team:access', () => void this.load())
  }

  async load(): Promise<void> {
    if (!app.can('alerts:list')) return
    try {
      this.list = (await call('alerts:list', {})).alerts
      this.error = null
    } catch (e) {
      this.error = errorInfoOf(e)
    }
  }

  stalled(type: OrderType, orderId: number): StalledAlert | undefined {
    return this.#stalled.get(key(type, orderId))
  }

  unacknowledged(type: OrderType, orderId: number): UnacknowledgedAlert | undefined {
    return this.#unacknowledged.get(key(type, orderId))
  }

  /** "Completed 25 min ago; the merchant's system has not confirmed it", now. */
  unacknowledgedLine(a: UnacknowledgedAlert): string {
    return unacknowledgedText(app.now - a.since)
  }

  chains(type: OrderType, orderId: number): ChainAlert[] {
    return this.#chains[key(type, orderId)] ?? []
  }

  /** "Stalled 42 min in Held for review", now. */
  stalledLine(a: StalledAlert): string {
    return stalledText({ type: a.order.type, status: a.status, forMs: Math.max(0, app.now - a.since) })
  }

  /** "42 min": how long the order has been as it is, now. */
  stalledFor(a: StalledAlert): string {
    return stalledFor(Math.max(0, app.now - a.since))
  }
}

export const alerts = new AlertsState()

/** The chain problem in a few words, for a mark. */
export const CHAIN_MARK: Record<ChainAlert['problem'], string> = {
  node_out_of_sync: 'node out of sync',
  deposits_closed: 'deposits closed'
}

/** What a chain problem means for one order, and what to tell the customer. */
export const CHAIN_DETAIL: Record<ChainAlert['problem'], string> = {
  node_out_of_sync:
    "The service reports this chain's node out of sync: crypto sent or received on it may be seen late. Tell the customer it may take longer than usual.",
  deposits_closed:
    'The service reports deposits of this coin on this chain closed: a customer cannot send it there now. Tell them to wait before sending.'
}
