// After sleep, an unlocked screen or the network coming back, app:wake refetches at once
// (not at the next interval), once per wake however many windows report it; and
// tray:state tells, over the real session and sandbox, orders needing attention, orders
// in progress, and a sync that fails or cannot reach the service.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { startServicesHarness, type ServicesHarness } from './harness'
import { until } from '../../support/until'

let h: ServicesHarness

beforeAll(async () => {
  h = await startServicesHarness()
  // An hour between syncs: anything seen within the test was fetched because of the wake.
  await h.call('settings:update', { historyPollSeconds: 3600 })
  await h.services.session().monitor.syncNow()
})
afterAll(async () => {
  await h?.close()
})

const sandbox = () => h.services.sandbox()!.control

describe('app:wake', () => {
  it('fetches an order made while asleep at once, and handles one wake once', async () => {
    const order = sandbox().createOrder({ type: 1, fiatType: 1, hold: true })
    const seen = h.waitFor('order:created', (c) => c.orderId === order.orderId, h.lastSeq())
    expect(await h.call('app:wake', {})).toEqual({ refetched: true })
    // The main window and the tray popover both report the same network change.
    expect(await h.call('app:wake', {})).toEqual({ refetched: false })
    await expect(seen).resolves.toMatchObject({ orderId: order.orderId })
  })

  it('lets the next request find out at once whether the service is back (the network may be)', async () => {
    const client = h.services.session().client
    const probeNow = vi.spyOn(client, 'probeNow')
    try {
      // Past the wake before, which a second wake within 2 s would join.
      await new Promise((r) => setTimeout(r, 2_100))
      expect(await h.call('app:wake', {})).toEqual({ refetched: true })
      // The session asks, and so does the sync the wake starts (a hub that runs no sync still asks).
      expect(probeNow).toHaveBeenCalled()
    } finally {
      probeNow.mockRestore()
    }
  })
})

describe('tray:state', () => {
  it('counts the orders needing attention before those in progress, and the popover list has them', async () => {
    const order = sandbox().createOrder({ type: 2, path: 'alternate bank', hold: true })
    sandbox().advanceOrder(order.orderId, 17)
    await h.services.session().monitor.syncNow()
    const s = await h.call('tray:state', {})
    expect(s.attention).toBeGreaterThanOrEqual(1)
    expect(s.level).toBe('attention')
    expect(s.icon).toBe('attention')
    expect(s.headline).toMatch(/orders? needs? attention/)
    const { rows } = await h.call('orders:watched', {})
    expect(rows.some((r) => r.type === 2 && r.orderId === order.orderId && r.status === 17)).toBe(true)
  })

  it('says the sync is failing, then offline, and recovers', async () => {
    sandbox().setFault('merchantHistory', { errorRate: 1, errorStatus: 500 })
    await h.services.session().monitor.syncNow()
    const failing = await h.call('tray:state', {})
    expect(failing).toMatchObject({ level: 'failing', icon: 'error', title: 'Sync failing' })
    // In the operator's words: what is wrong and what the app does about it, no status code.
    expect(failing.detail).toMatch(/having trouble on its side/)
    expect(failing.detail).not.toMatch(/HTTP|500|merchantHistory/)

    // Connections dropped: the tray says offline as soon as a scope has met it (the pass
    // goes on retrying the other scopes, each after its own back-off; not waited for here).
    sandbox().setFault('merchantHistory', { dropRate: 1 })
    const offlinePass = h.services.session().monitor.syncNow()
    await until(async () => (await h.call('tray:state', {})).level === 'offline', 'the tray to say offline')
    expect(await h.call('tray:state', {})).toMatchObject({ level: 'offline', title: 'Offline' })

    sandbox().clearFaults()
    await offlinePass
    await h.services.session().monitor.syncNow()
    expect((await h.call('tray:state', {})).level).toBe('attention')
    expect(h.contractViolations).toEqual([])
    // Nine scopes hold orders (every onramp fiat and offramp INR), each retried by the client while the fault lasts.
  }, 120_000)
})
