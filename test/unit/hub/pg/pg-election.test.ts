// The election by lease, on a real PostgreSQL: a leader whose own clock says its lease ran
// out (a process that was paused and has just resumed) follows from the first look at its
// role, before any timer runs, and says so in one line; a leader whose renewal is refused
// steps down within a renewal; a hub of an older version holding the session lock keeps
// every hub of this version from leading beside it; a hub that stops hands the lease on at once.
import pg from 'pg'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { LEADER_LOCK_KEY } from '../../../../src/hub/pg/pg-lease'
import { openPool } from '../../../../src/hub/pg/pg-connection'
import { startPgElection, type PgElection } from '../../../../src/hub/pg/pg-election'
import { migrate } from '../../../../src/hub/pg/pg-migrations'
import { postgresUnavailable, startPostgres, type PgCluster } from '../../../support/postgres-cluster'
import { waitUntil } from '../../../integration/hub/support'

describe.skipIf(postgresUnavailable !== null)('startPgElection (the lease)', () => {
  let cluster: PgCluster
  let url: string
  const elections: PgElection[] = []
  beforeAll(async () => {
    cluster = await startPostgres()
  })
  afterAll(async () => {
    await cluster?.stop()
  })
  afterEach(async () => {
    for (const e of elections.splice(0)) await e.close()
  })
  async function fresh(): Promise<void> {
    url = await cluster.createDatabase()
    const pool = openPool({ url })
    await migrate(pool)
    await pool.end()
  }
  async function elect(o: { monotonic?: () => number; lines?: string[] } = {}): Promise<PgElection> {
    const e = await startPgElection({
      target: { url },
      ttlMs: 3_000,
      renewMs: 300,
      tryMs: 200,
      monotonic: o.monotonic,
      log: { info: (m) => o.lines?.push(m), warn: (m) => o.lines?.push(m) }
    })
    elections.push(e)
    return e
  }

  it('a leader whose lease ran out by its own clock follows at the first look, says so once, and leads again only under a new epoch', async () => {
    await fresh()
    let skipped = 0
    const lines: string[] = []
    const a = await elect({ monotonic: () => performance.now() + skipped, lines })
    const first = a.current()
    expect(first).toMatchObject({ role: 'leader', lease: { epoch: 1 } })
    const changes: string[] = []
    a.onChange((s) => changes.push(s.role))
    // What a resumed process sees: its clock jumped past the lease's end.
    skipped = 30_000
    expect(a.current().role).toBe('follower')
    expect(changes).toEqual(['follower'])
    expect(lines.filter((l) => l.startsWith('this hub follows:'))).toEqual([
      expect.stringMatching(/ran out by its own clock: no renewal succeeded for 3\d\.\d s/)
    ])
    // Nobody else competes: it takes the lease again, as a new term.
    await waitUntil(() => a.current().role === 'leader', 3_000, 'leading again')
    expect(a.current()).toMatchObject({ role: 'leader', lease: { epoch: 2 } })
  })

  it('a leader whose lease another hub took steps down at its next renewal; the other leads under the next epoch', async () => {
    await fresh()
    const lines: string[] = []
    const a = await elect({ lines })
    const b = await elect()
    expect([a.current().role, b.current().role]).toEqual(['leader', 'follower'])
    // The lease runs out on the database while a still believes it holds it (its renewals are not answered in time).
    const pool = openPool({ url })
    try {
      await pool.query('UPDATE hub_lease SET deadline = 0')
    } finally {
      await pool.end()
    }
    await waitUntil(() => b.current().role === 'leader', 3_000, 'b leading')
    await waitUntil(() => a.current().role === 'follower', 1_000, 'a following')
    expect(b.current()).toMatchObject({ lease: { epoch: 2 } })
    expect(lines.at(-1)).toMatch(/^this hub follows: its lease \(epoch 1\) could not be renewed: .* holds the lease \(epoch 2\)/)
  })

  it('a leader gives its lease up when a hub of an older version holds the session lock (a rolling upgrade)', async () => {
    await fresh()
    const connect = async (name: string) => {
      const c = new pg.Client({ connectionString: url, application_name: name })
      c.on('error', () => undefined)
      await c.connect()
      return c
    }
    // The session lock held by a hub of this version (paused, say), then handed to an older hub waiting for it.
    const paused = await connect('rampdesk-hub-lease')
    const older = await connect('rampdesk-hub-election')
    try {
      await paused.query('SELECT pg_advisory_lock($1)', [LEADER_LOCK_KEY])
      const lines: string[] = []
      const a = await elect({ lines })
      expect(a.current().role).toBe('leader')
      const waiting = older.query('SELECT pg_advisory_lock($1)', [LEADER_LOCK_KEY])
      await new Promise((r) => setTimeout(r, 100))
      await paused.query('SELECT pg_advisory_unlock_all()')
      await waiting
      await waitUntil(() => a.current().role === 'follower', 2_000, 'a giving up its lease')
      expect(lines.at(-1)).toMatch(/^this hub follows: a hub of an older version took the leader's session lock/)
      await new Promise((r) => setTimeout(r, 500))
      expect(a.current()).toMatchObject({ role: 'follower', detail: expect.stringMatching(/older version leads/) })
    } finally {
      await paused.end()
      await older.end()
    }
  })

  it('a leader that stops hands the lease on at once', async () => {
    await fresh()
    const a = await elect()
    const b = await elect()
    expect(a.current().role).toBe('leader')
    const at = Date.now()
    await a.close()
    await waitUntil(() => b.current().role === 'leader', 2_000, 'b leading')
    expect(Date.now() - at).toBeLessThan(1_000)
  })
})
