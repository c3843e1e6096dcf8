// Leadership that expires: two hub processes (`src/hub/cli.ts serve --database
// postgres://…`) on one throwaway PostgreSQL, each in front of the sandbox through a proxy
// of its own that records every request it makes, so what each hub spends is counted on the
// wire, not taken from the hub's word. The leading hub is paused with SIGSTOP for 30 s while
// it polls watched orders, prices (asked for by the other hub) and the history, then resumed
// with SIGCONT. Checked: the other hub leads within 15 s of the pause; orders changed at
// the service while nobody led, and after, are on the new leader within seconds; the
// resumed hub says it no longer leads and sends not one request while it follows, and the
// database took no budget claim and no sync position under its old epoch.
import pg from 'pg'
import { request } from 'undici'
import { afterAll, describe, expect, it } from 'vitest'
import { startSandbox, type Sandbox } from '../../src/sandbox'
import { openPgHubStore } from '../../src/hub/pg/pg-hub-store'
import type { SyncState } from '../../src/shared/ipc/contract'
import { startHubProcess, sleep, type HubProcess } from '../attack/hub/hub-process'
import { postgresUnavailable, startPostgres, type PgCluster } from '../support/postgres-cluster'
import { startStatusProxy, waitUntil } from '../integration/hub/support'
import { recordFault } from './fault-support'

const PAUSE_MS = 30_000
/** How long the resumed hub is watched while the other leads. */
const WATCH_AFTER_RESUME_MS = 20_000

/** waitUntil at a pace the hub's per-operator request rate allows (the checks make several calls each). */
const eventually = (cond: () => Promise<boolean>, ms: number, what: string) =>
  waitUntil(async () => (await cond()) || (await sleep(400), false), ms, what)

type Role = 'leader' | 'follower'
async function roleOf(url: string): Promise<Role | null> {
  try {
    const r = await request(`${url}/readyz`, { headersTimeout: 1_000, bodyTimeout: 1_000 })
    return (JSON.parse(await r.body.text()) as { role: Role }).role
  } catch {
    return null
  }
}

let cluster: PgCluster | null = null
let sandbox: Sandbox | null = null
const proxies: Awaited<ReturnType<typeof startStatusProxy>>[] = []
const hubs: HubProcess[] = []
let admin: pg.Client | null = null
afterAll(async () => {
  for (const h of hubs) {
    try {
      process.kill(h.pid, 'SIGCONT')
    } catch {
      // gone
    }
    await h.stop().catch(() => undefined)
  }
  await admin?.end()
  for (const p of proxies) await p.close()
  await sandbox?.close()
  await cluster?.stop()
})

