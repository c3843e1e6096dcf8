// The routes for whoever runs the hub, on a real hub over loopback: /healthz alive,
// /readyz with each check (503 once the service stops answering, 200 again when it is
// back), /metrics for the metrics token only, counting requests by channel and status,
// refusals, the budget, each scope's sync, open streams, the role and the second factors the
// key file does not open, with as many series
// after a flood of made-up channel names as before it.
import { request } from 'undici'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startHubFixture, waitUntil, type HubFixture } from './support'

const TOKEN = 'metrics-0123456789abcdef0123456789'
let f: HubFixture
let viewer: string

beforeAll(async () => {
  f = await startHubFixture({ server: { metricsToken: TOKEN } })
  viewer = await f.addOperator('vera', 'viewer')
})
afterAll(async () => {
  await f?.close()
})

async function get(path: string, headers: Record<string, string> = {}): Promise<{ status: number; text: string; type: string }> {
  const r = await request(`${f.url}${path}`, { headers })
  return { status: r.statusCode, text: await r.body.text(), type: String(r.headers['content-type']) }
}
const metrics = async () => (await get('/metrics', { authorization: `Bearer ${TOKEN}` })).text
const value = (text: string, series: string) => {
  const l = text.split('\n').find((x) => x.startsWith(series + ' '))
  return l === undefined ? undefined : Number(l.slice(series.length + 1))
}
const requestSeries = (text: string) =>
  text.split('\n').filter((l) => l.startsWith('rampdesk_hub_requests_total{') || l.startsWith('rampdesk_hub_refusals_total{')).length

