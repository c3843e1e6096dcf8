// Section 8: 10 requests per minute per API key on the six limited endpoints, as a
// sliding window on the sandbox clock; a real 429 over loopback.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ENDPOINT_NAMES, ROUTES, startSandbox, type Sandbox } from '../../../src/sandbox'
import { call } from './sandbox-client'

const limitedEndpoints = ENDPOINT_NAMES.filter((n) => ROUTES[n].perMinute !== null)
let sb: Sandbox
let t = Date.parse('2025-06-01T10:00:00.000Z')
const bodies: Record<string, unknown> = { allCoinLimits: { fiatType: 1 }, priceTicker: { type: 1, fiatType: 1 }, limits: { type: 1 } }

beforeAll(async () => {
  sb = await startSandbox({ seed: 5, orders: 10, autoGenerate: false, now: () => t })
})
afterAll(async () => {
  await sb.close()
})

describe('rate limits', () => {
  it('are the six endpoints of section 8', () => {
    expect([...limitedEndpoints].sort()).toEqual([
      'allChainMapping',
      'allCoinLimits',
      'allConfigMapping',
      'allGasFee',
      'limits',
      'priceTicker'
    ])
  })

  it('answer 429 to the 11th request inside a sliding minute, per endpoint', async () => {
    for (const name of limitedEndpoints) {
      const start = t
      for (let i = 0; i < 10; i++) {
        t = start + i * 5_000
        const r = await call(sb, name, { body: bodies[name] })
        expect(r.status, `${name} #${i + 1}`).toBe(200)
      }
      t = start + 50_000
      const r = await call(sb, name, { body: bodies[name] })
      expect(r.status).toBe(429)
      expect(r.json).toMatchObject({ status: 0, code: 429 })
      expect((r.json as { error: string }).error).toMatch(/Too many requests: .* 10 per minute; next slot in 10 s/)
      // The first request leaves the window 60 s after it was made; only one slot opens.
      t = start + 60_001
      expect((await call(sb, name, { body: bodies[name] })).status).toBe(200)
      expect((await call(sb, name, { body: bodies[name] })).status).toBe(429)
      t = start + 200_000
      expect(ROUTES[name].perMinute).toBe(10)
    }
  })

  it('do not apply to unlimited endpoints or refused requests', async () => {
    for (let i = 0; i < 15; i++)
      expect((await call(sb, 'orderStatus', { body: { orderId: 100001, type: sb.control.order(100001)!.type } })).status).toBe(200)
    t += 120_000
    for (let i = 0; i < 15; i++) expect((await call(sb, 'limits', { body: { type: 1 }, apiSecret: 'wrong' })).status).toBe(401)
    expect((await call(sb, 'limits', { body: { type: 1 } })).status).toBe(200)
  })

  it('429 storms on demand', async () => {
    t += 120_000
    sb.control.setFault('orderStatus', { rateLimitStorm: true })
    for (let i = 0; i < 3; i++) expect((await call(sb, 'orderStatus', { body: { orderId: 100001, type: 1 } })).status).toBe(429)
    sb.control.clearFaults('orderStatus')
    expect((await call(sb, 'limits', { body: { type: 1 } })).status).toBe(200)
  })
})
