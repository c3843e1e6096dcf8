// Contract tests of the response schemas against the fixtures in test/fixtures/api: every
// documented shape and live variant parses, every malformed body is refused with a
// ZodError, and parsing normalises (ids to numbers, money to decimal strings equal to
// the text that arrived, timestamps to ISO with milliseconds, unknown keys kept).
import { describe, expect, it } from 'vitest'
import { ZodError } from 'zod'
import { Big } from '../../../../src/shared/money'
import {
  endpointNames,
  endpoints,
  OfframpHistoryResponse,
  OnrampHistoryResponse,
  OnrampQuoteResponse,
  OfframpQuoteResponse
} from '../../../../src/shared/api/endpoints'
import type { EndpointName } from '../../../../src/shared/api/endpoints'
import {
  BankDetails,
  ChainMappingData,
  CoinLimitsData,
  ErrorEnvelope,
  Id,
  Money,
  OfframpOrder,
  OnrampOrder,
  PublicAllConfigData,
  Timestamp,
  envelope
} from '../../../../src/shared/api/schemas'
import { ERROR_ENVELOPE_DIR, allFixtures, fixture, fixturesOf, inFarTimeZone } from './load-fixtures'

const PLAIN_DECIMAL = /^-?(0|[1-9]\d*)(\.\d*[1-9])?$/
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

const ID_KEYS = new Set([
  'orderId',
  'userId',
  'appId',
  'coinId',
  'chainId',
  'fiatType',
  'paymentType',
  'kycNeeded',
  'status',
  'trials',
  'webhookTrials',
  'networkId',
  'nativeToken',
  'node',
  'confirmations',
  'nodeInSync',
  'depositEnable',
  'orderStatus',
  'balanceFloatPlaces',
  'tradeFloatPlaces',
  'code'
])
const MONEY_KEYS = new Set([
  'fiatAmount',
  'expectedCryptoAmount',
  'expectedPrice',
  'actualCryptoAmount',
  'actualPrice',
  'onrampFee',
  'gasFee',
  'clientFee',
  'gatewayFee',
  'expectedQuantity',
  'actualQuantity',
  'actualFiatAmount',
  'tdsFee',
  'rate',
  'quantity',
  'withdrawalFee',
  'minimumWithdrawal',
  'depositFee',
  'minimumDeposit',
  'min',
  'max'
])
const TIME_KEYS = new Set(['createdAt', 'updatedAt'])

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)
const utc = (s: string) => (/[zZ]|[+-]\d{2}:?\d{2}$/.test(s) ? s : `${s}Z`)

/**
 * Walks a fixture and its parsed output side by side and checks the normalisation
 * rules wherever a known field name appears. Returns how many fields it checked so a
 * test can make sure the walk saw something.
 */
function checkNormalised(input: unknown, output: unknown, path = '$'): number {
  let checked = 0
  if (Array.isArray(input)) {
    expect(Array.isArray(output), `${path} stays an array`).toBe(true)
    input.forEach((v, i) => (checked += checkNormalised(v, (output as unknown[])[i], `${path}[${i}]`)))
    return checked
  }
  if (!isRecord(input) || !isRecord(output)) return checked
  for (const [key, value] of Object.entries(input)) {
    const outKey = key === 'onRampFee' ? 'onrampFee' : key
    const at = `${path}.${key}`
    expect(Object.hasOwn(output, outKey), `${at} is kept`).toBe(true)
    const out = output[outKey]
    if (key === 'onRampFee') expect(Object.hasOwn(output, 'onRampFee'), `${at} is renamed`).toBe(false)
    if (ID_KEYS.has(key) && (typeof value === 'number' || typeof value === 'string')) {
      expect(typeof out, `${at} is a number`).toBe('number')
      expect(out, at).toBe(Number(value))
      checked++
    } else if (MONEY_KEYS.has(key) && (typeof value === 'number' || typeof value === 'string')) {
      expect(typeof out, `${at} is a decimal string`).toBe('string')
      expect(out as string, at).toMatch(PLAIN_DECIMAL)
      expect(new Big(out as string).eq(new Big(String(value))), `${at}: ${String(out)} == ${String(value)}`).toBe(true)
      checked++
    } else if (MONEY_KEYS.has(key) && value === null) {
      expect(out, `${at} stays null`).toBeNull()
      checked++
    } else if (TIME_KEYS.has(key) && typeof value === 'string') {
      expect(out as string, at).toMatch(ISO_MS)
      expect(Date.parse(out as string), at).toBe(Date.parse(utc(value)))
      checked++
    } else {
      checked += checkNormalised(value, out, at)
    }
  }
  return checked
}

