// The hub's side of the order feed on a PostgreSQL store (pg-order-feed.ts): a round
// every half second, and at once on NOTIFY rampdesk_order_events, that applies what the
// database has that this hub's order database lacks, publishes the leader's new events, and
// streams to desktops every event now in both. At start the hub catches up before any
// desktop connects (nothing streamed). Order rows the leader changed without an event (an
// amount, a confirmation) go the same way by their version: the leader publishes them after
// its events, a follower applies them after the events, in the same round, and tells its
// desktops (rowsChanged) as the leader's sync does its own. The leader then writes where its
// history sync stands (pg-sync-position.ts), read before the round's rows were published.
//
// A round is a leader's or a follower's from its start to its end, one at a time. A hub
// promoted to leader takes over (takeOver) before its monitor starts: it applies every event
// and row the old leader published, then adopts the old leader's sync position, so ids go
// on where the old leader stopped and its first sync reads on from the old leader's cursors.
import type pg from 'pg'
import type { Sql } from '../../main/store/sql'
import type { OrderType } from '../../shared/ipc/contract'
import type { HubLog } from '../hub-log'
import type { HubRoleSource } from '../hub-role'
import type { PgTarget } from './pg-connection'
import { refusedAsLeader } from './pg-lease'
import { listen } from './pg-listener'
import { ORDER_EVENTS_CHANNEL, PgOrderFeed } from './pg-order-feed'
import { adoptPosition, localPosition, PgSyncPosition } from './pg-sync-position'

const ROUND_MS = 500

export interface OrderFeedLoop {
  /** The newest event id desktops have been sent (replay and resync stop here). */
  streamedUpTo(): number
  /** A round now (after a local order event); resolves when it is done. */
  sync(): Promise<void>
  /**
   * This hub has just become the leader: applies everything the old leader published and
   * takes its sync position, before the monitor starts. Resolves when it is done (a database
   * that does not answer is reported, and the monitor then starts from this hub's own cursors).
   */
  takeOver(): Promise<void>
  close(): Promise<void>
}

export interface OrderFeedOptions {
  pool: pg.Pool
  target: PgTarget
  local: () => Sql
  role: Pick<HubRoleSource, 'current'>
  log: Pick<HubLog, 'error' | 'warn' | 'info'>
  /** Sends desktops the events after `afterId` up to `upTo`. */
  stream(afterId: number, upTo: number): void
  /** Follower: the leader's rows of orders of these types were applied without an event (an amount, a record corrected). */
  rowsChanged(types: OrderType[]): void
}

export async function startOrderFeed(o: OrderFeedOptions): Promise<OrderFeedLoop> {
  const feed = new PgOrderFeed(o.pool, o.local, o.role)
  const position = new PgSyncPosition(o.pool, o.role)
  const localMax = () => o.local().value<number>('SELECT MAX(id) FROM order_events') ?? 0
  // What this hub holds of the database's events: up to the lower of the two.
  let applied = Math.min(localMax(), await feed.publishedUpTo())
  let rowsApplied = await feed.rowsStart()
  let streamed = 0

  async function applyEvents(): Promise<void> {
    for (let ids = await feed.apply(applied); ids.length; ids = await feed.apply(applied)) applied = ids.at(-1)!
  }

  /** The leader's rows and confirmations after the last applied; what this hub's copy took of them is not its own to publish. */
  async function applyRows(): Promise<void> {
    const changed = new Set<number>()
    for (let r = await feed.applyRows(rowsApplied); r !== null; r = await feed.applyRows(rowsApplied)) {
      rowsApplied = r.version
      for (const t of r.types) changed.add(t)
    }
    feed.forgetWrites()
    if (changed.size) o.rowsChanged([...changed] as OrderType[])
  }

  // The term this hub took over in (takeOver): until then a round follows, even once the
  // role says leader, so nothing is published, the old leader's position included, before
  // every event and row of the old leader is applied and its position taken.
  let tookOver: number | null = null
  const term = () => {
    const s = o.role.current()
    return s.role === 'leader' ? (s.lease?.epoch ?? 0) : null
  }

  async function catchUp(): Promise<void> {
    const now = term()
    const leading = now !== null && now === tookOver
    // Where the sync stands before the rows it accounts for are published (below).
    const standing = leading ? localPosition(o.local()) : null
    await applyEvents()
    if (!leading) return applyRows()
    for (let up = await feed.publish(applied); up > applied; up = await feed.publish(applied)) applied = up
    for (let marked = await feed.publishRows(); marked > 0;) marked = await feed.publishRows()
    for (let marked = await feed.publishConfirmations(); marked > 0;) marked = await feed.publishConfirmations()
    if (standing) await position.publish(standing)
  }

  async function promote(): Promise<void> {
    const taking = term()
    // Until the last leader's position is read and adopted, this hub does not publish as the
    // leader (it would write its own, older, position over it, and the next leader would walk
    // the history from there): it tries again while it holds this term.
    for (let wait = 1_000; ; wait = Math.min(wait * 2, 5_000)) {
      try {
        await takeOverAs(taking)
        tookOver = taking
        return
      } catch (e) {
        if (closed || term() !== taking || refusedAsLeader(e)) throw e
        o.log.warn(`order events: could not take over from the last leader yet (${(e as Error).message}); trying again in ${wait / 1000} s`)
        await new Promise((r) => setTimeout(r, wait).unref())
      }
    }
  }

  async function takeOverAs(taking: number | null): Promise<void> {
    const last = await position.read()
    await applyEvents()
    await applyRows()
    // Written under the lease this hub holds now (it took over already): nothing to take.
    if (!last || taking === last.epoch) return
    const taken = adoptPosition(o.local(), last.position)
    o.log.info(
      `order events: took over at id ${applied}; the history sync goes on from the last leader's position ` +
        `(epoch ${last.epoch}, written ${(last.ageMs / 1000).toFixed(1)} s ago)` +
        (taken.length
          ? ` for ${taken.length} scope${taken.length === 1 ? '' : 's'} (${taken.join(', ')})`
          : ': no scope was ahead of this hub')
    )
  }

  await catchUp()
  streamed = applied
  o.log.info(`order events: this hub holds the database's events up to id ${applied}`)

  let failing = false
  let closed = false
  // Jobs (rounds, a takeover) run one at a time, in the order asked; `waiting` is a round
  // asked and not started yet, which stands for any other asked meanwhile (it reads what
  // there is when it starts).
  let chain: Promise<void> = Promise.resolve()
  let waiting: Promise<void> | null = null
  const enqueue = (job: () => Promise<void>): Promise<void> =>
    (chain = chain
      .then(job)
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
        if (refusedAsLeader(e)) return
        if (!failing) o.log.error(`order events could not be exchanged with the database: ${(e as Error).message}; retrying`)
        failing = true
      }))
  const round = (): Promise<void> =>
    (waiting ??= enqueue(async () => {
      waiting = null
      await catchUp()
    }))

  const timer = setInterval(() => void round(), ROUND_MS)
  timer.unref()
  const listener = listen(o.target, [ORDER_EVENTS_CHANNEL], {
    notify: () => void round(),
    connected: () => void round(),
    error: (m) => o.log.error(m)
  })
  return {
    streamedUpTo: () => streamed,
    sync: round,
    takeOver: () => enqueue(promote),
    async close() {
      closed = true
      clearInterval(timer)
      await listener.close()
      await chain
    }
  }
}
