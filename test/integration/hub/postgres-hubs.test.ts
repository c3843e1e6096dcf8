// Two hubs on one PostgreSQL database in front of one sandbox, in this process: the hub's own
// tables are shared (an operator added on one works on the other; a revocation from the
// command line is refused by both within about a second), exactly one hub leads (the
// advisory lock), only the leader syncs the history, /readyz and /metrics say which and that
// the store is PostgreSQL, and when the leader's lock connection dies or the leader stops,
// a hub leads again within 15 s and its monitor runs.
import pg from 'pg'
import { request } from 'undici'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Sandbox } from '../../../src/sandbox'
import type { Settings } from '../../../src/shared/ipc/contract'
import { openPgHubStore } from '../../../src/hub/pg/pg-hub-store'
import type { PgElection } from '../../../src/hub/pg/pg-election'
import { PG_SCHEMA_VERSION } from '../../../src/hub/pg/pg-migrations'
import { postgresUnavailable, type PgCluster } from '../../support/postgres-cluster'
import { startHubFixture, startTwoHubs, waitUntil, type HubFixture, type TwoHubs } from './support'

const HISTORY = /merchantHistory/

async function get(f: HubFixture, path: string): Promise<{ status: number; text: string }> {
  const r = await request(`${f.url}${path}`)
  return { status: r.statusCode, text: await r.body.text() }
}
const readyz = async (f: HubFixture) => JSON.parse((await get(f, '/readyz')).text) as { role: string; checks: Record<string, never> }
const leaderGauge = async (f: HubFixture) =>
  Number(
    (await get(f, '/metrics')).text
      .split('\n')
      .find((l) => l.startsWith('rampdesk_hub_leader '))
      ?.split(' ')[1]
  )
const historyCalls = (f: HubFixture) => f.serviceAnswers.filter((a) => HISTORY.test(a.path)).length

describe.skipIf(postgresUnavailable !== null)('two hubs on one PostgreSQL database', () => {
  let cluster: PgCluster
  let url: string
  let sandbox: Sandbox
  let a: HubFixture
  let b: HubFixture
  const hubs = () => [a, b]
  const leaders = () => hubs().filter((f) => f.hub.role.current().role === 'leader')

  let pair: TwoHubs
  beforeAll(async () => {
    pair = await startTwoHubs({ sandbox: { orders: 60, seed: 9 }, recordService: true })
    ;({ cluster, url, sandbox, a, b } = pair)
  })
  afterAll(() => pair?.close())

  it('has exactly one leader, and /readyz and /metrics say which, on a PostgreSQL store', async () => {
    expect(leaders()).toHaveLength(1)
    for (const f of hubs()) {
      const r = await readyz(f)
      expect(r.role).toBe(f.hub.role.current().role)
      expect(r.checks.store).toMatchObject({ ok: true, kind: 'postgres', hubSchema: PG_SCHEMA_VERSION })
      expect(JSON.stringify(r)).toContain(`127.0.0.1:${cluster.port}`)
      expect(await leaderGauge(f)).toBe(f.hub.role.current().role === 'leader' ? 1 : 0)
      expect((await get(f, '/metrics')).text).toMatch(/^rampdesk_hub_info\{[^}]*store="postgres"[^}]*\} 1$/m)
    }
  })

  it('syncs the history on the leader only', async () => {
    const [leader] = leaders()
    const follower = hubs().find((f) => f !== leader)!
    await waitUntil(() => historyCalls(leader!) > 0, 15_000, 'the leader syncing')
    await new Promise((r) => setTimeout(r, 1_500))
    expect(historyCalls(follower)).toBe(0)
  })

  it('shares operators: added on one hub, served by the other; revoked from the command line, refused by both within a second', async () => {
    const token = await a.addOperator('vera', 'viewer')
    await a.addOperator('root', 'admin')
    await waitUntil(async () => (await b.rpc(token, 'team:access')).status === 200, 1_500, 'the other hub knowing vera')
    const stream = b.stream(token)
    await waitUntil(() => stream.states.some((s) => s.connected), 5_000, 'a stream on the other hub')
    const cli = await openPgHubStore({ target: { url }, live: false })
    try {
      await cli.operators.revoke('vera')
    } finally {
      await cli.close()
    }
    const at = Date.now()
    await waitUntil(
      async () => (await a.rpc(token, 'team:access')).status === 401 && (await b.rpc(token, 'team:access')).status === 401,
      3_000
    )
    expect(Date.now() - at).toBeLessThan(1_500)
    await waitUntil(() => stream.states.at(-1)?.connected === false, 3_000, "the other hub closing vera's stream")
    await stream.close()
  })

  it("applies an admin's change of the team's settings on every hub within a second or two, and a hub that starts takes them", async () => {
    const root = await a.addOperator('setter', 'admin')
    await waitUntil(async () => (await b.rpc(root, 'team:access')).status === 200, 3_000, 'the other hub knowing setter')
    await a.call(root, 'settings:update', { historyPollSeconds: 45, tickerPollSeconds: 20, watchPollSeconds: 25 })
    const at = Date.now()
    const polling = (s: Settings) => [s.historyPollSeconds, s.tickerPollSeconds, s.watchPollSeconds]
    await waitUntil(
      async () => polling(await b.call<Settings>(root, 'settings:get')).join() === '45,20,25',
      3_000,
      'the other hub applying them'
    )
    expect(Date.now() - at).toBeLessThan(2_500)
    // A third hub, on a data directory of its own, starts with them.
    const c = await startHubFixture({ sharedSandbox: sandbox, hub: { database: { url } } })
    try {
      await waitUntil(async () => (await c.rpc(root, 'team:access')).status === 200, 3_000, 'the third hub knowing setter')
      expect(polling(await c.call<Settings>(root, 'settings:get'))).toEqual([45, 20, 25])
    } finally {
      await c.close()
    }
  })

  it('elects again within 15 s when the leader loses its lock connection; the old leader steps down at once', async () => {
    const [leader] = leaders()
    const steps: string[] = []
    const off = leader!.hub.role.onChange((s) => steps.push(s.role))
    const pid = (leader!.hub.role as PgElection).backendPid()
    expect(pid).not.toBeNull()
    const admin = new pg.Client({ connectionString: cluster.url() })
    await admin.connect()
    try {
      await admin.query('SELECT pg_terminate_backend($1)', [pid])
    } finally {
      await admin.end()
    }
    const killedAt = Date.now()
    await waitUntil(() => steps[0] === 'follower', 1_000, 'the old leader stepping down')
    await waitUntil(() => leaders().length === 1, 15_000, 'a new leader')
    expect(Date.now() - killedAt).toBeLessThan(15_000)
    off()
  })

  it('the other hub leads within 15 s when the leader stops, and its monitor syncs from there', async () => {
    const [leader] = leaders()
    const other = hubs().find((f) => f !== leader)!
    const before = historyCalls(other)
    await leader!.stopHub()
    const stoppedAt = Date.now()
    await waitUntil(() => other.hub.role.current().role === 'leader', 15_000, 'the other hub leading')
    const took = Date.now() - stoppedAt
    expect(took).toBeLessThan(15_000)
    expect((await readyz(other)).role).toBe('leader')
    expect(await leaderGauge(other)).toBe(1)
    await waitUntil(() => historyCalls(other) > before, 15_000, 'the new leader syncing')
    await leader!.startHub()
    expect(leader!.hub.role.current().role).toBe('follower')
    console.log(`leadership moved ${took} ms after the leader stopped`)
  })
})
