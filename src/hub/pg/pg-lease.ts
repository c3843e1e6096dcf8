// The leadership lease of the hubs on one PostgreSQL database: one row of hub_lease naming
// its holder, an epoch raised by every takeover and a deadline on the database's clock.
// The leader renews it every 2 s for 10 s more; another hub takes it over, raising the
// epoch in the same statement, once the deadline has passed or at once when the holder's
// lease connection is gone (a hub killed or cut off: its backend is no longer in
// pg_stat_activity). A lease is not a session lock: a leader that is paused (SIGSTOP, a
// stalled VM, an event loop stuck) keeps its connection open but stops renewing, so its
// lease runs out and another hub leads within seconds.
//
// A paused process cannot know it was paused until it runs again, so everything only the
// leader does is fenced by the epoch, in the database: each leader-only write runs in a
// transaction that first locks the lease row FOR KEY SHARE while it holds this hub's epoch
// and is unexpired (asLeader), and each claim in the shared request budget for a leader-only
// endpoint does the same before it counts (pg-shared-budget.ts). A takeover waits for those
// transactions, and every later one sees the new epoch and is refused: a resumed old leader's queued polls and
// writes fail at the fence rather than racing it. (The epoch is a unique key: raising it is a
// key update, which conflicts with FOR KEY SHARE.) A renewal changes no key, so it takes a
// lock FOR KEY SHARE does not conflict with: the leader's own stream of fenced writes never
// holds up its renewals (FOR SHARE would, and PostgreSQL lets new share lockers pass a
// waiting update). A fenced transaction also sets idle_in_transaction_session_timeout, so a
// process paused inside one holds the row for seconds, never for as long as it stays paused.
import { randomBytes } from 'node:crypto'
import { hostname } from 'node:os'
import type pg from 'pg'
import type { HubRoleSource, LeaseTerm } from '../hub-role'
import { DB_NOW_MS, inTransaction } from './pg-connection'

/**
 * The session advisory lock hubs of older versions lead by ('rdlead' as a number). A hub of
 * this version holding the lease takes it too, on its lease connection, so an older hub
 * still running during a rolling upgrade sees a leader and follows; and no hub of this
 * version takes the lease while an older hub's lock connection holds it (an older leader).
 */
export const LEADER_LOCK_KEY = 0x7264_6c65_6164

/** The application_name of the lease connection of a hub of this version. */
export const LEASE_APPLICATION = 'rampdesk-hub-lease'
/** The application_name of the lock connection of a hub of an older version. */
const OLDER_ELECTION_APPLICATION = 'rampdesk-hub-election'

/** Whether the older versions' lock is held by the connection of a hub of an older version: it leads. */
const OLDER_LEADER = `EXISTS (SELECT 1 FROM pg_locks k JOIN pg_stat_activity a ON a.pid = k.pid
  WHERE k.locktype = 'advisory' AND k.granted AND k.objsubid = 1
    AND k.database = (SELECT oid FROM pg_database WHERE datname = current_database())
    AND ((k.classid::bigint << 32) | k.objid::bigint) = ${LEADER_LOCK_KEY}
    AND a.application_name = '${OLDER_ELECTION_APPLICATION}')`

/** How long a lease lasts from its last renewal, by the database's clock. */
export const LEASE_TTL_MS = 10_000
/** How often the leader renews it. */
export const LEASE_RENEW_MS = 2_000
/** How often a follower looks whether it may take it over. */
export const LEASE_TRY_MS = 1_000
/** A leader stops leading this long before its lease would run out by its own clock. */
export const LEASE_MARGIN_MS = 1_000
/** How long a fenced transaction may sit idle (its process paused) before the database ends it. */
export const FENCED_IDLE_MS = 5_000

/** How a hub process names itself as the lease's holder: host, pid and a tag no restart repeats. */
export const newHolder = (): string => `${hostname()} (pid ${process.pid}) #${randomBytes(3).toString('hex')}`

