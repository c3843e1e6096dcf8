// "Sync now", "Check now" and "Re-sync everything" asked on a follower hub (hubs on one
// PostgreSQL database). Only the leader syncs and audits, and a follower's desktops are shown
// the leader's sync states and coverage (pg-leader-coverage.ts), so these act on the leader:
// the follower announces the request (NOTIFY rampdesk_sync_requests) and answers at once; the
// leader, listening, runs it on its monitor, and what it changes reaches the follower's
// desktops with the leader's states within about a second. A request made while no hub
// leads is refused (the asker is told so); a notification is not kept, so one made in the
// second or so the leader's listening connection takes to come back, or to a leader of a
// version that does not listen (a rolling upgrade), is gone, and the leader's own schedule
// retries every scope by itself.
import { hostname } from 'node:os'
import type pg from 'pg'
import type { SyncAction, SyncRequest } from '../hub-backend'
import { leads, type HubRoleSource } from '../hub-role'
import type { PgTarget } from './pg-connection'
import { SOME_HUB_LEADS } from './pg-lease'
import { listen, type PgListener } from './pg-listener'

export type { SyncAction, SyncRequest }

export const SYNC_REQUESTS_CHANNEL = 'rampdesk_sync_requests'

const ACTIONS: readonly SyncAction[] = ['now', 'audit', 'resync']

/** How a hub names itself in a relayed request (the leader's log says where it was asked). */
export const thisHub = (): string => `${hostname()} (pid ${process.pid})`

/** Why a request could not be handed over: no hub holds the leadership at the moment. */
export const NO_LEADER = 'no hub leads at the moment (one takes over within a few seconds of the last one stopping); try again shortly'

/**
 * Follower: hands the request to the leader, in one statement that sends it only while a
 * hub holds an unexpired leadership lease (or, a hub of an older version, the session lock:
 * pg-lease.ts); refuses when none does, and fails when the database does not take it.
 */
export async function relaySyncRequest(pool: pg.Pool, r: SyncRequest): Promise<void> {
  const sent = await pool.query(`SELECT pg_notify($1, $2) WHERE ${SOME_HUB_LEADS}`, [SYNC_REQUESTS_CHANNEL, JSON.stringify(r)])
  if (sent.rowCount === 0) throw new Error(NO_LEADER)
}

function parse(payload: string): SyncRequest | null {
  try {
    const r = JSON.parse(payload) as Partial<SyncRequest>
    if (!ACTIONS.includes(r.action as SyncAction) || typeof r.operator !== 'string' || typeof r.hub !== 'string') return null
    return { action: r.action as SyncAction, operator: r.operator, hub: r.hub }
  } catch {
    return null
  }
}

/** Leader: runs each request relayed to it, while it leads (a follower hears them too, and ignores them). */
export function serveSyncRequests(o: {
  target: PgTarget
  role: Pick<HubRoleSource, 'current'>
  run(r: SyncRequest): void
  onError(message: string): void
}): PgListener {
  return listen(o.target, [SYNC_REQUESTS_CHANNEL], {
    notify: (_channel, payload) => {
      if (!leads(o.role)) return
      const r = parse(payload)
      if (r) o.run(r)
      else o.onError(`ignored a sync request another hub relayed that this hub does not read: ${payload.slice(0, 200)}`)
    },
    connected: () => undefined,
    error: o.onError
  })
}