function expectRejected(result: { success: boolean; error?: unknown }) {
  expect(result.success).toBe(false)
  expect(result.error).toBeInstanceOf(ZodError)
  expect((result.error as ZodError).issues.length).toBeGreaterThan(0)
}

// ---------------------------------------------------------------- fixture coverage

describe('fixture set', () => {
  it('has a folder only for known endpoints and the error envelopes', () => {
    const dirs = new Set(allFixtures().map((f) => f.dir))
    for (const d of dirs) expect([...endpointNames, ERROR_ENVELOPE_DIR]).toContain(d)
  })

  it.each(endpointNames)('%s has at least one success fixture and one malformed one', (name) => {
    expect(fixturesOf(name, 'ok').length).toBeGreaterThan(0)
    expect(fixturesOf(name, 'bad').length).toBeGreaterThan(0)
  })

  it.each(endpointNames)('%s has request fixtures on both sides', (name) => {
    expect(fixturesOf(name, 'req-bad').length).toBeGreaterThan(0)
    if (endpoints[name].method === 'POST') expect(fixturesOf(name, 'req-ok').length).toBeGreaterThan(0)
  })
})

// ---------------------------------------------------------------- every fixture, generically

const okCases = allFixtures()
  .filter((f) => f.kind === 'ok' && f.dir !== ERROR_ENVELOPE_DIR)
  .map((f) => [`${f.dir}/${f.name}`, f] as const)
const badCases = allFixtures()
  .filter((f) => f.kind === 'bad' && f.dir !== ERROR_ENVELOPE_DIR)
  .map((f) => [`${f.dir}/${f.name}`, f] as const)

describe('success fixtures', () => {
  it.each(okCases)('%s parses and is normalised', (_label, f) => {
    const schema = endpoints[f.dir as EndpointName].response
    const r = schema.safeParse(f.body)
    expect(r.error?.issues).toBeUndefined()
    expect(r.success).toBe(true)
    const checked = checkNormalised(f.body, r.data)
    expect(checked).toBeGreaterThan(0)
  })

  it.each(okCases)('%s is a fixed point: parsing the output again changes nothing', (_label, f) => {
    const schema = endpoints[f.dir as EndpointName].response
    const once = schema.parse(f.body)
    expect(schema.parse(once)).toEqual(once)
  })
})

describe('malformed fixtures', () => {
  it.each(badCases)('%s is rejected with a ZodError', (_label, f) => {
    expectRejected(endpoints[f.dir as EndpointName].response.safeParse(f.body))
  })
})

describe('error envelopes', () => {
  const ok = fixturesOf(ERROR_ENVELOPE_DIR, 'ok').map((f) => [f.name, f] as const)
  const bad = fixturesOf(ERROR_ENVELOPE_DIR, 'bad').map((f) => [f.name, f] as const)

  it.each(ok)('%s parses as ErrorEnvelope', (_n, f) => {
    const r = ErrorEnvelope.safeParse(f.body)
    expect(r.success).toBe(true)
    expect(r.data?.status).toBe(0)
    expect(typeof r.data?.code).toBe('number')
  })

  it.each(ok)('%s is refused by every endpoint success schema', (_n, f) => {
    for (const name of endpointNames) expectRejected(endpoints[name].response.safeParse(f.body))
  })

  it.each(bad)('%s is rejected', (_n, f) => {
    expectRejected(ErrorEnvelope.safeParse(f.body))
  })

  it('keeps the code, the error text and extra keys', () => {
    expect(ErrorEnvelope.parse(fixture(ERROR_ENVELOPE_DIR, 'ok-401-invalid-signature'))).toEqual({
      status: 0,
      code: 401,
      error: 'Invalid signature'
    })
    expect(ErrorEnvelope.parse(fixture(ERROR_ENVELOPE_DIR, 'ok-401-ahead-of-time')).error).toBe('Ahead of Time')
    expect(ErrorEnvelope.parse(fixture(ERROR_ENVELOPE_DIR, 'ok-413-amount-out-of-bounds'))).toMatchObject({
      code: 413,
      min: 100,
      max: 200000
    })
    expect(ErrorEnvelope.parse(fixture(ERROR_ENVELOPE_DIR, 'ok-503-code-text-and-message'))).toEqual({
      status: 0,
      code: 503,
      message: 'Down for maintenance'
    })
    // A structured error is kept as its JSON text so it can still be shown.
    expect(ErrorEnvelope.parse(fixture(ERROR_ENVELOPE_DIR, 'ok-500-error-object')).error).toBe('{"reason":"upstream","retry":true}')
  })

  it('success bodies are not error envelopes', () => {
    expectRejected(ErrorEnvelope.safeParse(fixture('orderStatus', 'ok-status')))
  })
})

