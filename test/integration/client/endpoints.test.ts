// Every endpoint of the merchant API through the real ApiClient against the real sandbox
// over loopback: both quote types (with the coinCode/network precedence), the three
// priceTicker and limits types, allCoinLimits shapes A and B (and that B's minimums are
// what quotes enforce), and the configuration endpoints checked against each other and
// against the sandbox's own prices. merchantHistory has its own file (history.test.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ApiClient } from '../../../src/main/api/client'
import type { Sandbox } from '../../../src/sandbox'
import { endpointNames } from '../../../src/shared/api/endpoints'
import { cmp, div, mul, round, sub, type DecimalString } from '../../../src/shared/money'
import { caught, clientFor, quietSandbox } from './support'

let sb: Sandbox
let client: ApiClient

beforeAll(async () => {
  sb = await quietSandbox({ seed: 31, orders: 120 })
  client = clientFor(sb)
})
afterAll(async () => {
  await client?.close()
  await sb?.close()
})

/** Decimal equality whatever the spelling ("25" and "25.00"). */
function expectDec(actual: DecimalString | undefined, expected: DecimalString): void {
  expect(actual, `expected ${expected}`).toBeDefined()
  expect(cmp(actual as string, expected), `${actual} vs ${expected}`).toBe(0)
}

const priceRow = (coinCode: string, fiatType = 1) => {
  const row = sb.control.prices().find((p) => p.coinCode === coinCode && p.fiatType === fiatType)
  if (!row) throw new Error(`no price row for ${coinCode} in fiat ${fiatType}`)
  return row
}

/** The fee of the largest threshold not above the amount (docs/sandbox.md, Fees). */
function gatewayFee(table: Record<string, string>, amount: DecimalString): DecimalString {
  const hit = Object.keys(table)
    .filter((t) => cmp(t, amount) <= 0)
    .sort((a, b) => cmp(b, a))[0]
  return hit === undefined ? '0' : (table[hit] as string)
}

