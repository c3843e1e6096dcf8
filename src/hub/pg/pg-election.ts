// One leader among the hubs on a PostgreSQL database: the hub holding the lease of
// pg-lease.ts leads. On a connection of its own, the leader renews it every 2 s for 10 s
// more (the database's clock); a follower looks every second and takes it over once it has
// run out, or at once when the holder's lease connection is gone (a hub killed, or cut off).
//
// The leader also keeps the lease by its own monotonic clock, counted from when it sent
// each renewal that succeeded: it leads until 1 s before that renewal's deadline could
// pass, and steps down by itself when no renewal succeeded by then (a database that does
// not answer, a renewal refused because another hub took over, a process that was paused
// and has just resumed: current() says follower from the first call after the deadline, before
// any timer runs). What it does meanwhile is fenced in the database by its epoch. A
// failing lease connection ends the term at once too (the holder's connection is what
// another hub looks for), and the hub competes again on a new one.
//
// Hubs of older versions lead by a session advisory lock. During a rolling upgrade the
// leader also holds that lock on its lease connection, so an older hub follows it, and no
// hub of this version takes the lease while an older one holds the lock (pg-lease.ts).
import { performance } from 'node:perf_hooks'
import pg from 'pg'
import type { HubRoleSource, LeaseTerm, RoleState } from '../hub-role'
import { clientConfig, pgErrorText, type PgTarget } from './pg-connection'
import {
  dropLeaderLock,
  LEASE_APPLICATION,
  LEASE_MARGIN_MS,
  LEASE_RENEW_MS,
  LEASE_TRY_MS,
  LEASE_TTL_MS,
  newHolder,
  readLease,
  releaseLease,
  renewLease,
  takeLease,
  takeLeaderLock,
  type LeaseView
} from './pg-lease'

export interface PgElectionOptions {
  target: PgTarget
  /** The wall clock, for when a role began (epoch ms). */
  now?: () => number
  /** The clock the leader measures its lease by: monotonic, counting while the process is stopped (default performance.now). */
  monotonic?: () => number
  /** How long a renewal extends the lease (default 10 s). */
  ttlMs?: number
  /** How often the leader renews (default 2 s). */
  renewMs?: number
  /** How often a follower looks whether it may take over (default 1 s). */
  tryMs?: number
  /** The holder name (default host, pid and a random tag). */
  holder?: string
  log?: { info(m: string): void; warn(m: string): void }
}

export interface PgElection extends HubRoleSource {
  /** The server process id of the lease's connection (null while disconnected). */
  backendPid(): number | null
  /** This hub's name as the lease's holder. */
  readonly holder: string
}

/**
 * Where this hub stands: leading under a term until a time of its monotonic clock (holding
 * the older versions' session lock too, or not yet), or following.
 */
