// The answer readings over loopback: the priceTicker and limits shapes for types 2 and 3
// (not shown in the spec), allCoinLimits shape A or B, the Date header on or off (on
// every answer, errors included), and GET currentTimestamp answering the sandbox clock
// (clock offset included) or 404.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { CONTROL_TOKEN_HEADER, defaultReadings, routePath, startSandbox, type Sandbox } from '../../../src/sandbox'
import { COINS, FIATS } from '../../../src/sandbox/catalogue'
import { call, data, errorOf, raw } from './sandbox-client'

let sb: Sandbox
let t = Date.parse('2025-06-01T10:00:00.000Z')

beforeAll(async () => {
  sb = await startSandbox({ seed: 6, orders: 20, autoGenerate: false, now: () => t })
})
afterAll(async () => {
  await sb.close()
})
beforeEach(() => {
  t += 61_000
  const d = defaultReadings()
  sb.control.setReadings({
    tickerShape: d.tickerShape,
    limitsShape: d.limitsShape,
    coinLimitsShape: d.coinLimitsShape,
    dateHeader: d.dateHeader,
    currentTimestamp: d.currentTimestamp
  })
  sb.control.setClockOffset(0)
})

type ByKey = Record<string, unknown>
const keys = (v: unknown): string[] => Object.keys(v as ByKey).sort()
/** Each call in its own minute: the ticker and limits allow ten a minute. */
const fresh = async <T>(name: 'priceTicker' | 'limits' | 'allCoinLimits', body: unknown): Promise<T> => {
  t += 6_100
  return data<T>(sb, name, body)
}

describe('tickerShape', () => {
  it('split (default): type 1 onramp, type 2 offramp, type 3 onramp and offramp, keyed by coin id', async () => {
    const one = await fresh<ByKey>('priceTicker', { type: '1', fiatType: '1' })
    expect(keys(one)).toEqual(['onramp'])
    expect(keys(one.onramp)).toEqual(COINS.map((c) => String(c.id)).sort())
    const two = await fresh<ByKey>('priceTicker', { type: '2', fiatType: '1' })
    expect(keys(two)).toEqual(['offramp'])
    const three = await fresh<ByKey>('priceTicker', { type: '3', fiatType: '1' })
    expect(three).toEqual({ onramp: one.onramp, offramp: two.offramp })
  })

  it('buySell: type 1 still onramp (the spec shows it); type 2 sell, type 3 buy and sell, the same prices', async () => {
    const split = await fresh<ByKey>('priceTicker', { type: '3', fiatType: '1' })
    sb.control.setReadings({ tickerShape: 'buySell' })
    expect(await fresh('priceTicker', { type: '1', fiatType: '1' })).toEqual({ onramp: split.onramp })
    expect(await fresh('priceTicker', { type: '2', fiatType: '1' })).toEqual({ sell: split.offramp })
    expect(await fresh('priceTicker', { type: '3', fiatType: '1' })).toEqual({ buy: split.onramp, sell: split.offramp })
    // Outside INR there is nothing to sell: an empty sell map.
    expect(await fresh('priceTicker', { type: '3', fiatType: '2' })).toMatchObject({ sell: {} })
  })
})

describe('limitsShape', () => {
  it('typeKeys (default): {onramp}, {offramp}, {onramp, offramp}', async () => {
    const one = await fresh<ByKey>('limits', { type: '1' })
    expect(keys(one)).toEqual(['onramp'])
    expect(keys(one.onramp)).toEqual(FIATS.map((f) => String(f.id)).sort())
    const two = await fresh<ByKey>('limits', { type: '2' })
    expect(keys(two)).toEqual(['offramp'])
    expect(await fresh('limits', { type: '3' })).toEqual({ onramp: one.onramp, offramp: two.offramp })
  })

  it('flat: type 1 as the spec shows; type 2 keyed by fiat id directly; type 3 {"1": onramp, "2": offramp}', async () => {
    const both = await fresh<{ onramp: ByKey; offramp: ByKey }>('limits', { type: '3' })
    sb.control.setReadings({ limitsShape: 'flat' })
    expect(await fresh('limits', { type: '1' })).toEqual({ onramp: both.onramp })
    const two = await fresh<ByKey>('limits', { type: '2' })
    expect(two).toEqual(both.offramp)
    expect(two['1']).toEqual({ min: expect.any(Number), max: expect.any(Number) })
    expect(await fresh('limits', { type: '3' })).toEqual({ '1': both.onramp, '2': both.offramp })
  })
})