describe('configuration endpoints', () => {
  it('allConfigMapping: the symbol tables of spec 2.1-2.3, ids as numbers even where the service sends text', async () => {
    const m = await client.allConfigMapping()
    expect(m.fiatSymbolMapping).toMatchObject({ INR: 1, TRY: 2, AED: 3, MXN: 4, VND: 5, NGN: 6, BRL: 7, PEN: 8 })
    // busd, matic and neo arrive as numeric strings (docs/sandbox.md, Data); the client's schema makes them ids.
    expect(m.coinSymbolMapping).toMatchObject({ usdt: 54, usdc: 83, busd: 84, eth: 6, matic: 31, neo: 17 })
    expect(m.chainSymbolMapping).toMatchObject({ erc20: 0, bep20: 1, trc20: 2, matic20: 3, spl: 4, eth: 0, bsc: 1, trx: 2, sol: 4, bnb: 5 })
  })

  it('allChainMapping: a chain detail for every mapped chain id, plus the unmapped 14, 15 and 10002', async () => {
    const [chains, mapping] = [await client.allChainMapping(), await client.allConfigMapping({ priority: 'interactive' })]
    expect('networkConfig' in chains).toBe(false) // the sandbox's choice: the bare map
    const map = chains as Record<string, { chainSymbol: string }>
    for (const [symbol, id] of Object.entries(mapping.chainSymbolMapping)) expect(map[String(id)], symbol).toBeDefined()
    expect(map['2']?.chainSymbol).toBe('trc20')
    expect(map['14']?.chainSymbol).toBe('yota')
    expect(map['15']?.chainSymbol).toBe('ton')
    expect(map['10002']).toBeDefined()
  })

  it('allGasFee (strings, depositEnable) and publicAllGasFee (numbers, "native") give the same fees', async () => {
    const [gas, pub, config] = [await client.allGasFee(), await client.publicAllGasFee(), await client.publicAllConfig()]
    const networks = config.networkConfig ?? {}
    let compared = 0
    for (const [coinId, chains] of Object.entries(gas)) {
      for (const [chainId, entry] of Object.entries(chains)) {
        const key = Number(networks[chainId]?.nativeToken) === Number(coinId) ? 'native' : chainId
        const p = pub.allGasFee[coinId]?.[key]
        expect(p, `${coinId}/${key}`).toBeDefined()
        expectDec(p?.withdrawalFee, entry.withdrawalFee)
        expectDec(p?.minimumWithdrawal, entry.minimumWithdrawal)
        expect(p?.nodeInSync).toBe(entry.nodeInSync)
        compared++
      }
    }
    expect(compared).toBeGreaterThan(15)
    expect(pub.allGasFee['6']?.native).toBeDefined() // eth on its own chain
    expect(gas['84']?.['1']?.depositEnable).toBe(0) // busd deposits closed
    expect(Object.values(gas['17'] ?? {}).every((e) => e.nodeInSync === 0)).toBe(true) // neo out of sync
  })

  it('publicAllConfig: coins, networks, sell prices per coin (per chain where sold on several), minimums, deposit fees', async () => {
    const c = await client.publicAllConfig()
    expect(c.allCoinConfig?.usdt).toMatchObject({ coinId: 54, networks: expect.arrayContaining([0, 1, 2, 3]) as unknown })
    const usdtSell = priceRow('usdt').sell
    const usdtData = c.coinData?.['54'] as Record<string, string>
    for (const chain of ['0', '1', '2', '3']) expectDec(usdtData[chain], usdtSell)
    expectDec(c.coinData?.['84'] as string, priceRow('busd').sell) // one chain: a bare number
    expectDec(c.minimumBuyAmount?.['6']?.['0'], '1000')
    expect(c.allGasFee?.['54']?.['1']).toMatchObject({
      depositFee: expect.any(String) as unknown,
      minimumDeposit: expect.any(String) as unknown
    })
    expectDec(c.minimumSellAmount?.['1'], '500')
    expectDec(c.gatewayFee?.['1']?.['10000'], '25')
  })

  it('bankDetails: the array form of spec 2.8', async () => {
    const b = await client.bankDetails()
    expect(typeof b.upi).toBe('string')
    expect(Array.isArray(b.bank) && b.bank.length).toBe(2)
    expect(b.upiNotes?.map((n) => n.type)).toEqual(expect.arrayContaining([1, -1]))
  })
})

describe('limits and allCoinLimits', () => {
  it('limits type 1, 2 and 3', async () => {
    const on = await client.limits({ type: 1 })
    expect(Object.keys(on.onramp ?? {}).sort()).toEqual(['1', '2', '3', '4', '5', '6', '7', '8'])
    expect(on.offramp).toBeUndefined()
    expectDec(on.onramp?.['1']?.min, '100')
    expectDec(on.onramp?.['1']?.max, '200000')
    const off = await client.limits({ type: '2' })
    expect(off.onramp).toBeUndefined()
    expect(Object.keys(off.offramp ?? {})).toEqual(['1'])
    expectDec(off.offramp?.['1']?.min, '500')
    expectDec(off.offramp?.['1']?.max, '500000')
    const both = await client.limits({ type: 3 })
    expect(both).toMatchObject({ onramp: on.onramp, offramp: off.offramp })
  })

  it('shape A for INR (and "4" as text): {onramp: {fiat: {min, max}}} for the requested fiat only, equal to limits', async () => {
    const on = (await client.limits({ type: 1 }, { priority: 'interactive' })).onramp ?? {}
    const inr = await client.allCoinLimits({ fiatType: 1 })
    expect(inr).toEqual({ onramp: { '1': on['1'] } })
    expect(await client.allCoinLimits({ fiatType: '4' })).toEqual({ onramp: { '4': on['4'] } })
  })

  it('shape B for VND and NGN: a minimum per coin and chain, which onramp quotes enforce', async () => {
    const [vnd, ngn, config] = [
      await client.allCoinLimits({ fiatType: 5 }),
      await client.allCoinLimits({ fiatType: 6 }),
      await client.publicAllConfig()
    ]
    expect('onramp' in vnd).toBe(false)
    const b = vnd as Record<string, Record<string, string>>
    for (const coin of Object.values(config.allCoinConfig ?? {})) {
      expect(
        Object.keys(b[String(coin.coinId)] ?? {})
          .map(Number)
          .sort((x, y) => x - y),
        `coin ${coin.coinId}`
      ).toEqual([...coin.networks].sort((x, y) => x - y))
    }
    expect(Object.keys(ngn as object).sort()).toEqual(Object.keys(b).sort())
    // eth on erc20 needs four times the fiat's own minimum in VND: the shape B number is the floor.
    const floor = b['6']?.['0'] as string
    const fiatMin = (await client.limits({ type: 1 }, { priority: 'interactive' })).onramp?.['5']?.min as string
    expect(cmp(floor, fiatMin)).toBe(1)
    const below = await caught(client.onrampQuote({ coinId: 6, chainId: 0, fiatType: 5, fiatAmount: sub(floor, '1') }))
    expect(below).toMatchObject({ kind: 'api', code: 413, httpStatus: 413 })
    const at = await client.onrampQuote({ coinId: 6, chainId: 0, fiatType: 5, fiatAmount: floor })
    expect(cmp(at.quantity, '0')).toBe(1)
  })
})

