import fc from 'fast-check'
import { errors } from 'undici'
import { afterEach, describe, expect, test, vi } from 'vitest'
import type { ApiClient } from '../../../../src/main/api/client'
import { type RequestEvent } from '../../../../src/main/api/client'
import { RateBudget } from '../../../../src/main/api/rate-budget'
import { Transport } from '../../../../src/main/api/transport'
import { decodePayload } from '../../../../src/shared/api/signature'
import { ApiError } from '../../../../src/shared/api/errors'
import { API_SECRET, fixtureData, mockService, sysError, type Reply } from './mock-service'

afterEach(() => {
  vi.useRealTimers()
})

const envelope = (data: unknown) => ({ status: 200, json: { status: 1, code: 200, data } })
const refusal = (code: number, error: string, status = code): Reply => ({ status, json: { status: 0, code, error } })
const caught = (p: Promise<unknown>) =>
  p.then(
    () => {
      throw new Error('expected a rejection')
    },
    (e: unknown) => e as ApiError
  )

describe('ApiClient requests', () => {
  test('signs with the three headers and sends exactly the body that was signed', async () => {
    const svc = mockService()
    const client = svc.client()
    // The mock service verifies key, signature and body, so success means the signature is right.
    expect(await client.allCoinLimits({ fiatType: '1' })).toEqual({ onramp: { '1': { min: '100', max: '50000' } } })
    const [req] = svc.sent('allCoinLimits')
    expect(req).toMatchObject({ method: 'POST', path: '/service/api/v2/common/transaction/allCoinLimits' })
    expect(req!.headers['x-service-apikey']).toBe('key-123')
    expect(req!.headers['x-service-signature']).toMatch(/^[0-9a-f]{128}$/)
    expect(req!.headers['content-type']).toBe('application/json;charset=UTF-8')
    expect(req!.headers.accept).toBe('application/json')
    const signed = decodePayload(req!.headers['x-service-payload']!)
    expect(JSON.stringify(signed.body)).toBe(req!.bodyText)
    expect(req!.bodyText).toBe('{"fiatType":1}')
    await client.close()
  })

  test('endpoints without parameters sign and send {}', async () => {
    const svc = mockService()
    await svc.client().allGasFee()
    expect(svc.sent('allGasFee')[0]!.bodyText).toBe('{}')
  })

  test('the three public GETs carry no auth headers and no body', async () => {
    const svc = mockService()
    const client = svc.client()
    await client.publicAllGasFee()
    await client.bankDetails()
    await client.publicAllConfig()
    expect(svc.received).toHaveLength(3)
    for (const r of svc.received) {
      expect(r.method).toBe('GET')
      expect(r.bodyText).toBe('')
      expect(Object.keys(r.headers).filter((h) => h.startsWith('x-service'))).toEqual([])
    }
  })

  test('every endpoint method returns the parsed data of its envelope', async () => {
    const client = mockService().client()
    expect(await client.allChainMapping()).toMatchObject({ '0': { chainSymbol: 'erc20' } })
    expect(await client.allGasFee()).toMatchObject({ '54': { '3': { withdrawalFee: '0.5', nodeInSync: 1 } } })
    expect(await client.allConfigMapping()).toMatchObject({ coinSymbolMapping: { usdt: 54, eth: 1 } })
    const [onramp] = await client.merchantHistory({ type: 1, pageSize: 10 })
    expect(onramp).toMatchObject({ orderId: 101, onrampFee: '2.5', expectedCryptoAmount: '10.930000000000001' })
    const [offramp] = await client.merchantHistory({ type: 2 })
    expect(offramp).toMatchObject({ orderId: 202, expectedQuantity: '12.5', updatedAt: '2024-01-02T03:04:06.000Z' })
    expect(await client.sendDummyWebhook()).toBe('Webhook sent')
    expect(await client.resendWebhook({ orderId: 101 })).toMatch(/Response received/)
    expect(await client.setWebhookUrl({ webhookUrl: 'https://merchant.example/hook' })).toBe(
      'Webhook url set to https://merchant.example/hook'
    )
    expect(await client.priceTicker({ type: 1, fiatType: 1 })).toEqual({ onramp: { '54': '91.2' } })
    expect(await client.orderStatus({ orderId: '101', type: 1 })).toEqual({ orderStatus: 4 })
    expect(await client.limits({ type: 1 })).toMatchObject({ onramp: { '1': { min: '100' } } })
    expect(await client.publicAllGasFee()).toMatchObject({ allGasFee: { '54': { native: { withdrawalFee: '0.1' } } } })
    expect(await client.bankDetails()).toMatchObject({ upi: 'merchant@upi' })
    expect(await client.publicAllConfig()).toEqual({ coinData: { '54': '91.2' } })
  })

  test('quotes: amounts go in as decimal strings and out as JSON numbers on one path', async () => {
    const svc = mockService()
    const client = svc.client()
    const on = await client.onrampQuote({ coinCode: 'usdt', network: 'matic20', fiatAmount: '1000.50', fiatType: 1 })
    expect(on).toMatchObject({ rate: '91.5', quantity: '10.930000000000001', gasFee: '0.2' })
    const off = await client.offrampQuote({ coinId: 54, chainId: 3, quantity: '0.1', fiatType: 1 })
    expect(off).toMatchObject({ fiatAmount: '905.1', tdsFee: '9.05' })
    const bodies = svc.sent('quotes').map((r) => r.bodyText)
    expect(bodies).toEqual([
      '{"coinCode":"usdt","network":"matic20","fiatAmount":1000.5,"fiatType":1,"type":1}',
      '{"coinId":54,"chainId":3,"quantity":0.1,"fiatType":1,"type":2}'
    ])
  })

  test.each(['12345678901234567890', '0.30000000000000000001', 'abc', '', '1,5', 'Infinity'])(
    'an amount that does not survive as a JSON number (%j) is refused before sending',
    async (amount) => {
      const svc = mockService()
      const e = await caught(svc.client().onrampQuote({ coinId: 54, chainId: 3, fiatAmount: amount, fiatType: 1 }))
      expect(e).toMatchObject({ kind: 'invalid_request', endpoint: 'quotes', path: 'fiatAmount' })
      expect(svc.received).toHaveLength(0)
    }
  )

  test('requests are validated against the endpoint schema before anything is sent', async () => {
    const svc = mockService()
    const client = svc.client()
    expect(await caught(client.merchantHistory({ type: 1, pageSize: 501 }))).toMatchObject({ kind: 'invalid_request', path: 'pageSize' })
    expect(await caught(client.setWebhookUrl({ webhookUrl: 'ftp://x' }))).toMatchObject({ kind: 'invalid_request', path: 'webhookUrl' })
    expect(await caught(client.offrampQuote({ coinId: 54, chainId: 3, quantity: '1', fiatType: 2 as 1 }))).toMatchObject({
      kind: 'invalid_request',
      path: 'fiatType'
    })
    expect(await caught(client.onrampQuote({ fiatAmount: '100', fiatType: 1 }))).toMatchObject({ kind: 'invalid_request' })
    expect(svc.received).toHaveLength(0)
  })
})

