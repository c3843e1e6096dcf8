// The leadership lease on a real PostgreSQL: who may take it and when, and the fence every
// leader-only write and budget claim goes through (a lease taken over refuses the old
// epoch; a takeover waits for the fenced writes in flight; a process paused inside one
// holds it seconds, not for as long as it is paused).
import pg from 'pg'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { openPool } from '../../../../src/hub/pg/pg-connection'
import {
  asLeader,
  fence,
  FENCED_IDLE_MS,
  LEADER_LOCK_KEY,
  LeaseLostError,
  NotLeadingError,
  renewLease,
  takeLeaderLock,
  takeLease
} from '../../../../src/hub/pg/pg-lease'
import { migrate } from '../../../../src/hub/pg/pg-migrations'
import type { RoleState } from '../../../../src/hub/hub-role'
import { postgresUnavailable, startPostgres, type PgCluster } from '../../../support/postgres-cluster'

describe.skipIf(postgresUnavailable !== null)('the leadership lease', () => {
  let cluster: PgCluster
  let url: string
  let pool: pg.Pool
  const clients: pg.Client[] = []
  beforeAll(async () => {
    cluster = await startPostgres()
  })
  afterAll(async () => {
    await cluster?.stop()
  })
  beforeEach(async () => {
    url = await cluster.createDatabase()
    pool = openPool({ url })
    await migrate(pool)
  })
  afterEach(async () => {
    for (const c of clients.splice(0)) await c.end().catch(() => undefined)
    await pool.end()
  })
  async function client(applicationName = 'the test'): Promise<pg.Client> {
    const c = new pg.Client({ connectionString: url, application_name: applicationName })
    c.on('error', () => undefined)
    await c.connect()
    clients.push(c)
    return c
  }
  const leaderOf = (epoch: number, holder = 'a'): { current(): RoleState } => ({
    current: () => ({ role: 'leader', since: 0, detail: 'test', lease: { epoch, holder } })
  })

  it('is taken by one hub, refused to another while it runs, and taken over with a new epoch once it ran out', async () => {
    const [a, b] = [await client(), await client()]
    expect(await takeLease(a, 'a', 300)).toEqual({ taken: true, epoch: 1 })
    const refused = await takeLease(b, 'b', 300)
    expect(refused).toMatchObject({ taken: false, held: { holder: 'a', epoch: 1 } })
    expect(await renewLease(a, { epoch: 1, holder: 'a' }, 300)).toMatchObject({ renewed: true })
    await new Promise((r) => setTimeout(r, 400))
    expect(await takeLease(b, 'b', 10_000)).toEqual({ taken: true, epoch: 2 })
    // The old holder's renewal is refused: its term is over.
    expect(await renewLease(a, { epoch: 1, holder: 'a' }, 10_000)).toMatchObject({ renewed: false })
  })

  it('is taken over at once when the holder’s lease connection is gone', async () => {
    const [a, b] = [await client(), await client()]
    expect(await takeLease(a, 'a', 60_000)).toMatchObject({ taken: true })
    await a.end()
    // The server forgets the backend a moment after the socket closes.
    let r = await takeLease(b, 'b', 60_000)
    for (let i = 0; i < 20 && !r.taken; i++) {
      await new Promise((ok) => setTimeout(ok, 50))
      r = await takeLease(b, 'b', 60_000)
    }
    expect(r).toEqual({ taken: true, epoch: 2 })
  })

  it('refuses a write under an epoch that is no longer the lease’s, and one from a hub that follows', async () => {
    const [a, b] = [await client(), await client()]
    await takeLease(a, 'a', 300)
    await pool.query('CREATE TABLE t (x int)')
    await asLeader(pool, leaderOf(1), 'writing', (c) => c.query('INSERT INTO t VALUES (1)'))
    await new Promise((r) => setTimeout(r, 400))
    // Run out, not yet taken over: refused all the same.
    await expect(asLeader(pool, leaderOf(1), 'writing', (c) => c.query('INSERT INTO t VALUES (2)'))).rejects.toBeInstanceOf(LeaseLostError)
    await takeLease(b, 'b', 10_000)
    await expect(asLeader(pool, leaderOf(1), 'writing', (c) => c.query('INSERT INTO t VALUES (3)'))).rejects.toBeInstanceOf(LeaseLostError)
    const follower = { current: (): RoleState => ({ role: 'follower', since: 0, detail: 'test' }) }
    await expect(asLeader(pool, follower, 'writing', (c) => c.query('INSERT INTO t VALUES (4)'))).rejects.toBeInstanceOf(NotLeadingError)
    await asLeader(pool, leaderOf(2, 'b'), 'writing', (c) => c.query('INSERT INTO t VALUES (5)'))
    expect((await pool.query<{ x: number }>('SELECT x FROM t ORDER BY x')).rows.map((r) => r.x)).toEqual([1, 5])
  })

  it('makes a takeover wait for a fenced write in flight, which then commits under the old epoch, and refuses the next', async () => {
    const [a, b] = [await client(), await client()]
    await takeLease(a, 'a', 200)
    await pool.query('CREATE TABLE t (x int)')
    let release!: () => void
    const held = new Promise<void>((r) => (release = r))
    const writing = asLeader(pool, leaderOf(1), 'writing', async (c) => {
      await c.query('INSERT INTO t VALUES (1)')
      await held
    })
    await new Promise((r) => setTimeout(r, 300))
    // Run out while the write is in flight: the takeover waits for it.
    const takeover = takeLease(b, 'b', 10_000)
    const order: string[] = []
    void takeover.then(() => order.push('taken'))
    await new Promise((r) => setTimeout(r, 200))
    order.push('released')
    release()
    await writing
    expect(await takeover).toEqual({ taken: true, epoch: 2 })
    expect(order).toEqual(['released', 'taken'])
    await expect(asLeader(pool, leaderOf(1), 'writing', (c) => c.query('INSERT INTO t VALUES (2)'))).rejects.toBeInstanceOf(LeaseLostError)
    expect((await pool.query<{ n: number }>('SELECT COUNT(*)::int AS n FROM t')).rows[0]!.n).toBe(1)
  })

  it('renews the lease at once while fenced writes hold it, however many', async () => {
    const [a, w1, w2] = [await client(), await client(), await client()]
    await takeLease(a, 'a', 60_000)
    await a.query("SET lock_timeout = '500ms'")
    for (const w of [w1, w2]) {
      await w.query('BEGIN')
      await fence(w, 1)
    }
    const at = Date.now()
    expect(await renewLease(a, { epoch: 1, holder: 'a' }, 60_000)).toMatchObject({ renewed: true })
    expect(Date.now() - at).toBeLessThan(400)
    for (const w of [w1, w2]) await w.query('COMMIT')
  })

  it('is not taken while a hub of an older version leads by the session lock; its holder takes that lock, so an older hub follows it', async () => {
    const older = await client('rampdesk-hub-election')
    const [a, b] = [await client(), await client()]
    await older.query('SELECT pg_advisory_lock($1)', [LEADER_LOCK_KEY])
    expect(await takeLease(a, 'a', 60_000)).toEqual({ taken: false, held: null, olderLeader: true })
    await older.query('SELECT pg_advisory_unlock_all()')
    expect(await takeLease(a, 'a', 60_000)).toEqual({ taken: true, epoch: 1 })
    expect(await takeLeaderLock(a)).toBe(true)
    // What an older hub tries every 2 s: it does not lead beside this one.
    expect((await older.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1) AS ok', [LEADER_LOCK_KEY])).rows[0]!.ok).toBe(false)
    // A lock held by a hub of this version (one paused, say) does not stop a takeover once the lease ran out.
    await a.query('UPDATE hub_lease SET deadline = 0')
    expect(await takeLease(b, 'b', 60_000)).toEqual({ taken: true, epoch: 2 })
  })

  it('ends a fenced transaction left idle (its process paused) within the idle bound, freeing the lease row', async () => {
    const [a, b, paused] = [await client(), await client(), await client()]
    await takeLease(a, 'a', 100)
    await paused.query('BEGIN')
    await fence(paused, 1)
    const at = Date.now()
    await new Promise((r) => setTimeout(r, 200))
    // Not held up by the paused transaction for longer than the bound.
    expect(await takeLease(b, 'b', 10_000)).toEqual({ taken: true, epoch: 2 })
    const waited = Date.now() - at
    expect(waited).toBeLessThan(FENCED_IDLE_MS + 2_000)
    await expect(paused.query('SELECT 1')).rejects.toThrow()
  }, 15_000)
})
