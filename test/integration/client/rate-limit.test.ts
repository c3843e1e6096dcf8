// Rate limits end to end: the client's own budget against the sandbox's sliding window
// (10 per minute per API key and endpoint). With the normal budget the client sends 10
// and refuses the 11th itself (origin 'budget'), and the sandbox saw exactly 10. Two
// clients with separate budgets on the same key overrun the service's window, so the
// second gets a REAL 429, maps it to rate_limited origin 'service' and penalizes its own
// budget. Each test has a sandbox of its own, so every window starts empty.
import { afterEach, describe, expect, it } from 'vitest'
import type { ApiClient } from '../../../src/main/api/client'
import { RateBudget } from '../../../src/main/api/rate-budget'
import type { Sandbox } from '../../../src/sandbox'
import type { EndpointName } from '../../../src/shared/api/endpoints'
import { caught, clientFor, countAtSandbox, FAST_RETRY, quietSandbox, recordRequests } from './support'

const open: Array<{ close(): Promise<void> }> = []
afterEach(async () => {
  await Promise.all(open.splice(0).map((x) => x.close()))
})

async function sandbox(): Promise<Sandbox> {
  const sb = await quietSandbox({ seed: 2, orders: 5 })
  open.push(sb)
  return sb
}
function client(sb: Sandbox, o: Parameters<typeof clientFor>[1] = {}): ApiClient {
  const c = clientFor(sb, o)
  open.push(c)
  return c
}
const entry = (b: RateBudget, endpoint: EndpointName) => b.snapshot().endpoints.find((e) => e.endpoint === endpoint)

describe('the normal budget', () => {
  it('sends 10 interactive calls, refuses the 11th itself with origin budget; the sandbox saw 10', async () => {
    const sb = await sandbox()
    const c = client(sb)
    const seen = countAtSandbox(sb, 'allConfigMapping')
    for (let i = 0; i < 10; i++) await c.allConfigMapping({ priority: 'interactive' })
    const before = Date.now()
    const e = await caught(c.allConfigMapping({ priority: 'interactive' }))
    expect(e).toMatchObject({ kind: 'rate_limited', origin: 'budget', endpoint: 'allConfigMapping', retryable: true })
    expect(e.httpStatus).toBeUndefined()
    expect(e.nextSlotAt).toBeGreaterThan(before)
    expect(seen()).toBe(10)
    expect(c.stats().allConfigMapping).toBe(10)
    expect(entry(c.budget, 'allConfigMapping')).toMatchObject({ limit: 10, usedInWindow: 10 })
  })

  it('keeps 2 of the 10 for interactive callers: background gets 8, then the operator still gets 2', async () => {
    const sb = await sandbox()
    const c = client(sb)
    const seen = countAtSandbox(sb, 'allGasFee')
    for (let i = 0; i < 8; i++) await c.allGasFee()
    expect(await caught(c.allGasFee({ priority: 'background', maxWaitMs: 0 }))).toMatchObject({ kind: 'rate_limited', origin: 'budget' })
    await c.allGasFee({ priority: 'interactive' })
    await c.allGasFee({ priority: 'interactive' })
    expect(await caught(c.allGasFee({ priority: 'interactive' }))).toMatchObject({ kind: 'rate_limited', origin: 'budget' })
    expect(seen()).toBe(10)
  })

  it('endpoints without a documented limit are not held to 10', async () => {
    const sb = await sandbox()
    const c = client(sb)
    const seen = countAtSandbox(sb, 'orderStatus')
    const id = sb.control.groundTruth()[0]?.orderId ?? 0
    for (let i = 0; i < 15; i++) await c.orderStatus({ orderId: id, type: sb.control.order(id)?.type ?? 1 })
    expect(seen()).toBe(15)
  })
})

describe('a real 429 from the sandbox', () => {
  it('two clients with separate budgets on one key: the second gets 429 -> rate_limited origin service, and its budget is penalized', async () => {
    const sb = await sandbox()
    const first = client(sb, { budget: new RateBudget({ profileId: 'client-it' }) })
    const budget = new RateBudget({ profileId: 'client-it' })
    const second = client(sb, { budget, retry: { ...FAST_RETRY, maxAttempts: 1 } })
    const events = recordRequests(second)
    const seen = countAtSandbox(sb, 'priceTicker')
    for (let i = 0; i < 10; i++) await first.priceTicker({ type: 1, fiatType: 1 }, { priority: 'interactive' })

    const before = Date.now()
    const e = await caught(second.priceTicker({ type: 1, fiatType: 1 }, { priority: 'interactive' }))
    expect(e).toMatchObject({
      kind: 'rate_limited',
      origin: 'service',
      endpoint: 'priceTicker',
      httpStatus: 429,
      code: 429,
      retryable: true
    })
    expect(e.message).toMatch(/priceTicker allows 10 per minute/)
    expect(events.map((x) => [x.httpStatus, x.outcome])).toEqual([[429, 'rate_limited']])
    expect(seen()).toBe(11)
    // Penalized: blocked until the returned instant, with a tighter limit.
    const lane = entry(budget, 'priceTicker')
    expect(lane?.blockedUntil).toBe(e.nextSlotAt)
    expect(e.nextSlotAt).toBeGreaterThan(before)
    expect(lane?.limit).toBeLessThan(10)
    // So its next call is refused at home, and nothing more reaches the sandbox.
    expect(await caught(second.priceTicker({ type: 1, fiatType: 1 }, { priority: 'interactive' }))).toMatchObject({
      kind: 'rate_limited',
      origin: 'budget'
    })
    expect(seen()).toBe(11)
    // The other endpoints of the penalized budget are untouched.
    expect(entry(budget, 'limits')).toMatchObject({ limit: 10, blockedUntil: null })
  })

  it('with the default retries, the 429 is retried only through the budget, which now refuses: one request reached the sandbox', async () => {
    const sb = await sandbox()
    const first = client(sb, { budget: new RateBudget({ profileId: 'client-it' }) })
    const second = client(sb, { budget: new RateBudget({ profileId: 'client-it' }) })
    const events = recordRequests(second)
    const seen = countAtSandbox(sb, 'limits')
    for (let i = 0; i < 10; i++) await first.limits({ type: 1 }, { priority: 'interactive' })
    const e = await caught(second.limits({ type: 1 }, { priority: 'interactive' }))
    expect(e).toMatchObject({ kind: 'rate_limited', origin: 'budget', endpoint: 'limits' })
    expect(events.map((x) => [x.httpStatus, x.outcome])).toEqual([[429, 'rate_limited']])
    expect(seen()).toBe(11)
  })

  it('the window is per API key and endpoint: a full priceTicker window leaves allCoinLimits open', async () => {
    const sb = await sandbox()
    const a = client(sb, { budget: new RateBudget({ profileId: 'client-it' }) })
    for (let i = 0; i < 10; i++) await a.priceTicker({ type: 1, fiatType: 1 }, { priority: 'interactive' })
    const b = client(sb, { budget: new RateBudget({ profileId: 'client-it' }), retry: { maxAttempts: 1 } })
    expect(await caught(b.priceTicker({ type: 3, fiatType: 1 }, { priority: 'interactive' }))).toMatchObject({
      origin: 'service',
      httpStatus: 429
    })
    expect(await b.allCoinLimits({ fiatType: 1 }, { priority: 'interactive' })).toHaveProperty('onramp')
  })
})
