// The JSON type of every request field on the wire, checked against a table copied by
// hand from the spec's body tables (section 4), NOT derived from the endpoints table or
// the request schemas: a misreading there must show up here. Where the spec says
// "string (sent as integer in the sample)", the integer of the sample is expected.
import { describe, expect, test } from 'vitest'
import type { ApiClient } from '../../../../src/main/api/client'
import type { EndpointName } from '../../../../src/shared/api/endpoints'
import { mockService } from './mock-service'

type JsonType = 'integer' | 'string' | 'number'

/** Transcribed from the merchant API spec, section 4 (4.2, 4.4, 4.6-4.13). */
const SPEC_BODY_TYPES: Partial<Record<EndpointName, Record<string, JsonType>>> = {
  // 4.1, 4.3, 4.5: "Body: empty object."
  allChainMapping: {},
  allGasFee: {},
  allConfigMapping: {},
  // 4.2: fiatType "string (sent as integer in the sample)"
  allCoinLimits: { fiatType: 'integer' },
  // 4.4
  merchantHistory: { page: 'integer', pageSize: 'integer', since: 'string', order: 'string', type: 'integer', fiatType: 'string' },
  // 4.6, 4.8
  sendDummyWebhook: { webhookUrl: 'string' },
  setWebhookUrl: { webhookUrl: 'string' },
  // 4.7: orderId "string (sent as integer in the sample)"
  resendWebhook: { orderId: 'integer' },
  // 4.11
  priceTicker: { type: 'string', fiatType: 'string' },
  // 4.12: "orderId (string in the sample) and type (integer ...)"
  orderStatus: { orderId: 'string', type: 'integer' },
  // 4.13
  limits: { type: 'string' }
}
/** 4.9 (offramp) and 4.10 (onramp): one path, the body's type selects the flow. */
const SPEC_QUOTE_TYPES: Record<'offramp' | 'onramp', Record<string, JsonType>> = {
  offramp: {
    coinId: 'integer',
    coinCode: 'string',
    chainId: 'integer',
    network: 'string',
    quantity: 'number',
    fiatType: 'integer',
    type: 'integer'
  },
  onramp: {
    coinId: 'integer',
    coinCode: 'string',
    chainId: 'integer',
    network: 'string',
    fiatAmount: 'number',
    fiatType: 'integer',
    type: 'integer'
  }
}

const jsonTypeOf = (v: unknown): string => (typeof v === 'number' ? (Number.isInteger(v) ? 'integer' : 'number') : typeof v)
const matches = (want: JsonType, v: unknown) => (want === 'number' ? typeof v === 'number' : jsonTypeOf(v) === want)

/** One call per endpoint with every field of its table filled in. */
const CALLS: [EndpointName, (c: ApiClient) => Promise<unknown>][] = [
  ['allChainMapping', (c) => c.allChainMapping()],
  ['allGasFee', (c) => c.allGasFee()],
  ['allConfigMapping', (c) => c.allConfigMapping()],
  ['allCoinLimits', (c) => c.allCoinLimits({ fiatType: 1 })],
  [
    'merchantHistory',
    (c) => c.merchantHistory({ type: 2, fiatType: 1, page: 2, pageSize: 100, since: '2024-01-02T03:04:05.678Z', order: 'ASC' })
  ],
  ['sendDummyWebhook', (c) => c.sendDummyWebhook({ webhookUrl: 'https://m.example/hook' })],
  ['setWebhookUrl', (c) => c.setWebhookUrl({ webhookUrl: 'https://m.example/hook' })],
  ['resendWebhook', (c) => c.resendWebhook({ orderId: 123456 })],
  ['priceTicker', (c) => c.priceTicker({ type: 3, fiatType: 1 })],
  ['orderStatus', (c) => c.orderStatus({ orderId: 123456, type: 1 })],
  ['limits', (c) => c.limits({ type: 1 })]
]

describe('request fields travel with the JSON type the spec states', () => {
  test.each(CALLS)('%s', async (endpoint, call) => {
    const svc = mockService()
    await call(svc.client())
    const [sent] = svc.sent(endpoint)
    const body = JSON.parse(sent!.bodyText) as Record<string, unknown>
    const want = SPEC_BODY_TYPES[endpoint]!
    expect(Object.keys(body).sort()).toEqual(Object.keys(want).sort())
    for (const [field, type] of Object.entries(want))
      expect({ field, type: jsonTypeOf(body[field]), ok: matches(type, body[field]) }).toMatchObject({ field, ok: true })
  })

  test.each([
    [
      'offramp',
      (c: ApiClient) => c.offrampQuote({ coinId: 54, coinCode: 'usdt', chainId: 1, network: 'bep20', fiatType: 1, quantity: '12.5' })
    ],
    [
      'onramp',
      (c: ApiClient) => c.onrampQuote({ coinId: 54, coinCode: 'usdt', chainId: 1, network: 'bep20', fiatType: 1, fiatAmount: '1000.25' })
    ]
  ] as const)('quotes (%s)', async (flow, call) => {
    const svc = mockService()
    await call(svc.client())
    const body = JSON.parse(svc.sent('quotes')[0]!.bodyText) as Record<string, unknown>
    const want = SPEC_QUOTE_TYPES[flow]
    expect(Object.keys(body).sort()).toEqual(Object.keys(want).sort())
    for (const [field, type] of Object.entries(want)) expect({ field, ok: matches(type, body[field]) }).toEqual({ field, ok: true })
  })

  test('the signed payload carries the body exactly as sent', async () => {
    const svc = mockService()
    await svc.client().priceTicker({ type: 1, fiatType: 2 })
    const [sent] = svc.sent('priceTicker')
    const payload = JSON.parse(Buffer.from(sent!.headers['x-service-payload']!, 'base64').toString('utf8')) as { body: unknown }
    expect(payload.body).toEqual({ type: '1', fiatType: '2' })
    expect(JSON.parse(sent!.bodyText)).toEqual(payload.body)
  })
})