// ---------------------------------------------------------------- targeted normalisation

describe('allChainMapping', () => {
  it('bare chain map: keys 0-5, 7-15 and 21 with numeric detail fields', () => {
    const r = endpoints.allChainMapping.response.parse(fixture('allChainMapping', 'ok-bare-chain-map'))
    const keys = Object.keys(r.data)
      .map(Number)
      .sort((a, b) => a - b)
    expect(keys).toEqual([0, 1, 2, 3, 4, 5, 7, 8, 9, 10, 11, 12, 13, 14, 15, 21])
    const data = r.data as Record<string, { chainSymbol: string; networkId?: number; startingWith?: string[] }>
    expect(data['2']).toMatchObject({ chainSymbol: 'trc20', networkId: -1, nativeToken: -1 })
    expect(data['4']?.startingWith).toEqual([''])
    expect(data['15']?.chainSymbol).toBe('ton')
    expect(data['12']?.chainSymbol).toBe('wemix 3.0')
  })

  it('live {allCoinConfig, networkConfig} form, chain ids beyond the table, extra keys kept', () => {
    const r = ChainMappingData.parse((fixture('allChainMapping', 'ok-live-coin-and-network-config') as { data: unknown }).data)
    expect('networkConfig' in r).toBe(true)
    const live = r as {
      networkConfig: Record<string, { chainSymbol: string; explorerName?: unknown }>
      allCoinConfig?: Record<string, { coinId: number; networks: number[]; exchanges?: unknown }>
    }
    expect(Object.keys(live.networkConfig)).toEqual(['0', '10002', '10116'])
    expect(live.networkConfig['10116']?.explorerName).toBe('suiscan')
    expect(live.allCoinConfig?.eth?.coinId).toBe(14)
    expect(live.allCoinConfig?.eth?.networks).toEqual([0, 3, 13])
    expect(live.allCoinConfig?.usdt?.networks).toContain(10002)
    expect(live.allCoinConfig?.usdt?.exchanges).toEqual(['wazirx', 'binance'])
  })

  it('ids sent as numeric strings come out as numbers', () => {
    const r = endpoints.allChainMapping.response.parse(fixture('allChainMapping', 'ok-chain-ids-beyond-table'))
    expect(r.code).toBe(200)
    expect((r.data as Record<string, unknown>)['10002']).toMatchObject({ networkId: 8453, nativeToken: -1, node: 0 })
    expect((r.data as Record<string, unknown>)['10116']).toMatchObject({ confirmations: 3, startingWith: ['0x', ''] })
  })
})

describe('allCoinLimits', () => {
  it('shape A: {onramp: {fiat: {min, max}}} with money strings, fiat ids beyond 8', () => {
    const r = CoinLimitsData.parse((fixture('allCoinLimits', 'ok-shape-a-per-fiat') as { data: unknown }).data)
    expect(r).toEqual({
      onramp: {
        '1': { min: '100', max: '200000' },
        '2': { min: '50', max: '75000.5' },
        '9': { min: '20', max: '5000' },
        '14': { min: '0.0000001', max: '1000' }
      }
    })
  })

  it('shape B: {coinId: {chainId: number}} with float artefacts kept exactly', () => {
    const r = CoinLimitsData.parse((fixture('allCoinLimits', 'ok-shape-b-per-coin-chain') as { data: unknown }).data)
    expect(r).toEqual({
      '54': { '0': '25', '1': '1.5', '2': '0.008157600000000001', '10002': '3' },
      '14': { '0': '0.005', '13': '0.0025' }
    })
  })
})

describe('allGasFee', () => {
  it('fee strings stay decimal text, 1e-7 expands, flags become numbers', () => {
    const r = endpoints.allGasFee.response.parse(fixture('allGasFee', 'ok-withdrawal-fee-strings'))
    expect(r.data['54']?.['2']).toEqual({
      withdrawalFee: '0.0000001',
      minimumWithdrawal: '0.008157600000000001',
      nodeInSync: 0,
      depositEnable: 1
    })
    expect(r.data['54']?.['1']?.depositEnable).toBe(0)
    expect(r.data['14']?.['10116']).toEqual({ withdrawalFee: '0', minimumWithdrawal: '0', nodeInSync: 1, depositEnable: 0 })
  })
})

