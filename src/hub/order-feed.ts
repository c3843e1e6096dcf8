// The hub's side of the order feed on a PostgreSQL store (pg/pg-order-feed.ts): a round
// every half second, and at once on NOTIFY rampdesk_order_events, that applies what the
// database has that this hub's order database lacks, publishes the leader's new events, and
// streams to desktops every event now in both. At start the hub catches up before any
// desktop connects (nothing streamed); a hub promoted to leader applies everything the old
// leader published before it publishes its own, so ids go on where the old leader stopped.
// Order rows the leader changed without an event (an amount, a confirmation) go the same
// way by their version: the leader publishes them after its events, a follower applies
// them after the events, in the same round, and tells its desktops (rowsChanged) as the
// leader's sync does its own.
import type { Sql } from '../main/store/database'
import type { OrderType } from '../shared/ipc/contract'
import type { HubLog } from './hub-log'
import { leads, type HubRoleSource } from './hub-role'
import type { PgHubStore } from './pg/pg-hub-store'
import { listen } from './pg/pg-listener'
import { ORDER_EVENTS_CHANNEL, PgOrderFeed } from './pg/pg-order-feed'

const ROUND_MS = 500

export interface OrderFeedLoop {
  /** The newest event id desktops have been sent (replay and resync stop here). */
  streamedUpTo(): number
  /** A round now (after a local order event; before a promoted hub starts syncing); resolves when it is done. */
  sync(): Promise<void>
  close(): Promise<void>
}

export interface OrderFeedOptions {
  store: PgHubStore
  local: () => Sql
  role: Pick<HubRoleSource, 'current'>
  log: Pick<HubLog, 'error' | 'info'>
  /** Sends desktops the events after `afterId` up to `upTo`. */
  stream(afterId: number, upTo: number): void
  /** Follower: the leader's rows of orders of these types were applied without an event (an amount, a record corrected). */
  rowsChanged(types: OrderType[]): void
}

export async function startOrderFeed(o: OrderFeedOptions): Promise<OrderFeedLoop> {
  const feed = new PgOrderFeed(o.store.pool, o.local)
  const localMax = () => o.local().value<number>('SELECT MAX(id) FROM order_events') ?? 0
  // What this hub holds of the database's events: up to the lower of the two.
  let applied = Math.min(localMax(), await feed.publishedUpTo())
  let rowsApplied = await feed.rowsStart()
  let streamed = 0

  async function catchUp(): Promise<void> {
    for (let ids = await feed.apply(applied); ids.length; ids = await feed.apply(applied)) applied = ids.at(-1)!
    if (!leads(o.role)) {
      const changed = new Set<number>()
      for (let r = await feed.applyRows(rowsApplied); r !== null; r = await feed.applyRows(rowsApplied)) {
        rowsApplied = r.version
        for (const t of r.types) changed.add(t)
      }
      feed.forgetWrites()
      if (changed.size) o.rowsChanged([...changed] as OrderType[])
      return
    }
    for (let up = await feed.publish(); up > applied; up = await feed.publish()) applied = up
    for (let marked = await feed.publishRows(); marked > 0;) marked = await feed.publishRows()
    for (let marked = await feed.publishConfirmations(); marked > 0;) marked = await feed.publishConfirmations()
  }

  await catchUp()
  streamed = applied
  o.log.info(`order events: this hub holds the database's events up to id ${applied}`)

  let failing = false
  let running: Promise<void> | null = null
  const round = () =>
    (running ??= catchUp()
      .then(() => {
        if (failing) o.log.info('order events: the database answers again')
        failing = false
        if (applied > streamed) {
          const from = streamed
          streamed = applied
          o.stream(from, applied)
        }
      })
      .catch((e: unknown) => {
        if (!failing) o.log.error(`order events could not be exchanged with the database: ${(e as Error).message}; retrying`)
        failing = true
      })
      .finally(() => (running = null)))

  const timer = setInterval(() => void round(), ROUND_MS)
  timer.unref()
  const listener = listen(o.store.target, [ORDER_EVENTS_CHANNEL], {
    notify: () => void round(),
    connected: () => void round(),
    error: (m) => o.log.error(m)
  })
  return {
    streamedUpTo: () => streamed,
    sync: round,
    async close() {
      clearInterval(timer)
      await listener.close()
      await running
    }
  }
}
