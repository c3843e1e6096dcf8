// A follower hands "Sync now", "Check now" and "Re-sync everything" to the leader with a
// notification sent only while some hub holds an unexpired leadership lease; with none, the
// asker is refused with the reason, not told it was done.
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openPool } from '../../../../src/hub/pg/pg-connection'
import { LEADER_LOCK_KEY, takeLease } from '../../../../src/hub/pg/pg-lease'
import { migrate } from '../../../../src/hub/pg/pg-migrations'
import { NO_LEADER, relaySyncRequest, SYNC_REQUESTS_CHANNEL, type SyncRequest } from '../../../../src/hub/pg/pg-sync-requests'
import { postgresUnavailable, startPostgres, type PgCluster } from '../../../support/postgres-cluster'

describe.skipIf(postgresUnavailable !== null)('relaySyncRequest', () => {
  let cluster: PgCluster
  let url: string
  let otherUrl: string
  beforeAll(async () => {
    cluster = await startPostgres()
    url = await cluster.createDatabase()
    otherUrl = await cluster.createDatabase()
    for (const u of [url, otherUrl]) {
      const p = openPool({ url: u })
      await migrate(p)
      await p.end()
    }
  })
  afterAll(async () => {
    await cluster?.stop()
  })

  const request: SyncRequest = { action: 'resync', operator: 'ada', hub: 'hub-b (pid 7)' }

  /** Relays one request while a hub holds (or not) the lease in `leaseIn`, for `ttlMs`; answers the error, if any, and what a listener heard. */
  async function relayWhile(leaseIn: string | null, ttlMs = 10_000): Promise<{ error: string | null; heard: string[] }> {
    const pool = openPool({ url })
    const listener = new pg.Client({ connectionString: url })
    const holder = leaseIn ? new pg.Client({ connectionString: leaseIn }) : null
    const heard: string[] = []
    try {
      await listener.connect()
      listener.on('notification', (n) => void heard.push(n.payload ?? ''))
      await listener.query(`LISTEN ${SYNC_REQUESTS_CHANNEL}`)
      if (holder) {
        await holder.connect()
        await holder.query('DELETE FROM hub_lease')
        expect(await takeLease(holder, 'hub-a (pid 6)', ttlMs)).toMatchObject({ taken: true })
      }
      const error = await relaySyncRequest(pool, request).then(
        () => null,
        (e: unknown) => (e as Error).message
      )
      await listener.query('SELECT 1')
      await new Promise((r) => setTimeout(r, 50))
      return { error, heard }
    } finally {
      await holder?.query('DELETE FROM hub_lease')
      await holder?.end()
      await listener.end()
      await pool.end()
    }
  }

  it('is sent while a hub holds the leadership lease of this database', async () => {
    const r = await relayWhile(url)
    expect(r.error).toBeNull()
    expect(r.heard.map((p) => JSON.parse(p) as unknown)).toEqual([request])
  })

  it('is refused, saying no hub leads, while none does, and nothing is sent', async () => {
    expect(await relayWhile(null)).toEqual({ error: NO_LEADER, heard: [] })
  })

  it('is refused when the lease is held in another database of the same server', async () => {
    expect(await relayWhile(otherUrl)).toEqual({ error: NO_LEADER, heard: [] })
  })

  it('is sent while a hub of an older version leads by the session lock (a rolling upgrade)', async () => {
    const older = new pg.Client({ connectionString: url, application_name: 'rampdesk-hub-election' })
    await older.connect()
    try {
      await older.query('SELECT pg_advisory_lock($1)', [LEADER_LOCK_KEY])
      const r = await relayWhile(null)
      expect(r.error).toBeNull()
      expect(r.heard.map((p) => JSON.parse(p) as unknown)).toEqual([request])
    } finally {
      await older.end()
    }
  })

  it('is refused once the lease has run out, however recently it was held', async () => {
    expect(await relayWhile(url, -1)).toEqual({ error: NO_LEADER, heard: [] })
  })
})
