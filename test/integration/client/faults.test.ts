// The real ApiClient against the sandbox's injected faults over loopback: 500 and 503
// (reads retried until the fault's `remaining` runs out, writes never retried), malformed
// JSON, bodies cut off half way, dropped connections, and latency beyond the transport's
// headers timeout. Each fault is bounded by `remaining`, so what the sandbox received is
// known exactly; retries back off in milliseconds (FAST_RETRY) and the timeout is short.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { ApiClient } from '../../../src/main/api/client'
import { Transport } from '../../../src/main/api/transport'
import type { Sandbox } from '../../../src/sandbox'
import { caught, clientFor, FAST_RETRY, quietSandbox, recordRequests } from './support'

let sb: Sandbox
let client: ApiClient
let orderId: number
let status: number

beforeAll(async () => {
  sb = await quietSandbox({ seed: 8, orders: 30 })
  client = clientFor(sb)
  const o = sb.control.groundTruth({ type: 1 })[0]
  if (!o) throw new Error('no onramp order')
  orderId = o.orderId
  status = o.status
})
beforeEach(() => {
  sb.control.clearFaults()
})
afterAll(async () => {
  await client?.close()
  await sb?.close()
})

const lifted = (endpoint: string) => expect(sb.control.faults()[endpoint], `fault on ${endpoint} still in force`).toBeUndefined()

describe('5xx', () => {
  it('a read meeting two 503s is retried and then succeeds', async () => {
    const events = recordRequests(client)
    sb.control.setFault('orderStatus', { errorRate: 1, errorStatus: 503, remaining: 2 })
    expect(await client.orderStatus({ orderId, type: 1 })).toEqual({ orderStatus: status })
    lifted('orderStatus')
    expect(events.map((e) => [e.attempt, e.httpStatus, e.outcome])).toEqual([
      [1, 503, 'api'],
      [2, 503, 'api'],
      [3, 200, 'ok']
    ])
  })

  it('a public GET meeting a 500 is retried too', async () => {
    const before = client.stats().publicAllGasFee
    sb.control.setFault('publicAllGasFee', { errorRate: 1, errorStatus: 500, remaining: 1 })
    expect(Object.keys((await client.publicAllGasFee()).allGasFee).length).toBeGreaterThan(5)
    expect(client.stats().publicAllGasFee - before).toBe(2)
  })

  it('a read that keeps failing gives up after maxAttempts with the last answer, retryable', async () => {
    const c = clientFor(sb, { retry: { ...FAST_RETRY, maxAttempts: 3 } })
    try {
      sb.control.setFault('orderStatus', { errorRate: 1, errorStatus: 503, remaining: 10 })
      const e = await caught(c.orderStatus({ orderId, type: 1 }))
      expect(e).toMatchObject({
        kind: 'api',
        httpStatus: 503,
        code: 503,
        retryable: true,
        message: expect.stringMatching(/maintenance/) as unknown
      })
      expect(sb.control.faults().orderStatus?.remaining).toBe(7) // the sandbox saw exactly three
    } finally {
      await c.close()
    }
  })

  it('a write meeting a 500 is not retried: the service may have acted', async () => {
    const events = recordRequests(client)
    sb.control.setFault('setWebhookUrl', { errorRate: 1, errorStatus: 500, remaining: 2 })
    const e = await caught(client.setWebhookUrl({ webhookUrl: 'http://127.0.0.1:9/hooks' }))
    expect(e).toMatchObject({ kind: 'api', httpStatus: 500, code: 500, endpoint: 'setWebhookUrl' })
    expect(events).toHaveLength(1)
    expect(sb.control.faults().setWebhookUrl?.remaining).toBe(1)
    expect(sb.control.webhookUrl()).toBeUndefined()
  })
})

describe('broken bodies and connections', () => {
  it('malformed JSON in a 200: schema ("not JSON"), retried for a read, then the whole answer', async () => {
    const events = recordRequests(client)
    sb.control.setFault('merchantHistory', { malformedJsonRate: 1, remaining: 1 })
    const page = await client.merchantHistory({ type: 1, pageSize: 5 })
    expect(page).toHaveLength(5)
    expect(events.map((e) => e.outcome)).toEqual(['schema', 'ok'])
    lifted('merchantHistory')
  })

  it('malformed JSON on every attempt: the read gives up with a schema error', async () => {
    sb.control.setFault('merchantHistory', { malformedJsonRate: 1 })
    const e = await caught(client.merchantHistory({ type: 1, pageSize: 5 }))
    expect(e).toMatchObject({ kind: 'schema', httpStatus: 200, endpoint: 'merchantHistory', message: 'the response is not JSON' })
    sb.control.clearFaults('merchantHistory')
  })

  it('a body cut off half way (Content-Length promised more): network, retried, then the whole answer', async () => {
    const events = recordRequests(client)
    sb.control.setFault('merchantHistory', { truncateRate: 1, remaining: 1 })
    const page = await client.merchantHistory({ type: 1, pageSize: 200 })
    expect(page.length).toBeGreaterThan(0)
    expect(events.map((e) => e.outcome)).toEqual(['network', 'ok'])
    lifted('merchantHistory')
  })

  it('bodies cut off every time: the read gives up as network after maxAttempts', async () => {
    const c = clientFor(sb, { retry: { ...FAST_RETRY, maxAttempts: 2 } })
    try {
      sb.control.setFault('publicAllConfig', { truncateRate: 1, remaining: 5 })
      expect(await caught(c.publicAllConfig())).toMatchObject({ kind: 'network', endpoint: 'publicAllConfig', retryable: true })
      expect(sb.control.faults().publicAllConfig?.remaining).toBe(3)
    } finally {
      await c.close()
    }
  })

  it('a dropped connection on a read: network, retried, succeeds', async () => {
    const events = recordRequests(client)
    sb.control.setFault('bankDetails', { dropRate: 1, remaining: 2 })
    expect((await client.bankDetails()).upi).toBeDefined()
    expect(events.map((e) => [e.httpStatus, e.outcome])).toEqual([
      [undefined, 'network'],
      [undefined, 'network'],
      [200, 'ok']
    ])
  })

  it('a dropped connection on a write: network, not retried, and the sandbox never acted on it', async () => {
    const events = recordRequests(client)
    const deliveries = sb.control.listDeliveries().length
    sb.control.setFault('sendDummyWebhook', { dropRate: 1, remaining: 1 })
    const e = await caught(client.sendDummyWebhook({ webhookUrl: 'http://127.0.0.1:9/never' }))
    expect(e).toMatchObject({ kind: 'network', endpoint: 'sendDummyWebhook' })
    expect(events).toHaveLength(1)
    await sb.control.deliveriesIdle()
    expect(sb.control.listDeliveries()).toHaveLength(deliveries)
  })
})

