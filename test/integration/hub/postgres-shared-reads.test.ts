// Two hubs on one PostgreSQL database, each behind a proxy of its own that records what the
// service answered it: the configuration and the prices are the leader's to fetch (issue
// 26). A desktop on the follower is served both, and its ticker stream ticks, while the
// follower sends none of those requests itself; when the leader stops, the follower leads
// and fetches them itself.
import { request } from 'undici'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ConfigSnapshot, TickerSnapshot } from '../../../src/shared/ipc/contract'
import { postgresUnavailable } from '../../support/postgres-cluster'
import { startHubFixture, startTwoHubs, waitUntil, type HubFixture, type TwoHubs } from './support'

const CONFIG = /\/(allConfig|allConfigMapping|allGasFee|limits|allCoinLimits|allChainMapping)$/
const TICKER = /\/priceTicker$/
const sent = (f: HubFixture, re: RegExp) => f.serviceAnswers.filter((a) => re.test(a.path)).length

describe.skipIf(postgresUnavailable !== null)('the leader fetches the configuration and the prices for every hub', () => {
  let pair: TwoHubs
  beforeAll(async () => {
    pair = await startTwoHubs({ sandbox: { orders: 20, seed: 4 }, recordService: true })
  })
  afterAll(() => pair?.close())

  it('serves a desktop on the follower the leader’s answers; the follower leads and fetches them itself once the leader stops', async () => {
    const { a, b } = pair
    const [leader, follower] = a.hub.role.current().role === 'leader' ? [a, b] : [b, a]
    expect(follower.hub.role.current().role).toBe('follower')
    const token = await leader.addOperator('ada', 'admin')
    await waitUntil(async () => (await follower.rpc(token, 'team:access')).status === 200, 3_000, 'the follower knowing ada')
    await follower.call(token, 'settings:update', { tickerPollSeconds: 6 })

    const config = await follower.call<ConfigSnapshot>(token, 'config:get')
    expect(config.fiats.length).toBeGreaterThan(0)
    const prices = await follower.call<TickerSnapshot>(token, 'tickers:get', { fiatType: 1 })
    expect(prices.rows.length).toBeGreaterThan(0)
    expect(prices.rows.every((r) => !r.stale)).toBe(true)
    // The follower's ticker poll goes on through the leader: its desktop's stream ticks.
    const stream = follower.stream(token)
    await waitUntil(() => stream.states.some((s) => s.connected), 5_000, 'the stream on the follower')
    await follower.call(token, 'tickers:visibility', { view: 'main', visible: true })
    const ticks = () => stream.events.filter((e) => e.event === 'ticker:tick').length
    const before = ticks()
    await waitUntil(() => ticks() >= before + 2, 20_000, 'two ticks on the follower')
    expect(sent(follower, TICKER)).toBe(0)
    expect(sent(follower, CONFIG)).toBe(0)
    // Ready for desktops: the service answers the team, through the leader.
    const ready = async () => {
      const r = await request(`${follower.url}/readyz`)
      return { status: r.statusCode, body: (await r.body.json()) as { checks: { upstream: { ok: boolean } } } }
    }
    await waitUntil(async () => (await ready()).status === 200, 3_000, 'the follower ready')
    expect((await ready()).body.checks.upstream.ok).toBe(true)
    expect(sent(leader, TICKER)).toBeGreaterThan(0)
    expect(sent(leader, CONFIG)).toBeGreaterThan(0)

    // The leader stops: the follower leads and polls the prices itself.
    await leader.stopHub()
    await waitUntil(() => follower.hub.role.current().role === 'leader', 15_000, 'the follower leading')
    await waitUntil(() => sent(follower, TICKER) > 0, 15_000, 'the new leader fetching the prices')
    const fresh = await follower.call<TickerSnapshot>(token, 'tickers:get', { fiatType: 1 })
    expect(fresh.rows.length).toBeGreaterThan(0)
    expect((await follower.call<ConfigSnapshot>(token, 'config:refresh')).fiats.length).toBeGreaterThan(0)
    expect(sent(follower, CONFIG)).toBeGreaterThan(0)
    await stream.close()
    await leader.startHub()
  }, 90_000)
})

describe('a lone hub on its data directory', () => {
  it('fetches the configuration and the prices itself, as before, and streams its ticks', async () => {
    const f = await startHubFixture({ recordService: true, sandbox: { orders: 5 } })
    try {
      expect(f.hub.role.current().role).toBe('leader')
      const token = await f.addOperator('ada', 'admin')
      await f.call(token, 'settings:update', { tickerPollSeconds: 6 })
      expect((await f.call<ConfigSnapshot>(token, 'config:get')).fiats.length).toBeGreaterThan(0)
      expect((await f.call<TickerSnapshot>(token, 'tickers:get', { fiatType: 1 })).rows.length).toBeGreaterThan(0)
      const stream = f.stream(token)
      await waitUntil(() => stream.states.some((s) => s.connected), 5_000, 'the stream')
      await f.call(token, 'tickers:visibility', { view: 'main', visible: true })
      await stream.waitFor('ticker:tick', () => true, 15_000)
      expect(sent(f, TICKER)).toBeGreaterThan(0)
      expect(sent(f, CONFIG)).toBeGreaterThan(0)
    } finally {
      await f.close()
    }
  })
})