describe('merchantHistory', () => {
  it('onramp: every field, the cutover updatedAt, nulls, float artefacts, onRampFee renamed', () => {
    const r = OnrampHistoryResponse.parse(fixture('merchantHistory', 'ok-onramp-full'))
    expect(r.code).toBe(200)
    const [first, second] = r.data
    expect(first).toEqual({
      orderId: 100231,
      userId: 88123,
      appId: 17,
      walletAddress: '0x2f318C334780961FB129D2a6c30D0763d9a5C970',
      coinId: 54,
      chainId: 1,
      fiatType: 1,
      paymentType: 1,
      fiatAmount: '1000',
      expectedCryptoAmount: '11.2233',
      expectedPrice: '88.51',
      actualCryptoAmount: null,
      actualPrice: null,
      kycNeeded: 0,
      createdAt: '2022-11-01T09:12:44.000Z',
      updatedAt: '2022-11-09T16:58:07.000Z',
      status: 0,
      referenceId: null,
      hashId: null,
      transactionHash: '',
      onrampFee: '2.5',
      gasFee: '0.29',
      clientFee: '0',
      gatewayFee: '0.008157600000000001',
      trials: 0,
      merchantRecognitionId: 'mr-7781'
    })
    expect(second?.gatewayFee).toBe('0.0000001')
    expect(second?.fiatAmount).toBe('25000.75')
    expect(second?.clientFee).toBe('12.345')
    expect(second?.status).toBe(5)
  })

  it('the whole-table schema picks the onramp branch for onramp records', () => {
    const r = endpoints.merchantHistory.response.parse(fixture('merchantHistory', 'ok-onramp-full'))
    expect(r.data[0]).toHaveProperty('expectedCryptoAmount', '11.2233')
  })

  it('onramp live variants: ids, status and amounts as strings, zoneless and offset times, extras kept', () => {
    const r = OnrampHistoryResponse.parse(fixture('merchantHistory', 'ok-onramp-live-variants'))
    const o = r.data[0]
    expect(o).toMatchObject({
      orderId: 100912,
      coinId: 54,
      chainId: 10002,
      fiatType: 12,
      paymentType: 1,
      status: 4,
      fiatAmount: '500.1',
      onrampFee: '1.25',
      referenceId: '4412345',
      createdAt: '2024-02-01T10:00:00.000Z',
      updatedAt: '2024-02-01T10:00:00.000Z',
      coinCode: 'usdt',
      exchanges: ['binance'],
      statusDescription: 'withdrawal complete'
    })
    expect(o).not.toHaveProperty('onRampFee')
  })

  it('onramp with the lowercase onrampFee spelling parses the same way', () => {
    const o = OnrampHistoryResponse.parse(fixture('merchantHistory', 'ok-onramp-lowercase-fee-spelling')).data[0]
    expect(o?.onrampFee).toBe('9.99')
    expect(o?.gasFee).toBe('0.00021')
    expect(o?.status).toBe(16)
  })

  it('offramp without code, onrampFee spelling, extra keys (coinCode, statusDescription, exchanges)', () => {
    const raw = fixture('merchantHistory', 'ok-offramp-without-code')
    expect(OnrampHistoryResponse.safeParse(raw).success).toBe(false)
    const r = OfframpHistoryResponse.parse(raw)
    expect(r.code).toBeUndefined()
    expect(r.data[0]).toMatchObject({
      orderId: 500012,
      expectedQuantity: '120',
      actualFiatAmount: '10341.94',
      onrampFee: '25.86',
      gatewayFee: '0.008157600000000001',
      tdsFee: '103.42',
      status: 7,
      coinCode: 'usdt',
      statusDescription: 'webhook sent',
      exchanges: { primary: 'wazirx' }
    })
    expect(r.data[1]).toMatchObject({
      actualPrice: null,
      actualQuantity: null,
      actualFiatAmount: null,
      status: -2,
      updatedAt: '2022-11-09T16:58:07.000Z'
    })
    expect(endpoints.merchantHistory.response.parse(raw).data[0]).toHaveProperty('tdsFee', '103.42')
  })

  it('offramp with the onRampFee spelling comes out as onrampFee', () => {
    const o = OfframpHistoryResponse.parse(fixture('merchantHistory', 'ok-offramp-onRampFee-spelling')).data[0]
    expect(o?.onrampFee).toBe('0.86')
    expect(o).not.toHaveProperty('onRampFee')
    expect(o).toMatchObject({ coinId: 54, chainId: 3, expectedQuantity: '10', status: 19 })
  })

  it('when both spellings arrive, onrampFee wins and onRampFee is dropped', () => {
    const base = (fixture('merchantHistory', 'ok-onramp-lowercase-fee-spelling') as { data: Record<string, unknown>[] }).data[0]
    const o = OnrampOrder.parse({ ...base, onRampFee: 1, onrampFee: 2 })
    expect(o.onrampFee).toBe('2')
    expect(o).not.toHaveProperty('onRampFee')
    const off = OfframpOrder.parse({
      ...(fixture('merchantHistory', 'ok-offramp-onRampFee-spelling') as { data: Record<string, unknown>[] }).data[0],
      onrampFee: '3'
    })
    expect(off.onrampFee).toBe('3')
  })
})