describe('ApiClient errors', () => {
  test.each([
    [refusal(400, 'Bad request'), { kind: 'api', code: 400, httpStatus: 400, message: 'Bad request' }],
    [refusal(413, 'Amount out of bounds'), { kind: 'api', code: 413 }],
    [refusal(403, 'Forbidden'), { kind: 'auth', code: 403 }],
    [refusal(401, 'Invalid signature', 200), { kind: 'auth', code: 401, httpStatus: 200 }],
    [
      { status: 502, text: '<html>Bad gateway</html>' },
      { kind: 'http', httpStatus: 502 }
    ],
    [
      { status: 404, json: { message: 'no route' } },
      { kind: 'http', httpStatus: 404 }
    ],
    [
      { status: 200, text: 'OK' },
      { kind: 'schema', message: 'the response is not JSON' }
    ],
    [envelope({ orderStatus: 'done' }), { kind: 'schema', path: 'data.orderStatus' }],
    [
      { status: 200, json: { status: 1, code: 200 } },
      { kind: 'schema', path: 'data' }
    ]
  ] as const)('%j -> %j', async (reply, expected) => {
    const svc = mockService()
    svc.script('orderStatus', reply)
    const e = await caught(svc.client({ retry: { maxAttempts: 1 } }).orderStatus({ orderId: 1, type: 1 }))
    expect(e).toBeInstanceOf(ApiError)
    expect(e).toMatchObject({ endpoint: 'orderStatus', ...expected })
    expect(svc.received).toHaveLength(1)
  })

  test('a schema mismatch names the JSON path of the first issue', async () => {
    const svc = mockService()
    const [order] = fixtureData('merchantHistory', { type: 1 }) as Record<string, unknown>[]
    const orders = [0, 1, 2, 3].map((i) => ({ ...order, orderId: i, updatedAt: i === 3 ? 'yesterday' : order!.updatedAt }))
    svc.script('merchantHistory', envelope(orders))
    const e = await caught(svc.client().merchantHistory({ type: 1 }))
    expect(e).toMatchObject({ kind: 'schema', endpoint: 'merchantHistory', path: 'data[3].updatedAt' })
    expect(e.message).toMatch(/^data\[3\]\.updatedAt: /)
  })

  test('an empty listing answered as data: null, or with no data at all, is no records, not a schema error', async () => {
    const svc = mockService()
    const client = svc.client()
    svc.script('merchantHistory', envelope(null))
    expect(await client.historyPage({ type: 1, page: 9 })).toMatchObject({ records: [], rejected: [], size: 0 })
    svc.script('merchantHistory', { status: 200, json: { status: 1, code: 200 } })
    expect(await client.merchantHistory({ type: 2, page: 9 })).toEqual([])
    // Anything else where the records belong is still refused, with its path.
    svc.script('merchantHistory', envelope({ orders: [] }))
    expect(await caught(client.merchantHistory({ type: 1 }))).toMatchObject({ kind: 'schema', endpoint: 'merchantHistory' })
  })

  test('in a union, the path comes from the branch that matched furthest', async () => {
    const svc = mockService()
    svc.script('allChainMapping', envelope({ '7': { chainName: 'no symbol' } }))
    expect(await caught(svc.client().allChainMapping())).toMatchObject({ kind: 'schema', path: 'data.7.chainSymbol' })
  })

  test('a 429 is rate_limited from the service and tightens the budget', async () => {
    const svc = mockService()
    const client = svc.client({ retry: { maxAttempts: 1 } })
    svc.script('priceTicker', refusal(429, 'Too many requests'))
    const e = await caught(client.priceTicker({ type: 1, fiatType: 1 }))
    expect(e).toMatchObject({ kind: 'rate_limited', origin: 'service', httpStatus: 429, retryable: true })
    const lane = client.budget.snapshot().endpoints.find((x) => x.endpoint === 'priceTicker')!
    expect(lane.limit).toBe(8)
    expect(lane.blockedUntil).toBe(e.nextSlotAt)
  })

  test('a response past the size cap is too_large', async () => {
    const svc = mockService()
    svc.script('bankDetails', envelope({ upi: 'x'.repeat(2_000) }))
    const client = svc.client({ transport: new Transport({ dispatcher: svc.agent, maxResponseBytes: 1_000 }) })
    expect(await caught(client.bankDetails())).toMatchObject({ kind: 'too_large', endpoint: 'bankDetails' })
  })

  test.each([
    [new errors.HeadersTimeoutError(), 'timeout'],
    [sysError('ECONNRESET'), 'network'],
    [sysError('ECONNREFUSED'), 'network']
  ] as const)('a transport failure (%s) surfaces as %s after the retries', async (failure, kind) => {
    const svc = mockService()
    svc.script('limits', failure, failure, failure, failure)
    expect(await caught(svc.client().limits({ type: 1 }))).toMatchObject({ kind, endpoint: 'limits' })
    expect(svc.sent('limits')).toHaveLength(4)
  })

  test('an aborted call is aborted and sends nothing', async () => {
    const svc = mockService()
    const ac = new AbortController()
    ac.abort()
    expect(await caught(svc.client().allGasFee({ signal: ac.signal }))).toMatchObject({ kind: 'aborted' })
    expect(svc.received).toHaveLength(0)
  })

  test('a secret that cannot be read fails as missing_secret and sends nothing', async () => {
    const svc = mockService()
    const client = svc.client({ getSecret: () => Promise.reject(new Error('keychain locked')) })
    expect(await caught(client.allGasFee())).toMatchObject({
      kind: 'missing_secret',
      message: 'the API secret of this profile could not be read',
      retryable: false
    })
    expect(svc.received).toHaveLength(0)
  })
})

