// The client in an outage: one call's retries find out whether the service is back, the
// other calls wait for it and share its outcome, so an outage costs a few requests (and
// budget slots) instead of every caller's four attempts; when the service answers, they
// all go. A single dropped connection is still retried at once.
import { errors } from 'undici'
import { describe, expect, onTestFinished, test } from 'vitest'
import { OutageGate } from '../../../../src/main/api/outage-gate'
import { RateBudget } from '../../../../src/main/api/rate-budget'
import { wasNeverSent } from '../../../../src/main/api/transport'
import { mockService, sysError } from './mock-service'

const caught = (p: Promise<unknown>) =>
  p.then(
    () => null,
    (e: unknown) => e
  )
const used = (b: RateBudget, endpoint: string) => b.snapshot().endpoints.find((e) => e.endpoint === endpoint)!.usedInWindow

describe('ApiClient while the service cannot be reached', () => {
  test("ten callers into an outage: one call's retries probe, the others share its failure unsent, and the budget spends that much", async () => {
    const svc = mockService()
    svc.script('orderStatus', ...Array.from({ length: 60 }, () => sysError('ECONNRESET')))
    const budget = new RateBudget({ profileId: 'p1' })
    const client = svc.client({ budget })
    const failures = await Promise.all(Array.from({ length: 10 }, (_, i) => caught(client.orderStatus({ orderId: i + 1, type: 1 }))))
    expect(failures.every((e) => (e as { kind?: string }).kind === 'network')).toBe(true)
    // The first attempts left together before anything had failed; after them only the
    // probing call's three retries were sent (40 requests without the gate).
    expect(svc.sent('orderStatus')).toHaveLength(10 + 3)
    expect(used(budget, 'orderStatus')).toBe(13)
    expect(failures.filter((e) => wasNeverSent(e))).toHaveLength(9)
    // Until the next probe is due, a call fails at once without a request.
    expect(await caught(client.orderStatus({ orderId: 99, type: 1 }))).toMatchObject({ kind: 'network', message: /^not sent/ })
    expect(svc.sent('orderStatus')).toHaveLength(13)
  })

  test('the calls waiting for the probe go as soon as one of its retries is answered', async () => {
    const svc = mockService()
    svc.script('orderStatus', sysError('ECONNRESET'), sysError('ECONNRESET'))
    const client = svc.client()
    const first = client.orderStatus({ orderId: 1, type: 1 })
    // The others start once the gate is closed: they wait for the first call's retries.
    await new Promise((r) => setTimeout(r, 0))
    expect(client.gate.status()).toMatchObject({ kind: 'closed', probing: true })
    const others = [2, 3, 4, 5].map((id) => client.orderStatus({ orderId: id, type: 1 }))
    const answers = await Promise.all([first, ...others])
    expect(answers).toHaveLength(5)
    // Two failed attempts and the answer of the first call, then one request each.
    expect(svc.sent('orderStatus')).toHaveLength(3 + 4)
    expect(client.gate.status()).toEqual({ kind: 'open' })
  })

  test('a single dropped connection is still retried at once', async () => {
    const svc = mockService()
    svc.script('bankDetails', sysError('ECONNRESET'))
    const client = svc.client()
    expect(await client.bankDetails()).toMatchObject({ upi: 'merchant@upi' })
    expect(svc.sent('bankDetails')).toHaveLength(2)
  })

  test('"try again now" (probeNow) sends the next request at once, not at the next probe', async () => {
    const svc = mockService()
    svc.script('merchantHistory', sysError('ECONNREFUSED'), sysError('ECONNREFUSED'))
    const client = svc.client({ retry: { maxAttempts: 2 }, gate: new OutageGate({ firstProbeMs: 60_000 }) })
    await caught(client.merchantHistory({ type: 1 }))
    expect(await caught(client.merchantHistory({ type: 1 }))).toMatchObject({ kind: 'network', message: /^not sent/ })
    client.probeNow()
    await client.merchantHistory({ type: 1 })
    expect(svc.sent('merchantHistory')).toHaveLength(3)
  })

  test('a slow answer on one endpoint holds no other', async () => {
    const svc = mockService()
    svc.script('merchantHistory', ...Array.from({ length: 4 }, () => new errors.HeadersTimeoutError()))
    const client = svc.client()
    const slow = caught(client.merchantHistory({ type: 1 }))
    expect(await client.orderStatus({ orderId: 1, type: 1 })).toEqual({ orderStatus: 4 })
    expect(await slow).toMatchObject({ kind: 'timeout' })
    expect(client.gate.status()).toEqual({ kind: 'open' })
  })

  test('one dropped connection of a write that is not retried does not fail the reads after it', async () => {
    const svc = mockService()
    svc.script('setWebhookUrl', sysError('ECONNRESET'))
    const client = svc.client()
    expect(await caught(client.setWebhookUrl({ webhookUrl: 'https://m.example/h' }, { priority: 'interactive' }))).toMatchObject({
      kind: 'network'
    })
    expect(await client.orderStatus({ orderId: 1, type: 1 })).toEqual({ orderStatus: 4 })
    expect(svc.sent('orderStatus')).toHaveLength(1)
  })

  test('a probe whose budget lane is blocked steps aside: a request that can go finds the service back', async () => {
    const svc = mockService()
    svc.script('orderStatus', sysError('ECONNRESET'), sysError('ECONNRESET'))
    // The block's timers are this test's: none is left to fire in a file after it.
    const handles = new Set<ReturnType<typeof setTimeout>>()
    const timers = {
      setTimeout: (fn: () => void, ms: number) => {
        const h = setTimeout(() => {
          handles.delete(h)
          fn()
        }, ms)
        handles.add(h)
        return h
      },
      clearTimeout: (h: unknown) => {
        handles.delete(h as ReturnType<typeof setTimeout>)
        clearTimeout(h as ReturnType<typeof setTimeout>)
      }
    }
    onTestFinished(() => handles.forEach((h) => clearTimeout(h)))
    const budget = new RateBudget({ profileId: 'p1', timers })
    const client = svc.client({ budget, retry: { maxAttempts: 2 }, gate: new OutageGate({ firstProbeMs: 60_000 }) })
    await caught(client.orderStatus({ orderId: 1, type: 1 }))
    budget.penalize('merchantHistory')
    client.probeNow()
    const ac = new AbortController()
    // Due to probe, but its lane is blocked for 15 s: it waits there, not holding the rest.
    const blocked = caught(client.merchantHistory({ type: 1 }, { signal: ac.signal }))
    const started = Date.now()
    expect(await client.orderStatus({ orderId: 2, type: 1 })).toEqual({ orderStatus: 4 })
    expect(Date.now() - started).toBeLessThan(1_000)
    expect(client.gate.status()).toEqual({ kind: 'open' })
    ac.abort()
    expect(await blocked).toMatchObject({ kind: 'aborted' })
  })

  test("the operator's own requests are sent while the gate is closed, and an answer to one opens it", async () => {
    const svc = mockService()
    svc.script('quotes', sysError('ECONNRESET'))
    const client = svc.client({ retry: { maxAttempts: 1 }, gate: new OutageGate({ firstProbeMs: 60_000 }) })
    const quote = { coinCode: 'usdt', network: 'matic20', fiatAmount: '1000', fiatType: 1 } as const
    await caught(client.onrampQuote(quote))
    expect(client.gate.status()).toMatchObject({ kind: 'closed' })
    await client.onrampQuote(quote, { priority: 'interactive' })
    expect(client.gate.status()).toEqual({ kind: 'open' })
  })
})