describe('webhook bodies (same record schemas)', () => {
  it('the dummy onramp body with paymentType and webhookTrials', () => {
    const o = OnrampOrder.parse({
      orderId: 9,
      walletAddress: '0xabc',
      coinId: 54,
      fiatType: 1,
      expectedPrice: 88.5,
      fiatAmount: 100,
      expectedCryptoAmount: 1.13,
      actualPrice: 88.4,
      actualCryptoAmount: 1.131,
      kycNeeded: 0,
      createdAt: '2024-01-01T00:00:00.000Z',
      updatedAt: '2024-01-01T00:05:00.000Z',
      status: 5,
      referenceId: 'r',
      chainId: 1,
      onRampFee: 0.25,
      gasFee: 0.29,
      clientFee: 0,
      gatewayFee: 0,
      transactionHash: '0x1',
      merchantRecognitionId: 'm',
      paymentType: 1,
      webhookTrials: 3
    })
    expect(o).toMatchObject({ paymentType: 1, webhookTrials: 3, onrampFee: '0.25', actualCryptoAmount: '1.131' })
  })

  it('the offramp body with eventType, coinCode, network and statusDescription', () => {
    const base = (fixture('merchantHistory', 'ok-offramp-onRampFee-spelling') as { data: Record<string, unknown>[] }).data[0]
    const o = OfframpOrder.parse({ ...base, eventType: 'offramp', coinCode: 'usdt', network: 'matic20', statusDescription: 'success' })
    expect(o).toMatchObject({ eventType: 'offramp', coinCode: 'usdt', network: 'matic20', statusDescription: 'success', onrampFee: '0.86' })
    expect(OfframpOrder.safeParse({ ...base, eventType: 2 }).success).toBe(false)
  })
})

describe('allConfigMapping', () => {
  it('coin ids as strings and numbers in one object all become numbers; aliases and unknown ids kept', () => {
    const r = endpoints.allConfigMapping.response.parse(fixture('allConfigMapping', 'ok-mappings-mixed-id-types'))
    expect(r.data.coinSymbolMapping).toEqual({ eth: 14, usdt: 54, matic: 5, rage: 166, gari: 187, tlc: 400, btc: 1, neo: 39 })
    for (const v of Object.values(r.data.chainSymbolMapping)) expect(typeof v).toBe('number')
    expect(r.data.chainSymbolMapping).toMatchObject({
      erc20: 0,
      eth: 0,
      bsc: 1,
      trx: 2,
      matic: 3,
      sol: 4,
      bnb: 5,
      energi: 21,
      base: 10002,
      sui: 10116
    })
    expect(r.data.fiatSymbolMapping).toMatchObject({ INR: 1, PEN: 8, COP: 9, CLP: 10, EUR: 12, GBP: 14 })
    expect((r.data as Record<string, unknown>).exchanges).toEqual(['wazirx'])
  })
})

describe('webhook management answers', () => {
  it.each(['sendDummyWebhook', 'resendWebhook', 'setWebhookUrl'] as const)('%s keeps the text', (name) => {
    const raw = fixture(name, 'ok-text') as { data: string }
    expect(endpoints[name].response.parse(raw).data).toBe(raw.data)
  })

  it('an object answer is kept as its JSON text', () => {
    expect(endpoints.sendDummyWebhook.response.parse(fixture('sendDummyWebhook', 'ok-object-data')).data).toBe(
      '{"sent":true,"webhookTrials":1}'
    )
  })
})

