// profiles:test against real simulators over loopback: a good connection, and each
// failure the first-run flow explains (wrong service name, unknown key, wrong secret,
// a clock off either way, nothing listening, something that is not the API, the service
// down) found at the right step. Nothing is stored by a test.
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startSandbox, type Sandbox } from '../../../src/sandbox'
import { startServicesHarness, type ServicesHarness } from './harness'

let h: ServicesHarness
let sb: Sandbox
let html: Server

beforeAll(async () => {
  h = await startServicesHarness()
  sb = h.services.sandbox()!
  html = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<html><body>Welcome</body></html>'))
  await new Promise<void>((r) => html.listen(0, '127.0.0.1', r))
})
afterAll(async () => {
  await h?.close()
  await new Promise((r) => html?.close(r))
})

/** The settings that reach a simulator with its own key and secret. */
const settingsOf = (s: Sandbox) => ({ baseUrl: s.url, serviceName: s.serviceName, apiKey: s.apiKey, secret: s.apiSecret })
const good = () => settingsOf(sb)

/** profiles:test against a simulator of its own, started with these options and closed after. */
async function testAgainst(options: Parameters<typeof startSandbox>[0]) {
  const other = await startSandbox({ autoGenerate: false, orders: 0, ...options })
  try {
    return await h.call('profiles:test', settingsOf(other))
  } finally {
    await other.close()
  }
}

describe('profiles:test', () => {
  it('passes both steps with the right settings and stores nothing', async () => {
    const before = await h.call('profiles:list', {})
    const r = await h.call('profiles:test', good())
    expect(r).toMatchObject({ ok: true, step: null, cause: null, title: 'Connected', error: null })
    expect(r.latencyMs).toBeGreaterThanOrEqual(0)
    expect(await h.call('profiles:list', {})).toEqual(before)
    expect(h.outputs.join('\n')).not.toContain(sb.apiSecret)
  })

  it.each([
    ['a wrong service name', { serviceName: 'recon' }, 'reach', 'service_name'],
    ['an unknown API key', { apiKey: 'not-the-key' }, 'sign', 'bad_key'],
    ['a wrong secret', { secret: 'not-the-secret-at-all' }, 'sign', 'bad_signature']
  ] as const)('explains %s at the %s step', async (_what, change, step, cause) => {
    const r = await h.call('profiles:test', { ...good(), ...change })
    expect(r).toMatchObject({ ok: false, step, cause })
    expect(r.next).toMatch(/test again/)
  })

  it('explains nothing listening at the address', async () => {
    const port = (html.address() as AddressInfo).port
    const closed = createServer()
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r))
    const freePort = (closed.address() as AddressInfo).port
    await new Promise((r) => closed.close(r))
    expect(freePort).not.toBe(port)
    const r = await h.call('profiles:test', { ...good(), baseUrl: `http://127.0.0.1:${freePort}` })
    expect(r).toMatchObject({ ok: false, step: 'reach', cause: 'network' })
    expect(r.explanation).toContain(`Nothing accepts connections at 127.0.0.1:${freePort}`)
  })

  it('explains a base URL that answers, but not as the API', async () => {
    const r = await h.call('profiles:test', { ...good(), baseUrl: `http://127.0.0.1:${(html.address() as AddressInfo).port}` })
    expect(r).toMatchObject({ ok: false, step: 'reach', cause: 'not_the_service' })
  })

  it('explains a service in maintenance without blaming the settings', async () => {
    sb.control.setFault('publicAllGasFee', { errorRate: 1, errorStatus: 503 })
    try {
      expect(await h.call('profiles:test', good())).toMatchObject({ ok: false, step: 'reach', cause: 'service_down' })
    } finally {
      sb.control.clearFaults()
    }
  })

  it.each([
    ['behind ours (our time is ahead)', -120_000],
    ['ahead of ours (our time looks expired)', 120_000]
  ])('explains a service clock %s when the service says its time nowhere (no Date header, no currentTimestamp)', async (_what, offset) => {
    const r = await testAgainst({ clockOffsetMs: offset, readings: { dateHeader: false, currentTimestamp: false } })
    expect(r).toMatchObject({ ok: false, step: 'sign', cause: 'clock', title: "This computer's clock is off" })
  })

  it('copes with a clock off when the service says its time: the client corrects itself and the test passes', async () => {
    const r = await testAgainst({ clockOffsetMs: -120_000 })
    expect(r.ok).toBe(true)
    expect(Math.abs((r.clockSkewMs ?? 0) + 120_000)).toBeLessThan(5_000)
  })

  afterAll(() => {
    expect(h.contractViolations).toEqual([])
  })
})
