// Answers whose shape the spec does not show, read the same whichever shape the service
// chose: priceTicker types 2 and 3 as {onramp, offramp} or {buy, sell}; limits types 2
// and 3 under type keys or flat (keyed by fiat, or by the type numbers); allCoinLimits
// shape A or B. Over HTTP against the sandbox's readings, through the app's ApiClient.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ApiClient } from '../../../src/main/api/client'
import { startSandbox, type Sandbox } from '../../../src/sandbox'

let sb: Sandbox
let client: ApiClient

beforeAll(async () => {
  sb = await startSandbox({ seed: 5, orders: 10, autoGenerate: false })
  client = new ApiClient({
    profileId: 'shapes',
    baseUrl: sb.url,
    serviceName: sb.serviceName,
    apiKey: sb.apiKey,
    getSecret: async () => sb.apiSecret
  })
})
afterAll(async () => {
  await client.close()
  await sb.close()
})

describe('priceTicker', () => {
  it('types 2 and 3 read alike as split or buy/sell keys', async () => {
    sb.control.setReadings({ tickerShape: 'split' })
    const split3 = await client.priceTicker({ type: 3, fiatType: 1 })
    const split2 = await client.priceTicker({ type: 2, fiatType: 1 })
    sb.control.setReadings({ tickerShape: 'buySell' })
    const buySell3 = await client.priceTicker({ type: 3, fiatType: 1 })
    const buySell2 = await client.priceTicker({ type: 2, fiatType: 1 })
    expect(Object.keys(split3.onramp ?? {}).length).toBeGreaterThan(0)
    expect(Object.keys(split3.offramp ?? {}).length).toBeGreaterThan(0)
    expect({ onramp: buySell3.onramp, offramp: buySell3.offramp }).toEqual({ onramp: split3.onramp, offramp: split3.offramp })
    expect(buySell2.offramp).toEqual(split2.offramp)
    expect(buySell2.onramp).toBeUndefined()
  })
})

describe('limits', () => {
  it('types 2 and 3 read alike under type keys or flat', async () => {
    sb.control.setReadings({ limitsShape: 'typeKeys' })
    const keyed3 = await client.limits({ type: 3 })
    const keyed2 = await client.limits({ type: 2 })
    sb.control.setReadings({ limitsShape: 'flat' })
    const flat3 = await client.limits({ type: 3 })
    const flat2 = await client.limits({ type: 2 })
    expect(Object.keys(keyed3.onramp ?? {}).length).toBeGreaterThan(0)
    expect(Object.keys(keyed3.offramp ?? {}).length).toBeGreaterThan(0)
    expect({ onramp: flat3.onramp, offramp: flat3.offramp }).toEqual({ onramp: keyed3.onramp, offramp: keyed3.offramp })
    expect(flat2.offramp).toEqual(keyed2.offramp)
    expect(flat2.onramp).toBeUndefined()
  })
})

describe('allCoinLimits', () => {
  it('shape A and shape B both parse', async () => {
    sb.control.setReadings({ coinLimitsShape: 'A' })
    const a = await client.allCoinLimits({ fiatType: 1 })
    expect(a).toHaveProperty('onramp')
    sb.control.setReadings({ coinLimitsShape: 'B' })
    const b = (await client.allCoinLimits({ fiatType: 1 })) as Record<string, Record<string, string>>
    const [coin] = Object.values(b)
    expect(Object.values(coin ?? {})[0]).toMatch(/^\d+(\.\d+)?$/)
  })
})
