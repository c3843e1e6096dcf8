// The sandbox's request fields against the spec's tables (transcribed here by hand from
// the spec's section 4, not read from any schema), and what strict and lenient
// typing accept, with the 409 text in its named and bare forms.
import { describe, expect, it } from 'vitest'
import { PARAM_FIELDS, REQUEST_FIELDS, defaultParamMode, parseRequest, type ParamMode } from '../../../src/sandbox/request-schemas'
import type { EndpointName } from '../../../src/sandbox/routes'

// endpoint.field -> [JSON type the spec states, required]
const SPEC: Record<string, [string, boolean]> = {
  'allCoinLimits.fiatType': ['string', true], // 4.2 "string (sent as integer in the sample)"
  'merchantHistory.page': ['integer', false],
  'merchantHistory.pageSize': ['integer', false],
  'merchantHistory.since': ['string', false],
  'merchantHistory.order': ['string', false],
  'merchantHistory.type': ['integer', false],
  'merchantHistory.fiatType': ['string', false],
  'sendDummyWebhook.webhookUrl': ['string', false],
  'resendWebhook.orderId': ['string', true], // 4.7 "string (sent as integer in the sample)"
  'setWebhookUrl.webhookUrl': ['string', true],
  'quotes.coinId': ['integer', false],
  'quotes.coinCode': ['string', false],
  'quotes.chainId': ['integer', false],
  'quotes.network': ['string', false],
  'quotes.fiatAmount': ['number', false],
  'quotes.quantity': ['number', false],
  'quotes.fiatType': ['integer', false],
  'quotes.type': ['integer', true],
  'priceTicker.type': ['string', true],
  'priceTicker.fiatType': ['string', true],
  'orderStatus.orderId': ['string', true], // 4.12 "string in the sample"
  'orderStatus.type': ['integer', true],
  'limits.type': ['string', true]
}
// Where the spec's type and live practice disagree (the live-service notes, last section).
const DISPUTED = [
  'allCoinLimits.fiatType',
  'merchantHistory.type',
  'merchantHistory.fiatType',
  'resendWebhook.orderId',
  'priceTicker.type',
  'priceTicker.fiatType',
  'orderStatus.orderId',
  'limits.type'
]

const parse = (
  ep: EndpointName,
  body: Record<string, unknown>,
  mode: ParamMode | ((k: string) => ParamMode),
  text: 'named' | 'bare' = 'named'
) => parseRequest(ep, body, typeof mode === 'string' ? () => mode : mode, text)