describe.skipIf(postgresUnavailable !== null)('the leading hub paused with SIGSTOP for 30 s, then resumed', () => {
  it('another hub leads within 15 s; the resumed hub spends nothing upstream and writes nothing while it follows', async () => {
    cluster = await startPostgres()
    const database = await cluster.createDatabase()
    sandbox = await startSandbox({ orders: 1200, seed: 33, autoGenerate: false })
    const setup = await openPgHubStore({ target: { url: database }, live: false })
    const token = (await setup.operators.add('ada', 'admin')).token
    await setup.close()
    admin = new pg.Client({ connectionString: database })
    await admin.connect()

    // Each hub behind a proxy of its own: what each sends is counted there.
    proxies.push(await startStatusProxy(sandbox.url), await startStatusProxy(sandbox.url))
    const started = await Promise.all(
      proxies.map((p) => startHubProcess({ service: sandbox!, baseUrl: p.url, args: ['--database', database] }))
    )
    hubs.push(...started)
    const [a, b] = started as [HubProcess, HubProcess]
    await waitUntil(async () => [await roleOf(a.url), await roleOf(b.url)].sort().join() === 'follower,leader', 20_000, 'one leader')
    const leader = (await roleOf(a.url)) === 'leader' ? a : b
    const other = leader === a ? b : a
    const leaderProxy = proxies[hubs.indexOf(leader)]!
    const otherProxy = proxies[hubs.indexOf(other)]!
    await leader.call(token, 'settings:update', { historyPollSeconds: 10, watchPollSeconds: 5, tickerPollSeconds: 6 })
    await eventually(
      async () => {
        const s = (await leader.call<{ states: SyncState[] }>(token, 'sync:state')).value?.states ?? []
        return s.length > 0 && s.every((x) => x.lastSuccessAt !== null)
      },
      60_000,
      "the leader's first sync"
    )

    // The leader has polls of every kind queued: watched orders, the history, prices the other hub's operator asks for.
    const watched = Array.from({ length: 4 }, () => sandbox!.control.createOrder({ type: 1, fiatType: 1, hold: true, path: 'completed' }))
    for (const o of watched) expect((await leader.call(token, 'orders:watch', { type: 1, orderId: o.orderId, watch: true })).ok).toBe(true)
    let asking = true
    const askers = [a, b].map(async (h) => {
      while (asking) {
        await Promise.race([h.call(token, 'tickers:get', { fiatType: 1 }).catch(() => undefined), sleep(2_000)])
        await sleep(1_000)
      }
    })
    const gapOrders = Array.from({ length: 4 }, () => sandbox!.control.createOrder({ type: 1, fiatType: 1, hold: true, path: 'completed' }))
    await eventually(
      async () => {
        for (const o of [...watched, ...gapOrders])
          if (!(await other.call<{ row: unknown } | null>(token, 'orders:get', { type: 1, orderId: o.orderId })).value) return false
        return true
      },
      30_000,
      'the new orders on both hubs'
    ).catch((e: Error) => {
      throw new Error(`${e.message}; the leader's log:\n${leader.output().slice(-3_000)}\nthe other's:\n${other.output().slice(-2_000)}`)
    })
    await sleep(3_000)
    const before = (await admin.query<{ epoch: number; holder: string }>('SELECT epoch::int AS epoch, holder FROM hub_lease')).rows[0]!

    // The pause. Orders move at the service while nobody leads.
    const pausedAt = Date.now()
    process.kill(leader.pid, 'SIGSTOP')
    for (const o of [...gapOrders, ...watched.slice(0, 2)]) sandbox.control.advanceOrder(o.orderId)
    await waitUntil(async () => (await roleOf(other.url)) === 'leader', 15_000, 'the other hub leading').catch(async (e: Error) => {
      throw new Error(`${e.message}; its log:\n${other.output().slice(-2_000)}`)
    })
    const takeoverMs = Date.now() - pausedAt
    const after = (
      await admin.query<{ epoch: number; holder: string; taken_at: number }>(
        'SELECT epoch::int AS epoch, holder, taken_at::float8 AS taken_at FROM hub_lease'
      )
    ).rows[0]!
    expect(after.epoch).toBe(before.epoch + 1)
    // The gap's changes (and the next ones) on the new leader.
    for (const o of watched.slice(2)) sandbox.control.advanceOrder(o.orderId)
    const statusOn = async (h: HubProcess, orderId: number) =>
      (await h.call<{ row: { status: number } } | null>(token, 'orders:get', { type: 1, orderId })).value?.row.status
    const moved = [...gapOrders, ...watched]
    const caughtUp = async (h: HubProcess) => {
      for (const o of moved) if ((await statusOn(h, o.orderId)) !== sandbox!.control.order(o.orderId)!.status) return false
      return true
    }
    await eventually(() => caughtUp(other), 15_000, "the gap's changes on the new leader")
    const gapSeenMs = Date.now() - pausedAt - takeoverMs

    // Desktops still on the paused hub ask for prices and the configuration: their requests
    // wait in its sockets and are the first thing it serves when it resumes.
    const queuedCalls = Array.from({ length: 3 }, () => [
      leader.call(token, 'config:refresh').catch((e: Error) => ({ ok: false, error: { message: e.message } })),
      leader.call(token, 'tickers:get', { fiatType: 2 }).catch((e: Error) => ({ ok: false, error: { message: e.message } }))
    ]).flat()
    const resumeAt = pausedAt + PAUSE_MS
    await sleep(Math.max(0, resumeAt - Date.now()))
    const sentWhilePaused = leaderProxy.answers.filter((x) => x.at >= pausedAt + 1_000 && x.at < Date.now()).length
    const resumedAt = Date.now()
    process.kill(leader.pid, 'SIGCONT')
    // Watched while the other leads: the resumed hub follows, and sends nothing.
    const roles: Array<Role | null> = []
    let followerAfterMs: number | null = null
    while (Date.now() - resumedAt < WATCH_AFTER_RESUME_MS) {
      const r = await roleOf(leader.url)
      roles.push(r)
      if (r === 'follower' && followerAfterMs === null) followerAfterMs = Date.now() - resumedAt
      expect(await roleOf(other.url)).toBe('leader')
      await sleep(200)
    }
    asking = false
    await Promise.all(askers)
    // Served as a follower serves them: from the new leader's answers.
    const served = await Promise.all(queuedCalls)
    const sentAfterResume = leaderProxy.answers.filter((x) => x.at >= resumedAt)
    const newLeaderSent = otherProxy.answers.filter((x) => x.at >= resumedAt).length

    // The database took nothing under the old epoch once the lease moved.
    const claimsUnderOld = (
      await admin.query<{ n: number }>('SELECT COUNT(*)::int AS n FROM budget_sends WHERE epoch = $1 AND at >= $2', [
        before.epoch,
        after.taken_at
      ])
    ).rows[0]!.n
    const position = (await admin.query<{ epoch: number }>('SELECT epoch::int AS epoch FROM leader_sync_position')).rows[0]
    // The resumed hub, now a follower, holds what the new leader wrote.
    await eventually(() => caughtUp(leader), 15_000, 'the resumed hub following the new leader')
    const steppedDown = leader
      .output()
      .split('\n')
      .filter((l) => l.includes('this hub follows:'))

    recordFault(
      'the leading hub paused 30 s (SIGSTOP), then resumed',
      {
        otherHubLedAfterMs: takeoverMs,
        gapChangesSeenAfterMs: gapSeenMs,
        resumedHubFollowerAfterMs: followerAfterMs ?? 'never',
        upstreamRequestsOfResumedHub: sentAfterResume.length,
        upstreamRequestsOfNewLeader: newLeaderSent,
        budgetClaimsUnderOldEpoch: claimsUnderOld
      },
      { otherHubLedAfterMs: '< 15000', upstreamRequestsOfResumedHub: '= 0', budgetClaimsUnderOldEpoch: '= 0' }
    )
    console.log(
      `lease: the other hub led ${takeoverMs} ms after the leader's SIGSTOP (epoch ${before.epoch} -> ${after.epoch}); ` +
        `the gap's ${moved.length} order changes on it ${gapSeenMs} ms after it led; ` +
        `the resumed hub reported follower ${followerAfterMs} ms after SIGCONT and sent ${sentAfterResume.length} upstream requests ` +
        `in the ${WATCH_AFTER_RESUME_MS / 1000} s after it (${sentWhilePaused} while stopped), the new leader ${newLeaderSent}; ` +
        `budget claims under the old epoch after the takeover: ${claimsUnderOld}; ` +
        `${served.filter((x) => x.ok).length} of the ${served.length} calls queued on it while stopped answered; its log: ${steppedDown.at(-1) ?? '(nothing)'}`
    )
    expect(takeoverMs).toBeLessThan(15_000)
    expect(sentAfterResume.map((x) => x.path)).toEqual([])
    expect(newLeaderSent).toBeGreaterThan(0)
    expect(roles.every((r) => r !== 'leader')).toBe(true)
    expect(followerAfterMs).not.toBeNull()
    expect(claimsUnderOld).toBe(0)
    expect(position?.epoch).toBe(after.epoch)
    expect(steppedDown.length).toBeGreaterThan(0)
  }, 180_000)
})
