// The alert tracker over a list of open orders and a configuration: a stalled order is
// raised at its threshold and cleared by its next change; a chain reported unwell flags
// its open orders and clears when reported well; 'alerts:changed' is emitted on a raise or
// a clear only, never as minutes pass; each stalled order is notified once per stall.
import { describe, expect, it } from 'vitest'
import { AlertTracker } from '../../../../src/main/alerts/alert-tracker'
import { StalledNotices } from '../../../../src/main/alerts/stalled-notices'
import { DEFAULT_STALLED_MINUTES, type AlertList, type ConfigSnapshot } from '../../../../src/shared/ipc/contract'
import type { OpenOrder } from '../../../../src/main/store/open-orders'

const MIN = 60_000
const T0 = Date.UTC(2026, 10, 27, 9, 0)

function setup() {
  let now = T0
  const orders: OpenOrder[] = [{ type: 2, orderId: 41, status: 3, coinId: 54, chainId: 3, since: T0 }]
  const gas: ConfigSnapshot['gasFees'] = { '54': { '3': { withdrawalFee: '1', minimumWithdrawal: '2', nodeInSync: 1, depositEnable: 1 } } }
  const config = {
    gasFees: gas,
    coins: [{ id: 54, code: 'USDT', name: 'Tether', tradeFloatPlaces: 2, networks: [3] }],
    chains: [{ id: 3, symbol: 'TRC20', name: 'Tron', detail: {} }]
  } as unknown as ConfigSnapshot
  const emitted: AlertList[] = []
  const t = new AlertTracker({
    openOrders: () => orders.map((o) => ({ ...o })),
    config: () => config,
    thresholds: () => DEFAULT_STALLED_MINUTES,
    now: () => now,
    changed: (l) => emitted.push(l)
  })
  return { t, orders, gas, emitted, at: (ms: number) => (now = ms) }
}

describe('AlertTracker', () => {
  it('raises a held-for-review sale exactly at 30 min, emits once, and clears on its next change', () => {
    const { t, orders, emitted, at } = setup()
    t.refresh()
    expect(emitted).toHaveLength(1)
    expect(emitted[0]!.alerts).toEqual([])
    at(T0 + 30 * MIN - 1)
    expect(t.refresh().alerts).toEqual([])
    at(T0 + 30 * MIN)
    const raised = t.refresh().alerts
    expect(raised).toHaveLength(1)
    expect(raised[0]).toMatchObject({
      kind: 'stalled',
      id: 'stalled:2:41',
      order: { type: 2, orderId: 41 },
      since: T0,
      thresholdMinutes: 30
    })
    expect(emitted).toHaveLength(2)
    // Minutes passing change no alert: no event.
    at(T0 + 45 * MIN)
    t.refresh()
    expect(emitted).toHaveLength(2)
    // Its next change (a new status, observed now) clears it.
    orders[0] = { ...orders[0]!, status: 4, since: T0 + 45 * MIN }
    expect(t.refresh().alerts).toEqual([])
    expect(emitted).toHaveLength(3)
  })

  it('flags the open orders of a chain whose node is out of sync, and clears when it is back', () => {
    const { t, gas, emitted, at } = setup()
    t.refresh()
    at(T0 + MIN)
    gas['54']!['3']!.nodeInSync = 0
    const flagged = t.refresh().alerts
    expect(flagged).toEqual([
      {
        kind: 'chain',
        id: 'chain:54:3:node_out_of_sync',
        coinId: 54,
        chainId: 3,
        problem: 'node_out_of_sync',
        orders: [{ type: 2, orderId: 41 }],
        since: T0 + MIN,
        text: '1 sale of USDT on TRC20 while its node is out of sync'
      }
    ])
    at(T0 + 2 * MIN)
    expect(t.refresh().alerts[0]!.since).toBe(T0 + MIN)
    gas['54']!['3']!.nodeInSync = 1
    expect(t.refresh().alerts).toEqual([])
    expect(emitted.map((l) => l.alerts.length)).toEqual([0, 1, 0])
  })
})

describe('StalledNotices', () => {
  it('notifies a stalled order once, and again only after it changed and stalled anew', () => {
    const { t, orders, at } = setup()
    const notices = new StalledNotices()
    at(T0 + 30 * MIN)
    expect(notices.take(t.list()).map((a) => a.id)).toEqual(['stalled:2:41'])
    at(T0 + 40 * MIN)
    expect(notices.take(t.list())).toEqual([])
    orders[0] = { ...orders[0]!, status: 17, since: T0 + 40 * MIN }
    expect(notices.take(t.list())).toEqual([])
    at(T0 + 160 * MIN)
    expect(notices.take(t.list()).map((a) => [a.id, a.status])).toEqual([['stalled:2:41', 17]])
  })
})
