// Order events across two hubs on one PostgreSQL database: the leader syncs, publishes each
// order event with its id, and every hub streams it only then; the follower applies it to its
// own order database with the same id, so a desktop on the follower sees the leader's order
// changes live, and a desktop that moves from one hub to the other replays from its last
// event id with no gap: the same ids, the same changes.
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { statusInfo } from '../../../src/shared/domain/status'
import { startSandbox, type Sandbox } from '../../../src/sandbox'
import type { HubEvent } from '../../../src/hub/hub'
import { request } from 'undici'
import type { WebhookDelivery } from '../../../src/shared/ipc/contract'
import { signedWebhook } from '../../support/webhook-senders'
import { postgresUnavailable, startPostgres, type PgCluster } from '../../support/postgres-cluster'
import { startHubFixture, waitUntil, type HubFixture } from './support'

const summary = (e: HubEvent) => {
  const p = e.payload as { orderId?: number; row?: { orderId: number }; newStatus?: number }
  return { id: e.id, event: e.event, orderId: p.row?.orderId ?? p.orderId, newStatus: p.newStatus ?? null }
}
function allAfter(f: HubFixture, after: number): HubEvent[] {
  const out: HubEvent[] = []
  for (let at: number | null = after; at !== null;) {
    const page = f.hub.replayPage(at, 250)
    out.push(...page.events)
    at = page.next
  }
  return out
}