describe('quotes', () => {
  it('onramp quote: money strings', () => {
    const r = OnrampQuoteResponse.parse(fixture('quotes', 'ok-onramp'))
    expect(r.data).toEqual({
      rate: '88.51',
      quantity: '11.2233',
      onrampFee: '2.5',
      clientFee: '0',
      gatewayFee: '0.008157600000000001',
      gasFee: '0.29'
    })
  })

  it('offramp quote: money strings, not mistaken for an onramp quote', () => {
    const raw = fixture('quotes', 'ok-offramp')
    expect(OnrampQuoteResponse.safeParse(raw).success).toBe(false)
    expect(OfframpQuoteResponse.parse(raw).data).toEqual({
      fiatAmount: '10341.94',
      rate: '86.19',
      onrampFee: '25.86',
      clientFee: '0',
      gatewayFee: '0.0000001',
      tdsFee: '103.42'
    })
    expect(endpoints.quotes.response.parse(raw).data).toHaveProperty('tdsFee', '103.42')
  })

  it('amount text is normalised (trailing zeros dropped) and extras kept', () => {
    const r = OnrampQuoteResponse.parse(fixture('quotes', 'ok-onramp-amounts-as-text'))
    expect(r.data).toMatchObject({ quantity: '11.2233', rate: '88.51', coinCode: 'usdt', network: 'bep20' })
  })

  it('the fee spelled onRampFee (as history spells it) is read as onrampFee, on either flow', () => {
    const on = fixture('quotes', 'ok-onramp') as { data: Record<string, unknown> }
    const { onrampFee, ...rest } = on.data
    const respelled = { ...on, data: { ...rest, onRampFee: onrampFee } }
    expect(OnrampQuoteResponse.parse(respelled).data).toEqual(OnrampQuoteResponse.parse(on).data)
    expect(endpoints.quotes.response.parse(respelled).data).toHaveProperty('onrampFee', '2.5')

    const off = fixture('quotes', 'ok-offramp') as { data: Record<string, unknown> }
    const { onrampFee: offFee, ...offRest } = off.data
    const offRespelled = { ...off, data: { ...offRest, onRampFee: offFee } }
    const parsed = OfframpQuoteResponse.parse(offRespelled).data
    expect(parsed).toEqual(OfframpQuoteResponse.parse(off).data)
    expect(parsed).not.toHaveProperty('onRampFee')
    // Neither spelling: still refused, the fee is part of every quote.
    expect(OnrampQuoteResponse.safeParse({ ...on, data: rest }).success).toBe(false)
  })
})

describe('priceTicker', () => {
  it('type 1 answers data.onramp', () => {
    const r = endpoints.priceTicker.response.parse(fixture('priceTicker', 'ok-type-1-onramp'))
    expect(r.data.onramp).toEqual({ '1': '5612345.75', '5': '65.2', '14': '312000.5', '54': '88.51' })
    expect(r.data.offramp).toBeUndefined()
  })

  it('type 2 answers data.offramp', () => {
    const r = endpoints.priceTicker.response.parse(fixture('priceTicker', 'ok-type-2-offramp'))
    expect(r.data.offramp).toEqual({ '14': '305000', '54': '86.19' })
    expect(r.data.onramp).toBeUndefined()
  })

  it('type 3 answers both', () => {
    const r = endpoints.priceTicker.response.parse(fixture('priceTicker', 'ok-type-3-both'))
    expect(r.data).toEqual({ onramp: { '54': '88.51', '187': '0.008157600000000001' }, offramp: { '54': '86.19', '187': '0.0000001' } })
  })
})

describe('orderStatus', () => {
  it('orderStatus is an integer, from a number or from text', () => {
    expect(endpoints.orderStatus.response.parse(fixture('orderStatus', 'ok-status')).data.orderStatus).toBe(4)
    const r = endpoints.orderStatus.response.parse(fixture('orderStatus', 'ok-status-text-negative'))
    expect(r.data).toEqual({ orderStatus: -1, statusDescription: 'timed out' })
  })
})

describe('limits', () => {
  it('types 1, 2, 3 answer onramp, offramp and both', () => {
    const one = endpoints.limits.response.parse(fixture('limits', 'ok-type-1-onramp')).data
    expect(Object.keys(one)).toEqual(['onramp'])
    expect(one.onramp?.['4']).toEqual({ min: '20', max: '50000' })
    const two = endpoints.limits.response.parse(fixture('limits', 'ok-type-2-offramp')).data
    expect(two).toEqual({ offramp: { '1': { min: '500', max: '1000000' } } })
    const three = endpoints.limits.response.parse(fixture('limits', 'ok-type-3-both-fiat-ids-beyond-8')).data
    expect(Object.keys(three.onramp ?? {})).toEqual(['1', '9', '10', '12', '14'])
    expect(three.onramp?.['14']?.max).toBe('4000.5')
    expect(three.offramp?.['1']?.min).toBe('500')
  })
})