/** A leader-only write or request refused: this hub's lease is no longer the current one. */
export class LeaseLostError extends Error {
  constructor(readonly epoch: number) {
    super(
      `this hub no longer holds the leader's lease it acted under (epoch ${epoch}): another hub took over or it ran out, so nothing a leader writes or sends is done here`
    )
    this.name = 'LeaseLostError'
  }
}

/** A leader-only write asked of a hub that follows. */
export class NotLeadingError extends Error {
  constructor(what: string) {
    super(`this hub follows: ${what} is the leading hub's to do`)
    this.name = 'NotLeadingError'
  }
}

/** A leader-only write refused because this hub no longer leads: not a database failure (the election's log line says what happened). */
export const refusedAsLeader = (e: unknown): boolean => e instanceof LeaseLostError || e instanceof NotLeadingError

/** The lease as a follower reads it. */
export interface LeaseView {
  holder: string
  epoch: number
  /** Until its deadline, by the database's clock (negative: run out). */
  leftMs: number
}

export type TakeResult =
  | { taken: true; epoch: number }
  | { taken: false; held: LeaseView | null; /** A hub of an older version leads by the session lock. */ olderLeader: boolean }

/**
 * Takes the lease when nobody holds it, its deadline has passed, its holder's lease
 * connection is gone, or this hub held it (it lost track: a new term all the same), raising
 * the epoch, unless a hub of an older version leads by the session lock; otherwise answers
 * who holds it.
 */
export async function takeLease(c: pg.ClientBase, holder: string, ttlMs: number): Promise<TakeResult> {
  const r = await c.query<{ taken: number | null; holder: string | null; epoch: number | null; left_ms: number | null; older: boolean }>(
    `WITH taken AS (
       INSERT INTO hub_lease AS l (id, holder, holder_pid, epoch, deadline, taken_at, renewed_at)
       SELECT 1, $1, pg_backend_pid(), 1, ${DB_NOW_MS} + $2, ${DB_NOW_MS}, ${DB_NOW_MS} WHERE NOT ${OLDER_LEADER}
       ON CONFLICT (id) DO UPDATE SET holder = EXCLUDED.holder, holder_pid = EXCLUDED.holder_pid, epoch = l.epoch + 1,
         deadline = EXCLUDED.deadline, taken_at = EXCLUDED.taken_at, renewed_at = EXCLUDED.renewed_at
       WHERE l.deadline <= ${DB_NOW_MS} OR l.holder = EXCLUDED.holder
          OR NOT EXISTS (SELECT 1 FROM pg_stat_activity a WHERE a.pid = l.holder_pid)
       RETURNING epoch
     )
     SELECT (SELECT epoch FROM taken) AS taken, l.holder, l.epoch, l.deadline - ${DB_NOW_MS} AS left_ms, ${OLDER_LEADER} AS older
       FROM (SELECT 1) one LEFT JOIN hub_lease l ON l.id = 1`,
    [holder, ttlMs]
  )
  // BIGINTs: numbers through the hub's connections, text through a plain client's.
  const row = r.rows[0]!
  if (row.taken !== null) return { taken: true, epoch: Number(row.taken) }
  return {
    taken: false,
    held: row.holder === null ? null : { holder: row.holder, epoch: Number(row.epoch), leftMs: Number(row.left_ms) },
    olderLeader: row.older
  }
}

/**
 * Extends the lease while it is still this term's and unexpired, and takes the older
 * versions' lock on this connection unless it holds it already; answers whether the lease
 * was renewed (false: lost), whether the lock is held, and whether a hub of an older version
 * holds it instead (it leads: this hub must not).
 */