describe.skipIf(postgresUnavailable !== null)('order events across two hubs on one PostgreSQL database', () => {
  let cluster: PgCluster
  let url: string
  let sandbox: Sandbox
  let a: HubFixture
  let b: HubFixture
  const leader = () => [a, b].find((f) => f.hub.role.current().role === 'leader')!
  const follower = () => [a, b].find((f) => f.hub.role.current().role === 'follower')!

  beforeAll(async () => {
    cluster = await startPostgres()
    url = await cluster.createDatabase()
    sandbox = await startSandbox({ orders: 40, seed: 11, autoGenerate: false })
    a = await startHubFixture({ sharedSandbox: sandbox, hub: { database: { url } } })
    b = await startHubFixture({ sharedSandbox: sandbox, hub: { database: { url } } })
  })
  afterAll(async () => {
    await a?.close()
    await b?.close()
    await sandbox?.close()
    await cluster?.stop()
  })

  it("streams the leader's order changes on the follower, its copy updated", async () => {
    const token = await a.addOperator('vera', 'viewer')
    await waitUntil(async () => (await follower().rpc(token, 'team:access')).status === 200, 3_000, 'the operator on both hubs')
    const onFollower = follower().stream(token)
    const onLeader = leader().stream(token)
    await waitUntil(() => [onFollower, onLeader].every((s) => s.states.some((x) => x.connected)), 5_000, 'both streams')
    const order = sandbox.control.createOrder({ type: 1, fiatType: 1, hold: true })
    await leader().hub.session().monitor.syncNow()
    await onFollower.waitFor('order:created', (r: { orderId: number }) => r.orderId === order.orderId, 10_000)
    let last = order
    while (!statusInfo(1, last.status).terminal) last = sandbox.control.advanceOrder(order.orderId)
    await leader().hub.session().monitor.syncNow()
    await onFollower.waitFor(
      'order:changed',
      (p: { row: { orderId: number }; newStatus: number }) => p.row.orderId === order.orderId && p.newStatus === last.status,
      10_000
    )
    await onLeader.waitFor(
      'order:changed',
      (p: { row: { orderId: number }; newStatus: number }) => p.row.orderId === order.orderId && p.newStatus === last.status,
      10_000
    )
    // The follower's copy holds the order as the leader does.
    expect(follower().hub.session().store.orders.get(1, order.orderId)?.status).toBe(last.status)
    await onFollower.close()
    await onLeader.close()
  })

  it("applies a webhook the follower received to the leader's orders, once, and streams the change from there", async () => {
    const admin = await a.addOperator('ada', 'admin')
    await waitUntil(async () => (await follower().rpc(admin, 'team:access')).status === 200, 3_000, 'the admin on both hubs')
    // The service delivers to the follower.
    await follower().call(admin, 'webhooks:setUrl', { url: follower().hub.webhookUrl() })
    const onFollower = follower().stream(admin)
    await waitUntil(() => onFollower.states.some((x) => x.connected), 5_000, 'a stream on the follower')
    const order = sandbox.control.createOrder({ type: 1, fiatType: 1, hold: true })
    await leader().hub.session().monitor.syncNow()
    await waitUntil(() => leader().hub.session().store.orders.get(1, order.orderId) !== undefined, 5_000, 'the leader knowing the order')
    let last = order
    while (!statusInfo(1, last.status).terminal) last = sandbox.control.advanceOrder(order.orderId)
    await sandbox.control.deliveriesIdle()
    // No sync: the delivery reached the follower, went to the database's inbox, and the leader applied it.
    await waitUntil(() => leader().hub.session().store.orders.get(1, order.orderId)?.status === last.status, 5_000, "the leader's copy")
    await onFollower.waitFor(
      'order:changed',
      (p: { row: { orderId: number }; newStatus: number }) => p.row.orderId === order.orderId && p.newStatus === last.status,
      5_000
    )
    const db = new pg.Client({ connectionString: url })
    await db.connect()
    try {
      const rows = await db.query<{ body: string; applied_at: string | null }>('SELECT body, applied_at FROM webhook_inbox')
      const mine = rows.rows.filter((r) => r.body.includes(`"orderId":${order.orderId}`))
      expect(mine.length).toBeGreaterThan(0)
      expect(mine.every((r) => r.applied_at !== null)).toBe(true)
    } finally {
      await db.end()
    }
    await onFollower.close()
  })

  it('replays the same events under the same ids on either hub, from any event id', async () => {
    await waitUntil(() => follower().hub.latestEventId() === leader().hub.latestEventId(), 5_000, 'the follower caught up')
    const newest = leader().hub.latestEventId()
    expect(newest).toBeGreaterThan(0)
    for (const from of [0, Math.floor(newest / 2), newest - 3]) {
      const onLeader = allAfter(leader(), from).map(summary)
      expect(onLeader.length).toBeGreaterThan(0)
      expect(allAfter(follower(), from).map(summary)).toEqual(onLeader)
    }
  })

  it('keeps one delivery log for both hubs: a delivery posted to each is one row with the same id, junk from either is listed', async () => {
    const admin = await a.addOperator('wendy', 'admin')
    await waitUntil(async () => (await follower().rpc(admin, 'team:access')).status === 200, 3_000, 'the admin on both hubs')
    const order = sandbox.control.createOrder({ type: 1, fiatType: 2, hold: true })
    const w = signedWebhook(order.record, { secret: sandbox.apiSecret, timestamp: sandbox.control.serverNow() })
    const post = async (f: HubFixture, body = w.body, headers = w.headers) =>
      (await request(f.hub.webhookUrl()!, { method: 'POST', headers, body, reset: true })).statusCode
    expect(await post(leader())).toBe(200)
    expect(await post(follower())).toBe(200)
    expect(await post(follower(), '{"junk":true}', { 'content-type': 'application/json' })).not.toBe(200)
    const list = (f: HubFixture) =>
      f.call<{ total: number; rows: WebhookDelivery[] }>(admin, 'webhooks:deliveries', { offset: 0, limit: 100 })
    const mine = (r: { rows: WebhookDelivery[] }) => r.rows.filter((d) => d.orderId === order.orderId)
    await waitUntil(async () => mine(await list(leader())).some((d) => d.duplicate), 5_000, 'the second receipt counted')
    await waitUntil(
      async () => (await list(leader())).rows.some((d) => d.body.includes('junk')),
      5_000,
      "the follower's junk on the leader"
    )
    const [onLeader, onFollower] = [await list(leader()), await list(follower())]
    expect(onFollower).toEqual(onLeader)
    expect(mine(onLeader)).toHaveLength(1)
    expect(mine(onLeader)[0]).toMatchObject({ verified: true, duplicate: true })
    expect(mine(onLeader)[0]!.reason).toContain('received 2 times')
  })
})
