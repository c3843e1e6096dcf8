// Order events across two hubs on one PostgreSQL database: the leader syncs, publishes each
// order event with its id, and every hub streams it only then; the follower applies it to its
// own order database with the same id, so a desktop on the follower sees the leader's order
// changes live, and a desktop that moves from one hub to the other replays from its last
// event id with no gap: the same ids, the same changes.
import { isDeepStrictEqual } from 'node:util'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { statusInfo } from '../../../src/shared/domain/status'
import type { HubEvent } from '../../../src/hub/hub'
import { request } from 'undici'
import type { SyncState, WebhookDelivery } from '../../../src/shared/ipc/contract'
import { SyncWrites } from '../../../src/renderer/src/lib/sync-writes'
import { signedWebhook } from '../../support/webhook-senders'
import type { OnrampOrder } from '../../../src/shared/api/schemas'
import { postgresUnavailable } from '../../support/postgres-cluster'
import { startTwoHubs, waitUntil, type HubFixture, type TwoHubs } from './support'

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
  let hubs: TwoHubs
  const leader = () => hubs.leader()
  const follower = () => hubs.follower()

  beforeAll(async () => {
    hubs = await startTwoHubs({ sandbox: { orders: 40, seed: 11 } })
  })
  afterAll(() => hubs?.close())

  it("streams the leader's order changes on the follower, its copy updated", async () => {
    const token = await hubs.a.addOperator('vera', 'viewer')
    await waitUntil(async () => (await follower().rpc(token, 'team:access')).status === 200, 3_000, 'the operator on both hubs')
    const onFollower = follower().stream(token)
    const onLeader = leader().stream(token)
    await waitUntil(() => [onFollower, onLeader].every((s) => s.states.some((x) => x.connected)), 5_000, 'both streams')
    const order = hubs.sandbox.control.createOrder({ type: 1, fiatType: 1, hold: true })
    await leader().hub.session().monitor.syncNow()
    await onFollower.waitFor('order:created', (r: { orderId: number }) => r.orderId === order.orderId, 10_000)
    let last = order
    while (!statusInfo(1, last.status).terminal) last = hubs.sandbox.control.advanceOrder(order.orderId)
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

  it("carries the leader's changes that bring no order event (an amount, a confirmation) to the follower's copy within seconds", async () => {
    const order = hubs.sandbox.control.createOrder({ type: 1, fiatType: 1, hold: true })
    await leader().hub.session().monitor.syncNow()
    const onFollower = () => follower().hub.session().store.orders.get(1, order.orderId)
    await waitUntil(() => onFollower() !== undefined, 10_000, 'the order on the follower')
    // The leader's monitor is still meanwhile: its next sync would put the service's amount back.
    const monitor = leader().hub.session().monitor
    await monitor.stop()
    try {
      const orders = leader().hub.session().store.orders
      const held = orders.get(1, order.orderId)!
      const events = leader().hub.latestEventId()
      // The same order with another amount and the same status (a webhook's record, say): no event.
      const record = { ...(held.record as OnrampOrder), fiatAmount: '98765.43' }
      expect(orders.applyRecord(1, record, 'webhook').kind).toBe('updated')
      // An orderStatus answer with the same status: only its confirmation is written.
      const confirmedAt = new Date(Date.parse(held.statusConfirmedAt ?? held.updatedAt) + 60_000).toISOString()
      expect(orders.applyStatus(1, order.orderId, held.status, 'watch', confirmedAt).change).toBeNull()
      const now = orders.get(1, order.orderId)!
      expect(now).toMatchObject({
        fiatAmount: '98765.43',
        status: held.status,
        statusConfirmedAt: confirmedAt,
        statusConfirmedBy: 'orderStatus'
      })
      await waitUntil(() => isDeepStrictEqual(onFollower(), now), 5_000, "the leader's row on the follower")
      expect(leader().hub.latestEventId()).toBe(events)
    } finally {
      monitor.start()
    }
  })

  it("shows the leader's sync states on the follower, and tells its desktops when it applied the leader's rows without an event", async () => {
    const token = await hubs.a.addOperator('sam', 'viewer')
    await waitUntil(async () => (await follower().rpc(token, 'team:access')).status === 200, 3_000, 'the operator on both hubs')
    const order = hubs.sandbox.control.createOrder({ type: 1, fiatType: 1, hold: true })
    await leader().hub.session().monitor.syncNow()
    // How soon is not what this test is about (the failover suites bound it): room for a busy machine.
    await waitUntil(() => follower().hub.session().store.orders.get(1, order.orderId) !== undefined, 30_000, 'the order on the follower')
    // The leader's scopes, not the follower's idle monitor's (none).
    const monitor = leader().hub.session().monitor
    await monitor.stop()
    // The leader's scopes and their marks as they stand (its monitor still), not the follower's idle monitor's (none).
    const scopes = (states: SyncState[]) => states.map((x) => `${x.type}:${x.fiatType}@${(x.writeMark ?? '').split('+')[0]}`).sort()
    const leaderScopes = scopes(monitor.states())
    expect(leaderScopes.length).toBeGreaterThan(0)
    expect(follower().hub.session().monitor.states()).toEqual([])
    // What the follower answers (a few asks: the hub caps each operator's rate, a 429 is asked again).
    let answered: SyncState[] = []
    await waitUntil(
      async () => {
        const a = await follower().rpc(token, 'sync:state')
        if (a.status === 200) answered = (a.json!.value as { states: SyncState[] }).states
        return isDeepStrictEqual(scopes(answered), leaderScopes)
      },
      5_000,
      "the leader's sync states on the follower"
    )
    const stream = follower().stream(token)
    await waitUntil(() => stream.states.some((x) => x.connected), 5_000, 'a stream on the follower')
    try {
      const writes = new SyncWrites(answered)
      const before = stream.events.length
      // An amount the service corrected: a row written on the leader, no order event.
      const held = leader().hub.session().store.orders.get(1, order.orderId)!
      const record = { ...(held.record as OnrampOrder), fiatAmount: '55555.5' }
      expect(leader().hub.session().store.orders.applyRecord(1, record, 'webhook').kind).toBe('updated')
      // The follower's desktops are told as a desktop on the leader is told of its sync's writes: a
      // sync:state of the order's type whose write mark changed, once the row is in the follower's copy.
      const told = await stream.waitFor('sync:state', (x: SyncState) => x.type === 1 && writes.wrote(x), 5_000)
      expect(told).toMatchObject({ type: 1 })
      expect(stream.events.slice(before).some((e) => e.event === 'order:changed' || e.event === 'order:created')).toBe(false)
      expect(follower().hub.session().store.orders.get(1, order.orderId)!.fiatAmount).toBe('55555.5')
    } finally {
      monitor.start()
      await stream.close()
    }
  }, 60_000)

  it("runs sync:now asked on the follower on the leader: a leader's error shown on the follower clears at once, and the follower asks the service nothing", async () => {
    const token = await hubs.a.addOperator('otto', 'viewer')
    await waitUntil(async () => (await follower().rpc(token, 'team:access')).status === 200, 3_000, 'the operator on both hubs')
    const monitor = leader().hub.session().monitor
    const onFollower = async (): Promise<SyncState[] | null> => {
      const a = await follower().rpc(token, 'sync:state')
      return a.status === 200 ? (a.json!.value as { states: SyncState[] }).states : null
    }
    // The service fails every history read: a few failures in a row put the leader's own next try 20 s away
    // (a run the monitor had going when the fault began may still succeed: it is tried again).
    const backedOff = () => monitor.states().every((s) => s.lastError !== null && s.nextRunAt! - Date.now() > 15_000)
    hubs.sandbox.control.setFault('merchantHistory', { errorRate: 1, errorStatus: 400 })
    try {
      for (let i = 0; i < 6 && !backedOff(); i++) await monitor.syncNow()
    } finally {
      hubs.sandbox.control.clearFaults('merchantHistory')
    }
    expect(monitor.states().length).toBeGreaterThan(0)
    expect(backedOff()).toBe(true)
    await waitUntil(
      async () => (await onFollower())?.some((s) => s.lastError !== null) === true,
      5_000,
      "the leader's error on the follower"
    )
    // The service is back. The follower's desktop presses "Try again now".
    const asked: string[] = []
    const unmeter = follower()
      .hub.session()
      .client.onRequest((e) => void asked.push(e.endpoint))
    try {
      expect(await follower().call(token, 'sync:now')).toEqual({ ok: true })
      await waitUntil(
        async () => {
          const states = await onFollower()
          return states !== null && states.length > 0 && states.every((s) => s.lastError === null)
        },
        5_000,
        "the leader's states cleared on the follower"
      )
      expect(monitor.states().every((s) => s.lastError === null)).toBe(true)
      // The follower's own idle monitor ran nothing: no history read was sent from it.
      expect(asked.filter((e) => e === 'merchantHistory' || e === 'orderStatus')).toEqual([])
    } finally {
      unmeter()
    }
  })

  it("applies a webhook the follower received to the leader's orders, once, and streams the change from there", async () => {
    const admin = await hubs.a.addOperator('ada', 'admin')
    await waitUntil(async () => (await follower().rpc(admin, 'team:access')).status === 200, 3_000, 'the admin on both hubs')
    // The service delivers to the follower.
    await follower().call(admin, 'webhooks:setUrl', { url: follower().hub.webhookUrl() })
    const onFollower = follower().stream(admin)
    await waitUntil(() => onFollower.states.some((x) => x.connected), 5_000, 'a stream on the follower')
    const order = hubs.sandbox.control.createOrder({ type: 1, fiatType: 1, hold: true })
    await leader().hub.session().monitor.syncNow()
    await waitUntil(() => leader().hub.session().store.orders.get(1, order.orderId) !== undefined, 5_000, 'the leader knowing the order')
    let last = order
    while (!statusInfo(1, last.status).terminal) last = hubs.sandbox.control.advanceOrder(order.orderId)
    await hubs.sandbox.control.deliveriesIdle()
    // No sync: the delivery reached the follower, was kept in the database, and the leader applied it.
    await waitUntil(() => leader().hub.session().store.orders.get(1, order.orderId)?.status === last.status, 5_000, "the leader's copy")
    await onFollower.waitFor(
      'order:changed',
      (p: { row: { orderId: number }; newStatus: number }) => p.row.orderId === order.orderId && p.newStatus === last.status,
      5_000
    )
    const db = new pg.Client({ connectionString: hubs.url })
    await db.connect()
    try {
      const rows = await db.query<{ body: string; applied_at: string | null }>('SELECT body, applied_at FROM kept_deliveries')
      const mine = rows.rows.filter((r) => Buffer.from(r.body, 'base64').toString('utf8').includes(`"orderId":${order.orderId}`))
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
    const admin = await hubs.a.addOperator('wendy', 'admin')
    await waitUntil(async () => (await follower().rpc(admin, 'team:access')).status === 200, 3_000, 'the admin on both hubs')
    const order = hubs.sandbox.control.createOrder({ type: 1, fiatType: 2, hold: true })
    const w = signedWebhook(order.record, { secret: hubs.sandbox.apiSecret, timestamp: hubs.sandbox.control.serverNow() })
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