describe('priceTicker', () => {
  it('type 1: the buy price of every coin; type 2: the sell price of the sellable coins; type 3: both (INR)', async () => {
    const mapping = await client.allConfigMapping({ priority: 'interactive' })
    const buy = await client.priceTicker({ type: 1, fiatType: 1 })
    expect(buy.offramp).toBeUndefined()
    expect(Object.keys(buy.onramp ?? {}).sort()).toEqual(Object.values(mapping.coinSymbolMapping).map(String).sort())
    for (const [code, id] of Object.entries(mapping.coinSymbolMapping)) expectDec(buy.onramp?.[String(id)], priceRow(code).buy)
    const sell = await client.priceTicker({ type: 2, fiatType: '1' })
    expect(buy.onramp).toBeDefined()
    expect(sell.onramp).toBeUndefined()
    expect(Object.keys(sell.offramp ?? {}).sort()).toEqual(['54', '6', '83', '84'].sort())
    expectDec(sell.offramp?.['54'], priceRow('usdt').sell)
    const both = await client.priceTicker({ type: 3, fiatType: 1 })
    expect(both).toEqual({ onramp: buy.onramp, offramp: sell.offramp })
  })

  it('outside INR: type 3 has an empty offramp, type 2 is refused with 406', async () => {
    const tr = await client.priceTicker({ type: 3, fiatType: 2 })
    expect(tr.offramp).toEqual({})
    expectDec(tr.onramp?.['54'], priceRow('usdt', 2).buy)
    expect(await caught(client.priceTicker({ type: 2, fiatType: 2 }))).toMatchObject({
      kind: 'api',
      code: 406,
      httpStatus: 406,
      retryable: false
    })
  })

  it('follows a price set through the control API', async () => {
    sb.control.setPrice({ coinCode: 'sol', price: '12345.6' })
    const t = await client.priceTicker({ type: 1, fiatType: 1 }, { priority: 'interactive' })
    expectDec(t.onramp?.['67'], mul('12345.6', '1.015'))
  })
})