describe('operations routes', () => {
  it('/healthz answers that the process is alive', async () => {
    expect(await get('/healthz')).toMatchObject({ status: 200, text: '{"ok":true}' })
  })

  it('/readyz names each check, and turns 503 while the service does not answer', async () => {
    await waitUntil(async () => (await get('/readyz')).status === 200, 10_000, 'ready')
    const ready = JSON.parse((await get('/readyz')).text)
    expect(ready).toMatchObject({
      ok: true,
      role: 'leader',
      checks: { store: { ok: true, kind: 'sqlite' }, upstream: { ok: true, lastStatus: 200 }, role: { ok: true, role: 'leader' } }
    })
    expect(ready.checks.secondFactorKey).toEqual({ ok: true, detail: 'second-factor.key opens every stored second factor' })
    expect(value(await metrics(), 'rampdesk_hub_second_factor_unopenable')).toBe(0)
    f.sandbox.control.setFault('*', { errorRate: 1, errorStatus: 503 })
    try {
      await f.call(viewer, 'sync:now')
      await waitUntil(async () => (await get('/readyz')).status === 503, 10_000, 'not ready')
      const down = JSON.parse((await get('/readyz')).text)
      expect(down).toMatchObject({
        ok: false,
        checks: { store: { ok: true }, upstream: { ok: false, lastFailure: expect.stringMatching(/HTTP 503/) } }
      })
      expect(value(await metrics(), 'rampdesk_hub_ready{check="upstream"}')).toBe(0)
    } finally {
      f.sandbox.control.clearFaults()
    }
    await f.call(viewer, 'sync:now')
    await waitUntil(async () => (await get('/readyz')).status === 200, 10_000, 'ready again')
  })

  it('/metrics asks for the metrics token and counts the refusal', async () => {
    expect((await get('/metrics')).status).toBe(401)
    expect((await get('/metrics', { authorization: 'Bearer wrong-token-0123456789abcdef' })).status).toBe(401)
    const ok = await get('/metrics', { authorization: `Bearer ${TOKEN}` })
    expect(ok.status).toBe(200)
    expect(ok.type).toMatch(/^text\/plain; version=0\.0\.4/)
    expect(value(ok.text, 'rampdesk_hub_refusals_total{kind="metrics"}')).toBe(2)
    expect(f.logs.some((l) => /WARN refused 401 GET \/metrics/.test(l))).toBe(true)
  })

  it('counts requests by channel and status, the budget, each scope, streams and the role', async () => {
    await f
      .call(viewer, 'orders:query', { filter: {}, sort: { column: 'updatedAt', direction: 'desc' }, offset: 0, limit: 10 })
      .catch(() => undefined)
    await f.call(viewer, 'app:info')
    await f.rpc(null, 'app:info')
    const stream = f.stream(viewer)
    await waitUntil(() => stream.connection.connected)
    const text = await metrics()
    expect(value(text, 'rampdesk_hub_requests_total{route="rpc",channel="app:info",status="200"}')).toBe(1)
    expect(value(text, 'rampdesk_hub_requests_total{route="rpc",channel="app:info",status="401"}')).toBe(1)
    expect(value(text, 'rampdesk_hub_refusals_total{kind="unauthorized"}')).toBe(1)
    expect(value(text, 'rampdesk_hub_event_streams')).toBe(1)
    expect(value(text, 'rampdesk_hub_leader')).toBe(1)
    expect(value(text, 'rampdesk_hub_budget_used{endpoint="merchantHistory"}')).toBeGreaterThan(0)
    expect(value(text, 'rampdesk_hub_upstream_requests_total{endpoint="merchantHistory",outcome="ok"}')).toBeGreaterThan(0)
    // The 503s of the test before, by the kind of failure the client made of them.
    const failed = text
      .split('\n')
      .filter((l) => l.startsWith('rampdesk_hub_upstream_requests_total{endpoint="merchantHistory"') && !l.includes('outcome="ok"'))
    expect(failed.length).toBeGreaterThan(0)
    expect(value(text, 'rampdesk_hub_sync_scope_state{type="onramp",fiat="1",state="synced"}')).toBe(1)
    expect(value(text, 'rampdesk_hub_sync_lag_seconds{type="onramp",fiat="1"}')).toBeGreaterThanOrEqual(0)
    expect(value(text, 'rampdesk_hub_scope_probe_state{type="onramp",fiat="1",state="active"}')).toBe(1)
    expect(value(text, 'rampdesk_hub_scope_orders{type="onramp",fiat="1"}')).toBeGreaterThan(0)
    await stream.close()
    await waitUntil(async () => value(await metrics(), 'rampdesk_hub_event_streams') === 0, 5_000, 'stream closed')
    // An events request is counted once it is over.
    expect(value(await metrics(), 'rampdesk_hub_requests_total{route="events",channel="",status="200"}')).toBe(1)
  })

  it('a flood of made-up channel names and paths adds no series', async () => {
    // The first dozen make every series the flood can reach: without a token 401, then 429 once
    // this address's failed tokens are throttled (auth-throttle.ts); with one, 404.
    for (let i = 0; i < 12; i++) {
      await f.rpc(null, `no:such${i}`)
      await f.rpc(viewer, `no:such${i}`)
      await get(`/nothing-here-${i}`)
    }
    const beforeText = await metrics()
    const before = requestSeries(beforeText)
    // A stranger's flood is answered slowly once throttled: a few dozen show it adds nothing.
    for (let i = 12; i < 40; i++) await f.rpc(null, `no:such${i}`)
    // An operator's within the burst of their request rate (120).
    for (let i = 12; i < 100; i++) {
      await f.rpc(viewer, `no:such${i}`)
      await get(`/nothing-here-${i}`)
    }
    const after = await metrics()
    const added = (series: string) => (value(after, series) ?? 0) - (value(beforeText, series) ?? 0)
    const unknown = (status: number) => added(`rampdesk_hub_requests_total{route="rpc",channel="(unknown)",status="${status}"}`)
    expect(unknown(401) + unknown(429)).toBe(28)
    expect(unknown(404)).toBe(88)
    expect(added('rampdesk_hub_requests_total{route="other",channel="",status="404"}')).toBe(88)
    expect(requestSeries(after)).toBe(before)
  })
})