describe('publicAllGasFee', () => {
  it('numbers become decimal strings, the native key is kept', () => {
    const r = endpoints.publicAllGasFee.response.parse(fixture('publicAllGasFee', 'ok-numbers-and-native'))
    expect(r.data.allGasFee['14']?.native).toEqual({ withdrawalFee: '0.00098', minimumWithdrawal: '0.005', nodeInSync: 1 })
    expect(r.data.allGasFee['1']?.native?.withdrawalFee).toBe('0.0002')
    expect(r.data.allGasFee['54']?.['10002']).toEqual({
      withdrawalFee: '0.008157600000000001',
      minimumWithdrawal: '0.0000001',
      nodeInSync: 0
    })
  })
})

describe('bankDetails', () => {
  it('form 1: upi string, upiAct, bank array with ac (number kept as text), notes -1 and 1', () => {
    const d = BankDetails.parse((fixture('bankDetails', 'ok-upi-string-bank-array') as { data: unknown }).data)
    expect(d.upi).toBe('rampdesk.pay@icici')
    expect(d.upiAct).toBe('Rampdesk Payments Pvt Ltd')
    expect(d.upiNotes?.map((n) => n.type)).toEqual([-1, 1])
    expect(Array.isArray(d.bank)).toBe(true)
    const banks = d.bank as { ac?: string; ifsc?: string }[]
    expect(banks.map((b) => b.ac)).toEqual(['123405006789', '501000123456'])
    expect(banks[0]?.ifsc).toBe('ICIC0001234')
  })

  it('form 2: upi {vpa, name}, one bank object with accountNumber and empty strings', () => {
    const d = endpoints.bankDetails.response.parse(fixture('bankDetails', 'ok-upi-object-single-bank')).data
    expect(d.upi).toEqual({ vpa: 'rampdesk@axis', name: 'Rampdesk' })
    expect(d.upiAct).toBeUndefined()
    expect(d.upiNotes).toEqual([])
    expect(d.bankNotes).toEqual([{ type: -1, msg: 'Account details may change; always fetch before paying.' }])
    expect(d.bank).toEqual({
      name: 'Rampdesk Payments Pvt Ltd',
      type: '',
      branch: '',
      bank: 'Axis Bank',
      ifsc: 'UTIB0000123',
      accountNumber: '917020012345678'
    })
  })
})

describe('publicAllConfig', () => {
  it('all keys, deposit-fee form, coinData as number and per chain, extras kept', () => {
    const d = PublicAllConfigData.parse((fixture('publicAllConfig', 'ok-all-keys-deposit-fees') as { data: unknown }).data)
    expect(d.allCoinConfig?.eth?.coinId).toBe(14)
    expect(d.allCoinConfig?.usdt?.networks).toEqual([0, 1, 2, 3, 10002, 10116])
    expect(d.allCoinConfig?.usdt?.markets?.decimals).toEqual({ inr: 2, try: 2 })
    expect((d.allCoinConfig?.usdt as Record<string, unknown>).exchanges).toEqual(['wazirx'])
    // networks is optional in practice; a coin without it has none.
    expect(d.allCoinConfig?.gari?.networks).toEqual([])
    expect(Object.keys(d.networkConfig ?? {})).toEqual(['0', '4', '10002', '10116'])
    expect(d.coinData).toEqual({ '54': '88.51', '14': { '0': '312000.5', '13': '311990' }, '187': '0.008157600000000001' })
    expect(d.minimumBuyAmount).toEqual({ '54': { '0': '25', '1': '1', '10116': '2' }, '14': { '0': '0.005' } })
    expect(d.allGasFee?.['54']?.['2']).toEqual({ depositFee: '0.0000001', minimumDeposit: '5', nodeInSync: 0 })
    expect(d.gatewayFee).toEqual({ '1': { '0': '0', '10000': '5.9', '50000': '11.8' }, '9': { '0': '1.5' } })
    expect(d.minimumSellAmount).toEqual({ '1': '500', '9': '20000', '10': '10000', '12': '25', '14': '20' })
    expect((d as Record<string, unknown>).exchanges).toEqual({ wazirx: { enabled: 1 } })
  })

  it('withdrawal form with strings, and a subset of keys', () => {
    const d = endpoints.publicAllConfig.response.parse(fixture('publicAllConfig', 'ok-withdrawal-fee-strings')).data
    expect(d.allGasFee?.['54']?.['2']).toEqual({ withdrawalFee: '1', minimumWithdrawal: '10', nodeInSync: 1 })
    expect(d.coinData).toEqual({ '54': '88.51' })
    expect(d.networkConfig).toBeUndefined()
    expect(d.allCoinConfig).toBeUndefined()
  })

  it('every key optional', () => {
    expect(endpoints.publicAllConfig.response.parse(fixture('publicAllConfig', 'ok-optional-keys-absent')).data).toEqual({})
  })
})