type Standing =
  | { kind: 'leading'; since: number; detail: string; term: LeaseTerm; validUntil: number; renewedAt: number; lockHeld: boolean }
  | { kind: 'following'; since: number; detail: string }

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`

export async function startPgElection(o: PgElectionOptions): Promise<PgElection> {
  const now = o.now ?? Date.now
  const mono = o.monotonic ?? (() => performance.now())
  const ttlMs = o.ttlMs ?? LEASE_TTL_MS
  const renewMs = o.renewMs ?? LEASE_RENEW_MS
  const tryMs = o.tryMs ?? LEASE_TRY_MS
  const margin = Math.min(LEASE_MARGIN_MS, ttlMs / 4)
  const holder = o.holder ?? newHolder()
  const listeners = new Set<(s: RoleState) => void>()
  let standing: Standing = { kind: 'following', since: now(), detail: 'electing: not connected to the database yet' }
  let client: pg.Client | null = null
  let pid: number | null = null
  let closed = false
  let timer: NodeJS.Timeout | null = null
  let expiry: NodeJS.Timeout | null = null
  let busy: Promise<void> | null = null

  const view = (s: Standing): RoleState =>
    s.kind === 'leading'
      ? { role: 'leader', since: s.since, detail: s.detail, lease: s.term }
      : { role: 'follower', since: s.since, detail: s.detail }

  function tell(): void {
    const s = view(standing)
    for (const l of listeners) l(s)
  }

  function follow(detail: string, log: 'warn' | 'quiet' = 'warn'): void {
    const was = standing
    if (expiry) clearTimeout(expiry)
    expiry = null
    standing = { kind: 'following', since: was.kind === 'following' ? was.since : now(), detail }
    if (was.kind !== 'leading') return
    // A hub of an older version may lead once this one lets the session lock go.
    if (was.lockHeld && client) void dropLeaderLock(client).catch(() => undefined)
    if (log === 'warn') o.log?.warn(`this hub follows: ${detail}`)
    tell()
  }

  function lead(epoch: number, sentAt: number, lockHeld: boolean): void {
    const term: LeaseTerm = { epoch, holder }
    const detail = `holds the leader's lease on the database (epoch ${epoch}, connection ${pid})`
    standing = { kind: 'leading', since: now(), detail, term, validUntil: sentAt + ttlMs - margin, renewedAt: sentAt, lockHeld }
    armExpiry()
    o.log?.info(`this hub leads: ${detail}`)
    tell()
  }

  /** A timer at the end of the lease by this hub's clock (a paused process runs it late: current() does not wait for it). */
  function armExpiry(): void {
    if (expiry) clearTimeout(expiry)
    if (standing.kind !== 'leading') return
    expiry = setTimeout(() => void current(), Math.max(0, standing.validUntil - mono()))
    expiry.unref()
  }

  /** The lease ran out by this hub's own clock: it no longer leads, whatever it was doing. */
  function expire(): void {
    if (standing.kind !== 'leading') return
    const silent = mono() - standing.renewedAt
    follow(
      `its lease (epoch ${standing.term.epoch}) ran out by its own clock: no renewal succeeded for ${seconds(silent)} ` +
        `(the process was paused or stalled, or the database did not answer); it stopped leading, and nothing it sends or writes as the leader is accepted any more`
    )
  }

  function current(): RoleState {
    if (standing.kind === 'leading' && mono() >= standing.validUntil) expire()
    return view(standing)
  }

  function lost(c: pg.Client, why: string): void {
    if (client !== c) return
    client = null
    pid = null
    c.end().catch(() => undefined)
    if (standing.kind === 'leading') follow(`the connection holding the leader's lease was lost (${why}); competing again on a new one`)
    else follow(`cannot reach the database to compete for the lead: ${why}`, 'quiet')
  }

  async function connect(): Promise<pg.Client> {
    const c = new pg.Client({ ...clientConfig(o.target, LEASE_APPLICATION), query_timeout: Math.max(2_000, renewMs * 2) })
    c.on('error', (e) => lost(c, pgErrorText(e, o.target)))
    c.on('end', () => lost(c, 'it closed'))
    await c.connect()
    // A renewal or a takeover waits for the fenced writes holding the lease row: never long.
    const r = await c.query<{ pid: number }>(
      `SELECT pg_backend_pid() AS pid, set_config('lock_timeout', $1, false), set_config('statement_timeout', $2, false)`,
      [String(renewMs + 1_000), String(renewMs * 2)]
    )
    client = c
    pid = r.rows[0]?.pid ?? null
    return c
  }

  const heldBy = (v: LeaseView | null) =>
    v === null
      ? 'no hub holds the lease'
      : v.leftMs > 0
        ? `${v.holder} holds the lease (epoch ${v.epoch}) for ${seconds(v.leftMs)} more unless renewed`
        : `the lease of ${v.holder} (epoch ${v.epoch}) ran out ${seconds(-v.leftMs)} ago`

  async function attempt(): Promise<void> {
    let c = client
    try {
      if (!c) c = await connect()
      current()
      if (standing.kind === 'leading') {
        const sentAt = mono()
        const term = standing.term
        const r = await renewLease(c, term, ttlMs, standing.lockHeld)
        if (r.renewed && r.olderLeader) {
          // An older hub took the session lock (this hub could not hold it): it leads, so this one may not.
          await releaseLease(c, term)
          follow(`a hub of an older version took the leader's session lock and leads; this hub gave up its lease (epoch ${term.epoch})`)
          return
        }
        if (r.renewed) {
          if (standing.kind === 'leading' && standing.term === term) {
            standing.validUntil = sentAt + ttlMs - margin
            standing.renewedAt = sentAt
            standing.lockHeld = r.lockHeld
            armExpiry()
          }
          return
        }
        const seen = await readLease(c)
        follow(`its lease (epoch ${term.epoch}) could not be renewed: ${heldBy(seen)}; it stopped leading`)
      }
      const sentAt = mono()
      const r = await takeLease(c, holder, ttlMs)
      if (closed) return
      if (r.taken) return lead(r.epoch, sentAt, await takeLeaderLock(c))
      if (r.olderLeader) follow(`a hub of an older version leads (it holds the leader's session lock); looking every ${seconds(tryMs)}`)
      else follow(`${heldBy(r.held)}; looking every ${seconds(tryMs)}`)
    } catch (e) {
      if (c) lost(c, pgErrorText(e, o.target))
      else follow(`cannot reach the database to compete for the lead: ${pgErrorText(e, o.target)}`, 'quiet')
    }
  }

  function schedule(): void {
    if (closed) return
    timer = setTimeout(
      () => {
        timer = null
        busy = attempt().finally(() => {
          busy = null
          schedule()
        })
      },
      standing.kind === 'leading' ? renewMs : tryMs
    )
    timer.unref()
  }

  busy = attempt().finally(() => (busy = null))
  await busy
  schedule()

  return {
    holder,
    current,
    onChange(listener) {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
    backendPid: () => pid,
    async close() {
      closed = true
      if (timer) clearTimeout(timer)
      await busy
      const c = client
      const held = standing.kind === 'leading' ? standing.term : null
      // Ended now rather than left to run out: the next hub leads at its next look.
      if (c && held) await releaseLease(c, held).catch(() => undefined)
      if (held) follow('stopped')
      if (expiry) clearTimeout(expiry)
      client = null
      pid = null
      if (c) await c.end().catch(() => undefined)
    }
  }
}
