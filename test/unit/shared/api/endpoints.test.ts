// The endpoints table against the merchant API spec (names, methods, paths, auth,
// documented rate limits) and the live-service notes (currentTimestamp), and the request
// schemas against the request fixtures.
import { describe, expect, it } from 'vitest'
import { ZodError } from 'zod'
import {
  MerchantHistoryRequest,
  OfframpQuoteRequest,
  OnrampQuoteRequest,
  authHeaderNames,
  endpointNames,
  endpointPath,
  endpoints,
  limitedEndpoints
} from '../../../../src/shared/api/endpoints'
import type { EndpointName } from '../../../../src/shared/api/endpoints'
import { allFixtures, fixture } from './load-fixtures'

/** The 15 endpoints of the spec's section 4, plus currentTimestamp from the live-service notes. */
const DESIGN_NAMES = [
  'allChainMapping',
  'allCoinLimits',
  'allGasFee',
  'merchantHistory',
  'allConfigMapping',
  'sendDummyWebhook',
  'resendWebhook',
  'setWebhookUrl',
  'quotes',
  'priceTicker',
  'orderStatus',
  'limits',
  'publicAllGasFee',
  'bankDetails',
  'publicAllConfig',
  'currentTimestamp'
]

/** spec section 8: the endpoints with a documented limit of 10 per minute. */
const LIMITED = ['allChainMapping', 'allCoinLimits', 'allGasFee', 'allConfigMapping', 'priceTicker', 'limits']

/** spec section 4: method and path after /service/api/. */
const SPEC_ROUTES: Record<EndpointName, [method: 'GET' | 'POST', path: string]> = {
  allChainMapping: ['POST', 'v2/common/transaction/allChainMapping'],
  allCoinLimits: ['POST', 'v2/common/transaction/allCoinLimits'],
  allGasFee: ['POST', 'v2/common/transaction/allGasFee'],
  merchantHistory: ['POST', 'v1/transaction/merchantHistory'],
  allConfigMapping: ['POST', 'v2/common/transaction/allConfigMapping'],
  sendDummyWebhook: ['POST', 'v1/merchant/sendDummyWebhook'],
  resendWebhook: ['POST', 'v1/merchant/resendWebhook'],
  setWebhookUrl: ['POST', 'v1/merchant/setWebhookUrl'],
  quotes: ['POST', 'v2/common/transaction/quotes'],
  priceTicker: ['POST', 'v2/common/transaction/priceTicker'],
  orderStatus: ['POST', 'v2/common/transaction/orderStatus'],
  limits: ['POST', 'v2/common/transaction/limits'],
  publicAllGasFee: ['GET', 'v1/public/allGasFee'],
  bankDetails: ['GET', 'v1/transaction/bankDetails'],
  publicAllConfig: ['GET', 'v2/sell/public/allConfig'],
  currentTimestamp: ['GET', 'v2/common/public/currentTimestamp']
}

describe('the endpoints table', () => {
  it("holds exactly the spec's 15 endpoints and currentTimestamp", () => {
    expect(Object.keys(endpoints).sort()).toEqual([...DESIGN_NAMES].sort())
    expect([...endpointNames].sort()).toEqual([...DESIGN_NAMES].sort())
  })

  it.each(endpointNames)('%s: rate limit 10/min exactly where section 8 documents one, null elsewhere', (name) => {
    expect(endpoints[name].rateLimitPerMinute).toBe(LIMITED.includes(name) ? 10 : null)
  })

  it('limitedEndpoints lists exactly the six limited endpoints', () => {
    expect([...limitedEndpoints].sort()).toEqual([...LIMITED].sort())
  })

  it.each(endpointNames)('%s: method and path as in section 4', (name) => {
    const [method, path] = SPEC_ROUTES[name]
    expect(endpoints[name].method).toBe(method)
    expect(endpoints[name].path).toBe(path)
  })

  it.each(endpointNames)('%s: POSTs are signed, GETs carry no auth and no body', (name) => {
    // (fetchAllCountryConfig, a signed GET in the live notes, is not used by Rampdesk.)
    const e = endpoints[name]
    expect(e.auth).toBe(e.method === 'POST')
    if (e.method === 'GET') {
      expect(e.request.safeParse(undefined).success).toBe(true)
      expect(e.request.safeParse({}).success).toBe(false)
    }
  })

  it('only the three webhook calls are writes (never retried blindly)', () => {
    const writes = endpointNames.filter((n) => endpoints[n].effect === 'write').sort()
    expect(writes).toEqual(['resendWebhook', 'sendDummyWebhook', 'setWebhookUrl'])
  })

  it('every endpoint has a summary', () => {
    for (const n of endpointNames) expect(endpoints[n].summary.length).toBeGreaterThan(0)
  })
})

describe('endpointPath and authHeaderNames', () => {
  it('the service name is the first path segment', () => {
    expect(endpointPath('service', 'merchantHistory')).toBe('/service/api/v1/transaction/merchantHistory')
    expect(endpointPath('acme', 'publicAllConfig')).toBe('/acme/api/v2/sell/public/allConfig')
  })

  it('the service name is the middle word of the header names', () => {
    expect(authHeaderNames('service')).toEqual({
      apiKey: 'X-SERVICE-APIKEY',
      payload: 'X-SERVICE-PAYLOAD',
      signature: 'X-SERVICE-SIGNATURE',
      webhookPayload: 'x-service-payload',
      webhookSignature: 'x-service-signature'
    })
    expect(authHeaderNames('Acme').signature).toBe('X-ACME-SIGNATURE')
    expect(authHeaderNames('Acme').webhookSignature).toBe('x-acme-signature')
  })
})