// ---------------------------------------------------------------- primitives

describe('Money', () => {
  it.each([
    [0.008157600000000001, '0.008157600000000001'],
    ['0.008157600000000001', '0.008157600000000001'],
    [1e-7, '0.0000001'],
    ['1e-7', '0.0000001'],
    ['1E+3', '1000'],
    [1e21, '1000000000000000000000'],
    [-0, '0'],
    ['-0.000', '0'],
    ['+5', '5'],
    [' 12.50 ', '12.5'],
    ['5.', '5'],
    ['.5', '0.5'],
    [Number.MAX_VALUE, '17976931348623157' + '0'.repeat(292)],
    [5e-324, '0.' + '0'.repeat(323) + '5']
  ])('%s -> %s', (input, out) => {
    expect(Money.parse(input)).toBe(out)
  })

  it.each([
    '',
    ' ',
    'abc',
    '1,5',
    '0x10',
    '1e',
    'e5',
    '--1',
    '1.2.3',
    'NaN',
    'Infinity',
    '1e1001',
    '1e-1001',
    '1e999999999',
    '1e99999999999999999999'
  ])('rejects %j with a ZodError', (input) => expectRejected(Money.safeParse(input)))

  it.each([null, true, {}, [], Number.NaN, Number.POSITIVE_INFINITY])('rejects %j', (input) => expectRejected(Money.safeParse(input)))
})

describe('Id', () => {
  it('numbers and numeric strings become numbers', () => {
    expect(Id.parse(54)).toBe(54)
    expect(Id.parse('54')).toBe(54)
    expect(Id.parse('-1')).toBe(-1)
    expect(Id.parse('10116')).toBe(10116)
    expect(Id.parse(String(Number.MAX_SAFE_INTEGER))).toBe(Number.MAX_SAFE_INTEGER)
  })

  it.each(['', 'abc', '1.5', ' 5', '1e3', '9007199254740993', '123456789012345678901', 1.5, 2 ** 60, null, true])('rejects %j', (v) => {
    expectRejected(Id.safeParse(v))
  })
})

describe('Timestamp', () => {
  inFarTimeZone()

  it.each([
    ['2022-11-09T16:58:07.000Z', '2022-11-09T16:58:07.000Z'],
    ['2022-11-09T16:58:07Z', '2022-11-09T16:58:07.000Z'],
    ['2022-11-09T16:58:07.5Z', '2022-11-09T16:58:07.500Z'],
    ['2022-11-09T22:28:07.000+05:30', '2022-11-09T16:58:07.000Z'],
    ['2022-11-09T13:58:07-03:00', '2022-11-09T16:58:07.000Z'],
    // The service's times are UTC: a missing zone must not be read as local time.
    ['2022-11-09T16:58:07', '2022-11-09T16:58:07.000Z'],
    ['2022-11-09T16:58:07.123', '2022-11-09T16:58:07.123Z'],
    ['2022-11-09T16:58', '2022-11-09T16:58:00.000Z']
  ])('%s -> %s', (input, out) => {
    expect(Timestamp.parse(input)).toBe(out)
  })

  it.each(['', 'yesterday', '2022-11-09', '2022-13-45T16:58:07Z', '2022-11-09T25:00:00Z', '16:58:07', 1667926687000, null])(
    'rejects %j',
    (v) => {
      expectRejected(Timestamp.safeParse(v))
    }
  )
})

describe('envelope', () => {
  it('status must be 1, code optional, data required', () => {
    const E = envelope(Money)
    expect(E.parse({ status: 1, data: 1 })).toEqual({ status: 1, data: '1' })
    expect(E.parse({ status: 1, code: '200', data: '2', extra: true })).toEqual({ status: 1, code: 200, data: '2', extra: true })
    expectRejected(E.safeParse({ status: 1, code: 200 }))
    expectRejected(E.safeParse({ status: 0, code: 200, data: 1 }))
    expectRejected(E.safeParse({ status: 1, code: 'OK', data: 1 }))
    expectRejected(E.safeParse(null))
  })
})