describe('coinLimitsShape', () => {
  const isShapeA = (v: unknown, fiat: number): void => {
    expect(keys(v)).toEqual(['onramp'])
    expect((v as { onramp: ByKey }).onramp[String(fiat)]).toEqual({ min: expect.any(Number), max: expect.any(Number) })
  }
  const isShapeB = (v: unknown): void => {
    expect(keys(v)).toEqual(COINS.map((c) => String(c.id)).sort())
    for (const c of COINS) {
      const chains = (v as Record<string, ByKey>)[String(c.id)]!
      expect(keys(chains)).toEqual(c.networks.map(String).sort())
      for (const amount of Object.values(chains)) expect(amount).toEqual(expect.any(Number))
    }
  }
  const VND = 5 // flagged perCoinLimits in the catalogue

  it('perFiat (default): shape B for the fiats flagged perCoinLimits, A for the rest', async () => {
    expect(FIATS.find((f) => f.id === VND)!.perCoinLimits).toBe(true)
    isShapeA(await fresh('allCoinLimits', { fiatType: '1' }), 1)
    isShapeB(await fresh('allCoinLimits', { fiatType: String(VND) }))
  })

  it('A: shape A for every fiat; B: shape B for every fiat', async () => {
    sb.control.setReadings({ coinLimitsShape: 'A' })
    for (const f of [1, VND]) isShapeA(await fresh('allCoinLimits', { fiatType: String(f) }), f)
    sb.control.setReadings({ coinLimitsShape: 'B' })
    for (const f of [1, VND]) isShapeB(await fresh('allCoinLimits', { fiatType: String(f) }))
  })
})

describe('dateHeader', () => {
  it('on (default): every answer carries the sandbox clock, errors and the control API included', async () => {
    sb.control.setClockOffset(-7_000)
    const date = new Date(Math.floor((t - 7_000) / 1000) * 1000).toUTCString()
    expect((await call(sb, 'bankDetails')).headers.date).toBe(date)
    expect((await call(sb, 'limits', { body: { type: '1' }, apiSecret: 'wrong' })).headers.date).toBe(date)
    expect((await raw(sb, '/service/api/nothing')).headers.date).toBe(date)
  })

  it('off: no Date header at all, on successes, errors and the control API alike', async () => {
    sb.control.setReadings({ dateHeader: false })
    const answers = [
      await call(sb, 'bankDetails'),
      await call(sb, 'merchantHistory', { body: { pageSize: 1 } }),
      await call(sb, 'limits', { body: { type: '1' }, apiSecret: 'wrong' }),
      await call(sb, 'limits', { body: { type: true } }),
      await raw(sb, '/service/api/nothing'),
      await raw(sb, '/__sandbox/info', { method: 'GET', headers: { [CONTROL_TOKEN_HEADER]: sb.controlToken } })
    ]
    expect(answers.map((r) => r.status)).toEqual([200, 200, 401, 409, 404, 200])
    for (const r of answers) expect(r.headers).not.toHaveProperty('date')
    sb.control.setFault('publicAllConfig', { malformedJsonRate: 1, remaining: 1 })
    expect((await call(sb, 'publicAllConfig')).headers).not.toHaveProperty('date')
  })
})

describe('currentTimestamp', () => {
  it('answers {status: 1, code: 200, data: server ms} without authentication, following the clock offset', async () => {
    const r = await raw(sb, routePath('service', 'currentTimestamp'), { method: 'GET' })
    expect(r.status).toBe(200)
    expect(r.json).toEqual({ status: 1, code: 200, data: t })
    sb.control.setClockOffset(90_000)
    expect(await data(sb, 'currentTimestamp')).toBe(t + 90_000)
    sb.control.setClockOffset(-90_123)
    expect(await data(sb, 'currentTimestamp')).toBe(t - 90_123)
    expect(sb.control.serverNow()).toBe(t - 90_123)
    expect(errorOf(await raw(sb, routePath('service', 'currentTimestamp'), { method: 'POST', rawBody: '{}' }), 405)).toMatch(/use GET/)
  })

  it('off: 404 like any path the service does not have; on again: answers', async () => {
    sb.control.setReadings({ currentTimestamp: false })
    const r = await call(sb, 'currentTimestamp')
    expect(errorOf(r, 404)).toBe('Not found: GET /service/api/v2/common/public/currentTimestamp')
    sb.control.setReadings({ currentTimestamp: true })
    expect(await data(sb, 'currentTimestamp')).toBe(t)
  })
})
