// Every refusal the sandbox can give, as the real ApiClient reports it: 400, 401 (wrong
// secret, wrong key, "Ahead of Time" fixed by re-estimating the skew, a clock too broken
// for that -> clock_skew), 404 and 405 (a client pointed at the wrong service name or
// path), 406, 409, 413 and 417, plus a 200 of the wrong shape (schema with a path). Where
// the client's own validation refuses a request first (invalid_request, nothing sent),
// that is asserted, and the same body is then sent with the validation bypassed to show
// what the sandbox answers and how the client maps it.
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { z } from 'zod'
import type { ApiClient, CallOptions } from '../../../src/main/api/client'
import { SkewClock } from '../../../src/main/api/clock'
import type { Sandbox } from '../../../src/sandbox'
import { endpoints, type EndpointName } from '../../../src/shared/api/endpoints'
import { ApiError, toErrorInfo } from '../../../src/shared/api/errors'
import { caught, clientFor, countAtSandbox, quietSandbox, recordRequests } from './support'

let sb: Sandbox
const clients: ApiClient[] = []

beforeAll(async () => {
  sb = await quietSandbox({ seed: 12, orders: 40 })
})
beforeEach(() => {
  sb.control.clearFaults()
  sb.control.setClockOffset(0)
})
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()))
  await sb?.close()
})

function client(o: Parameters<typeof clientFor>[1] = {}): ApiClient {
  const c = clientFor(sb, o)
  clients.push(c)
  return c
}

/**
 * One attempt of the client with its request validation skipped: budget, secret, signature,
 * wire and the client's own mapping of the answer, exactly as a validated call would get
 * them. Reaches into the private `attempt` step on purpose: the public methods always
 * validate first, and these tests need the sandbox's answer to a body they refuse.
 */
function unvalidated(c: ApiClient, name: EndpointName, body: unknown): Promise<unknown> {
  type Attempt = { name: EndpointName; schema: z.ZodType; opts: CallOptions; attempt: number; call: object }
  const attempt = (c as unknown as { attempt?: (b: unknown, t: Attempt) => Promise<unknown> }).attempt
  if (typeof attempt !== 'function') throw new Error('ApiClient has no private attempt step any more: update this bypass')
  return attempt.call(c, body, { name, schema: endpoints[name].response, opts: {}, attempt: 1, call: {} })
}

/** The client refuses a body itself (nothing reaches the sandbox), and the sandbox refuses it with `code`. */
async function refusedTwice(
  name: EndpointName,
  call: (c: ApiClient) => Promise<unknown>,
  body: unknown,
  path: string,
  code: number,
  error: RegExp
) {
  const c = client()
  const seen = countAtSandbox(sb, name)
  const own = await caught(call(c))
  expect(own).toMatchObject({ kind: 'invalid_request', endpoint: name, path, retryable: false })
  expect(c.stats()[name]).toBe(0)
  expect(seen()).toBe(0)
  const theirs = await caught(unvalidated(c, name, body))
  expect(theirs).toMatchObject({ kind: 'api', endpoint: name, httpStatus: code, code, retryable: false })
  expect(theirs.message).toMatch(error)
  expect(seen()).toBe(1)
}