describe('quotes', () => {
  it('onramp (type 1): rate is the buy price, fees in the fiat, quantity = (amount - fees) / rate - gas, rounded down', async () => {
    sb.control.setPrice({ coinCode: 'eth', price: '200000' })
    const rate = priceRow('eth').buy
    const [gas, config] = [await client.allGasFee({ priority: 'interactive' }), await client.publicAllConfig()]
    const q = await client.onrampQuote({ coinCode: 'eth', network: 'erc20', fiatAmount: '25000', fiatType: 1 })
    expectDec(q.rate, rate)
    expectDec(q.onrampFee, '250')
    expectDec(q.clientFee, '62.5')
    expectDec(q.gatewayFee, gatewayFee(config.gatewayFee?.['1'] ?? {}, '25000'))
    const gasFee = gas['6']?.['0']?.withdrawalFee as string
    expectDec(q.gasFee, gasFee)
    const net = sub(sub(sub('25000', q.onrampFee), q.clientFee), q.gatewayFee)
    const dp = config.allCoinConfig?.eth?.tradeFloatPlaces as number
    expectDec(q.quantity, round(sub(div(net, rate, 30), gasFee), dp, 'down'))
  })

  it('offramp (type 2): rate is the sell price; fiatAmount = gross - 1% - 0.25% - gateway - 1% TDS', async () => {
    sb.control.setPrice({ coinCode: 'usdt', price: '90' })
    const rate = priceRow('usdt').sell
    const config = await client.publicAllConfig()
    const q = await client.offrampQuote({ coinCode: 'usdt', network: 'bep20', quantity: '100', fiatType: 1 })
    const gross = round(mul('100', rate), 2)
    expectDec(q.rate, rate)
    expectDec(q.onrampFee, round(mul(gross, '0.01'), 2))
    expectDec(q.clientFee, round(mul(gross, '0.0025'), 2))
    expectDec(q.tdsFee, round(mul(gross, '0.01'), 2))
    expectDec(q.gatewayFee, gatewayFee(config.gatewayFee?.['1'] ?? {}, gross))
    expectDec(q.fiatAmount, sub(sub(sub(sub(gross, q.onrampFee), q.clientFee), q.gatewayFee), q.tdsFee))
  })

  it('coinCode wins over coinId and network over chainId (spec 4.9), in both flows', async () => {
    const gas = await client.allGasFee({ priority: 'interactive' })
    const on = await client.onrampQuote({ coinId: 6, coinCode: 'usdt', chainId: 0, network: 'bep20', fiatAmount: '1000', fiatType: 1 })
    expectDec(on.rate, priceRow('usdt').buy)
    expectDec(on.gasFee, gas['54']?.['1']?.withdrawalFee as string)
    const byIds = await client.onrampQuote({ coinId: 54, chainId: 1, fiatAmount: '1000', fiatType: 1 })
    expect(byIds).toEqual(on)
    const off = await client.offrampQuote({ coinId: 83, coinCode: 'usdt', chainId: 0, network: 'trc20', quantity: '50', fiatType: 1 })
    expectDec(off.rate, priceRow('usdt').sell)
  })

  it("onramp quotes in other fiats use that fiat's price", async () => {
    const q = await client.onrampQuote({ coinCode: 'usdc', network: 'matic20', fiatAmount: '500', fiatType: 3 })
    expectDec(q.rate, priceRow('usdc', 3).buy)
    expectDec(q.onrampFee, '5')
  })
})

describe('orderStatus', () => {
  it('answers the status of onramp and offramp orders as the ground truth has them, and follows a moved order', async () => {
    const truth = sb.control.groundTruth()
    for (const o of [...truth.filter((x) => x.type === 1).slice(0, 3), ...truth.filter((x) => x.type === 2).slice(0, 3)]) {
      expect(await client.orderStatus({ orderId: o.orderId, type: o.type })).toEqual({ orderStatus: o.status })
    }
    const o = sb.control.createOrder({ type: 2, path: 'alternate bank', hold: true })
    expect(await client.orderStatus({ orderId: String(o.orderId), type: 2 })).toEqual({ orderStatus: 0 })
    sb.control.advanceOrder(o.orderId, 17)
    expect(await client.orderStatus({ orderId: o.orderId, type: 2 })).toEqual({ orderStatus: 17 })
  })
})

// Runs last in this file: every endpoint above went over the wire through this one client.
it('this client sent requests to all 11 endpoints covered here (history and webhooks have their own files)', () => {
  const stats = client.stats()
  // The spec's 15 and currentTimestamp (live-service notes), which has tests of its own.
  expect(endpointNames).toHaveLength(16)
  const silent = endpointNames.filter(
    (n) => stats[n] === 0 && !['merchantHistory', 'sendDummyWebhook', 'resendWebhook', 'setWebhookUrl', 'currentTimestamp'].includes(n)
  )
  expect(silent).toEqual([])
})