describe('request fields', () => {
  it('carry the JSON type and required flag of the spec tables, field for field', () => {
    const got = Object.fromEntries(
      PARAM_FIELDS.map((k) => {
        const [ep, name] = k.split('.') as [EndpointName, string]
        const rule = REQUEST_FIELDS[ep]![name]!
        return [k, [rule.type, rule.required]]
      })
    )
    expect(got).toEqual(SPEC)
    for (const ep of ['allChainMapping', 'allGasFee', 'allConfigMapping'] as const) expect(REQUEST_FIELDS[ep]).toEqual({})
  })

  it('default to lenient exactly where the spec and live practice dispute the type', () => {
    expect(PARAM_FIELDS.filter((k) => defaultParamMode(k) === 'lenient').sort()).toEqual([...DISPUTED].sort())
  })

  it('strict takes only the spec type; lenient also the other encoding, converted to the spec type', () => {
    expect(parse('merchantHistory', { fiatType: '2', type: 1, page: 3 }, 'strict')).toEqual({
      ok: true,
      value: { fiatType: '2', type: 1, page: 3 }
    })
    expect(parse('merchantHistory', { fiatType: 2 }, 'strict')).toEqual({
      ok: false,
      failure: { code: 409, error: 'Wrong parameter type: fiatType must be string, not number' }
    })
    expect(parse('merchantHistory', { fiatType: 2, type: '2', page: '3' }, 'lenient')).toEqual({
      ok: true,
      value: { fiatType: '2', type: 2, page: 3 }
    })
    expect(parse('priceTicker', { type: 1, fiatType: 1 }, 'strict')).toMatchObject({ ok: false, failure: { code: 409 } })
    expect(parse('priceTicker', { type: '1', fiatType: '1' }, 'strict')).toMatchObject({ ok: true })
    expect(parse('orderStatus', { orderId: 100001, type: 1 }, 'strict')).toMatchObject({ ok: false, failure: { code: 409 } })
    expect(parse('orderStatus', { orderId: '100001', type: '1' }, 'strict')).toMatchObject({ ok: false, failure: { code: 409 } })
    expect(parse('orderStatus', { orderId: '100001', type: '1' }, 'lenient')).toEqual({ ok: true, value: { orderId: '100001', type: 1 } })
    expect(parse('quotes', { type: 1, coinId: 54, chainId: 1, fiatAmount: '1000', fiatType: 1 }, 'lenient')).toMatchObject({
      ok: true,
      value: { fiatAmount: 1000 }
    })
    expect(parse('quotes', { type: 1, coinId: 54, chainId: 1, fiatAmount: '1000', fiatType: 1 }, 'strict')).toMatchObject({
      failure: { code: 409, error: 'Wrong parameter type: fiatAmount must be number, not string' }
    })
  })

  it('lenient still refuses what is neither encoding: booleans, null, fractions for ids, words for numbers', () => {
    for (const body of [{ fiatType: true }, { fiatType: null }, { fiatType: 1.5 }, { page: 'two' }, { page: 1.5 }, { type: [1] }])
      expect(parse('merchantHistory', body, 'lenient'), JSON.stringify(body)).toMatchObject({ ok: false, failure: { code: 409 } })
  })

  it('merchantHistory type takes an empty string in both modes ("an empty value returns onramp transactions")', () => {
    expect(parse('merchantHistory', { type: '' }, 'strict')).toEqual({ ok: true, value: { type: '' } })
    expect(parse('merchantHistory', { type: '' }, 'lenient')).toEqual({ ok: true, value: { type: '' } })
  })

  it('modes are per field', () => {
    const mode = (k: string): ParamMode => (k === 'merchantHistory.fiatType' ? 'strict' : 'lenient')
    expect(parse('merchantHistory', { fiatType: 1, page: '1' }, mode)).toEqual({
      ok: false,
      failure: { code: 409, error: 'Wrong parameter type: fiatType must be string, not number' }
    })
    expect(parse('merchantHistory', { fiatType: '1', page: '1' }, mode)).toMatchObject({ ok: true })
  })

  it('names every field of the wrong type, or says only "wrong parameter type"', () => {
    const body = { type: 1, fiatType: 1 }
    expect(parse('priceTicker', body, 'strict', 'named')).toEqual({
      ok: false,
      failure: {
        code: 409,
        error: 'Wrong parameter type: type must be string, not number; Wrong parameter type: fiatType must be string, not number'
      }
    })
    expect(parse('priceTicker', body, 'strict', 'bare')).toEqual({ ok: false, failure: { code: 409, error: 'wrong parameter type' } })
    expect(parse('merchantHistory', { page: 'x' }, 'lenient', 'named')).toMatchObject({
      failure: { error: 'Wrong parameter type: page must be integer or a string of digits, not string' }
    })
  })

  it('answers 400 for missing, unknown and out-of-range parameters, once the types are right', () => {
    expect(parse('limits', {}, 'strict')).toEqual({ ok: false, failure: { code: 400, error: 'Missing parameter: type' } })
    expect(parse('limits', { type: '4' }, 'strict')).toEqual({
      ok: false,
      failure: { code: 400, error: 'Invalid type: must be one of 1, 2, 3' }
    })
    expect(parse('allGasFee', { extra: 1 }, 'strict')).toEqual({ ok: false, failure: { code: 400, error: 'Unknown parameter: extra' } })
    expect(parse('merchantHistory', { pageSize: 501 }, 'strict')).toMatchObject({
      failure: { code: 400, error: expect.stringMatching(/Invalid pageSize: must be between 1 and 500/) }
    })
    expect(parse('merchantHistory', { since: 'yesterday' }, 'strict')).toMatchObject({
      failure: { code: 400, error: expect.stringMatching(/Invalid since: must be an ISO 8601/) }
    })
    expect(parse('merchantHistory', { fiatType: 'INR' }, 'strict')).toMatchObject({
      failure: { code: 400, error: expect.stringMatching(/Invalid fiatType: must be an id/) }
    })
    expect(parse('setWebhookUrl', { webhookUrl: 'ftp://x' }, 'strict')).toMatchObject({
      failure: { code: 400, error: expect.stringMatching(/http\(s\) URL/) }
    })
    // A wrong type wins over the rest: the client learns first what it can fix by re-encoding.
    expect(parse('merchantHistory', { fiatType: 1, pageSize: 501, extra: 1 }, 'strict')).toMatchObject({ failure: { code: 409 } })
  })

  it('checks the quotes flows: onramp needs fiatAmount, offramp quantity in INR, both a coin and a chain', () => {
    const on = { type: 1, coinId: 54, chainId: 1, fiatAmount: 1000, fiatType: 1 }
    expect(parse('quotes', on, 'strict')).toMatchObject({ ok: true })
    expect(parse('quotes', { ...on, chainId: undefined }, 'strict')).toMatchObject({
      failure: { code: 400, error: expect.stringMatching(/chain/) }
    })
    expect(parse('quotes', { ...on, quantity: 2 }, 'strict')).toMatchObject({
      failure: { code: 400, error: expect.stringMatching(/quantity/) }
    })
    const off = { type: 2, coinCode: 'usdt', network: 'bep20', quantity: 100, fiatType: 1 }
    expect(parse('quotes', off, 'strict')).toMatchObject({ ok: true })
    expect(parse('quotes', { ...off, fiatType: 2 }, 'strict')).toMatchObject({
      failure: { code: 400, error: expect.stringMatching(/INR/) }
    })
    expect(parse('quotes', { ...off, quantity: undefined, fiatAmount: 5 }, 'strict')).toMatchObject({ failure: { code: 400 } })
  })
})