describe('400 bad parameter', () => {
  it("values the client's schema allows but the sandbox refuses: unknown fiat types, an offramp quote outside INR by id, no webhook URL", async () => {
    const c = client()
    const events = recordRequests(c)
    expect(await caught(c.allCoinLimits({ fiatType: 99 }))).toMatchObject({
      kind: 'api',
      code: 400,
      httpStatus: 400,
      message: expect.stringMatching(/Unsupported fiatType 99/) as unknown
    })
    expect(await caught(c.onrampQuote({ coinCode: 'usdt', network: 'bep20', fiatAmount: '1000', fiatType: 42 }))).toMatchObject({
      kind: 'api',
      code: 400
    })
    expect(await caught(c.sendDummyWebhook())).toMatchObject({
      kind: 'api',
      code: 400,
      endpoint: 'sendDummyWebhook',
      message: expect.stringMatching(/No webhook URL/) as unknown
    })
    // 4xx is final: one request each, no retries.
    expect(events.map((e) => [e.endpoint, e.httpStatus, e.outcome])).toEqual([
      ['allCoinLimits', 400, 'api'],
      ['quotes', 400, 'api'],
      ['sendDummyWebhook', 400, 'api']
    ])
  })

  it('a pageSize over 500 and a limits type outside 1-3: invalid_request at the client, 400 at the sandbox', async () => {
    await refusedTwice(
      'merchantHistory',
      (c) => c.merchantHistory({ type: 1, pageSize: 501 }),
      { type: 1, pageSize: 501 },
      'pageSize',
      400,
      /Invalid pageSize/
    )
    await refusedTwice('limits', (c) => c.limits({ type: 4 }), { type: 4 }, 'type', 400, /Invalid type/)
    await refusedTwice(
      'merchantHistory',
      (c) => c.merchantHistory({ type: 1, since: 'yesterday' }),
      { type: 1, since: 'yesterday' },
      'since',
      400,
      /since/
    )
  })

  it('an offramp quote in TRY and an unknown parameter: invalid_request at the client, 400 at the sandbox', async () => {
    const tr = { coinCode: 'usdt', network: 'bep20', quantity: 100, fiatType: 2, type: 2 }
    await refusedTwice(
      'quotes',
      (c) => c.offrampQuote({ coinCode: 'usdt', network: 'bep20', quantity: '100', fiatType: 2 as 1 }),
      tr,
      'fiatType',
      400,
      /INR/
    )
    await refusedTwice(
      'limits',
      (c) => c.limits({ type: 1, extra: true } as never),
      { type: 1, extra: true },
      '',
      400,
      /Unknown parameter: extra/
    )
  })

  it('an amount that cannot be sent exactly as a JSON number never leaves the client', async () => {
    const c = client()
    const seen = countAtSandbox(sb, 'quotes')
    const e = await caught(c.onrampQuote({ coinCode: 'usdt', network: 'bep20', fiatAmount: '1000.000000000000000000001', fiatType: 1 }))
    expect(e).toMatchObject({ kind: 'invalid_request', path: 'fiatAmount' })
    expect(seen()).toBe(0)
  })
})

describe('401', () => {
  it('a wrong secret: auth, "Invalid signature", not retried', async () => {
    const c = client({ getSecret: () => Promise.resolve('not-the-secret') })
    const seen = countAtSandbox(sb, 'orderStatus')
    const e = await caught(c.orderStatus({ orderId: 100001, type: 1 }))
    expect(e).toMatchObject({ kind: 'auth', httpStatus: 401, code: 401, message: 'Invalid signature', retryable: false })
    expect(seen()).toBe(1)
  })

  it('a wrong key: auth, "Invalid API key"', async () => {
    const c = client({ apiKey: 'someone-elses-key' })
    expect(await caught(c.limits({ type: 1 }))).toMatchObject({ kind: 'auth', httpStatus: 401, code: 401, message: 'Invalid API key' })
  })

  it('a secret that cannot be read: missing_secret, nothing sent', async () => {
    const c = client({ getSecret: () => Promise.reject(new Error('keychain locked')) })
    const seen = countAtSandbox(sb, 'limits')
    const e = await caught(c.limits({ type: 1 }))
    expect(e).toMatchObject({ kind: 'missing_secret', retryable: false })
    expect(seen()).toBe(0)
    // Still missing_secret after crossing IPC as plain JSON (it used to come back as 'network').
    expect(toErrorInfo(JSON.parse(JSON.stringify(e.toInfo())))).toMatchObject({ kind: 'missing_secret', retryable: false })
  })

  it('"Ahead of Time" after the service\'s clock fell behind: the client re-estimates its skew from the Date header, re-signs and succeeds', async () => {
    const c = client()
    const events = recordRequests(c)
    await c.orderStatus({ orderId: 100001, type: 1 }) // a first estimate near zero
    expect(Math.abs(c.clock.skewMs)).toBeLessThan(2_000)
    sb.control.setClockOffset(-30_000)
    const seen = countAtSandbox(sb, 'orderStatus')
    const truth = sb.control.order(100001)
    expect(await c.orderStatus({ orderId: 100001, type: 1 })).toEqual({ orderStatus: truth?.status })
    expect(seen()).toBe(2)
    expect(events.slice(1).map((e) => [e.httpStatus, e.outcome, e.attempt])).toEqual([
      [401, 'auth', 1],
      [200, 'ok', 1]
    ])
    expect(c.clock.skewMs).toBeGreaterThan(-32_000)
    expect(c.clock.skewMs).toBeLessThan(-28_000)
    // The next call is signed right the first time.
    await c.orderStatus({ orderId: 100001, type: 1 })
    expect(seen()).toBe(3)
  })

  it("the service's clock jumps two minutes ahead: our timestamps look expired; the client takes the new estimate at once, re-signs and succeeds", async () => {
    const c = client()
    const events = recordRequests(c)
    await c.orderStatus({ orderId: 100001, type: 1 })
    sb.control.setClockOffset(120_000)
    const seen = countAtSandbox(sb, 'orderStatus')
    const truth = sb.control.order(100001)
    expect(await c.orderStatus({ orderId: 100001, type: 1 })).toEqual({ orderStatus: truth?.status })
    expect(seen()).toBe(2)
    expect(events.slice(1).map((e) => [e.httpStatus, e.outcome])).toEqual([
      [401, 'auth'],
      [200, 'ok']
    ])
    // No creeping estimate: the jump is taken whole.
    expect(c.clock.skewMs).toBeGreaterThan(118_000)
    expect(c.clock.skewMs).toBeLessThan(122_000)
  })

  it('a 401 that is not about time is not repeated', async () => {
    const c = client({ getSecret: () => Promise.resolve('not-the-sandbox-secret') })
    const seen = countAtSandbox(sb, 'orderStatus')
    expect(await caught(c.orderStatus({ orderId: 100001, type: 1 }))).toMatchObject({ kind: 'auth' })
    expect(seen()).toBe(1)
  })

  it('"Ahead of Time" on a write: the 401 means the service did not act, so it is re-signed and sent again once', async () => {
    const c = client()
    const events = recordRequests(c)
    sb.control.setClockOffset(-20_000)
    const url = 'http://127.0.0.1:9/after-resync'
    expect(await c.setWebhookUrl({ webhookUrl: url })).toBe(`Webhook URL set to ${url}`)
    expect(sb.control.webhookUrl()).toBe(url)
    expect(events.map((e) => [e.httpStatus, e.outcome])).toEqual([
      [401, 'auth'],
      [200, 'ok']
    ])
  })

  it('a local clock that keeps running ahead (each reading 30 s later than the last): one re-estimate is not enough -> clock_skew', async () => {
    let readings = 0
    const clock = new SkewClock({ now: () => Date.now() + 30_000 * ++readings })
    const c = client({ clock })
    const events = recordRequests(c)
    const seen = countAtSandbox(sb, 'limits')
    const e = await caught(c.limits({ type: 1 }))
    expect(e).toMatchObject({ kind: 'clock_skew', httpStatus: 401, endpoint: 'limits', retryable: false })
    expect(e.message).toMatch(/Ahead of Time/)
    expect(e.skewMs).toBe(clock.skewMs)
    expect(seen()).toBe(2)
    expect(events.map((x) => x.outcome)).toEqual(['auth', 'auth'])
  })
})

