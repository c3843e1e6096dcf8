// Whether the team's copy holds every order, on two hubs on one PostgreSQL database: only the
// leader syncs, probes and audits, so a desktop on the follower must be shown the leader's
// scopes and gaps, not the follower's idle monitor (no scope, no gap: a false "all here").
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Coverage } from '../../../src/shared/ipc/contract'
import { unleasedRole, type HubRole } from '../../../src/hub/hub-role'
import { DB_NOW_MS, openPool } from '../../../src/hub/pg/pg-connection'
import { syncState } from '../../support/sync-state'
import { COVERAGE_TIMING, PgLeaderCoverage } from '../../../src/hub/pg/pg-leader-coverage'
import { migrate } from '../../../src/hub/pg/pg-migrations'
import { postgresUnavailable } from '../../support/postgres-cluster'
import { startTwoHubs, waitUntil, type TwoHubs } from './support'

const NOT_KNOWN = 'whether every order is here is not known'

describe.skipIf(postgresUnavailable !== null)("a follower hub shows the leader's coverage", () => {
  let hubs: TwoHubs
  const leader = () => hubs.leader()
  const follower = () => hubs.follower()

  beforeAll(async () => {
    hubs = await startTwoHubs({ sandbox: { orders: 60, seed: 3 } })
  })
  afterAll(() => hubs?.close())

  it("answers sync:coverage with the leader's scopes and gaps, and streams its changes", async () => {
    const viewer = await hubs.a.addOperator('vic', 'viewer')
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

  it("says whether every order is here is not known when the leader's row is missing or old by the database's clock; a quiet leader vouches for it", async () => {
    const url = await hubs.cluster.createDatabase()
    const pool = openPool({ url })
    await migrate(pool)
    // A heartbeat quick enough to watch; the bound is the hubs' own (the row is aged below rather than waited for).
    const timing = { readEveryMs: 50, writeAtMostMs: 20, heartbeatMs: 200 }
    const warnings: string[] = []
    const made: PgLeaderCoverage[] = []
    const coverage = (role: HubRole, own: Coverage | null, onLeaderCoverage: (c: Coverage) => void = () => undefined) => {
      const c = new PgLeaderCoverage({
        pool,
        target: { url },
        role: { current: () => unleasedRole(role, 0, role) },
        own: () => own ?? raise('a follower never shows its own coverage'),
        freshnessMinutes: () => 10,
        onLeaderCoverage,
        onError: (m) => void warnings.push(m),
        timing
      })
      made.push(c)
      c.start()
      return c
    }
    const row = async () =>
      (await pool.query<{ version: number; written_at: number }>('SELECT version, written_at FROM leader_coverage')).rows[0]!
    try {
      const told: Coverage[] = []
      const onFollower = coverage('follower', null, (c) => void told.push(c))
      // No leader has written: not "all here" (the follower's own idle monitor), but not known.
      await waitUntil(() => told.length === 1, 3_000, 'the follower telling its desktops')
      expect(onFollower.current()!.gaps.map((g) => g.text)).toEqual([
        `The leading hub has not reported its coverage to this hub yet; ${NOT_KNOWN}`
      ])
      const own = leader().hub.session().monitor.coverage()
      const onLeader = coverage('leader', own)
      await waitUntil(() => JSON.stringify(onFollower.current()) === JSON.stringify(own), 3_000, "the leader's coverage on the follower")
      expect(told.at(-1)).toEqual(own)
      // Nothing changes: the leader vouches for its row (a newer written_at, the same version),
      // and the follower's desktops are told nothing more.
      const toldBefore = told.length
      const first = await row()
      await waitUntil(async () => (await row()).written_at > first.written_at, 3_000, 'the heartbeat')
      expect((await row()).version).toBe(first.version)
      expect(told).toHaveLength(toldBefore)
      // The leader stops writing (it hangs, holding its lock); its row is made older than the bound.
      await onLeader.close()
      await pool.query('UPDATE leader_coverage SET written_at = written_at - $1', [COVERAGE_TIMING.staleAfterMs + 1_000])
      const writtenAt = (await row()).written_at
      await waitUntil(() => onFollower.current()!.gaps[0]?.kind === 'hub', 3_000, 'the follower saying the leader is silent')
      expect(onFollower.current()!.gaps.map((g) => g.text)).toEqual([
        `The leading hub has not reported since ${new Date(writtenAt).toISOString().slice(11, 16)} UTC; ${NOT_KNOWN}`,
        ...own.gaps.map((g) => g.text)
      ])
      expect(onFollower.current()!.scopes).toEqual(own.scopes)
      await waitUntil(() => told.length === toldBefore + 1, 1_000, 'the follower telling its desktops once')
      expect(told.at(-1)).toEqual(onFollower.current())
      expect(warnings).toEqual([])
    } finally {
      for (const c of made) await c.close()
      await pool.end()
    }
  })

  it("shows none of a former leader's sync states once an older hub leads and rewrites the row without them (a rolling upgrade)", async () => {
    const url = await hubs.cluster.createDatabase()
    const pool = openPool({ url })
    await migrate(pool)
    const timing = { readEveryMs: 50, writeAtMostMs: 20, heartbeatMs: 200 }
    const own = leader().hub.session().monitor.coverage()
    const states = [syncState({ type: 1, fiatType: 1, lastSuccessAt: 1_000, writeMark: 'b:3' })]
    const make = (role: HubRole) => {
      const c = new PgLeaderCoverage({
        pool,
        target: { url },
        role: { current: () => unleasedRole(role, 0, role) },
        own: () => own,
        ownStates: () => states,
        freshnessMinutes: () => 10,
        onLeaderCoverage: () => undefined,
        onError: (m) => raise(m),
        timing
      })
      c.start()
      return c
    }
    const newer = make('leader')
    const onFollower = make('follower')
    try {
      await waitUntil(() => onFollower.states()!.length === 1, 3_000, "the newer leader's states on the follower")
      expect(onFollower.states()![0]).toMatchObject({ type: 1, fiatType: 1, writeMark: 'b:3', lagMs: null })
      await newer.close()
      // An older hub leads: it writes its coverage as before sync_json was there, and leaves that column be.
      await pool.query(`UPDATE leader_coverage SET json = $1, version = version + 1, written_at = ${DB_NOW_MS}`, [JSON.stringify(own)])
      await waitUntil(() => onFollower.states()!.length === 0, 3_000, "the former leader's states gone from the follower")
    } finally {
      await newer.close()
      await onFollower.close()
      await pool.end()
    }
  })
})

function raise(message: string): never {
  throw new Error(message)
}
