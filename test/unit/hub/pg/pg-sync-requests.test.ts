// A follower hands "Sync now", "Check now" and "Re-sync everything" to the leader with a
// notification sent only while some hub holds the leadership lock; with none, the asker is
// refused with the reason, not told it was done.
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openPool } from '../../../../src/hub/pg/pg-connection'
import { LEADER_LOCK_KEY } from '../../../../src/hub/pg/pg-election'
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
  })
  afterAll(async () => {
    await cluster?.stop()
  })

  const request: SyncRequest = { action: 'resync', operator: 'ada', hub: 'hub-b (pid 7)' }

  /** Relays one request while `leader` holds (or not) the lock; answers the error, if any, and what a listener heard. */
  async function relayWhile(lockIn: string | null): Promise<{ error: string | null; heard: string[] }> {
    const pool = openPool({ url })
    const listener = new pg.Client({ connectionString: url })
    const locker = lockIn ? new pg.Client({ connectionString: lockIn }) : null
    const heard: string[] = []
    try {
      await listener.connect()
      listener.on('notification', (n) => void heard.push(n.payload ?? ''))
      await listener.query(`LISTEN ${SYNC_REQUESTS_CHANNEL}`)
      if (locker) {
        await locker.connect()
        await locker.query('SELECT pg_advisory_lock($1)', [LEADER_LOCK_KEY])
      }
      const error = await relaySyncRequest(pool, request).then(
        () => null,
        (e: unknown) => (e as Error).message
      )
      await listener.query('SELECT 1')
      await new Promise((r) => setTimeout(r, 50))
      return { error, heard }
    } finally {
      await locker?.end()
      await listener.end()
      await pool.end()
    }
  }

  it('is sent while a hub holds the leadership lock of this database', async () => {
    const r = await relayWhile(url)
    expect(r.error).toBeNull()
    expect(r.heard.map((p) => JSON.parse(p) as unknown)).toEqual([request])
  })

  it('is refused, saying no hub leads, while none does, and nothing is sent', async () => {
    expect(await relayWhile(null)).toEqual({ error: NO_LEADER, heard: [] })
  })

  it('is refused when the lock is held in another database of the same server', async () => {
    expect(await relayWhile(otherUrl)).toEqual({ error: NO_LEADER, heard: [] })
  })
})