describe('404 and 405: a client pointed at the wrong place', () => {
  it('another service name: 404 with the envelope, not retried', async () => {
    const c = client({ serviceName: 'acme' })
    const events = recordRequests(c)
    const e = await caught(c.limits({ type: 1 }))
    expect(e).toMatchObject({ kind: 'api', httpStatus: 404, code: 404, retryable: false })
    expect(e.message).toMatch(/Not found: POST \/acme\/api\/v2\/common\/transaction\/limits/)
    expect(events).toHaveLength(1)
  })

  it('a sandbox with its own service name: the matching client works (X-ACME-* headers), a client saying "service" gets 404', async () => {
    const acme = await quietSandbox({ seed: 12, orders: 10, serviceName: 'acme' })
    try {
      const right = clientFor(acme, { serviceName: 'acme' })
      const wrong = clientFor(acme, { serviceName: 'service' })
      clients.push(right, wrong)
      expect((await right.limits({ type: 2 })).offramp).toBeDefined()
      expect(await caught(wrong.limits({ type: 2 }))).toMatchObject({ kind: 'api', httpStatus: 404, code: 404 })
    } finally {
      await acme.close()
    }
  })

  it('a base URL with an extra path segment: 404', async () => {
    const c = client({ baseUrl: `${sb.url}/gateway/` })
    expect(await caught(c.bankDetails())).toMatchObject({ kind: 'api', httpStatus: 404, code: 404 })
  })

  it('a base URL that lands every call on the limits path: the GET endpoints get 405 (known path, wrong method)', async () => {
    const c = client({ baseUrl: `${sb.url}/service/api/v2/common/transaction/limits?` })
    const e = await caught(c.publicAllConfig())
    expect(e).toMatchObject({ kind: 'api', httpStatus: 405, code: 405, retryable: false })
    expect(e.message).toMatch(/use POST/)
  })

  it('a base URL that lands on some other JSON (another service on the host): schema, with the path of the first mismatch', async () => {
    // An order record where the envelope should be, as another JSON service would answer.
    const other = createServer((req, res) => {
      req.resume()
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ orderId: 100001, status: 4, type: 1 }))
    })
    await new Promise<void>((r) => other.listen(0, '127.0.0.1', r))
    try {
      const c = client({ baseUrl: `http://127.0.0.1:${(other.address() as AddressInfo).port}/orders/100001#` })
      const e = await caught(c.bankDetails())
      expect(e).toMatchObject({ kind: 'schema', httpStatus: 200, path: 'status', retryable: false })
      expect(c.stats().bankDetails).toBe(1)
    } finally {
      await new Promise<void>((r) => other.close(() => r()))
    }
  })
})

