// One request budget for every hub on a PostgreSQL database: two hubs' RateBudgets, each
// asking for far more than the limit at once, are granted no more than the limit in any
// window between them; a waiting request goes when a send leaves the window, and an
// interactive one that cannot fit in its wait is refused at once.
import type pg from 'pg'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { RateBudget } from '../../../../src/main/api/rate-budget'
import { openPool } from '../../../../src/hub/pg/pg-connection'
import { migrate } from '../../../../src/hub/pg/pg-migrations'
import { PgSharedBudget } from '../../../../src/hub/pg/pg-shared-budget'
import { postgresUnavailable, startPostgres, type PgCluster } from '../../../support/postgres-cluster'

const WINDOW = 2_000
const LIMIT = 10 // priceTicker's documented limit

/** The most grants in any window of WINDOW ms. */
function busiestWindow(times: number[]): number {
  const t = [...times].sort((a, b) => a - b)
  let most = 0
  for (let i = 0, j = 0; j < t.length; j++) {
    while (t[j]! - t[i]! >= WINDOW) i++
    most = Math.max(most, j - i + 1)
  }
  return most
}

describe.skipIf(postgresUnavailable !== null)('PgSharedBudget', () => {
  let cluster: PgCluster
  let pools: pg.Pool[] = []
  let url: string
  beforeAll(async () => {
    cluster = await startPostgres()
  })
  afterAll(async () => {
    for (const p of pools) await p.end()
    await cluster?.stop()
  })
  beforeEach(async () => {
    for (const p of pools) await p.end()
    pools = []
    url = await cluster.createDatabase()
    const p = openPool({ url })
    pools.push(p)
    await migrate(p)
  })
  const hubBudget = () => {
    const pool = openPool({ url })
    pools.push(pool)
    const b = new RateBudget({ profileId: 'hub', windowMs: WINDOW })
    b.share(new PgSharedBudget(pool))
    return b
  }

  it('two hubs hammering one endpoint get no more than its limit in any window between them', async () => {
    const hubs = [hubBudget(), hubBudget()]
    const grants: number[] = []
    const start = Date.now()
    await Promise.all(
      hubs.flatMap((b) =>
        Array.from({ length: 2 * LIMIT }, () => b.acquire('priceTicker', { priority: 'background' }).then(() => grants.push(Date.now())))
      )
    )
    const took = Date.now() - start
    expect(grants).toHaveLength(4 * LIMIT)
    expect(busiestWindow(grants)).toBeLessThanOrEqual(LIMIT)
    // Forty sends at ten a window take three windows and more, whichever hub sends them.
    expect(took).toBeGreaterThanOrEqual(3 * WINDOW - 100)
  }, 30_000)

  it('refuses an interactive request that cannot fit within its wait, naming when a slot frees', async () => {
    const [a, b] = [hubBudget(), hubBudget()]
    for (let i = 0; i < LIMIT; i++) await a.acquire('priceTicker', { priority: 'interactive' })
    await expect(b.acquire('priceTicker', { priority: 'interactive', maxWaitMs: 200 })).rejects.toMatchObject({
      kind: 'rate_limited',
      message: expect.stringMatching(/^budget exhausted for priceTicker, next slot at /)
    })
  })

  it('holds requests while the shared budget cannot be reached, and says why to one that cannot wait', async () => {
    const b = hubBudget()
    await pools.at(-1)!.end()
    pools.pop()
    await expect(b.acquire('priceTicker', { priority: 'interactive', maxWaitMs: 500 })).rejects.toMatchObject({
      kind: 'rate_limited',
      message: expect.stringMatching(/^the request budget shared with the other hubs could not be reached/)
    })
  })
})
