// Benchmark 3: one simulated hour of one profile's traffic against the sandbox, on a
// discrete-event clock shared by both sides (lib/virtual-clock.ts): the order monitor
// (history every 30 s, five pinned orders polled), tickers every 15 s, the config cache
// revalidated every minute and refreshed by the operator every 10 minutes, an operator
// quoting every 3-6 s (one in five a compare across the coin's networks) and switching
// the ticker fiat every 5 minutes, plus five impatient minutes (config refresh every
// 4 s, ticker fiat switched every 6 s). Every request reaches the sandbox after a
// simulated 20-300 ms network delay. Counted: the sandbox's 429 answers (target 0) and
// the longest wait of an operator's quote (target under 1 s). Baseline: the same hour,
// same seed, with the client's rate budget taken out (requests go out at once).
import { mkdtemp } from 'node:fs/promises'
import { join } from 'node:path'
import { ApiClient, type RequestEvent } from '../src/main/api/client'
import { SkewClock } from '../src/main/api/clock'
import { RateBudget, type AcquireOptions } from '../src/main/api/rate-budget'
import { Transport } from '../src/main/api/transport'
import { ConfigCache } from '../src/main/config/config-cache'
import { OrderMonitor } from '../src/main/monitor/order-monitor'
import { openLocalStore } from '../src/main/store/local-store'
import { TickerService } from '../src/main/tickers/ticker-service'
import type { EndpointName } from '../src/shared/api/endpoints'
import { ApiError } from '../src/shared/api/errors'
import { startSandbox } from '../src/sandbox'
import { round, summary } from './lib/stats'
import type { BenchContext, BenchLine } from './lib/types'
import { VirtualClock } from './lib/virtual-clock'

const HOUR = 3_600_000
const MIN = 60_000
const QUOTE_TARGET_MS = 1_000
const SIM_MS = Number(process.env.BENCH_BUDGET_SIM_MS ?? HOUR)
const BURST_FROM = 30 * MIN
const BURST_TO = 35 * MIN

/** No client-side budget at all: every request goes out at once (the baseline). */
class NoBudget extends RateBudget {
  override acquire(_endpoint: EndpointName, _opts?: AcquireOptions): Promise<void> {
    return Promise.resolve()
  }
}

