// Section 5 authentication and every error path of the sandbox, over loopback, each
// answered with the live envelope {status: 0, code, error} and the matching HTTP status.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { headerNames, routePath, startSandbox, type Sandbox } from '../../../src/sandbox'
import { call, hmacHex, payloadOf, raw, type RawResponse } from './sandbox-client'

let sb: Sandbox
let t = Date.parse('2025-06-01T10:00:00.000Z')
const names = headerNames('service')

beforeAll(async () => {
  sb = await startSandbox({ seed: 5, orders: 50, autoGenerate: false, now: () => t })
})
afterAll(async () => {
  await sb.close()
})
// A minute passes between tests, so the per-minute limits never interfere here.
beforeEach(() => {
  t += 61_000
})

function expectError(r: RawResponse, code: number, error?: RegExp | string): void {
  expect(r.status, r.text).toBe(code)
  expect(r.json).toMatchObject({ status: 0, code })
  const e = (r.json as { error: string }).error
  expect(typeof e).toBe('string')
  if (error !== undefined) expect(e).toMatch(error)
}

describe('authentication (spec section 5)', () => {
  it('accepts a correctly signed request', async () => {
    const r = await call(sb, 'orderStatus', { body: { orderId: 100001, type: sb.control.order(100001)!.type } })
    expect(r.status).toBe(200)
    expect(r.json).toMatchObject({ status: 1, code: 200 })
  })

  it('needs all three headers', async () => {
    for (const h of [names.apiKey, names.payload, names.signature]) {
      expectError(
        await call(sb, 'limits', { body: { type: 1 }, headers: { [h]: undefined } }),
        401,
        new RegExp(`Missing authentication header: ${h}`)
      )
    }
  })

  it('refuses an unknown key and a wrong secret', async () => {
    expectError(await call(sb, 'limits', { body: { type: 1 }, apiKey: 'someone-else' }), 401, 'Invalid API key')
    expectError(await call(sb, 'limits', { body: { type: 1 }, apiSecret: 'wrong' }), 401, 'Invalid signature')
    expectError(await call(sb, 'limits', { body: { type: 1 }, headers: { [names.signature]: 'ab'.repeat(64) } }), 401, 'Invalid signature')
  })

  it('refuses a payload that is not {timestamp, body}', async () => {
    const junk = Buffer.from('not json').toString('base64')
    expectError(
      await call(sb, 'limits', {
        body: { type: 1 },
        headers: { [names.payload]: junk, [names.signature]: hmacHex(junk, sb.apiSecret) }
      }),
      401,
      /Invalid payload/
    )
    const noTs = Buffer.from(JSON.stringify({ body: { type: 1 } })).toString('base64')
    expectError(
      await call(sb, 'limits', {
        body: { type: 1 },
        headers: { [names.payload]: noTs, [names.signature]: hmacHex(noTs, sb.apiSecret) }
      }),
      401,
      /timestamp/
    )
  })

  it('refuses a signed body that differs from the request body; key order does not matter', async () => {
    expectError(await call(sb, 'limits', { body: { type: 1 }, payloadBody: { type: 2 } }), 401, /does not match the request body/)
    const ok = await call(sb, 'priceTicker', { body: { type: 1, fiatType: 1 }, payloadBody: { fiatType: 1, type: 1 } })
    expect(ok.status).toBe(200)
  })

  it('refuses a timestamp ahead of the sandbox clock ("Ahead of Time") and one older than 60 s', async () => {
    const now = sb.control.serverNow()
    expectError(await call(sb, 'limits', { body: { type: 1 }, timestamp: now + 6_000 }), 401, /^Ahead of Time$/)
    expect((await call(sb, 'limits', { body: { type: 1 }, timestamp: now + 4_000 })).status).toBe(200)
    expect((await call(sb, 'limits', { body: { type: 1 }, timestamp: now - 59_000 })).status).toBe(200)
    expectError(await call(sb, 'limits', { body: { type: 1 }, timestamp: now - 61_000 }), 401, /expired/)
  })

  it('accepts a signature over another JSON serialisation of the same body: the HMAC covers the header as sent', async () => {
    const ts = sb.control.serverNow()
    const webhookUrl = 'http://127.0.0.1:9/hooks/rampdesk'
    const body = { webhookUrl }
    for (const payloadText of [
      // Python's json.dumps
      `{"timestamp": ${ts}, "body": {"webhookUrl": "${webhookUrl}"}}`,
      // PHP's json_encode
      `{"timestamp":${ts},"body":{"webhookUrl":"${webhookUrl.replace(/\//g, '\\/')}"}}`,
      // members in another order, pretty-printed
      `{\n  "body": {\n    "webhookUrl": "${webhookUrl}"\n  },\n  "timestamp": ${ts}\n}`
    ]) {
      const r = await call(sb, 'setWebhookUrl', { body, payloadText })
      expect(r.status, `${payloadText}: ${r.text}`).toBe(200)
    }
    // The value still has to match the request body.
    const other = `{"timestamp": ${ts}, "body": {"webhookUrl": "http://127.0.0.1:9/elsewhere"}}`
    expectError(await call(sb, 'setWebhookUrl', { body, payloadText: other }), 401, /does not match the request body/)
  })

  it('accepts a timestamp 30 s in the past, as live clients send', async () => {
    const r = await call(sb, 'limits', { body: { type: '1' }, timestamp: sb.control.serverNow() - 30_000 })
    expect(r.status, r.text).toBe(200)
  })

  it('names the headers for the service (white-label deployments)', async () => {
    const acme = await startSandbox({ seed: 5, orders: 5, autoGenerate: false, now: () => t, serviceName: 'recon' })
    try {
      expect(headerNames('recon')).toMatchObject({ apiKey: 'X-RECON-APIKEY', payload: 'X-RECON-PAYLOAD', signature: 'X-RECON-SIGNATURE' })
      expect((await call(acme, 'limits', { body: { type: '1' } })).status).toBe(200)
      const withServiceHeaders = await call(acme, 'limits', {
        body: { type: '1' },
        headers: { 'X-RECON-APIKEY': undefined, 'X-SERVICE-APIKEY': acme.apiKey }
      })
      expectError(withServiceHeaders, 401, 'Missing authentication header: X-RECON-APIKEY')
    } finally {
      await acme.close()
    }
  })

  it('follows the sandbox clock offset (server clock skew)', async () => {
    const clientNow = t
    sb.control.setClockOffset(-30_000)
    expectError(await call(sb, 'limits', { body: { type: 1 }, timestamp: clientNow }), 401, /^Ahead of Time$/)
    const r = await call(sb, 'limits', { body: { type: 1 }, timestamp: sb.control.serverNow() })
    expect(r.status).toBe(200)
    expect(Date.parse(String(r.headers.date))).toBe(Math.floor((clientNow - 30_000) / 1000) * 1000)
    sb.control.setClockOffset(0)
  })

  it('serves the three public GETs without headers', async () => {
    for (const name of ['publicAllGasFee', 'bankDetails', 'publicAllConfig'] as const) {
      const r = await raw(sb, routePath('service', name), { method: 'GET' })
      expect(r.status).toBe(200)
      expect(r.json).toMatchObject({ status: 1 })
    }
  })
})

