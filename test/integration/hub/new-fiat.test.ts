// Every order found, the part about later orders, through the hub: after the first
// sync, an order appears in a fiat the service's configuration names but that held no
// order (so the hub found it empty), nothing reveals it (no webhook reaches the hub, no
// search), and a viewer connected to the hub sees it within one slow-probe interval,
// found by the hub's re-probe of its empty scopes. The real hub, session, monitor and
// discovery run; only the interval is shortened (the shipped one is ten minutes) by
// handing the monitor's discovery a shorter probeEveryMs, as its option allows.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import type * as Discovery from '../../../src/main/monitor/scope-discovery'
import type { DiscoveryOptions } from '../../../src/main/monitor/scope-discovery'
import { SCOPE_PROBE_EVERY_MS } from '../../../src/main/monitor/order-monitor'
import { startHubFixture, startTeamDesktop, waitUntil, type HubFixture, type TeamDesktop } from './support'

const PROBE_MS = 4000
/** The intervals the monitor asked its discovery for, before the test shortened them. */
const asked = vi.hoisted(() => [] as number[])

vi.mock('../../../src/main/monitor/scope-discovery', async (importOriginal) => {
  const real = await importOriginal<typeof Discovery>()
  class ShortProbeDiscovery extends real.ScopeDiscovery {
    constructor(o: DiscoveryOptions) {
      asked.push(o.probeEveryMs)
      super({ ...o, probeEveryMs: PROBE_MS })
    }
  }
  return { ...real, ScopeDiscovery: ShortProbeDiscovery }
})

let f: HubFixture
let desk: TeamDesktop

beforeAll(async () => {
  f = await startHubFixture({ sandbox: { orders: 200, seed: 29, orderFiats: { onramp: [1, 2], offramp: [1] } } })
  await f.hub.session().monitor.syncNow()
  await f.hub.session().monitor.syncNow()
  desk = await startTeamDesktop(f.url, await f.addOperator('vera', 'viewer'), 'Team (vera)')
  await waitUntil(() => desk.services.teamSession()?.connection.connected === true, 10_000, 'viewer connected')
}, 60_000)
afterAll(async () => {
  await desk?.close()
  await f?.close()
})

describe('an order in a fiat nobody has seen yet, through the hub', () => {
  it('reaches a viewer within one slow-probe interval', async () => {
    // The hub's monitor (and the desktop's own before it switched to the team) runs discovery at the shipped interval; this test only shortens it.
    expect(asked.length).toBeGreaterThan(0)
    expect(new Set(asked)).toEqual(new Set([SCOPE_PROBE_EVERY_MS]))
    const before = await desk.call('sync:coverage', {})
    const aed = before.scopes.find((s) => s.type === 1 && s.fiatType === 3)
    expect(aed, 'the configuration names AED, so the hub probed onramp AED').toMatchObject({ probe: 'empty', orders: 0 })
    const inAed = { filter: { type: 1 as const, fiatType: 3 }, sort: 'orderId:asc' as const, offset: 0, limit: 5 }
    expect((await desk.call('orders:query', inAed)).total).toBe(0)
    // No webhook URL is set for the hub's key, so no delivery can reveal the order: only a re-probe can find it.
    expect(f.sandbox.control.webhookUrl()).toBeUndefined()

    const created = Date.now()
    const o = f.sandbox.control.createOrder({ type: 1, fiatType: 3, coinCode: 'usdt', network: 'bep20', hold: true })
    // One interval, and the moments the hub's sync of the new scope and the viewer's query take.
    const within = PROBE_MS + 4000
    // Asked four times a second: the hub limits each operator's request rate.
    let seen = 0
    while (seen === 0 && Date.now() - created < within) {
      await new Promise((r) => setTimeout(r, 250))
      seen = (await desk.call('orders:query', inAed)).total
    }
    expect(seen, `the AED order on the viewer within ${within} ms`).toBe(1)
    expect((await desk.call('orders:query', inAed)).rows.map((r) => r.orderId)).toEqual([o.orderId])
    const after = await desk.call('sync:coverage', {})
    expect(after.scopes.find((s) => s.type === 1 && s.fiatType === 3)).toMatchObject({ probe: 'active', orders: 1 })
    expect(f.sandbox.control.listDeliveries()).toEqual([])
  })
})
