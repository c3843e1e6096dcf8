// The reads the leader fetches for every hub (pg-shared-reads.ts), on a throwaway
// PostgreSQL database and a real API client against the sandbox: a follower is served the
// leader's fresh answer without asking, the service's refusal comes back to the follower
// as the same error, and with no leader answering the follower says so within its wait.
import type pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ApiClient } from '../../../../src/main/api/client'
import { ApiError } from '../../../../src/shared/api/errors'
import { openPool } from '../../../../src/hub/pg/pg-connection'
import { migrate } from '../../../../src/hub/pg/pg-migrations'
import { PgSharedReads } from '../../../../src/hub/pg/pg-shared-reads'
import { unleasedRole, type HubRole } from '../../../../src/hub/hub-role'
import { startSandbox, type Sandbox } from '../../../../src/sandbox'
import { postgresUnavailable, startPostgres, type PgCluster } from '../../../support/postgres-cluster'

describe.skipIf(postgresUnavailable !== null)('PgSharedReads', () => {
  let cluster: PgCluster
  let pool: pg.Pool
  let sandbox: Sandbox
  let client: ApiClient
  const answers: Array<string | null> = []
  const reads = (role: HubRole, waitMs = 5_000) =>
    new PgSharedReads({
      pool,
      role: { current: () => unleasedRole(role, 0, role) },
      freshMs: () => 60_000,
      onError: (m) => {
        throw new Error(m)
      },
      onLeaderAnswer: (_name, failure) => void answers.push(failure),
      waitMs
    })
  beforeAll(async () => {
    cluster = await startPostgres()
    pool = openPool({ url: await cluster.createDatabase() })
    await migrate(pool)
    sandbox = await startSandbox({ orders: 0, autoGenerate: false })
    client = new ApiClient({
      profileId: 'leader',
      baseUrl: sandbox.url,
      serviceName: sandbox.serviceName,
      apiKey: sandbox.apiKey,
      getSecret: async () => sandbox.apiSecret,
      sharedReads: reads('leader')
    })
  })
  afterAll(async () => {
    await client?.close()
    await sandbox?.close()
    await pool?.end()
    await cluster?.stop()
  })

  it("serves a follower the leader's fresh answer, without asking", async () => {
    const sent = await client.priceTicker({ type: 3, fiatType: 1 })
    const follower = reads('follower', 500)
    await expect.poll(async () => follower.read('priceTicker', { type: 3, fiatType: 1 })).toEqual(sent)
    expect(answers.at(-1)).toBeNull()
  })

  it("hands a follower the service's refusal of the leader's fetch as the same error", async () => {
    sandbox.control.setFault('allGasFee', { errorRate: 1, errorStatus: 400 })
    const leader = reads('leader')
    leader.serve(client)
    const follower = reads('follower')
    const asked = follower.read('allGasFee', {})
    await new Promise((r) => setTimeout(r, 300))
    await leader.serveAsked()
    const e = (await asked.catch((x: unknown) => x)) as ApiError
    expect(e).toBeInstanceOf(ApiError)
    expect(e.httpStatus).toBe(400)
    // A 4xx is the service answering: /readyz's upstream stays ok.
    expect(answers.at(-1)).toBeNull()
    sandbox.control.clearFaults()
  })

  it('says the leading hub did not answer when no leader fetches it within the wait', async () => {
    const started = Date.now()
    const e = (await reads('follower', 600)
      .read('limits', { fiatType: 7 })
      .catch((x: unknown) => x)) as ApiError
    expect(e).toBeInstanceOf(ApiError)
    expect(e.message).toMatch(/^the leading hub did not fetch limits for this hub within 1 s/)
    expect(Date.now() - started).toBeLessThan(2_000)
    expect(answers.at(-1)).toMatch(/the leading hub did not answer/)
  })

  it('says once that the leader cannot share its answers while the database refuses them, and once that it answers again', async () => {
    const url = await cluster.createDatabase()
    const bare = openPool({ url })
    const said: string[] = []
    const leader = new PgSharedReads({
      pool: bare,
      role: { current: () => unleasedRole('leader', 0, 'leader') },
      freshMs: () => 60_000,
      onError: (m) => void said.push(m)
    })
    try {
      leader.serve(client)
      // Not migrated yet: there is no shared_reads table to write to or read the asks from.
      for (let i = 0; i < 3; i++) {
        leader.publish('priceTicker', { type: 3, fiatType: 1 }, { n: i })
        await leader.answerAsks()
      }
      await leader.idle()
      const missing = 'relation "shared_reads" does not exist; retrying'
      expect(said).toEqual([
        `could not share the answer of priceTicker with the other hubs: ${missing}`,
        `could not read the other hubs' asks: ${missing}`
      ])
      await migrate(bare)
      leader.publish('priceTicker', { type: 3, fiatType: 1 }, { n: 3 })
      await leader.answerAsks()
      expect(said.slice(2)).toEqual([
        'could not share the answer of priceTicker with the other hubs: the database answers again',
        "could not read the other hubs' asks: the database answers again"
      ])
      expect((await bare.query<{ answer: string }>('SELECT answer FROM shared_reads')).rows.map((r) => r.answer)).toEqual(['{"n":3}'])
    } finally {
      await bare.end()
    }
  })
})