describe('errors', () => {
  it('404 for an unknown path, including another service name', async () => {
    expectError(await raw(sb, '/service/api/v2/common/transaction/nothing'), 404, /Not found/)
    expectError(await raw(sb, '/other/api/v2/common/transaction/limits'), 404)
  })

  it('405 for the wrong method, with Allow', async () => {
    const r = await raw(sb, routePath('service', 'limits'), { method: 'GET' })
    expectError(r, 405, /use POST/)
    expect(r.headers.allow).toBe('POST')
    expectError(await raw(sb, routePath('service', 'publicAllConfig'), { method: 'POST', rawBody: '{}' }), 405, /use GET/)
  })

  it('400 for a body that is not JSON, not an object, or larger than 1 MiB', async () => {
    expectError(
      await call(sb, 'limits', { rawBody: JSON.stringify({ type: 1, pad: 'x'.repeat(1 << 20) }), body: { type: 1 } }),
      400,
      /larger than/
    )
    expectError(await call(sb, 'limits', { rawBody: '{"type":', body: { type: 1 } }), 400, 'Malformed JSON body')
    const payload = payloadOf(sb.control.serverNow(), [])
    expectError(
      await call(sb, 'limits', {
        rawBody: '[]',
        headers: { [names.payload]: payload, [names.signature]: hmacHex(payload, sb.apiSecret) }
      }),
      400,
      /JSON object/
    )
  })

  it('409 for a parameter of the wrong type, 400 for missing, unknown or out-of-range ones', async () => {
    expectError(await call(sb, 'limits', { body: { type: true } }), 409, /Wrong parameter type: type/)
    expectError(await call(sb, 'merchantHistory', { body: { pageSize: '50' } }), 409, /pageSize must be integer, not string/)
    expectError(await call(sb, 'quotes', { body: { type: 1, coinId: 'usdt', chainId: 1, fiatAmount: 1000, fiatType: 1 } }), 409, /coinId/)
    expectError(await call(sb, 'quotes', { body: { type: '1', coinId: 54, chainId: 1, fiatAmount: 1000, fiatType: 1 } }), 409, /type/)
    expectError(await call(sb, 'limits', { body: {} }), 400, /Missing parameter: type/)
    expectError(await call(sb, 'allGasFee', { body: { extra: 1 } }), 400, /Unknown parameter: extra/)
    expectError(await call(sb, 'limits', { body: { type: 4 } }), 400, /Invalid type: must be one of 1, 2, 3/)
    expectError(await call(sb, 'merchantHistory', { body: { pageSize: 501 } }), 400, /pageSize/)
    expectError(await call(sb, 'merchantHistory', { body: { pageSize: 0 } }), 400, /pageSize/)
    expectError(await call(sb, 'merchantHistory', { body: { since: 'yesterday' } }), 400, /since/)
    expectError(await call(sb, 'quotes', { body: { type: 1, coinId: 54, fiatAmount: 1000, fiatType: 1 } }), 400, /chain/)
    expectError(await call(sb, 'quotes', { body: { type: 2, coinId: 54, chainId: 1, quantity: 10, fiatType: 2 } }), 400, /INR/)
    expectError(await call(sb, 'setWebhookUrl', { body: { webhookUrl: 'ftp://x' } }), 400, /http/)
    expectError(await call(sb, 'allCoinLimits', { body: { fiatType: 99 } }), 400, /Unsupported fiatType 99/)
  })

  it('406 for an unsupported coin or coin/network pair', async () => {
    expectError(
      await call(sb, 'quotes', { body: { type: 1, coinCode: 'doge', chainId: 1, fiatAmount: 1000, fiatType: 1 } }),
      406,
      /Coin not supported: doge/
    )
    expectError(
      await call(sb, 'quotes', { body: { type: 2, coinCode: 'usdc', network: 'trc20', quantity: 100, fiatType: 1 } }),
      406,
      /usdc is not supported for offramp on trc20/
    )
    expectError(
      await call(sb, 'quotes', { body: { type: 1, coinId: 54, network: 'nowhere', fiatAmount: 1000, fiatType: 1 } }),
      406,
      /Network not supported/
    )
    expectError(await call(sb, 'priceTicker', { body: { type: 2, fiatType: 2 } }), 406, /INR/)
  })

  it('413 for an amount outside the limits', async () => {
    expectError(
      await call(sb, 'quotes', { body: { type: 1, coinCode: 'usdt', network: 'bep20', fiatAmount: 50, fiatType: 1 } }),
      413,
      /outside the limits/
    )
    expectError(
      await call(sb, 'quotes', { body: { type: 2, coinCode: 'usdt', network: 'bep20', quantity: 1_000_000, fiatType: 1 } }),
      413,
      /offramp limits/
    )
  })

  it('417 for an unknown order', async () => {
    expectError(await call(sb, 'orderStatus', { body: { orderId: 999999999, type: 1 } }), 417, /Order 999999999 does not exist/)
    const o = sb.control.order(100001)!
    expectError(await call(sb, 'orderStatus', { body: { orderId: o.orderId, type: o.type === 1 ? 2 : 1 } }), 417, /does not exist as a/)
    expectError(await call(sb, 'resendWebhook', { body: { orderId: 5 } }), 417)
  })

  it('500 and 503 injected, then lifted', async () => {
    sb.control.setFault('limits', { errorRate: 1, errorStatus: 503, remaining: 1 })
    expectError(await call(sb, 'limits', { body: { type: 1 } }), 503, /maintenance/)
    expect((await call(sb, 'limits', { body: { type: 1 } })).status).toBe(200)
    sb.control.setFault('*', { errorRate: 1 })
    expectError(await call(sb, 'bankDetails'), 500)
    sb.control.clearFaults()
    expect((await call(sb, 'bankDetails')).status).toBe(200)
  })
})
