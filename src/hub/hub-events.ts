// The hub's event bus: what its session emits, passed to every operator's stream as that
// operator sees it. Order events carry the id of their row in order_events, which survives
// a restart: a desktop that reconnects says the last id it saw and is sent every order
// change it missed from the order database (replay). How an order event reaches the bus,
// and up to which id a replay may go, is the backend's order feed (hub-backend.ts).
import type { ProfileSession } from '../main/profile-session'
import { toContractRow } from '../main/order-rows'
import { toStoredOrder, type OrderDbRow } from '../main/store/stored-order'
import { statusInfo } from '../shared/domain/status'
import type { EventName, EventPayload, OrderRow, OrderType, TickerTick } from '../shared/ipc/contract'
import type { HubBackend, HubEvent, HubOrderFeed } from './hub-backend'
import type { HubLog } from './hub-log'
import type { HubRoleSource } from './hub-role'
import type { HubTickers } from './hub-tickers'
import type { PinStore } from './hub-store'

/** Events that never go to desktops: they are about the desktop's own windows. */
const LOCAL_EVENTS = new Set<EventName>(['profile:changed', 'export:progress', 'nav:order', 'team:access'])

export interface HubEventsOptions {
  backend: Pick<HubBackend, 'orderFeed'>
  role: Pick<HubRoleSource, 'current'>
  log: HubLog
  /** The hub's session, once it is open. */
  session(): ProfileSession
  /** This hub's monitor's coverage or sync states changed: whether its desktops are shown them (hub-sync.ts). */
  ownSyncChanged(): boolean
  /** The leader's rows of orders of these types were applied here without an event. */
  rowsChanged(types: OrderType[]): void
}

export class HubEvents {
  readonly feed: HubOrderFeed
  private readonly listeners = new Set<(e: HubEvent) => void>()

  constructor(private readonly o: HubEventsOptions) {
    this.feed = o.backend.orderFeed({
      local: () => o.session().store.database.sql,
      role: o.role,
      log: o.log,
      publish: (e) => this.publish(e),
      stream: (afterId, upTo) => {
        for (let at: number | null = afterId; at !== null;) {
          const page = this.eventsAfter(at, 250, upTo)
          for (const e of page.events) this.publish(e)
          at = page.next
        }
      },
      rowsChanged: (types) => o.rowsChanged(types)
    })
  }

  publish(e: HubEvent): void {
    for (const l of this.listeners) {
      try {
        l(e)
      } catch (err) {
        this.o.log.error(`an event listener failed: ${(err as Error).message}`)
      }
    }
  }

  /** What the session emits, routed: its windows' own events dropped, order events through the feed. */
  readonly emit = <E extends EventName>(event: E, payload: EventPayload<E>): void => {
    if (LOCAL_EVENTS.has(event)) return
    if ((event === 'coverage:changed' || event === 'sync:state') && !this.o.ownSyncChanged()) return
    if (event === 'order:created' || event === 'order:changed') return this.feed.ordered(event, payload)
    this.publish({ id: null, event, payload })
  }

  subscribe(listener: (e: HubEvent) => void): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  /** The event as this operator sees it (their pins, their fiat), or null when it is not theirs. */
  shapeFor(operator: string, e: HubEvent, watches: Pick<PinStore, 'has'>, tickers: Pick<HubTickers, 'fiatFor'>): HubEvent | null {
    const mine = (row: OrderRow): OrderRow => ({ ...row, watched: watches.has(operator, row.type, row.orderId) })
    switch (e.event) {
      case 'ticker:tick':
        return (e.payload as TickerTick).fiatType === tickers.fiatFor(operator) ? e : null
      case 'order:created': {
        // The key alone has no `watched` to set; a replayed event's deprecated row has.
        const p = e.payload as EventPayload<'order:created'>
        return p.status === undefined ? e : { ...e, payload: mine(p as OrderRow) }
      }
      case 'order:changed': {
        const p = e.payload as EventPayload<'order:changed'>
        return { ...e, payload: { ...p, row: mine(p.row) } }
      }
      default:
        return e
    }
  }

  /** The order events among the next `limit` after this id, oldest first, and the id to continue after. */
  replayPage(afterId: number, limit: number): { events: HubEvent[]; next: number | null } {
    return this.eventsAfter(afterId, limit, this.feed.replayUpTo())
  }

  latestEventId(): number {
    return this.feed.latestId()
  }

  /**
   * The order events after this id (up to `upTo`) from the order database, oldest first, and
   * the id to continue after; each with its order's row, read in the same query. An
   * order:created replayed still carries the row, deprecated (a desktop's own carries its key).
   */
  private eventsAfter(afterId: number, limit: number, upTo: number): { events: HubEvent[]; next: number | null } {
    const store = this.o.session().store
    const rows = store.database.sql.all<
      OrderDbRow & { event_id: number; event_type: number; event_order_id: number; old_status: number | null; new_status: number }
    >(
      `SELECT e.id AS event_id, e.type AS event_type, e.order_id AS event_order_id, e.old_status, e.new_status, o.*
         FROM order_events e LEFT JOIN orders o ON o.type = e.type AND o.order_id = e.order_id
        WHERE e.id > ? AND e.id <= ? ORDER BY e.id LIMIT ?`,
      afterId,
      Number.isFinite(upTo) ? upTo : Number.MAX_SAFE_INTEGER,
      limit
    )
    const out: HubEvent[] = []
    for (const r of rows) {
      // An event of an order this database does not hold (the join found no row): nothing to send.
      if (r.order_id === null) continue
      const type = r.event_type as OrderType
      const row = toContractRow(toStoredOrder(r), false)
      if (r.old_status === null) out.push({ id: r.event_id, event: 'order:created', payload: row })
      else
        out.push({
          id: r.event_id,
          event: 'order:changed',
          payload: { row, oldStatus: r.old_status, newStatus: r.new_status, terminal: statusInfo(type, r.new_status).terminal }
        })
    }
    return { events: out, next: rows.length < limit ? null : rows[rows.length - 1]!.event_id }
  }

  /** No event reaches a listener from now on. */
  clear(): void {
    this.listeners.clear()
  }
}
