// Tokens that end, on a real hub over HTTP, on hub.db and on PostgreSQL: a token past its end
// is refused as expired and one that `operator rotate` replaced as replaced, each with its
// words and moment (not as "unknown or revoked"), the new token works at once, and a desktop
// on the refused token says so in those words. A service account's actions are audited as such.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openPgHubStore } from '../../../src/hub/pg/pg-hub-store'
import { openSqliteHubStore } from '../../../src/hub/sqlite-hub-store'
import type { HubStore } from '../../../src/hub/hub-store'
import { problemNotice, serviceProblem } from '../../../src/renderer/src/lib/service-state'
import { postgresUnavailable, startPostgres, type PgCluster } from '../../support/postgres-cluster'
import { startHubFixture, startTeamDesktop, waitUntil, type HubFixture } from './support'

const EXPIRED = /^this token expired on \d{1,2} \w{3} \d{4} \d\d:\d\d UTC; ask your team lead for a new one$/
const REPLACED = /^this token was replaced on \d{1,2} \w{3} \d{4} \d\d:\d\d UTC; ask for the new one$/

/** The store the command line opens beside the running hub (another process, in effect). */
type OpenCli = () => Promise<HubStore>

function expiryTests(name: string, setup: () => { f: () => HubFixture; cli: OpenCli }) {
  describe(name, () => {
    const s = setup()
    const refusedWith = async (token: string, re: RegExp, reason: string) => {
      const a = await s.f().rpc(token, 'team:access')
      expect(a.status, a.text).toBe(401)
      expect(a.json?.error).toMatchObject({ kind: 'unauthorized', reason })
      expect(a.json?.error?.message).toMatch(re)
    }

    it('refuses a token past its end as expired, with the moment it ended', async () => {
      const cli = await s.cli()
      let token: string
      try {
        token = (await cli.operators.add('shortlived', 'viewer', { lifetimeMs: 1_500 })).token
      } finally {
        await cli.close()
      }
      await waitUntil(async () => (await s.f().rpc(token, 'team:access')).status === 200, 3_000, 'the hub knowing shortlived')
      await waitUntil(async () => (await s.f().rpc(token, 'team:access')).status === 401, 5_000, 'the token ending')
      await refusedWith(token, EXPIRED, 'expired')
    })

    it('refuses a rotated token at once as replaced, and takes the new one', async () => {
      const old = await s.f().addOperator('rota', 'operator')
      expect((await s.f().rpc(old, 'team:access')).status).toBe(200)
      const cli = await s.cli()
      let fresh: string
      try {
        fresh = (await cli.operators.rotate('rota')).token
      } finally {
        await cli.close()
      }
      await waitUntil(async () => (await s.f().rpc(old, 'team:access')).status === 401, 2_000, 'the old token refused')
      await refusedWith(old, REPLACED, 'replaced')
      await waitUntil(async () => (await s.f().rpc(fresh, 'team:access')).status === 200, 2_000, 'the new token taken')
      // An unknown token is still only unknown: nothing is said of tokens it does not hold.
      const unknown = await s.f().rpc('rdh_' + 'A'.repeat(43), 'team:access')
      expect(unknown.json?.error?.message).toBe('this operator token is unknown or was revoked')
    })

    it("names a service account's actions as such in the audit", async () => {
      const token = (await s.f().hub.operators.add('deploybot', 'admin', { account: 'service' })).token
      await waitUntil(async () => (await s.f().rpc(token, 'team:access')).status === 200, 3_000, 'the hub knowing deploybot')
      await s.f().call(token, 'settings:update', { historyPollSeconds: 50 })
      await waitUntil(
        async () => (await s.f().hub.audit.list(20)).some((e) => e.operator === 'deploybot' && e.action === 'settings:update'),
        5_000,
        'the audit entry'
      )
      const entry = (await s.f().hub.audit.list(20)).find((e) => e.operator === 'deploybot' && e.action === 'settings:update')!
      expect(entry.detail).toMatchObject({ account: 'service' })
    })
  })
}

describe('tokens that end on a hub on hub.db', () => {
  let f: HubFixture
  beforeAll(async () => {
    f = await startHubFixture({ sandbox: { orders: 10 } })
  })
  afterAll(() => f?.close())

  expiryTests('hub.db', () => ({ f: () => f, cli: async () => openSqliteHubStore(f.dataDir) }))

  it('shows a desktop on a replaced token the hub’s words, and its team line says replaced', async () => {
    const old = await f.addOperator('desk', 'viewer')
    const desk = await startTeamDesktop(f.url, old, 'Team (desk)')
    try {
      await waitUntil(() => desk.services.teamSession()?.connection.connected === true, 10_000, 'desk connected')
      await desk.call('sync:state', {})
      await f.hub.operators.rotate('desk')
      await waitUntil(() => desk.services.teamSession()?.connection.refused === true, 10_000, 'the hub refusing desk')
      const access = await desk.call('team:access', {})
      expect(access.team).toMatchObject({ line: 'revoked', refusal: 'replaced' })
      const state = await desk.waitFor('sync:state', (s) => s.lastError?.kind === 'access_revoked')
      expect(state.lastError).toMatchObject({ reason: 'replaced' })
      const notice = problemNotice(serviceProblem({ sync: [state], access, configWaitingSince: null, now: Date.now() })!)
      expect(notice.title).toBe('Your operator token was replaced')
      expect(notice.text).toMatch(
        /^This token was replaced on .* UTC; ask for the new one\. Store the new operator token in Settings → Credentials\.$/
      )
      const tray = await desk.call('tray:state', {})
      expect(tray.headline).toBe('Your token was replaced: ask for the new one')
    } finally {
      await desk.close()
    }
  })
})

describe.skipIf(postgresUnavailable !== null)('tokens that end on a hub on PostgreSQL', () => {
  let cluster: PgCluster
  let url: string
  let f: HubFixture
  beforeAll(async () => {
    cluster = await startPostgres()
    url = await cluster.createDatabase()
    f = await startHubFixture({ sandbox: { orders: 10 }, hub: { database: { url } } })
  })
  afterAll(async () => {
    await f?.close()
    await cluster?.stop()
  })

  expiryTests('PostgreSQL', () => ({ f: () => f, cli: () => openPgHubStore({ target: { url }, live: false }) }))
})
