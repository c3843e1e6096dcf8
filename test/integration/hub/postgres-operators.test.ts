// Operators on PostgreSQL changed from two hubs at once: the advisory lock around adds and
// revocations means two hubs revoking one each of the last two admins cannot both succeed,
// and a name cannot be added twice, whatever the timing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type pg from 'pg'
import { openPool } from '../../../src/hub/pg/pg-connection'
import { migrate } from '../../../src/hub/pg/pg-migrations'
import { PgOperators } from '../../../src/hub/pg/pg-operators'
import { postgresUnavailable, startPostgres, type PgCluster } from '../../support/postgres-cluster'

const ROUNDS = 25

describe.skipIf(postgresUnavailable !== null)('operators changed from two hubs at once on one PostgreSQL database', () => {
  let cluster: PgCluster
  let pools: pg.Pool[] = []
  let x: PgOperators
  let y: PgOperators

  beforeAll(async () => {
    cluster = await startPostgres()
    const url = await cluster.createDatabase()
    pools = [openPool({ url }, 'hub-x'), openPool({ url }, 'hub-y')]
    await migrate(pools[0]!)
    x = new PgOperators(pools[0]!)
    y = new PgOperators(pools[1]!)
  })
  afterAll(async () => {
    for (const p of pools) await p.end()
    await cluster?.stop()
  })

  it(`never lets two hubs revoke the last two admins together (${ROUNDS} rounds)`, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      await x.add(`ada${round}`, 'admin')
      await y.add(`bo${round}`, 'admin')
      const outcomes = await Promise.allSettled([x.revoke(`ada${round}`), y.revoke(`bo${round}`)])
      const refused = outcomes.filter((o) => o.status === 'rejected').map((o) => (o as PromiseRejectedResult).reason as { code?: string })
      expect(refused, `round ${round}`).toHaveLength(1)
      expect(refused[0]?.code).toBe('last_admin')
      const admins = (await x.list()).filter((o) => o.role === 'admin')
      expect(admins).toHaveLength(1)
      // Leave no admin for the next round.
      await x.revoke(admins[0]!.name, { allowLastAdmin: true })
    }
  })

  it(`adds a name once when two hubs add it together (${ROUNDS} rounds)`, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const outcomes = await Promise.allSettled([x.add(`cy${round}`, 'viewer'), y.add(`cy${round}`, 'viewer')])
      expect(
        outcomes.filter((o) => o.status === 'fulfilled'),
        `round ${round}`
      ).toHaveLength(1)
      // The other is told the name is taken, as a lone add would be, not a database error.
      const refused = outcomes.find((o) => o.status === 'rejected') as PromiseRejectedResult
      expect((refused.reason as { code?: string }).code, String(refused.reason)).toBe('exists')
      expect((await y.list()).filter((o) => o.name === `cy${round}`)).toHaveLength(1)
    }
  })
})
