// What the order monitor tells its listeners: the contract's events (forwarded to windows
// through onEvent) and 'order:terminal' for notifications and the tray. order:created names
// the order (its key): every receiver queries what it shows, so the order is not read back
// for it. order:changed and order:terminal carry the row as the store holds it after the
// write, which the windows patch in place and notifications word: the writer's own copy
// when it has one, else read once here.
import { statusInfo, type StatusTone } from '../../shared/domain/status'
import type { Coverage, EventPayload, OrderRow, OrderType, StatusSource, SyncState } from '../../shared/ipc/contract'
import type { LocalStore } from '../store/local-store'
import type { OrderSummary, StatusChange, StoredOrder } from '../store/orders-repo'
import { toContractRow } from '../order-rows'

export interface OrderTerminalEvent {
  row: OrderRow
  status: number
  tone: StatusTone
  source: StatusSource
}

export interface MonitorEvents {
  'order:created': EventPayload<'order:created'>
  'order:changed': EventPayload<'order:changed'>
  /** Not a contract event: for notifications and the tray. */
  'order:terminal': OrderTerminalEvent
  'sync:state': SyncState
  'coverage:changed': Coverage
}
export type MonitorEventName = keyof MonitorEvents
/** The events that are also contract events (forwarded to windows). */
export type MonitorContractEvent = Exclude<MonitorEventName, 'order:terminal'>

export type ContractEventSink = <E extends MonitorContractEvent>(event: E, payload: MonitorEvents[E]) => void

export class MonitorEventBus {
  private readonly listeners = new Map<MonitorEventName, Set<(p: never) => void>>()

  constructor(
    private readonly store: Pick<LocalStore, 'orders' | 'watches'>,
    private readonly onEvent: ContractEventSink | undefined
  ) {}

  /** Subscribes to an event; returns the unsubscribe function. */
  on<E extends MonitorEventName>(event: E, listener: (payload: MonitorEvents[E]) => void): () => void {
    let set = this.listeners.get(event)
    if (!set) this.listeners.set(event, (set = new Set()))
    set.add(listener as (p: never) => void)
    return () => set.delete(listener as (p: never) => void)
  }

  emit<E extends MonitorEventName>(event: E, payload: MonitorEvents[E]): void {
    if (event !== 'order:terminal') this.onEvent?.(event as MonitorContractEvent, payload as MonitorEvents[MonitorContractEvent])
    for (const l of this.listeners.get(event) ?? []) (l as (p: MonitorEvents[E]) => void)(payload)
  }

  /** An order was created by a sync: its key. */
  created(c: OrderSummary): void {
    this.emit('order:created', { type: c.type, orderId: c.orderId })
  }

  /**
   * An order's status was written; a terminal one is also 'order:terminal'. `written`: the
   * order as the write left it, when the writer has it (not read again then).
   */
  statusChanged(c: StatusChange, source: StatusSource, written?: StoredOrder): void {
    const row = written ? toContractRow(written, this.store.watches.has(c.type, c.orderId)) : this.row(c.type, c.orderId)
    if (!row) return
    const info = statusInfo(c.type, c.new)
    this.emit('order:changed', { row, oldStatus: c.old, newStatus: c.new, terminal: info.terminal })
    if (info.terminal) this.emit('order:terminal', { row, status: c.new, tone: info.tone, source })
  }

  private row(type: OrderType, orderId: number): OrderRow | null {
    const r = this.store.orders.get(type, orderId)
    return r ? toContractRow(r, this.store.watches.has(type, orderId)) : null
  }
}
