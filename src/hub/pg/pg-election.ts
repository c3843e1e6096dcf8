// One leader among the hubs on a PostgreSQL database: the hub holding a session-level
// advisory lock (pg_try_advisory_lock) on a connection of its own leads. The lock lives as
// long as that connection: a leader that dies (SIGKILL, a lost machine) has its connection
// closed by the server and its lock freed at once, and a follower, trying every 2 s, takes
// it. A leader whose lock connection errs, ends or stops answering its 2-second check steps
// down at once (it can no longer know that it holds the lock), then competes again.
import pg from 'pg'
import type { HubRoleSource, RoleState } from '../hub-role'
import { clientConfig, pgErrorText, type PgTarget } from './pg-connection'

/** pg_try_advisory_lock key of the leadership ('rdlead' as a number). */
export const LEADER_LOCK_KEY = 0x7264_6c65_6164
export const ELECTION_RETRY_MS = 2_000
/** The application_name of the lock's connection (pg_stat_activity shows who leads). */
export const LEADER_APPLICATION = 'rampdesk-hub-election'

export interface PgElectionOptions {
  target: PgTarget
  now?: () => number
  /** How often a follower tries for the lock and a leader checks its connection (default 2 s). */
  retryMs?: number
  log?: { info(m: string): void; warn(m: string): void }
}

export interface PgElection extends HubRoleSource {
  /** The server process id of the lock's connection (null while disconnected). */
  backendPid(): number | null
}

export async function startPgElection(o: PgElectionOptions): Promise<PgElection> {
  const now = o.now ?? Date.now
  const retryMs = o.retryMs ?? ELECTION_RETRY_MS
  const listeners = new Set<(s: RoleState) => void>()
  let state: RoleState = { role: 'follower', since: now(), detail: 'electing: not connected to the database yet' }
  let client: pg.Client | null = null
  let pid: number | null = null
  let closed = false
  let timer: NodeJS.Timeout | null = null
  let busy: Promise<void> | null = null

  function become(role: RoleState['role'], detail: string): void {
    if (state.role === role && state.detail === detail) return
    const changed = state.role !== role
    state = { role, since: changed ? now() : state.since, detail }
    if (!changed) return
    if (role === 'leader') o.log?.info(`this hub leads: ${detail}`)
    else o.log?.warn(`this hub follows: ${detail}`)
    for (const l of listeners) l(state)
  }

  function lost(c: pg.Client, why: string): void {
    if (client !== c) return
    client = null
    pid = null
    c.end().catch(() => undefined)
    become('follower', `the connection holding the leader's lock was lost (${why}); competing again`)
  }

  async function connect(): Promise<pg.Client> {
    const c = new pg.Client({ ...clientConfig(o.target, LEADER_APPLICATION), query_timeout: Math.max(1_000, retryMs) })
    c.on('error', (e) => lost(c, pgErrorText(e, o.target)))
    c.on('end', () => lost(c, 'it closed'))
    await c.connect()
    const r = await c.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')
    client = c
    pid = r.rows[0]?.pid ?? null
    return c
  }

  async function attempt(): Promise<void> {
    let c = client
    try {
      if (!c) c = await connect()
      if (state.role === 'leader') {
        // Still the same session, so still the lock's holder.
        await c.query('SELECT 1')
        return
      }
      const r = await c.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1) AS ok', [LEADER_LOCK_KEY])
      if (r.rows[0]?.ok) become('leader', `holds the leader's lock on the database (connection ${pid})`)
      else become('follower', `another hub holds the leader's lock; trying every ${Math.round(retryMs / 1000)} s`)
    } catch (e) {
      if (c) lost(c, pgErrorText(e, o.target))
      else become('follower', `cannot reach the database to compete for the lead: ${pgErrorText(e, o.target)}`)
    }
  }

  const tick = () => {
    if (closed || busy) return
    busy = attempt().finally(() => (busy = null))
  }
  tick()
  await busy
  timer = setInterval(tick, retryMs)
  timer.unref()

  return {
    current: () => state,
    onChange(listener) {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
    backendPid: () => pid,
    async close() {
      closed = true
      if (timer) clearInterval(timer)
      await busy
      const c = client
      client = null
      pid = null
      // Closing the session frees the lock for the next hub at once.
      if (c) await c.end().catch(() => undefined)
      if (state.role === 'leader') become('follower', 'stopped')
    }
  }
}
