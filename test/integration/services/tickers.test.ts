// Tickers through the handlers on the embedded sandbox: a view showing tickers starts
// polling ('ticker:tick'), hiding stops it, history accumulates with the sandbox's own
// prices, a failing fetch marks the prices stale, and a fiat switch shows that fiat only.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { cmp } from '../../../src/shared/money'
import { startServicesHarness, type ServicesHarness } from './harness'

let h: ServicesHarness

beforeAll(async () => {
  h = await startServicesHarness({ sandbox: { orders: 20, autoGenerate: false, seed: 41 } })
})
afterAll(async () => {
  await h?.close()
})

const priceOf = (coinId: number, fiatType: number) =>
  h.services
    .sandbox()!
    .control.prices()
    .find((p) => p.coinId === coinId && p.fiatType === fiatType)!

describe('tickers', () => {
  it('polls only while a view shows tickers', async () => {
    const stats = () => h.services.session().client.stats().priceTicker
    expect(stats()).toBe(0)
    const before = h.lastSeq()
    await h.call('tickers:visibility', { view: 'tray', visible: true })
    const tick = await h.waitFor('ticker:tick', () => true, before)
    expect(tick.fiatType).toBe(1)
    expect(tick.rows.length).toBeGreaterThan(0)
    expect(tick.nextRefreshAt).not.toBeNull()
    for (const r of tick.rows) expect(cmp(r.buy!, priceOf(r.coinId, 1).buy)).toBe(0)

    await h.call('tickers:visibility', { view: 'tray', visible: false })
    const cur = await h.call('tickers:get', { fiatType: 1 })
    expect(cur.nextRefreshAt).toBeNull()
    expect(stats()).toBe(1)
  })

  it('accumulates history for sparklines and marks prices stale when fetches fail', async () => {
    const sb = h.services.sandbox()!
    const usdtId = sb.control.prices().find((p) => p.coinCode === 'usdt')!.coinId
    sb.control.setPrice({ coinCode: 'usdt', fiatType: 1, price: '90' })
    await h.services.session().tickers.refresh()
    sb.control.setPrice({ coinCode: 'usdt', fiatType: 1, price: '91' })
    await h.services.session().tickers.refresh()
    const ok = await h.call('tickers:get', { fiatType: 1 })
    const row = ok.rows.find((r) => r.coinId === usdtId)!
    expect(row.history.length).toBe(3)
    expect(cmp(row.buy!, priceOf(usdtId, 1).buy)).toBe(0)
    expect(row.prevBuy).toBe(row.history[1]!.buy)
    expect(row.sell).not.toBeNull()
    expect(ok.rows.every((r) => !r.stale)).toBe(true)
    expect(ok.error).toBeNull()

    sb.control.setFault('priceTicker', { errorRate: 1, errorStatus: 400 })
    try {
      await h.services.session().tickers.refresh()
    } finally {
      sb.control.clearFaults()
    }
    const failed = await h.call('tickers:get', { fiatType: 1 })
    expect(failed.error?.httpStatus).toBe(400)
    expect(failed.rows.length).toBe(ok.rows.length)
    expect(failed.rows.every((r) => r.stale)).toBe(true)
    expect(failed.rows.find((r) => r.coinId === usdtId)!.buy).toBe(row.buy)
  })

  it('a view that shows tickers keeps getting them after the profile session is replaced', async () => {
    await h.call('tickers:visibility', { view: 'main', visible: true })
    const before = h.lastSeq()
    // Re-activating the profile reopens its session; the window does not announce itself again.
    await h.call('profiles:switch', { id: 'sandbox' })
    const tick = await h.waitFor('ticker:tick', () => true, before)
    expect(tick.nextRefreshAt).not.toBeNull()
    expect(h.services.session().tickers.current().nextRefreshAt).not.toBeNull()
    await h.call('tickers:visibility', { view: 'main', visible: false })
    expect(h.services.session().tickers.current().nextRefreshAt).toBeNull()
  })

  it('a fiat switch shows that fiat’s prices only and remembers the choice', async () => {
    const t = await h.call('tickers:get', { fiatType: 2 })
    expect(t.fiatType).toBe(2)
    expect(t.error).toBeNull()
    expect(t.rows.length).toBeGreaterThan(0)
    for (const r of t.rows) {
      expect(cmp(r.buy!, priceOf(r.coinId, 2).buy), `coin ${r.coinId}`).toBe(0)
      // The sandbox sells in INR only.
      expect(r.sell).toBeNull()
      expect(r.history).toHaveLength(1)
    }
    expect((await h.call('settings:get', {})).tickerFiat).toBe(2)
    expect(h.contractViolations).toEqual([])
  })
})
