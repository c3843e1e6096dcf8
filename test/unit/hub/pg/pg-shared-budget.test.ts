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
import { takeLease } from '../../../../src/hub/pg/pg-lease'
import type { RoleState } from '../../../../src/hub/hub-role'
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

// What only the leader sends is claimed under its lease: a hub whose lease another took over
// is refused by the database even while it still believes it leads (a process resumed
// after a pause, before it has noticed), and nothing is counted for it.
describe.skipIf(postgresUnavailable !== null)('PgSharedBudget fenced by the lease', () => {
  let cluster: PgCluster
  let pool: pg.Pool
  beforeAll(async () => {
    cluster = await startPostgres()
    pool = openPool({ url: await cluster.createDatabase() })
    await migrate(pool)
  })
  afterAll(async () => {
    await pool?.end()
    await cluster?.stop()
  })
  const role = (s: RoleState) => ({ current: () => s })
  const leaderUnder = (epoch: number): RoleState => ({ role: 'leader', since: 0, detail: 'test', lease: { epoch, holder: `hub ${epoch}` } })

  it('refuses a leader-only send under an epoch that is no longer the lease’s, and counts the current leader’s under its epoch', async () => {
    const c = await pool.connect()
    try {
      expect(await takeLease(c, 'hub 1', 60_000)).toMatchObject({ taken: true, epoch: 1 })
      await c.query('UPDATE hub_lease SET deadline = 0')
      expect(await takeLease(c, 'hub 2', 60_000)).toMatchObject({ taken: true, epoch: 2 })
    } finally {
      c.release()
    }
    const stale = new PgSharedBudget(pool)
    stale.fenceBy(role(leaderUnder(1)))
    const current = new PgSharedBudget(pool)
    current.fenceBy(role(leaderUnder(2)))
    const refused = await stale.claim('orderStatus', 100, 60_000)
    expect(refused).toMatchObject({ ok: false, refused: expect.stringContaining('epoch 1') })
    // Through a RateBudget: aborted at once, nothing to retry.
    const budget = new RateBudget({ profileId: 'hub' })
    budget.share(stale)
    await expect(budget.acquire('merchantHistory')).rejects.toMatchObject({ kind: 'aborted', retryable: false })
    expect(await current.claim('orderStatus', 100, 60_000)).toEqual({ ok: true })
    const rows = await pool.query<{ endpoint: string; epoch: number | null }>('SELECT endpoint, epoch FROM budget_sends ORDER BY id')
    expect(rows.rows).toEqual([{ endpoint: 'orderStatus', epoch: 2 }])
  })

  it('lets a follower send what any hub sends (a quote) and refuses it what only the leader sends', async () => {
    const follower = new PgSharedBudget(pool)
    follower.fenceBy(role({ role: 'follower', since: 0, detail: 'another hub leads' }))
    expect(await follower.claim('quotes', 100, 60_000)).toEqual({ ok: true })
    for (const e of ['merchantHistory', 'orderStatus', 'priceTicker', 'allConfigMapping'] as const)
      expect(await follower.claim(e, 100, 60_000)).toMatchObject({ ok: false, refused: expect.stringContaining('follows') })
  })
})
