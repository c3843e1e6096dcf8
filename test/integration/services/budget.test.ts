// The header's budget list: the six limited endpoints always; an endpoint without a
// documented limit appears while the service has it blocked, so a 429 storm on order
// history shows as such instead of as a sync that is merely slow.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DEFAULT_LIMIT_PER_MINUTE } from '../../../src/main/api/rate-budget'
import { limitedEndpoints } from '../../../src/shared/api/endpoints'
import { startServicesHarness, type ServicesHarness } from './harness'

let h: ServicesHarness

beforeAll(async () => {
  h = await startServicesHarness({ sandbox: { orders: 50, autoGenerate: false } })
})
afterAll(async () => {
  await h?.close()
})

describe('budget:get', () => {
  it('lists the limited endpoints, and a 429-blocked history endpoint while it is blocked', async () => {
    const before = await h.call('budget:get', {})
    expect(before.entries.map((e) => e.endpoint).sort()).toEqual([...limitedEndpoints].sort())

    h.services.sandbox()!.control.setFault('merchantHistory', { rateLimitStorm: true, remaining: 1 })
    await h.call('sync:now', {})
    const blocked = await h.waitFor('budget:changed', (p) =>
      p.entries.some((e) => e.endpoint === 'merchantHistory' && e.blockedUntil !== null)
    )
    const entry = blocked.entries.find((e) => e.endpoint === 'merchantHistory')!
    expect(entry.blockedUntil).toBeGreaterThan(Date.now())
    // merchantHistory has no documented limit; a 429 with no answers before it (a storm, or
    // another client on the key) teaches no limit: the endpoint backs off, its limit stays.
    expect(entry.limit).toBe(DEFAULT_LIMIT_PER_MINUTE)
    const now = await h.call('budget:get', {})
    expect(now.entries.map((e) => e.endpoint)).toContain('merchantHistory')
  })
})
