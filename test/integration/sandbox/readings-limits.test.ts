// The limit readings over loopback: per-minute limits for endpoints the spec shows none
// for (429 after N, saying when the next slot is; the documented six unchanged), and a
// sliding 60 s window against fixed clock minutes.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { ENDPOINT_NAMES, ROUTES, startSandbox, type Sandbox } from '../../../src/sandbox'
import { call, errorOf } from './sandbox-client'

let sb: Sandbox
// On a minute boundary, so fixed windows are easy to place.
let t = Date.parse('2025-06-01T10:00:00.000Z')

beforeAll(async () => {
  sb = await startSandbox({ seed: 4, orders: 50, autoGenerate: false, now: () => t })
})
afterAll(async () => {
  await sb.close()
})
beforeEach(() => {
  // Ten minutes between tests: every window of every limiter is empty again.
  t = Math.ceil((t + 600_000) / 60_000) * 60_000
  sb.control.setReadings({ unknownLimits: {}, limiter: 'sliding' })
})

const statuses = async (n: number, go: () => ReturnType<typeof call>): Promise<number[]> => {
  const out: number[] = []
  for (let i = 0; i < n; i++) out.push((await go()).status)
  return out
}

describe('unknownLimits', () => {
  it('default: no limit on the endpoints the spec shows none for', async () => {
    expect(sb.control.readings().unknownLimits).toEqual({})
    expect(await statuses(25, () => call(sb, 'merchantHistory', { body: { pageSize: 1 } }))).toEqual(Array(25).fill(200))
    expect(await statuses(25, () => call(sb, 'bankDetails'))).toEqual(Array(25).fill(200))
  })

  it('N per minute: the N+1th answers 429 with the next slot; other endpoints and the documented six are unchanged', async () => {
    sb.control.setReadings({ unknownLimits: { merchantHistory: 3, bankDetails: 2, currentTimestamp: 1 } })
    expect(await statuses(3, () => call(sb, 'merchantHistory', { body: { pageSize: 1 } }))).toEqual([200, 200, 200])
    t += 15_000
    expect(errorOf(await call(sb, 'merchantHistory', { body: { pageSize: 1 } }), 429)).toBe(
      'Too many requests: merchantHistory allows 3 per minute; next slot in 45 s'
    )
    // The public GETs count per client address.
    expect(await statuses(3, () => call(sb, 'bankDetails'))).toEqual([200, 200, 429])
    expect(await statuses(2, () => call(sb, 'currentTimestamp'))).toEqual([200, 429])
    // Not named: still unlimited.
    expect(
      await statuses(15, () => call(sb, 'orderStatus', { body: { orderId: '100001', type: sb.control.order(100001)!.type } }))
    ).toEqual(Array(15).fill(200))
    // The documented limit of the six stays 10.
    expect(await statuses(11, () => call(sb, 'limits', { body: { type: '1' } }))).toEqual([...Array(10).fill(200), 429])
    // Once the minute has passed, history answers again.
    t += 46_000
    expect((await call(sb, 'merchantHistory', { body: { pageSize: 1 } })).status).toBe(200)
  })

  it('can be lifted at run time', async () => {
    sb.control.setReadings({ unknownLimits: { quotes: 1 } })
    const body = { type: 1, coinCode: 'usdt', network: 'bep20', fiatAmount: 2000, fiatType: 1 }
    expect(await statuses(2, () => call(sb, 'quotes', { body }))).toEqual([200, 429])
    sb.control.setReadings({ unknownLimits: {} })
    expect(await statuses(3, () => call(sb, 'quotes', { body }))).toEqual([200, 200, 200])
  })

  it('cannot change a documented limit', () => {
    const documented = ENDPOINT_NAMES.filter((n) => ROUTES[n].perMinute !== null)
    expect(documented.sort()).toEqual(['allChainMapping', 'allCoinLimits', 'allConfigMapping', 'allGasFee', 'limits', 'priceTicker'])
    for (const name of documented) expect(() => sb.control.setReadings({ unknownLimits: { [name]: 100 } })).toThrow(/documented limit/)
  })
})

describe('limiter', () => {
  const limits = () => call(sb, 'limits', { body: { type: '1' } })

  it('sliding (default): ten in the last 60 s, whatever the clock minute', async () => {
    t += 50_000
    expect(await statuses(10, limits)).toEqual(Array(10).fill(200))
    // 11 s later a new clock minute has begun, but the ten are still inside the last 60 s.
    t += 11_000
    expect(errorOf(await limits(), 429)).toMatch(/next slot in 49 s$/)
    t += 49_000
    expect(await statuses(11, limits)).toEqual([...Array(10).fill(200), 429])
  })

  it('fixed: ten per clock minute; a new minute gives ten more at once', async () => {
    sb.control.setReadings({ limiter: 'fixed' })
    t += 50_000
    expect(await statuses(11, limits)).toEqual([...Array(10).fill(200), 429])
    expect(errorOf(await limits(), 429)).toMatch(/next slot in 10 s$/)
    t += 11_000
    expect(await statuses(11, limits)).toEqual([...Array(10).fill(200), 429])
  })

  it('fixed applies to the unknown limits too', async () => {
    sb.control.setReadings({ limiter: 'fixed', unknownLimits: { merchantHistory: 2 } })
    const history = () => call(sb, 'merchantHistory', { body: { pageSize: 1 } })
    t += 59_000
    expect(await statuses(3, history)).toEqual([200, 200, 429])
    t += 1_000
    expect(await statuses(3, history)).toEqual([200, 200, 429])
  })
})