function mulberry32(seed: number): () => number {
  let a = seed
  return () => {
    a = (a + 0x6d2b79f5) | 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

interface HourResult {
  requests: number
  byEndpoint: Partial<Record<EndpointName, { sent: number; r429: number }>>
  r429: number
  quotes: number
  quoteWaitsMs: number[]
  quoteFailures: Record<string, number>
  opsFailed: number
  realMs: number
  transitP95Ms: number
}

async function simulateHour(withBudget: boolean, tmp: string): Promise<HourResult> {
  const start = Date.now()
  const clock = new VirtualClock(start)
  const rng = mulberry32(2024)
  const sb = await startSandbox({ orders: 5_000, seed: 5, autoGenerate: false, now: clock.now })
  const store = openLocalStore(await mkdtemp(join(tmp, withBudget ? 'budget-ours-' : 'budget-naive-')))
  const budgetOpts = { profileId: 'sim', now: clock.now, timers: clock.timers }
  const budget = withBudget ? new RateBudget(budgetOpts) : new NoBudget(budgetOpts)
  // A simulated network: each request reaches the sandbox 20-300 ms (virtual) after it
  // left the budget, so the budget's one-second margin meets delivery jitter.
  const net = clock.track(new Transport())
  const delayed = {
    request: async (req: Parameters<typeof net.request>[0]) => {
      await clock.sleep(20 + rng() * 280)
      return net.request(req)
    },
    close: () => net.close()
  }
  const client = new ApiClient({
    profileId: 'sim',
    baseUrl: sb.url,
    serviceName: sb.serviceName,
    apiKey: sb.apiKey,
    getSecret: async () => sb.apiSecret,
    budget,
    clock: new SkewClock({ now: clock.now }),
    transport: delayed,
    retry: { sleep: clock.sleep, random: rng }
  })
  const byEndpoint: HourResult['byEndpoint'] = {}
  let r429 = 0
  client.onRequest((e: RequestEvent) => {
    const s = (byEndpoint[e.endpoint] ??= { sent: 0, r429: 0 })
    s.sent++
    if (e.httpStatus === 429) {
      s.r429++
      r429++
    }
  })

  const config = new ConfigCache({
    client,
    now: clock.now,
    store: {
      get: (k) => {
        const c = store.configCache.get(k)
        return c ? { json: JSON.stringify(c.value), fetchedAt: Date.parse(c.fetchedAt) } : undefined
      },
      put: (k, json, fetchedAt) => void store.configCache.put(k, JSON.parse(json), { fetchedAt: new Date(fetchedAt).toISOString() })
    }
  })
  const tickers = new TickerService({
    client,
    now: clock.now,
    pollMs: 15_000,
    fiatType: 1,
    store: { append: () => undefined, range: () => [] }
  })
  const monitor = new OrderMonitor({
    client,
    store,
    fiatTypes: [1],
    historyPollMs: 30_000,
    watchPollMs: 15_000,
    now: clock.now,
    timers: clock.timers
  })

  const end = start + SIM_MS
  const every = (ms: number, fn: () => Promise<unknown> | void, from = clock.now()) => {
    const run = () => {
      if (clock.now() >= end) return
      void Promise.resolve(fn()).catch(() => undefined)
      clock.schedule(run, ms)
    }
    clock.schedule(run, Math.max(0, from - clock.now()))
  }
  let opsFailed = 0
  const op = async (fn: () => Promise<unknown>) => {
    try {
      await fn()
    } catch {
      opsFailed++
    }
  }

  const realStart = performance.now()
  try {
    // Start-up as a session does it: config first, then the monitor.
    let coins: { id: number; networks: number[] }[] = []
    clock.schedule(() => {
      void config.get().then((snap) => {
        coins = snap.coins.filter((c) => c.networks.length > 0)
        clock.schedule(operator, 5_000)
      })
      monitor.start()
    }, 0)
    // Five orders the operator pins; the generator moves them along.
    for (let i = 0; i < 5; i++) {
      const o = sb.control.createOrder({ type: 1, fiatType: 1 })
      clock.schedule(() => monitor.watch(1, o.orderId), 45_000 + i * 1_000)
    }
    // The sandbox's generator: a tick every 2 s of simulated time.
    every(2_000, () => void sb.control.tick())
    // Tickers: refresh, then the next one 15 s after it settled (as the service schedules it).
    const tick = () => {
      if (clock.now() >= end) return
      void tickers.refresh().finally(() => clock.schedule(tick, 15_000))
    }
    clock.schedule(tick, 0)
    // The renderer asks for the config when views open; stale sources revalidate.
    every(MIN, () => op(() => config.get()))
    every(10 * MIN, () => op(() => config.refreshAll()), clock.now() + 10 * MIN)
    // The operator switches the ticker fiat now and then (tickers:get with another fiat).
    let fiat = 1
    const switchFiat = () => {
      fiat = fiat === 1 ? 2 : 1
      tickers.configure({ fiatType: fiat })
      return tickers.refresh()
    }
    every(5 * MIN, switchFiat, clock.now() + 5 * MIN)
    // Five impatient minutes.
    every(4_000, () => (clock.now() < start + BURST_TO ? op(() => config.refreshAll()) : undefined), start + BURST_FROM)
    every(6_000, () => (clock.now() < start + BURST_TO ? switchFiat() : undefined), start + BURST_FROM)

    // The operator's quotes, as the quotes:get and quotes:compare handlers send them.
    const quoteWaitsMs: number[] = []
    const quoteFailures: Record<string, number> = {}
    let quotes = 0
    const quoteOne = async (coinId: number, chainId: number) => {
      const t0 = clock.now()
      quotes++
      try {
        await client.onrampQuote({ coinId, chainId, fiatType: 1, fiatAmount: '25000' }, { priority: 'interactive' })
      } catch (e) {
        const kind = e instanceof ApiError ? `${e.kind}${e.kind === 'rate_limited' ? `:${e.origin ?? ''}` : ''}` : 'other'
        quoteFailures[kind] = (quoteFailures[kind] ?? 0) + 1
        // A quote the budget refused made the operator wait as long as it allowed.
        if (!(e instanceof ApiError && (e.kind === 'rate_limited' || e.kind === 'timeout' || e.kind === 'network'))) return
      }
      quoteWaitsMs.push(clock.now() - t0)
    }
    const operator = () => {
      if (clock.now() >= end || coins.length === 0) return
      const coin = coins[Math.floor(rng() * coins.length)]!
      if (rng() < 0.2) void Promise.all(coin.networks.map((ch) => quoteOne(coin.id, ch)))
      else void quoteOne(coin.id, coin.networks[Math.floor(rng() * coin.networks.length)]!)
      clock.schedule(operator, 3_000 + rng() * 3_000)
    }

    await clock.runUntil(end)
    const transit = summary(clock.transitMs)
    return {
      requests: Object.values(byEndpoint).reduce((n, s) => n + s.sent, 0),
      byEndpoint,
      r429,
      quotes,
      quoteWaitsMs,
      quoteFailures,
      opsFailed,
      realMs: Math.round(performance.now() - realStart),
      transitP95Ms: transit.p95
    }
  } finally {
    await Promise.allSettled([config.close(), tickers.close(), monitor.stop()])
    // Let aborted requests settle before the store closes.
    await clock.runUntil(clock.now() + 60_000)
    await client.close()
    store.close()
    await sb.close()
  }
}

export async function budgetBench(ctx: BenchContext): Promise<BenchLine> {
  ctx.log(`budget: ${SIM_MS / MIN} simulated minutes with the rate budget`)
  const ours = await simulateHour(true, ctx.tmp)
  ctx.log(`budget: the same without a client-side budget (${Math.round(ours.realMs / 1000)} s real for ours)`)
  const naive = await simulateHour(false, ctx.tmp)
  const waits = summary(ours.quoteWaitsMs)
  const naiveWaits = summary(naive.quoteWaitsMs)
  return {
    bench: 'budget',
    what: `${SIM_MS / MIN} simulated minutes (discrete-event clock shared by client and sandbox; each request delayed 20-300 ms simulated): monitor (history 30 s, 5 pinned orders), tickers 15 s, config get every 1 min + refreshAll every 10 min, operator quote every 3-6 s (20% compares), ticker fiat switch every 5 min, and minutes 30-35 impatient (refreshAll every 4 s, fiat switch every 6 s)`,
    simulatedMin: SIM_MS / MIN,
    realMs: ours.realMs,
    requests: ours.requests,
    r429: ours.r429,
    quotes: ours.quotes,
    longestQuoteWaitMs: round(waits.max, 0),
    p95QuoteWaitMs: round(waits.p95, 0),
    quoteFailures: ours.quoteFailures,
    failedOperations: ours.opsFailed,
    sentPerEndpoint: Object.fromEntries(Object.entries(ours.byEndpoint).map(([k, v]) => [k, v.sent])),
    baseline: {
      target: { r429: 0, longestQuoteWaitMs: QUOTE_TARGET_MS },
      noBudget: {
        what: 'same hour, same seed, client budget removed (requests go out at once; 429s retried by the client policy)',
        requests: naive.requests,
        r429: naive.r429,
        r429PerEndpoint: Object.fromEntries(
          Object.entries(naive.byEndpoint)
            .filter(([, v]) => v.r429 > 0)
            .map(([k, v]) => [k, v.r429])
        ),
        longestQuoteWaitMs: round(naiveWaits.max, 0),
        quoteFailures: naive.quoteFailures,
        failedOperations: naive.opsFailed
      }
    },
    met: { no429: ours.r429 === 0, quoteWaitUnder1s: waits.max < QUOTE_TARGET_MS }
  }
}

export default budgetBench
