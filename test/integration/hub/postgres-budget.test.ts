// One budget for two hubs on one PostgreSQL database, counted at the sandbox: both hubs ask
// for allGasFee (documented: 10 a minute) far more often than that at once; the service is
// sent no more than 10 between them in the minute, and answers no 429.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { endpoints } from '../../../src/shared/api/endpoints'
import { startSandbox, type Sandbox } from '../../../src/sandbox'
import { postgresUnavailable, startPostgres, type PgCluster } from '../../support/postgres-cluster'
import { startHubFixture, type HubFixture } from './support'

const ENDPOINT = 'allGasFee'
const LIMIT = endpoints[ENDPOINT].rateLimitPerMinute!

describe.skipIf(postgresUnavailable !== null)('one request budget for two hubs', () => {
  let cluster: PgCluster
  let sandbox: Sandbox
  const hubs: HubFixture[] = []

  beforeAll(async () => {
    cluster = await startPostgres()
    const url = await cluster.createDatabase()
    sandbox = await startSandbox({ orders: 20, seed: 3, autoGenerate: false })
    for (let i = 0; i < 2; i++)
      hubs.push(await startHubFixture({ sharedSandbox: sandbox, recordService: true, hub: { database: { url } } }))
  })
  afterAll(async () => {
    for (const f of hubs) await f.close()
    await sandbox?.close()
    await cluster?.stop()
  })

  it(`sends no more than ${LIMIT} ${ENDPOINT} requests a minute between them, and earns no 429`, async () => {
    const start = Date.now()
    const results = await Promise.allSettled(
      hubs.flatMap((f) =>
        Array.from({ length: LIMIT }, () => f.hub.session().client.allGasFee({ priority: 'interactive', maxWaitMs: 3_000 }))
      )
    )
    expect(Date.now() - start).toBeLessThan(55_000)
    const sent = hubs.flatMap((f) => f.serviceAnswers.filter((a) => a.path.endsWith(endpoints[ENDPOINT].path)))
    const refusedHere = results.filter((r) => r.status === 'rejected')
    console.log(
      `${results.length} asked, ${sent.length} sent to the service (${hubs.map((f) => f.serviceAnswers.filter((a) => a.path.endsWith(endpoints[ENDPOINT].path)).length).join(' + ')}), ${refusedHere.length} refused by the shared budget`
    )
    expect(sent.length).toBeGreaterThan(0)
    expect(sent.length).toBeLessThanOrEqual(LIMIT)
    expect(sent.filter((a) => a.status === 429)).toEqual([])
    expect(hubs.flatMap((f) => f.serviceAnswers).filter((a) => a.status === 429)).toEqual([])
    for (const r of refusedHere) expect((r as PromiseRejectedResult).reason).toMatchObject({ kind: 'rate_limited', origin: 'budget' })
  })
})