describe('406, 409, 413, 417', () => {
  it('406: an unknown coin, a coin not sold on that network, a coin that cannot be sold', async () => {
    const c = client()
    const cases: Array<[Promise<unknown>, RegExp]> = [
      [c.onrampQuote({ coinCode: 'doge', network: 'bep20', fiatAmount: '1000', fiatType: 1 }), /Coin not supported: doge/],
      [c.onrampQuote({ coinCode: 'sol', network: 'erc20', fiatAmount: '1000', fiatType: 1 }), /sol is not supported for onramp on erc20/],
      [c.offrampQuote({ coinCode: 'usdc', network: 'erc20', quantity: '100', fiatType: 1 }), /usdc is not supported for offramp on erc20/],
      [c.offrampQuote({ coinCode: 'sol', network: 'spl', quantity: '100', fiatType: 1 }), /sol cannot be sold/],
      [c.onrampQuote({ coinId: 54, network: 'no-such-chain', fiatAmount: '1000', fiatType: 1 }), /Network not supported/]
    ]
    for (const [p, message] of cases) {
      const e = await caught(p)
      expect(e).toMatchObject({ kind: 'api', endpoint: 'quotes', httpStatus: 406, code: 406, retryable: false })
      expect(e.message).toMatch(message)
    }
  })

  it('409: a parameter of the wrong JSON type is refused by the client first, and by the sandbox with 409', async () => {
    await refusedTwice('limits', (c) => c.limits({ type: true as never }), { type: true }, 'type', 409, /Wrong parameter type: type/)
    await refusedTwice(
      'orderStatus',
      (c) => c.orderStatus({ orderId: [100001] as never, type: 1 }),
      { orderId: [100001], type: 1 },
      'orderId',
      409,
      /Wrong parameter type: orderId/
    )
    await refusedTwice(
      'merchantHistory',
      (c) => c.merchantHistory({ type: 1, page: '2' as never }),
      { type: 1, page: '2' },
      'page',
      409,
      /Wrong parameter type: page/
    )
  })

  it('413: amounts outside the limits, below a per coin minimum, or too small to sell', async () => {
    const c = client()
    const cases: Array<[Promise<unknown>, RegExp]> = [
      [c.onrampQuote({ coinCode: 'usdt', network: 'bep20', fiatAmount: '99.99', fiatType: 1 }), /min 100/],
      [c.onrampQuote({ coinCode: 'usdt', network: 'bep20', fiatAmount: '200000.01', fiatType: 1 }), /max 200000/],
      [c.onrampQuote({ coinCode: 'eth', network: 'erc20', fiatAmount: '999', fiatType: 1 }), /min 1000/],
      [c.offrampQuote({ coinCode: 'usdt', network: 'bep20', quantity: '1', fiatType: 1 }), /outside the offramp limits/]
    ]
    for (const [p, message] of cases) {
      const e = await caught(p)
      expect(e).toMatchObject({ kind: 'api', endpoint: 'quotes', httpStatus: 413, code: 413, retryable: false })
      expect(e.message).toMatch(message)
    }
  })

  it('417: an unknown order, an order asked for as the other type, a resend of an unknown order', async () => {
    const c = client()
    const events = recordRequests(c)
    const offramp = sb.control.groundTruth({ type: 2 })[0]
    expect(offramp).toBeDefined()
    for (const p of [
      c.orderStatus({ orderId: 99_999_999, type: 1 }),
      c.orderStatus({ orderId: offramp?.orderId ?? 0, type: 1 }),
      c.resendWebhook({ orderId: 99_999_999 })
    ]) {
      expect(await caught(p)).toMatchObject({ kind: 'api', httpStatus: 417, code: 417, retryable: false })
    }
    expect(events.map((e) => e.outcome)).toEqual(['api', 'api', 'api'])
  })
})

it('every failure above is an ApiError whose info survives toInfo (what crosses IPC)', async () => {
  const e = await caught(client().orderStatus({ orderId: 99_999_999, type: 2 }))
  expect(e).toBeInstanceOf(ApiError)
  expect(e.toInfo()).toEqual({ kind: 'api', message: e.message, endpoint: 'orderStatus', httpStatus: 417, code: 417, retryable: false })
})
