// Whether the team's copy holds every order, on two hubs on one PostgreSQL database: only the
// leader syncs, probes and audits, so a desktop on the follower must be shown the leader's
// scopes and gaps, not the follower's idle monitor (no scope, no gap: a false "all here").
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Coverage } from '../../../src/shared/ipc/contract'
import { startSandbox, type Sandbox } from '../../../src/sandbox'
import { postgresUnavailable, startPostgres, type PgCluster } from '../../support/postgres-cluster'
import { startHubFixture, waitUntil, type HubFixture } from './support'

describe.skipIf(postgresUnavailable !== null)("a follower hub shows the leader's coverage", () => {
  let cluster: PgCluster
  let sandbox: Sandbox
  let a: HubFixture
  let b: HubFixture
  const leader = () => [a, b].find((f) => f.hub.role.current().role === 'leader')!
  const follower = () => [a, b].find((f) => f.hub.role.current().role === 'follower')!

  beforeAll(async () => {
    cluster = await startPostgres()
    const url = await cluster.createDatabase()
    sandbox = await startSandbox({ orders: 60, seed: 3, autoGenerate: false })
    a = await startHubFixture({ sharedSandbox: sandbox, hub: { database: { url } } })
    b = await startHubFixture({ sharedSandbox: sandbox, hub: { database: { url } } })
  })
  afterAll(async () => {
    await a?.close()
    await b?.close()
    await sandbox?.close()
    await cluster?.stop()
  })

  it("answers sync:coverage with the leader's scopes and gaps, and streams its changes", async () => {
    const viewer = await a.addOperator('vic', 'viewer')
    await waitUntil(async () => (await follower().rpc(viewer, 'team:access')).status === 200, 3_000, 'the viewer on both hubs')
    await leader().hub.session().monitor.syncNow()
    const scopesOf = (c: Coverage) => c.scopes.map((s) => `${s.type}:${s.fiatType}:${s.probe}`).sort()
    await waitUntil(
      () =>
        leader()
          .hub.session()
          .monitor.coverage()
          .scopes.some((s) => s.probe === 'active'),
      10_000,
      'the leader found scopes'
    )
    // The follower's own monitor never ran: it knows no scope at all.
    expect(
      follower()
        .hub.session()
        .monitor.coverage()
        .scopes.filter((s) => s.probe === 'active')
    ).toEqual([])
    await waitUntil(
      async () => {
        const onFollower = await follower().call<Coverage>(viewer, 'sync:coverage')
        return JSON.stringify(scopesOf(onFollower)) === JSON.stringify(scopesOf(leader().hub.session().monitor.coverage()))
      },
      5_000,
      "the follower answering with the leader's scopes"
    )
    // A change at the leader (a completeness check) reaches a desktop on the follower as coverage:changed.
    const stream = follower().stream(viewer)
    await waitUntil(() => stream.states.some((x) => x.connected), 5_000, 'a stream on the follower')
    const before = stream.events.filter((e) => e.event === 'coverage:changed').length
    void leader().hub.session().monitor.auditNow()
    await waitUntil(
      () =>
        stream.events.filter((e) => e.event === 'coverage:changed').length > before &&
        scopesOf(stream.events.filter((e) => e.event === 'coverage:changed').at(-1)!.payload as Coverage).length > 0,
      10_000,
      "the leader's coverage streamed on the follower"
    )
    await stream.close()
  }, 60_000)
})