describe('ApiClient retries', () => {
  test.each<[string, Reply]>([
    ['503', refusal(503, 'Maintenance')],
    ['500 without envelope', { status: 500, text: 'oops' }],
    ['headers timeout', new errors.HeadersTimeoutError()],
    ['body timeout', new errors.BodyTimeoutError()],
    ['connection reset', sysError('ECONNRESET')],
    ['socket closed', new errors.SocketError('other side closed')],
    ['429', refusal(429, 'Too many requests')]
  ])('reads are retried after %s', async (_name, failure) => {
    const svc = mockService()
    svc.script('orderStatus', failure)
    const client = svc.client({ budget: new RateBudget({ profileId: 'p1', penaltyMs: 1, learnBlockMs: 1 }) })
    expect(await client.orderStatus({ orderId: 1, type: 1 })).toEqual({ orderStatus: 4 })
    expect(svc.sent('orderStatus')).toHaveLength(2)
  })

  // (409 "wrong parameter type" is answered with the other encoding, never the same request: see param encodings.)
  test.each([400, 401, 404, 413])('reads are never retried after %i', async (code) => {
    const svc = mockService()
    svc.script('orderStatus', refusal(code, 'no'))
    await caught(svc.client().orderStatus({ orderId: 1, type: 1 }))
    expect(svc.sent('orderStatus')).toHaveLength(1)
  })

  test('reads give up after maxAttempts', async () => {
    const svc = mockService()
    svc.script('orderStatus', ...Array.from({ length: 6 }, () => refusal(500, 'down')))
    await caught(svc.client({ retry: { maxAttempts: 3, random: () => 0 } }).orderStatus({ orderId: 1, type: 1 }))
    expect(svc.sent('orderStatus')).toHaveLength(3)
  })

  test.each<[string, Reply, string]>([
    ['connection reset', sysError('ECONNRESET'), 'network'],
    ['socket closed mid-request', new errors.SocketError('other side closed'), 'network'],
    ['headers timeout', new errors.HeadersTimeoutError(), 'timeout'],
    ['500', refusal(500, 'Server problem'), 'api'],
    ['429', refusal(429, 'Too many requests'), 'rate_limited']
  ])('writes are not retried once the request may have been sent (%s)', async (_name, failure, kind) => {
    const svc = mockService()
    svc.script('resendWebhook', failure)
    expect(await caught(svc.client().resendWebhook({ orderId: 7 }))).toMatchObject({ kind })
    expect(svc.sent('resendWebhook')).toHaveLength(1)
  })

  test.each<[string, Reply]>([
    ['connection refused', sysError('ECONNREFUSED')],
    ['connect timeout', new errors.ConnectTimeoutError()]
  ])('writes are retried when the request provably never left (%s)', async (_name, failure) => {
    const svc = mockService()
    svc.script('setWebhookUrl', failure)
    expect(await svc.client().setWebhookUrl({ webhookUrl: 'https://m.example/h' })).toMatch(/https:\/\/m\.example\/h/)
    expect(svc.sent('setWebhookUrl')).toHaveLength(2)
  })

  test('every attempt is reported and counted', async () => {
    const svc = mockService()
    svc.script('orderStatus', refusal(503, 'Maintenance'), sysError('ECONNRESET'))
    const client = svc.client()
    const events: RequestEvent[] = []
    client.onRequest((e) => events.push(e))
    await client.orderStatus({ orderId: 1, type: 1 })
    expect(events.map(({ durationMs: _, budgetWaitMs: __, ...e }) => e)).toEqual([
      { endpoint: 'orderStatus', httpStatus: 503, attempt: 1, outcome: 'api', message: 'Maintenance' },
      { endpoint: 'orderStatus', attempt: 2, outcome: 'network', message: expect.stringMatching(/econnreset/) },
      { endpoint: 'orderStatus', httpStatus: 200, attempt: 3, outcome: 'ok', shape: 'orderStatus' }
    ])
    expect(events.every((e) => e.durationMs >= 0 && e.budgetWaitMs >= 0)).toBe(true)
    expect(client.stats()).toMatchObject({ orderStatus: 3, allGasFee: 0 })
  })
})

