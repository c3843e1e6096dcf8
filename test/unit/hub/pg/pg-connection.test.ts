// The hub's connections to PostgreSQL when the server ends them: a connection the server
// terminates (a restart, a shutdown, pg_terminate_backend) while a caller holds it and is not
// listening must not end the hub. This happens in real life when the pool hands a connection
// over in the same read that carries the server's "terminating connection": the caller starts
// listening only after that read.
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { inTransaction, openPool } from '../../../../src/hub/pg/pg-connection'
import { postgresUnavailable, startPostgres, type PgCluster } from '../../../support/postgres-cluster'
import { until } from '../../../support/until'

describe.skipIf(postgresUnavailable !== null)('connections the server ends', () => {
  let cluster: PgCluster
  let url: string
  beforeAll(async () => {
    cluster = await startPostgres()
    url = await cluster.createDatabase()
  }, 60_000)
  afterAll(async () => {
    await cluster?.stop()
  })

  async function terminate(pid: number): Promise<void> {
    const admin = new pg.Client({ connectionString: url })
    await admin.connect()
    try {
      await admin.query('SELECT pg_terminate_backend($1)', [pid])
    } finally {
      await admin.end()
    }
  }

  it('a checked-out connection ended by the server while nobody listens leaves the process running and the pool serving', async () => {
    const pool = openPool({ url })
    try {
      const c = await pool.connect()
      const pid = (await c.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid
      await terminate(pid)
      // Without a listener on the connection, its error event would be thrown out of the
      // socket's read: an uncaught exception, which fails this run.
      await until(() => (c as unknown as { _queryable: boolean })._queryable === false, 'the connection to see its end', 10_000)
      c.release(true)
      expect((await pool.query<{ one: number }>('SELECT 1 AS one')).rows[0]!.one).toBe(1)
    } finally {
      await pool.end()
    }
  })

  it('a transaction whose connection the server ends fails, and the next one gets a working connection', async () => {
    const pool = openPool({ url }, 'rampdesk-test', 1)
    try {
      await expect(
        inTransaction(pool, async (c) => {
          const pid = (await c.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid
          await terminate(pid)
          await until(() => (c as unknown as { _queryable: boolean })._queryable === false, 'the connection to see its end', 10_000)
          await c.query('SELECT 1')
        })
      ).rejects.toThrow()
      const out = await inTransaction(pool, async (c) => (await c.query<{ one: number }>('SELECT 1 AS one')).rows[0]!.one)
      expect(out).toBe(1)
    } finally {
      await pool.end()
    }
  })
})
