// The paramTypes and typeErrorText readings over loopback: for every field whose type
// the spec and live practice dispute (and one that is strict by default), strict takes
// only the spec's JSON type and answers anything else 409 "wrong parameter type", named
// or bare; lenient takes both encodings and answers the same data.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { defaultReadings, startSandbox, type EndpointName, type Sandbox } from '../../../src/sandbox'
import { call, errorOf } from './sandbox-client'

let sb: Sandbox
let t = Date.parse('2025-06-01T10:00:00.000Z')

beforeAll(async () => {
  sb = await startSandbox({ seed: 17, orders: 300, autoGenerate: false, now: () => t })
})
afterAll(async () => {
  await sb.close()
})
// A minute between tests keeps the per-minute limits out of the way.
beforeEach(() => {
  t += 61_000
  sb.control.setReadings({ paramTypes: defaultReadings().paramTypes, typeErrorText: 'named' })
})

interface Case {
  endpoint: EndpointName
  field: string
  /** The body with the field as the spec types it. */
  body: Record<string, unknown>
  /** The field in the other encoding. */
  other: unknown
  specType: string
  otherType: string
  defaultMode: 'strict' | 'lenient'
}

const ORDER = 100001
const CASES: Case[] = [
  {
    endpoint: 'merchantHistory',
    field: 'fiatType',
    body: { fiatType: '1' },
    other: 1,
    specType: 'string',
    otherType: 'number',
    defaultMode: 'lenient'
  },
  {
    endpoint: 'merchantHistory',
    field: 'type',
    body: { type: 2 },
    other: '2',
    specType: 'integer or empty string',
    otherType: 'string',
    defaultMode: 'lenient'
  },
  {
    endpoint: 'merchantHistory',
    field: 'page',
    body: { page: 2 },
    other: '2',
    specType: 'integer',
    otherType: 'string',
    defaultMode: 'strict'
  },
  {
    endpoint: 'allCoinLimits',
    field: 'fiatType',
    body: { fiatType: '1' },
    other: 1,
    specType: 'string',
    otherType: 'number',
    defaultMode: 'lenient'
  },
  {
    endpoint: 'priceTicker',
    field: 'type',
    body: { type: '1', fiatType: '1' },
    other: 1,
    specType: 'string',
    otherType: 'number',
    defaultMode: 'lenient'
  },
  {
    endpoint: 'priceTicker',
    field: 'fiatType',
    body: { type: '1', fiatType: '2' },
    other: 2,
    specType: 'string',
    otherType: 'number',
    defaultMode: 'lenient'
  },
  { endpoint: 'limits', field: 'type', body: { type: '3' }, other: 3, specType: 'string', otherType: 'number', defaultMode: 'lenient' },
  {
    endpoint: 'orderStatus',
    field: 'orderId',
    body: { orderId: String(ORDER), type: 1 },
    other: ORDER,
    specType: 'string',
    otherType: 'number',
    defaultMode: 'lenient'
  },
  {
    endpoint: 'orderStatus',
    field: 'type',
    body: { orderId: String(ORDER), type: 1 },
    other: '1',
    specType: 'integer',
    otherType: 'string',
    defaultMode: 'strict'
  },
  {
    endpoint: 'quotes',
    field: 'fiatAmount',
    body: { type: 1, coinCode: 'usdt', network: 'bep20', fiatAmount: 2500, fiatType: 1 },
    other: '2500',
    specType: 'number',
    otherType: 'string',
    defaultMode: 'strict'
  }
]

const key = (c: Case): string => `${c.endpoint}.${c.field}`
const withOther = (c: Case): Record<string, unknown> => ({ ...c.body, [c.field]: c.other })

/** Each call in its own minute, so the documented limits never answer in place of the type check. */
async function answer(c: Case, body: Record<string, unknown>) {
  t += 61_000
  return call(sb, c.endpoint, { body })
}

describe('paramTypes', () => {
  beforeAll(() => {
    // orderStatus needs the order's own type; make the cases use it.
    const type = sb.control.order(ORDER)!.type
    for (const c of CASES.filter((x) => x.endpoint === 'orderStatus')) {
      c.body = { ...c.body, type }
      if (c.field === 'type') c.other = String(type)
    }
  })

  it('default: lenient exactly for the disputed fields', () => {
    for (const c of CASES) expect(sb.control.readings().paramTypes[key(c)], key(c)).toBe(c.defaultMode)
  })

  for (const c of CASES) {
    it(`${key(c)}: strict takes only ${c.specType}; lenient takes ${c.otherType} too, with the same answer`, async () => {
      sb.control.setReadings({ paramTypes: { [key(c)]: 'strict' } })
      const spec = await answer(c, c.body)
      expect(spec.status, spec.text).toBe(200)
      const refused = await answer(c, withOther(c))
      expect(errorOf(refused, 409)).toBe(`Wrong parameter type: ${c.field} must be ${c.specType}, not ${c.otherType}`)

      sb.control.setReadings({ paramTypes: { [key(c)]: 'strict' }, typeErrorText: 'bare' })
      expect(errorOf(await answer(c, withOther(c)), 409)).toBe('wrong parameter type')

      sb.control.setReadings({ paramTypes: { [key(c)]: 'lenient' } })
      const lenient = await answer(c, withOther(c))
      expect(lenient.status, lenient.text).toBe(200)
      expect((lenient.json as { data: unknown }).data).toEqual((spec.json as { data: unknown }).data)
    })
  }

  it('resendWebhook.orderId: an integer is a type error only when strict', async () => {
    sb.control.setReadings({ paramTypes: { 'resendWebhook.orderId': 'strict' } })
    expect(errorOf(await call(sb, 'resendWebhook', { body: { orderId: ORDER } }), 409)).toMatch(/orderId must be string, not number/)
    // Past the type check, this sandbox has no webhook URL to send to: the next rule answers.
    expect(errorOf(await call(sb, 'resendWebhook', { body: { orderId: String(ORDER) } }), 400)).toMatch(/No webhook URL/)
    sb.control.setReadings({ paramTypes: 'lenient' })
    expect(errorOf(await call(sb, 'resendWebhook', { body: { orderId: ORDER } }), 400)).toMatch(/No webhook URL/)
  })

  it('strict for every field: the encodings a client written against the live service sends are all refused, each named', async () => {
    sb.control.setReadings({ paramTypes: 'strict' })
    expect(errorOf(await call(sb, 'merchantHistory', { body: { type: 1, fiatType: 1, page: 1, pageSize: 50 } }), 409)).toBe(
      'Wrong parameter type: fiatType must be string, not number'
    )
    expect(errorOf(await call(sb, 'priceTicker', { body: { type: 1, fiatType: 1 } }), 409)).toBe(
      'Wrong parameter type: type must be string, not number; Wrong parameter type: fiatType must be string, not number'
    )
    const history = await call(sb, 'merchantHistory', { body: { type: 1, fiatType: '1', page: 1, pageSize: 50 } })
    expect(history.status).toBe(200)
  })

  it('lenient for every field still refuses what is neither encoding', async () => {
    sb.control.setReadings({ paramTypes: 'lenient' })
    expect(errorOf(await call(sb, 'merchantHistory', { body: { fiatType: true } }), 409)).toMatch(
      /fiatType must be string or integer, not boolean/
    )
    expect(errorOf(await call(sb, 'merchantHistory', { body: { pageSize: 'fifty' } }), 409)).toMatch(/pageSize/)
  })
})