describe('ApiClient clock', () => {
  test('signs with the service time estimated from the Date header', async () => {
    const svc = mockService({ serverOffsetMs: 5 * 60_000 })
    const client = svc.client()
    await client.allGasFee()
    await client.allGasFee()
    expect(client.clock.skewMs).toBeGreaterThan(5 * 60_000 - 1_000)
    expect(client.clock.skewMs).toBeLessThan(5 * 60_000 + 1_000)
    const second = svc.sent('allGasFee')[1]!
    // The second request is signed in the service's time, a little behind it.
    expect(second.at + 5 * 60_000 - second.timestamp!).toBeGreaterThan(0)
    expect(second.at + 5 * 60_000 - second.timestamp!).toBeLessThan(3_000)
  })

  test('"Ahead of Time": re-estimates from that answer and succeeds on the one repeat', async () => {
    const svc = mockService({ serverOffsetMs: -30_000 })
    const client = svc.client()
    const events: RequestEvent[] = []
    client.onRequest((e) => events.push(e))
    expect(await client.allGasFee()).toBeDefined()
    expect(events.map((e) => e.outcome)).toEqual(['auth', 'ok'])
    expect(client.clock.skewMs).toBeLessThan(-29_000)
    await client.allGasFee()
    expect(svc.sent('allGasFee')).toHaveLength(3)
  })

  test('refused again after re-estimating: clock_skew with the estimated skew', async () => {
    const svc = mockService()
    const client = svc.client()
    svc.script('allGasFee', refusal(401, 'Ahead of Time'), refusal(401, 'Ahead of Time'))
    const e = await caught(client.allGasFee())
    expect(e).toMatchObject({ kind: 'clock_skew', endpoint: 'allGasFee', skewMs: client.clock.skewMs })
    expect(svc.sent('allGasFee')).toHaveLength(2)
  })
})