// ---------------------------------------------------------------- request fixtures

const reqOk = allFixtures()
  .filter((f) => f.kind === 'req-ok')
  .map((f) => [`${f.dir}/${f.name}`, f] as const)
const reqBad = allFixtures()
  .filter((f) => f.kind === 'req-bad')
  .map((f) => [`${f.dir}/${f.name}`, f] as const)

describe('request fixtures', () => {
  it.each(reqOk)('%s is accepted', (_l, f) => {
    const r = endpoints[f.dir as EndpointName].request.safeParse(f.body)
    expect(r.error?.issues).toBeUndefined()
    expect(r.success).toBe(true)
  })

  it.each(reqBad)('%s is refused with a ZodError', (_l, f) => {
    const r = endpoints[f.dir as EndpointName].request.safeParse(f.body)
    expect(r.success).toBe(false)
    expect(r.error).toBeInstanceOf(ZodError)
  })
})

describe('request normalisation', () => {
  it('merchantHistory: type "" is accepted as is (the service answers onramp)', () => {
    expect(MerchantHistoryRequest.parse(fixture('merchantHistory', 'req-ok-type-empty'))).toEqual({ type: '', pageSize: 1 })
  })

  it('merchantHistory: pageSize bounds are 1 and 500', () => {
    expect(MerchantHistoryRequest.safeParse({ pageSize: 1 }).success).toBe(true)
    expect(MerchantHistoryRequest.safeParse({ pageSize: 500 }).success).toBe(true)
    expect(MerchantHistoryRequest.safeParse({ pageSize: 0 }).success).toBe(false)
    expect(MerchantHistoryRequest.safeParse({ pageSize: 501 }).success).toBe(false)
    expect(MerchantHistoryRequest.safeParse({ pageSize: 2.5 }).success).toBe(false)
  })

  it('merchantHistory: since is normalised to ISO with milliseconds; text ids become numbers', () => {
    expect(MerchantHistoryRequest.parse(fixture('merchantHistory', 'req-ok-full'))).toEqual({
      page: 2,
      pageSize: 500,
      since: '2022-11-09T16:58:07.000Z',
      order: 'DESC',
      type: 2,
      fiatType: 1
    })
    expect(MerchantHistoryRequest.parse(fixture('merchantHistory', 'req-ok-type-text'))).toEqual({ type: 1, fiatType: 5 })
  })

  it('resendWebhook and orderStatus take orderId as a number or a numeric string', () => {
    expect(endpoints.resendWebhook.request.parse(fixture('resendWebhook', 'req-ok-order-id-string'))).toEqual({ orderId: 100231 })
    expect(endpoints.resendWebhook.request.parse(fixture('resendWebhook', 'req-ok-order-id-number'))).toEqual({ orderId: 100231 })
    expect(endpoints.orderStatus.request.parse(fixture('orderStatus', 'req-ok-order-id-string'))).toEqual({ orderId: 100231, type: 1 })
    expect(endpoints.orderStatus.request.parse(fixture('orderStatus', 'req-ok-order-id-number'))).toEqual({ orderId: 500012, type: 2 })
  })

  it('priceTicker and limits take type as text or number', () => {
    expect(endpoints.priceTicker.request.parse(fixture('priceTicker', 'req-ok-type-1-text'))).toEqual({ type: 1, fiatType: 1 })
    expect(endpoints.limits.request.parse(fixture('limits', 'req-ok-type-3-text'))).toEqual({ type: 3 })
  })

  it('quotes: the body type selects the flow', () => {
    expect(endpoints.quotes.request.parse(fixture('quotes', 'req-ok-onramp-ids'))).toMatchObject({ type: 1, fiatAmount: 1000 })
    expect(endpoints.quotes.request.parse(fixture('quotes', 'req-ok-offramp-inr'))).toMatchObject({ type: 2, quantity: 120.5 })
    expect(OnrampQuoteRequest.safeParse(fixture('quotes', 'req-ok-offramp-inr')).success).toBe(false)
    expect(OfframpQuoteRequest.safeParse(fixture('quotes', 'req-ok-onramp-ids')).success).toBe(false)
  })

  it('offramp quotes refuse every fiat but INR, and say why', () => {
    for (const fiatType of [2, 3, 4, 5, 9]) {
      const r = endpoints.quotes.request.safeParse({ coinId: 54, chainId: 1, quantity: 10, fiatType, type: 2 })
      expect(r.success).toBe(false)
      expect(r.error?.issues.map((i) => i.message).join(' ')).toMatch(/INR/)
    }
  })

  it('onramp quotes accept other fiat types', () => {
    for (const fiatType of [1, 2, 3, 4]) {
      expect(endpoints.quotes.request.safeParse({ coinCode: 'usdt', network: 'bep20', fiatAmount: 100, fiatType, type: 1 }).success).toBe(
        true
      )
    }
  })

  it('a quote needs a coin and a chain, in either form', () => {
    const r = endpoints.quotes.request.safeParse(fixture('quotes', 'req-bad-onramp-missing-coin'))
    expect(r.error?.issues.map((i) => i.message).join(' ')).toMatch(/coin/)
  })

  it('webhook URLs must be http(s)', () => {
    expect(endpoints.setWebhookUrl.request.safeParse({ webhookUrl: 'https://x.example/h' }).success).toBe(true)
    expect(endpoints.setWebhookUrl.request.safeParse({ webhookUrl: 'file:///etc/passwd' }).success).toBe(false)
    expect(endpoints.sendDummyWebhook.request.safeParse({ webhookUrl: 'https://x.example/' + 'a'.repeat(2048) }).success).toBe(false)
  })
})
