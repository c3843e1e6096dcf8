// The diagnostics view's data from a client that talked to a service: per endpoint the
// last call, the shape of the answer, the JSON type learned for a field, the limit and
// where it comes from, the last error; and the support text, which carries no secret,
// API key, signature or wallet address even where an error message quoted one.
import { describe, expect, it } from 'vitest'
import { ParamEncodings } from '../../../../src/main/api/param-encoding'
import { EndpointLog } from '../../../../src/main/diagnostics/endpoint-log'
import { buildDiagnostics, diagnosticsText } from '../../../../src/main/diagnostics/diagnostics'
import type { Profile } from '../../../../src/shared/ipc/contract'
import { API_KEY, API_SECRET, mockService, ORIGIN } from '../api/mock-service'

const WALLET = '0x52908400098527886E0F7030069857D2E4169EE7'
const profile: Profile = { id: 'p1', name: 'Live desk', kind: 'live', baseUrl: ORIGIN, serviceName: 'svc', apiKey: API_KEY }

async function talkedToService() {
  const svc = mockService({ strictTypes: { 'merchantHistory.fiatType': 'integer' } })
  const encodings = new ParamEncodings()
  const client = svc.client({ encodings })
  const log = new EndpointLog(() => 1_700_000_000_000)
  client.onRequest((e) => log.record(e))
  await client.merchantHistory({ type: 1, fiatType: 1, pageSize: 5 })
  await client.allCoinLimits({ fiatType: 1 })
  svc.script('orderStatus', {
    status: 400,
    json: { status: 0, code: 400, error: `No order for wallet ${WALLET} signed ${'ab'.repeat(32)}` }
  })
  await client.orderStatus({ orderId: 5, type: 1 }).catch(() => undefined)
  return buildDiagnostics({
    now: 1_700_000_000_000,
    app: { version: '1.2.3', platform: 'linux', shell: 'electron' },
    profile,
    log,
    encodings: encodings.snapshot(),
    budget: client.budget.snapshot(),
    clock: client.clock.info(),
    serverTimeAvailable: client.serverTimeAvailable,
    sync: [],
    unreadableOrders: 2
  })
}

describe('diagnostics', () => {
  it('per endpoint: calls, outcome, shape, the learned type of a field, the limit and its source, the last error', async () => {
    const d = await talkedToService()
    const history = d.endpoints.find((e) => e.endpoint === 'merchantHistory')!
    expect(history).toMatchObject({ calls: 2, failures: 1, lastOutcome: 'ok', lastHttpStatus: 200, limit: { source: 'default' } })
    expect(history.lastError).toMatchObject({ httpStatus: 409, message: expect.stringMatching(/wrong parameter type/i) })
    expect(history.encodings.find((e) => e.field === 'fiatType')).toMatchObject({ spec: 'string', encoding: 'integer', confirmed: true })
    const limits = d.endpoints.find((e) => e.endpoint === 'allCoinLimits')!
    expect(limits.shape).toMatch(/shape [AB]/)
    const status = d.endpoints.find((e) => e.endpoint === 'orderStatus')!
    expect(status.lastError?.message).toContain(WALLET)
    expect(d.endpoints.find((e) => e.endpoint === 'priceTicker')).toMatchObject({
      calls: 0,
      lastCallAt: null,
      limit: { source: 'documented' }
    })
    expect(d.unreadableOrders).toBe(2)
    expect(d.clock.samples).toBeGreaterThan(0)
  })

  it('the support text names what matters and carries no secret, key, signature or wallet address', async () => {
    const d = await talkedToService()
    const text = diagnosticsText(d, [profile.apiKey, API_SECRET])
    expect(text).toContain('merchantHistory: 2 calls, 1 failed')
    expect(text).toContain('fiatType=integer (spec string)')
    expect(text).toContain('Unreadable orders: 2')
    for (const leak of [API_KEY, API_SECRET, WALLET, WALLET.toLowerCase(), 'ab'.repeat(32)]) expect(text).not.toContain(leak)
    expect(text).toContain('No order for wallet ')
  })
})
