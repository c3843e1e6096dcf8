// Alerts on a team hub: the stalled-order thresholds are the team's (an admin's to set, a
// viewer refused), and alerts:list reaches every role through the hub with the hub's
// thresholds: an order parked in a threshold status on the hub's (compressed) clock is
// raised exactly at the team's threshold on a viewer's desktop, and the viewer's desktop
// hears it as alerts:changed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startHubFixture, startTeamDesktop, waitUntil, type HubFixture, type TeamDesktop } from './support'

const MIN = 60_000
let t = Date.now()
let f: HubFixture
let viewer: TeamDesktop
let adminToken: string

beforeAll(async () => {
  f = await startHubFixture({ sandbox: { orders: 60, now: () => t }, hub: { now: () => t } })
  adminToken = await f.addOperator('ada', 'admin')
  viewer = await startTeamDesktop(f.url, await f.addOperator('vera', 'viewer'), 'Team (vera)')
  await waitUntil(() => viewer.services.teamSession()?.connection.connected === true, 10_000, 'viewer connected')
})
afterAll(async () => {
  await viewer?.close()
  await f?.close()
})

describe('alerts on a team hub', () => {
  it("uses the team's thresholds, which only an admin sets, and raises an order at exactly the team's minute", async () => {
    const denied = await viewer.envelope('settings:update', { stalledMinutes: { '2:17': 5 } })
    expect(denied.ok).toBe(false)
    const set = await f.call<{ stalledMinutes: Record<string, number> }>(adminToken, 'settings:update', { stalledMinutes: { '2:17': 5 } })
    expect(set.stalledMinutes).toEqual({ '2:17': 5 })
    expect((await viewer.call('settings:get', {})).stalledMinutes).toEqual({ '2:17': 5 })

    const sandbox = f.sandbox.control
    const o = sandbox.createOrder({ type: 2, fiatType: 1, path: 'alternate bank', hold: true })
    sandbox.advanceOrder(o.orderId, 17, 2)
    await f.hub.session().monitor.syncNow()
    const parkedAt = t
    const mine = async () =>
      (await viewer.call('alerts:list', {})).alerts.filter((a) => a.kind === 'stalled' && a.order.orderId === o.orderId)
    t = parkedAt + 5 * MIN - 1
    expect(await mine()).toEqual([])
    t = parkedAt + 5 * MIN
    expect(await mine()).toMatchObject([
      { kind: 'stalled', order: { type: 2, orderId: o.orderId }, status: 17, thresholdMinutes: 5, since: parkedAt }
    ])
    await waitUntil(
      () => viewer.events.some((e) => e.event === 'alerts:changed' && JSON.stringify(e.payload).includes(`"orderId":${o.orderId}`)),
      10_000,
      "the viewer's desktop to hear alerts:changed"
    )
  })
})