describe('ApiClient clock sources', () => {
  test("asks currentTimestamp before the first signed request and signs in the service's time from the start", async () => {
    const svc = mockService({ serverOffsetMs: 90_000 })
    const client = svc.client({ clockProbe: true })
    await client.allGasFee()
    expect(svc.received.map((r) => r.endpoint)).toEqual(['currentTimestamp', 'allGasFee'])
    expect(client.clock.info().source).toBe('currentTimestamp')
    expect(Math.abs(client.clock.skewMs - 90_000)).toBeLessThan(200)
    const signed = svc.sent('allGasFee')[0]!
    // Signed a second behind the service's clock, not 90 s behind it.
    expect(signed.at + 90_000 - signed.timestamp!).toBeGreaterThan(0)
    expect(signed.at + 90_000 - signed.timestamp!).toBeLessThan(2_000)
    await client.allGasFee()
    expect(svc.sent('currentTimestamp')).toHaveLength(1)
  })

  test("where currentTimestamp answers 404, successful answers' Date headers keep the clock, and it is not asked again at once", async () => {
    const svc = mockService({ serverOffsetMs: -90_000 })
    svc.script('currentTimestamp', { status: 404, json: { status: 0, code: 404, error: 'Not found' } })
    const client = svc.client({ clockProbe: true })
    // Signed with the local clock, 90 s ahead of the service's: refused, then the Date of a
    // successful public answer corrects the estimate and the one repeat goes through.
    expect(await client.allGasFee()).toBeDefined()
    expect(client.serverTimeAvailable).toBe(false)
    expect(client.clock.skewMs).toBeLessThan(-89_000)
    expect(svc.sent('currentTimestamp')).toHaveLength(1)
    expect(svc.sent('bankDetails')).toHaveLength(1)
    await client.allGasFee()
    expect(svc.sent('currentTimestamp')).toHaveLength(1)
  })

  test('the Date header of an error answer does not move the estimate', async () => {
    const svc = mockService()
    const client = svc.client()
    const farFuture = new Date(Date.now() + 6 * 60 * 60_000).toUTCString()
    svc.script('allGasFee', { status: 503, json: { status: 0, code: 503, error: 'Maintenance' }, headers: { date: farFuture } })
    await client.allGasFee()
    expect(Math.abs(client.clock.skewMs)).toBeLessThan(2_000)
  })

  test('"Ahead of Time" is answered by asking the service its time, never by the refusal\'s own Date', async () => {
    const svc = mockService({ serverOffsetMs: -45_000 })
    const client = svc.client({ clockProbe: true })
    await client.allGasFee()
    svc.state.serverOffsetMs = -200_000
    const wrongDate = new Date(Date.now() + 60 * 60_000).toUTCString()
    svc.script('allGasFee', { status: 401, json: { status: 0, code: 401, error: 'Ahead of Time' }, headers: { date: wrongDate } })
    expect(await client.allGasFee()).toBeDefined()
    expect(svc.sent('currentTimestamp')).toHaveLength(2)
    expect(Math.abs(client.clock.skewMs + 200_000)).toBeLessThan(200)
  })
})

