// Alerts over the real session and sandbox on one compressed clock: an order parked in each
// threshold status is raised exactly at its threshold (not a millisecond before) and cleared
// by its next change; a chain switched to nodeInSync 0 in the sandbox flags its open orders
// within one configuration poll (allGasFee's time to live) and clears when switched back.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startServicesHarness, type ServicesHarness } from './harness'
import { DEFAULT_TTL_MS } from '../../../src/main/config/config-cache'
import type { Alert } from '../../../src/shared/ipc/contract'

const MIN = 60_000
let t = Date.parse('2026-11-20T09:00:00.000Z')
let h: ServicesHarness

beforeAll(async () => {
  h = await startServicesHarness({ now: () => t, sandbox: { orders: 50, autoGenerate: false, seed: 11, now: () => t } })
  await h.call('settings:update', { historyPollSeconds: 3600 })
  await h.services.session().monitor.syncNow()
})
afterAll(async () => {
  await h?.close()
})

const sandbox = () => h.services.sandbox()!.control
const session = () => h.services.session()
const sync = () => session().monitor.syncNow()
const stalledIds = (alerts: Alert[], ids: number[]) =>
  alerts.flatMap((a) => (a.kind === 'stalled' && ids.includes(a.order.orderId) ? [`${a.order.type}:${a.status}`] : [])).sort()

describe('stalled orders', () => {
  it('raises each threshold status exactly at its minute and clears it on the next change', async () => {
    const parked = [
      { type: 1 as const, path: 'completed', status: 14, minutes: 20 },
      { type: 1 as const, path: 'completed', status: 2, minutes: 30 },
      { type: 2 as const, path: 'over limit, reviewed', status: 3, minutes: 30 },
      { type: 2 as const, path: 'alternate bank', status: 17, minutes: 120 }
    ].map((p) => {
      const o = sandbox().createOrder({ type: p.type, fiatType: 1, path: p.path, hold: true })
      sandbox().advanceOrder(o.orderId, p.status, p.type)
      return { ...p, orderId: o.orderId }
    })
    const ids = parked.map((p) => p.orderId)
    await sync()
    const parkedAt = t
    const at = async (ms: number) => {
      t = parkedAt + ms
      return stalledIds((await h.call('alerts:list', {})).alerts, ids)
    }
    expect(await at(20 * MIN - 1)).toEqual([])
    expect(await at(20 * MIN)).toEqual(['1:14'])
    expect(await at(30 * MIN - 1)).toEqual(['1:14'])
    expect(await at(30 * MIN)).toEqual(['1:14', '1:2', '2:3'])
    expect(await at(120 * MIN - 1)).toEqual(['1:14', '1:2', '2:3'])
    expect(await at(120 * MIN)).toEqual(['1:14', '1:2', '2:17', '2:3'])
    const held = (await h.call('alerts:list', {})).alerts.find((a) => a.kind === 'stalled' && a.order.orderId === parked[2]!.orderId)
    expect(held).toMatchObject({ since: parkedAt, thresholdMinutes: 30, text: expect.stringMatching(/^Stalled 2 h in /) })

    // The next change of each clears it (and an event says so).
    const seq = h.lastSeq()
    for (const p of parked) sandbox().advanceOrder(p.orderId, undefined, p.type)
    await sync()
    session().alerts.refresh()
    expect(stalledIds((await h.call('alerts:list', {})).alerts, ids)).toEqual([])
    await h.waitFor('alerts:changed', (l) => stalledIds(l.alerts, ids).length === 0, seq)
  })
})

describe('chain health', () => {
  it('flags the open orders of a chain out of sync within one configuration poll and clears when it is back', async () => {
    const o = sandbox().createOrder({ type: 1, fiatType: 1, coinCode: 'usdt', chainId: 3, path: 'completed', hold: true })
    sandbox().advanceOrder(o.orderId, 12, 1)
    await sync()
    await session().config.get()
    const chainAlert = async () =>
      (await session().alerts.tick()).alerts.find((a) => a.kind === 'chain' && a.coinId === 54 && a.chainId === 3)
    expect(await chainAlert()).toBeUndefined()

    sandbox().setChainHealth({ coinCode: 'usdt', chainId: 3, nodeInSync: 0 })
    t += DEFAULT_TTL_MS.allGasFee + 1
    const flagged = await chainAlert()
    expect(flagged).toMatchObject({ kind: 'chain', problem: 'node_out_of_sync', since: t })
    expect(flagged?.kind === 'chain' && flagged.orders).toContainEqual({ type: 1, orderId: o.orderId })
    expect(flagged?.text).toMatch(/^\d+ withdrawals? (and \d+ sales? )?of USDT on \S+ while its node is out of sync$/)

    sandbox().setChainHealth({ coinCode: 'usdt', chainId: 3, nodeInSync: 1 })
    t += DEFAULT_TTL_MS.allGasFee + 1
    expect(await chainAlert()).toBeUndefined()
    expect(h.contractViolations).toEqual([])
  })
})
