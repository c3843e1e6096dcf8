// The hub's metrics in the Prometheus text format: what is counted (requests, the service's
// answers and 429s, refusals, relays) and what is read when scraped (budget, sync, streams,
// role, readiness). Labels come from closed sets: ten thousand different unknown channels
// are one series.
import { describe, expect, it } from 'vitest'
import { HubMetrics } from '../../../src/hub/hub-metrics'
import { unleasedRole } from '../../../src/hub/hub-role'
import { syncState } from '../../support/sync-state'

const scope = syncState({ type: 2, lastSuccessAt: 1_700_000_000_000, lagMs: 4_500 })

const line = (text: string, series: string) => text.split('\n').find((l) => l.startsWith(series + ' '))

describe('hub metrics', () => {
  it('counts what happens and reads the rest when scraped', async () => {
    const m = new HubMetrics({ version: '1.2.3', store: 'sqlite' })
    m.attach({
      budget: () =>
        ({
          endpoints: [
            { endpoint: 'priceTicker', limit: 10, source: 'documented', usedInWindow: 7, queued: 2, nextSlotAt: null, blockedUntil: 5 }
          ]
        }) as never,
      syncStates: () => [scope],
      coverage: () =>
        ({
          scopes: [
            {
              type: 2,
              fiatType: 5,
              probe: 'active',
              orders: 40,
              audit: { state: 'repairing', serviceOrders: 52, repair: { page: 1, pages: 2 } }
            }
          ],
          freshness: { stale: 6 }
        }) as never,
      role: () => unleasedRole('leader', 0, ''),
      streams: () => 3,
      connections: () => 4,
      ready: () => ({ all: false, store: true, upstream: false })
    })
    m.request('rpc', 'orders:query', 200)
    m.request('rpc', 'orders:query', 200)
    m.request('events', '', 401)
    m.upstream({ endpoint: 'priceTicker', httpStatus: 429, attempt: 1, durationMs: 30, budgetWaitMs: 0, outcome: 'rate_limited' })
    m.upstream({ endpoint: 'priceTicker', attempt: 2, durationMs: 0, budgetWaitMs: 0, outcome: 'network' })
    // Page 0 refused by a service counting from 1, asked to learn that: no failure to alert on.
    m.upstream({ endpoint: 'merchantHistory', httpStatus: 400, attempt: 1, durationMs: 5, budgetWaitMs: 0, outcome: 'api', expected: true })
    m.refusal('unauthorized')
    m.relay('relayed')
    m.delivery(false)
    const text = await m.render()
    expect(line(text, 'rampdesk_hub_info{version="1.2.3",store="sqlite"}')).toBeDefined()
    expect(line(text, 'rampdesk_hub_requests_total{route="rpc",channel="orders:query",status="200"}')).toMatch(/ 2$/)
    expect(line(text, 'rampdesk_hub_requests_total{route="events",channel="",status="401"}')).toMatch(/ 1$/)
    expect(line(text, 'rampdesk_hub_upstream_requests_total{endpoint="priceTicker",outcome="rate_limited"}')).toMatch(/ 1$/)
    expect(line(text, 'rampdesk_hub_upstream_requests_total{endpoint="priceTicker",outcome="network"}')).toMatch(/ 1$/)
    expect(line(text, 'rampdesk_hub_upstream_429_total{endpoint="priceTicker"}')).toMatch(/ 1$/)
    expect(line(text, 'rampdesk_hub_upstream_requests_total{endpoint="merchantHistory",outcome="expected_refusal"}')).toMatch(/ 1$/)
    expect(line(text, 'rampdesk_hub_upstream_requests_total{endpoint="merchantHistory",outcome="api"}')).toBeUndefined()
    expect(line(text, 'rampdesk_hub_refusals_total{kind="unauthorized"}')).toMatch(/ 1$/)
    expect(line(text, 'rampdesk_hub_refusals_total{kind="origin"}')).toMatch(/ 0$/)
    expect(line(text, 'rampdesk_hub_webhook_relays_total{outcome="relayed"}')).toMatch(/ 1$/)
    expect(line(text, 'rampdesk_hub_webhook_deliveries_total{verified="false"}')).toMatch(/ 1$/)
    expect(line(text, 'rampdesk_hub_budget_used{endpoint="priceTicker"}')).toMatch(/ 7$/)
    expect(line(text, 'rampdesk_hub_budget_queued{endpoint="priceTicker"}')).toMatch(/ 2$/)
    expect(line(text, 'rampdesk_hub_budget_blocked{endpoint="priceTicker"}')).toMatch(/ 1$/)
    expect(line(text, 'rampdesk_hub_sync_lag_seconds{type="offramp",fiat="1"}')).toMatch(/ 4.5$/)
    expect(line(text, 'rampdesk_hub_sync_scope_state{type="offramp",fiat="1",state="synced"}')).toMatch(/ 1$/)
    expect(line(text, 'rampdesk_hub_sync_scope_state{type="offramp",fiat="1",state="failing"}')).toMatch(/ 0$/)
    expect(line(text, 'rampdesk_hub_scope_probe_state{type="offramp",fiat="5",state="active"}')).toMatch(/ 1$/)
    expect(line(text, 'rampdesk_hub_scope_probe_state{type="offramp",fiat="5",state="empty"}')).toMatch(/ 0$/)
    expect(line(text, 'rampdesk_hub_scope_completeness{type="offramp",fiat="5",state="repairing"}')).toMatch(/ 1$/)
    expect(line(text, 'rampdesk_hub_scope_completeness{type="offramp",fiat="5",state="complete"}')).toMatch(/ 0$/)
    expect(line(text, 'rampdesk_hub_scope_orders{type="offramp",fiat="5"}')).toMatch(/ 40$/)
    expect(line(text, 'rampdesk_hub_scope_service_orders{type="offramp",fiat="5"}')).toMatch(/ 52$/)
    expect(line(text, 'rampdesk_hub_open_orders_stale')).toMatch(/ 6$/)
    expect(line(text, 'rampdesk_hub_event_streams')).toMatch(/ 3$/)
    expect(line(text, 'rampdesk_hub_open_connections')).toMatch(/ 4$/)
    expect(line(text, 'rampdesk_hub_leader')).toMatch(/ 1$/)
    expect(line(text, 'rampdesk_hub_ready{check="upstream"}')).toMatch(/ 0$/)
    expect(line(text, 'process_resident_memory_bytes')).toBeDefined()
  })

  it('reads the gauges afresh at every scrape', async () => {
    const m = new HubMetrics({ version: 'x', store: 'sqlite' })
    let role: 'leader' | 'follower' = 'leader'
    let states = [scope]
    m.attach({ role: () => unleasedRole(role, 0, ''), syncStates: () => states })
    expect(line(await m.render(), 'rampdesk_hub_leader')).toMatch(/ 1$/)
    role = 'follower'
    states = []
    const text = await m.render()
    expect(line(text, 'rampdesk_hub_leader')).toMatch(/ 0$/)
    expect(text).not.toContain('rampdesk_hub_sync_lag_seconds{')
  })
})

describe('the unacknowledged completions gauge', () => {
  it("is the count the hub's alerts stand at while it relays, and 0 without a relay", async () => {
    const m = new HubMetrics({ version: '1.2.3', store: 'sqlite' })
    let n: number | null = 3
    m.attach({ unacknowledged: () => n })
    expect(line(await m.render(), 'rampdesk_hub_unacknowledged_completions')).toBe('rampdesk_hub_unacknowledged_completions 3')
    n = 0
    expect(line(await m.render(), 'rampdesk_hub_unacknowledged_completions')).toBe('rampdesk_hub_unacknowledged_completions 0')
    n = 5
    expect(line(await m.render(), 'rampdesk_hub_unacknowledged_completions')).toBe('rampdesk_hub_unacknowledged_completions 5')
    n = null
    expect(line(await m.render(), 'rampdesk_hub_unacknowledged_completions')).toBe('rampdesk_hub_unacknowledged_completions 0')
  })
})