describe('ApiClient and the rate budget', () => {
  test('never sends an eleventh request to a limited endpoint within any 60 s window, whatever the callers do', async () => {
    vi.useFakeTimers({ now: Date.UTC(2026, 0, 1, 12) })
    const svc = mockService({ enforceLimits: true })
    const client = svc.client()
    const start = Date.now()
    const calls: Promise<PromiseSettledResult<unknown>>[] = []
    // 45 callers over three minutes: bursts right at window edges and scattered ones, both priorities.
    const arrivals = [
      0, 0, 0, 0, 0, 0, 1, 2, 3, 5, 8, 13, 21, 34, 59.9, 60, 60, 60.1, 61, 61, 89, 90, 91, 119.9, 120, 120, 120, 121, 122, 150
    ]
    const schedule = [
      ...arrivals.map((s, i) => ({ at: s * 1_000, interactive: i % 3 === 0 })),
      ...Array.from({ length: 15 }, (_, i) => ({ at: 60_000 + i * 7_000, interactive: i % 2 === 0 }))
    ].sort((a, b) => a.at - b.at)
    for (const { at, interactive } of schedule) {
      await vi.advanceTimersByTimeAsync(at - (Date.now() - start))
      const call = client.priceTicker({ type: 1, fiatType: 1 }, { priority: interactive ? 'interactive' : 'background' })
      calls.push(Promise.allSettled([call]).then(([r]) => r!))
    }
    await vi.advanceTimersByTimeAsync(10 * 60_000)
    const results = await Promise.all(calls)
    for (const r of results) if (r.status === 'rejected') expect(r.reason).toMatchObject({ kind: 'rate_limited', origin: 'budget' })
    const times = svc.sent('priceTicker').map((r) => r.at)
    expect(times.length).toBeGreaterThan(20)
    for (let i = 0; i + 10 < times.length; i++) expect(times[i + 10]! - times[i]!).toBeGreaterThanOrEqual(60_000)
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(times.length)
  })

  test("an operator's request overtakes queued polling", async () => {
    vi.useFakeTimers({ now: Date.UTC(2026, 0, 1, 12) })
    const svc = mockService()
    const client = svc.client()
    for (let i = 0; i < 10; i++) await client.limits({ type: 1 }, { priority: 'interactive' })
    const order: string[] = []
    const polls = [1, 2, 3].map((i) => client.limits({ type: 2 }, { priority: 'background' }).then(() => order.push(`poll${i}`)))
    await vi.advanceTimersByTimeAsync(2_000)
    const operator = client.limits({ type: 3 }, { priority: 'interactive', maxWaitMs: 70_000 }).then(() => order.push('operator'))
    await vi.advanceTimersByTimeAsync(70_000)
    await Promise.all([operator, ...polls])
    expect(order).toEqual(['operator', 'poll1', 'poll2', 'poll3'])
    expect(
      svc
        .sent('limits')
        .slice(10)
        .map((r) => JSON.parse(r.bodyText))
      // limits' type travels as the string the spec's table gives it.
    ).toEqual([{ type: '3' }, { type: '2' }, { type: '2' }, { type: '2' }])
  })

  test('an exhausted budget answers "budget exhausted, next slot at T" and sends nothing', async () => {
    vi.useFakeTimers({ now: Date.UTC(2026, 0, 1, 12) })
    const svc = mockService()
    const client = svc.client()
    const first = Date.now()
    for (let i = 0; i < 10; i++) await client.allConfigMapping({ priority: 'interactive' })
    const e = await caught(client.allConfigMapping({ priority: 'interactive' }))
    const at = first + 61_000
    expect(e).toMatchObject({ kind: 'rate_limited', origin: 'budget', endpoint: 'allConfigMapping', nextSlotAt: at })
    expect(e.message).toBe(`budget exhausted for allConfigMapping, next slot at ${new Date(at).toISOString()}`)
    expect(svc.sent('allConfigMapping')).toHaveLength(10)
  })

  test('a read retried after a 429 waits for the tightened budget', async () => {
    vi.useFakeTimers({ now: Date.UTC(2026, 0, 1, 12) })
    const svc = mockService()
    const client = svc.client()
    svc.script('allGasFee', refusal(429, 'Too many requests'))
    const t0 = Date.now()
    const p = client.allGasFee()
    await vi.advanceTimersByTimeAsync(20_000)
    await p
    const [first, second] = svc.sent('allGasFee')
    expect(first!.at).toBe(t0)
    expect(second!.at).toBe(t0 + 15_000)
  })
})