export async function renewLease(
  c: pg.ClientBase,
  term: LeaseTerm,
  ttlMs: number,
  lockHeld = true
): Promise<{ renewed: boolean; lockHeld: boolean; olderLeader: boolean }> {
  const r = await c.query<{ locked: boolean; older: boolean }>(
    `UPDATE hub_lease SET deadline = ${DB_NOW_MS} + $3, renewed_at = ${DB_NOW_MS}, holder_pid = pg_backend_pid()
      WHERE id = 1 AND epoch = $1 AND holder = $2 AND deadline > ${DB_NOW_MS}
      RETURNING CASE WHEN $4 THEN true ELSE pg_try_advisory_lock(${LEADER_LOCK_KEY}) END AS locked, ${OLDER_LEADER} AS older`,
    [term.epoch, term.holder, ttlMs, lockHeld]
  )
  const row = r.rows[0]
  return row ? { renewed: true, lockHeld: row.locked, olderLeader: row.older } : { renewed: false, lockHeld, olderLeader: false }
}

/** Takes the older versions' lock on this connection (a new leader); whether it got it. */
export async function takeLeaderLock(c: pg.ClientBase): Promise<boolean> {
  const r = await c.query<{ locked: boolean }>(`SELECT pg_try_advisory_lock(${LEADER_LOCK_KEY}) AS locked`)
  return r.rows[0]?.locked === true
}

/** Whether some hub leads: an unexpired lease, or (a hub of an older version) the session lock. */
export const SOME_HUB_LEADS = `(EXISTS (SELECT 1 FROM hub_lease WHERE id = 1 AND deadline > ${DB_NOW_MS}) OR EXISTS (SELECT 1 FROM pg_locks k
  WHERE k.locktype = 'advisory' AND k.granted AND k.objsubid = 1
    AND k.database = (SELECT oid FROM pg_database WHERE datname = current_database())
    AND ((k.classid::bigint << 32) | k.objid::bigint) = ${LEADER_LOCK_KEY}))`

/** This connection no longer leads: the older versions' lock goes too. */
export async function dropLeaderLock(c: pg.ClientBase): Promise<void> {
  await c.query('SELECT pg_advisory_unlock_all()')
}

/** Ends this term now (a hub that stops): the next hub takes over at its next look. */
export async function releaseLease(c: pg.ClientBase, term: LeaseTerm): Promise<void> {
  await c.query(`UPDATE hub_lease SET deadline = ${DB_NOW_MS} WHERE id = 1 AND epoch = $1 AND holder = $2`, [term.epoch, term.holder])
}

/** Who holds the lease now, or null when no hub ever took it. */
export async function readLease(c: pg.ClientBase | pg.Pool): Promise<LeaseView | null> {
  const r = await c.query<{ holder: string; epoch: number; left_ms: number }>(
    `SELECT holder, epoch, deadline - ${DB_NOW_MS} AS left_ms FROM hub_lease WHERE id = 1`
  )
  const row = r.rows[0]
  return row ? { holder: row.holder, epoch: Number(row.epoch), leftMs: Number(row.left_ms) } : null
}

/**
 * Locks the lease row FOR KEY SHARE for the rest of the transaction while it holds this
 * epoch and is unexpired, and bounds how long the transaction may sit idle; throws
 * LeaseLostError when the lease is another term's or has run out.
 */
export async function fence(c: pg.ClientBase, epoch: number): Promise<void> {
  const r = await c.query(
    `SELECT set_config('idle_in_transaction_session_timeout', $2, true) FROM hub_lease
      WHERE id = 1 AND epoch = $1 AND deadline > ${DB_NOW_MS} FOR KEY SHARE`,
    [epoch, String(FENCED_IDLE_MS)]
  )
  if (!r.rowCount) throw new LeaseLostError(epoch)
}

/**
 * Runs a leader-only write in one transaction fenced by this hub's lease: refused when the
 * hub follows (NotLeadingError) or its lease is no longer the current one (LeaseLostError).
 * A leader without a lease (the only hub on its store, or a role a test gives) is not fenced.
 */
export async function asLeader<T>(
  pool: pg.Pool,
  role: Pick<HubRoleSource, 'current'>,
  what: string,
  fn: (c: pg.PoolClient) => Promise<T>
): Promise<T> {
  const s = role.current()
  if (s.role !== 'leader') throw new NotLeadingError(what)
  const lease = s.lease
  return inTransaction(pool, async (c) => {
    if (lease) await fence(c, lease.epoch)
    return fn(c)
  })
}