describe('latency beyond the timeout', () => {
  let transport: Transport
  let slow: ApiClient

  beforeAll(() => {
    // undici checks header timeouts on a coarse (about 0.5 s) timer: 1 s leaves a healthy
    // loopback answer plenty of room even on a loaded machine, and the injected latency is
    // far beyond it. The sandbox's delayed answer later meets a closed socket.
    transport = new Transport({ headersTimeoutMs: 1_000 })
    slow = clientFor(sb, { transport, retry: { ...FAST_RETRY, maxAttempts: 2 } })
  })
  afterAll(async () => {
    await slow?.close()
    await transport?.close()
  })
  // A test that ends with the service timing out leaves the client's outage gate closed
  // (api/outage-gate.ts): the next test's first request probes at once instead of failing unsent.
  beforeEach(() => slow.probeNow())

  it('one slow answer: timeout, retried, succeeds', async () => {
    const events = recordRequests(slow)
    sb.control.setFault('orderStatus', { latencyMs: 6_000, remaining: 1 })
    expect(await slow.orderStatus({ orderId, type: 1 })).toEqual({ orderStatus: status })
    expect(events.map((e) => [e.httpStatus, e.outcome])).toEqual([
      [undefined, 'timeout'],
      [200, 'ok']
    ])
  })

  it('slow every time: timeout after maxAttempts, retryable', async () => {
    sb.control.setFault('limits', { latencyMs: 6_000, remaining: 2 })
    const e = await caught(slow.limits({ type: 1 }))
    expect(e).toMatchObject({ kind: 'timeout', endpoint: 'limits', retryable: true })
    expect(e.message).toMatch(/UND_ERR_HEADERS_TIMEOUT/)
    lifted('limits')
  })

  it('a slow write times out and is not retried', async () => {
    const events = recordRequests(slow)
    sb.control.setFault('setWebhookUrl', { latencyMs: 6_000, remaining: 1 })
    expect(await caught(slow.setWebhookUrl({ webhookUrl: 'http://127.0.0.1:9/slow' }))).toMatchObject({
      kind: 'timeout',
      endpoint: 'setWebhookUrl'
    })
    expect(events).toHaveLength(1)
  })
})

describe('storms, every endpoint at once, and cancelling', () => {
  it('a 429 storm (injected, not the window) is rate_limited origin service too', async () => {
    const c = clientFor(sb, { retry: { maxAttempts: 1 } })
    try {
      sb.control.setFault('merchantHistory', { rateLimitStorm: true, remaining: 1 })
      expect(await caught(c.merchantHistory({ type: 2 }))).toMatchObject({ kind: 'rate_limited', origin: 'service', httpStatus: 429 })
      expect(c.budget.snapshot().endpoints.find((e) => e.endpoint === 'merchantHistory')?.blockedUntil).not.toBeNull()
    } finally {
      await c.close()
    }
  })

  it('a 503 on every endpoint ("*") for one request each: reads of three kinds all recover', async () => {
    const events = recordRequests(client)
    sb.control.setFault('*', { errorRate: 1, errorStatus: 503, remaining: 3 })
    await Promise.all([client.bankDetails(), client.orderStatus({ orderId, type: 1 }), client.merchantHistory({ type: 1, pageSize: 1 })])
    lifted('*')
    expect(events.filter((e) => e.outcome === 'api').map((e) => e.httpStatus)).toEqual([503, 503, 503])
    expect(events.filter((e) => e.outcome === 'ok')).toHaveLength(3)
  })

  it('a call cancelled by its signal while the answer is slow: aborted, not retried', async () => {
    const events = recordRequests(client)
    sb.control.setFault('orderStatus', { latencyMs: 6_000, remaining: 1 })
    const ac = new AbortController()
    const pending = caught(client.orderStatus({ orderId, type: 1 }, { signal: ac.signal }))
    setTimeout(() => ac.abort(), 50)
    expect(await pending).toMatchObject({ kind: 'aborted', endpoint: 'orderStatus', retryable: false })
    expect(events.map((e) => e.outcome)).toEqual(['aborted'])
  })
})