describe('ApiClient and the secret', () => {
  test('is fetched per request, never kept on the instance, never in an error or event', async () => {
    const svc = mockService()
    let fetched = 0
    const client = svc.client({
      getSecret: async () => {
        fetched++
        return API_SECRET
      }
    })
    const seen: unknown[] = []
    client.onRequest((e) => seen.push(e))
    svc.script('allGasFee', refusal(401, 'Invalid signature'))
    const errs = [await caught(client.allGasFee())]
    svc.script('orderStatus', refusal(417, 'Order no longer exists'))
    errs.push(await caught(client.orderStatus({ orderId: 1, type: 1 })))
    await client.allChainMapping()
    expect(fetched).toBe(3)
    const visible = JSON.stringify([errs.map((e) => ({ ...e.toInfo(), stack: e.stack })), seen, client.stats()])
    expect(visible).not.toContain(API_SECRET)
    const walk = (v: unknown, seenObjs = new Set<unknown>()): boolean => {
      if (v === API_SECRET) return true
      if (!v || typeof v !== 'object' || seenObjs.has(v)) return false
      seenObjs.add(v)
      return Object.values(v).some((x) => walk(x, seenObjs))
    }
    expect(walk(client)).toBe(false)
  })
})

describe('ApiClient property', () => {
  const calls: [string, (c: ApiClient) => Promise<unknown>][] = [
    ['allChainMapping', (c) => c.allChainMapping()],
    ['allCoinLimits', (c) => c.allCoinLimits({ fiatType: 1 })],
    ['allGasFee', (c) => c.allGasFee()],
    ['merchantHistory', (c) => c.merchantHistory({ type: 1 })],
    ['merchantHistory', (c) => c.merchantHistory({ type: 2 })],
    ['allConfigMapping', (c) => c.allConfigMapping()],
    ['sendDummyWebhook', (c) => c.sendDummyWebhook()],
    ['quotes', (c) => c.onrampQuote({ coinId: 54, chainId: 3, fiatAmount: '100', fiatType: 1 })],
    ['quotes', (c) => c.offrampQuote({ coinId: 54, chainId: 3, quantity: '1', fiatType: 1 })],
    ['priceTicker', (c) => c.priceTicker({ type: 3, fiatType: 1 })],
    ['orderStatus', (c) => c.orderStatus({ orderId: 1, type: 1 })],
    ['limits', (c) => c.limits({ type: 3 })],
    ['publicAllGasFee', (c) => c.publicAllGasFee()],
    ['bankDetails', (c) => c.bankDetails()],
    ['publicAllConfig', (c) => c.publicAllConfig()]
  ]
  const isErrorEnvelope = (v: unknown) => !!v && typeof v === 'object' && (v as { status?: unknown }).status === 0

  test('any JSON answer either parses or fails as schema, never anything else', async () => {
    const svc = mockService()
    let clock = 0
    // Every call in its own window, so the budget never makes the property wait.
    const client = svc.client({ budget: new RateBudget({ profileId: 'p1', now: () => (clock += 61_000) }) })
    const body = fc.oneof(fc.jsonValue(), fc.record({ status: fc.constant(1), code: fc.constant(200), data: fc.jsonValue() }))
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...calls), body, async ([endpoint, call], value) => {
        fc.pre(!isErrorEnvelope(value))
        svc.script(endpoint as 'allGasFee', { status: 200, text: JSON.stringify(value) })
        try {
          await call(client)
        } catch (e) {
          expect(e).toBeInstanceOf(ApiError)
          expect((e as ApiError).kind).toBe('schema')
        }
      }),
      { numRuns: 300 }
    )
  })
})
