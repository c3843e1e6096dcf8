// Benchmark 2: budget against an independent limiter. One simulated hour of one profile's
// traffic at the settings the app ships (DEFAULT_SETTINGS: history every 30 s for INR
// onramp and offramp, pinned orders every 15 s, tickers every 15 s) against a sandbox
// whose limiter is its own, not the client's limits table: fixed one-minute windows per
// API key (the limiter reading 'fixed') on the six endpoints the spec gives 10 a minute,
// plus 10 a minute on merchantHistory, a limit the spec does not show and the client has
// to learn from 429s; the sandbox clock runs 23.7 s ahead of the client's, so its minutes
// do not start with the client's. Background polling is saturated: a first sync of
// 60,000 orders to page through at that limit, ten pinned orders, tickers, the config
// revalidated every minute and refreshed every 10 minutes (and every 4 s for five
// impatient minutes, with the ticker fiat switched every 6 s). Meanwhile an operator asks
// a quote every 3-6 s (one in five a compare across the coin's networks) and resends an
// order's webhook every 20-40 s. Every request reaches the sandbox 20-300 ms (simulated)
// after it left the budget; both sides share a discrete-event clock
// (lib/virtual-clock.ts). Counted: the sandbox's 429 answers per endpoint (when, in
// simulated minutes), the operator's longest wait for a quote and for a resend.
// Baseline: the same hour and seed with the limiter a competent engineer would write
// (lib/fixed-window-budget.ts): ten per minute of the client's own clock, FIFO, a 429
// waits for the next minute, nothing learned.
import { mkdtemp } from 'node:fs/promises'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import type { RequestEvent } from '../src/main/api/client'
import { SkewClock } from '../src/main/api/clock'
import { RateBudget, type LearnedLimit } from '../src/main/api/rate-budget'
import { DEFAULT_SETTINGS } from '../src/main/app-settings'
import { Transport } from '../src/main/api/transport'
import { ConfigCache } from '../src/main/config/config-cache'
import { monitorSchedule, OrderMonitor } from '../src/main/monitor/order-monitor'
import { openLocalStore } from '../src/main/store/local-store'
import { TickerService } from '../src/main/tickers/ticker-service'
import type { EndpointName } from '../src/shared/api/endpoints'
import { ApiError } from '../src/shared/api/errors'
import { startSandbox } from '../src/sandbox'
import { benchSize } from './lib/smoke'
import { round, summary } from './lib/stats'
import type { BenchContext, BenchLine } from './lib/types'
import { FixedWindowBudget } from './lib/fixed-window-budget'
import { VirtualClock } from './lib/virtual-clock'
import { sandboxClient } from './lib/sandbox-client'

const HOUR = 3_600_000
const MIN = 60_000
const QUOTE_TARGET_MS = 1_000
const SIM_MS = benchSize('BENCH_BUDGET_SIM_MS', HOUR, 3 * MIN)
/** The impatient minutes: 30-35 of the hour, the same share of a shorter simulation. */
const BURST_FROM = (SIM_MS * 30) / 60
const BURST_TO = (SIM_MS * 35) / 60
const HISTORY_ORDERS = benchSize('BENCH_BUDGET_ORDERS', 60_000, 500)
/** The sandbox's merchantHistory limit, which the spec does not show. */
const HISTORY_LIMIT = 10
/** How far the sandbox clock runs ahead of the client's. */
const SKEW_MS = 23_700
const PINNED = 10
const SETTINGS = DEFAULT_SETTINGS

type ClientKind = 'ours' | 'fixedWindow'

/** Simulated minutes, one decimal. */
const simMin = (ms: number): number => Math.round(ms / 6_000) / 10

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
  byEndpoint: Partial<Record<EndpointName, { sent: number; r429: number; r429AtMin: number[] }>>
  r429: number
  quotes: number
  quoteWaitsMs: number[]
  resends: number
  resendWaitsMs: number[]
  failures: Record<string, number>
  opsFailed: number
  /** Simulated minutes until every history scope had completed its first sync. */
  firstSyncMin: number | null
  historyOrders: number
  learned: LearnedLimit | null
  /** Simulated minutes from the start to when the limit was last learned or lowered. */
  learnedAtMin: number | null
  /** Simulated minutes from the start to the last probe that raised it, if any. */
  raisedAtMin: number | null
  realMs: number
}

function failureKind(e: unknown): string {
  return e instanceof ApiError ? `${e.kind}${e.kind === 'rate_limited' ? `:${e.origin ?? ''}` : ''}` : 'other'
}

async function simulateHour(kind: ClientKind, tmp: string): Promise<HourResult> {
  // On a minute of the client's clock, so the sandbox's minutes start SKEW_MS into each of ours.
  const start = Math.floor(Date.now() / MIN) * MIN
  const clock = new VirtualClock(start)
  const rng = mulberry32(2024)
  const sb = await startSandbox({
    orders: HISTORY_ORDERS,
    seed: 5,
    autoGenerate: false,
    now: clock.now,
    clockOffsetMs: SKEW_MS,
    readings: { limiter: 'fixed', unknownLimits: { merchantHistory: HISTORY_LIMIT } }
  })
  // The merchant's webhook receiver, which resent webhooks are delivered to.
  const receiver = createServer((req, res) => {
    req.resume()
    req.on('end', () => res.writeHead(200).end('ok'))
  })
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve))
  const webhookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/webhook`
  const store = openLocalStore(await mkdtemp(join(tmp, `budget-${kind}-`)))
  // Learned limits are kept where the app keeps them: the profile database's service facts.
  const facts = store.serviceFacts
  const budget =
    kind === 'ours'
      ? new RateBudget({
          profileId: 'sim',
          now: clock.now,
          timers: clock.timers,
          limits: { load: () => facts.all<LearnedLimit>('limit'), save: (k, v) => facts.put('limit', k, v) }
        })
      : new FixedWindowBudget({ profileId: 'sim', now: clock.now, timers: clock.timers })
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
  const client = sandboxClient(sb, {
    profileId: 'sim',
    budget,
    clock: new SkewClock({ now: clock.now }),
    transport: delayed,
    retry: { sleep: clock.sleep, random: rng }
  })
  const byEndpoint: HourResult['byEndpoint'] = {}
  let r429 = 0
  client.onRequest((e: RequestEvent) => {
    const s = (byEndpoint[e.endpoint] ??= { sent: 0, r429: 0, r429AtMin: [] })
    s.sent++
    if (e.httpStatus === 429) {
      s.r429++
      s.r429AtMin.push(simMin(clock.now() - start))
      r429++
    }
  })

  const config = new ConfigCache({
    client,
    now: clock.now,
    store: store.configCache.forConfigCache(),
    coinLimitFiats: () => [...SETTINGS.fiatTypes, SETTINGS.tickerFiat]
  })
  const tickers = new TickerService({
    client,
    now: clock.now,
    pollMs: SETTINGS.tickerPollSeconds * 1000,
    fiatType: SETTINGS.tickerFiat,
    store: { append: () => undefined, range: () => [] }
  })
  const monitor = new OrderMonitor({
    client,
    store,
    ...monitorSchedule(SETTINGS),
    now: clock.now,
    serviceNow: () => client.clock.now(),
    timers: clock.timers
  })
  const historyOrders = sb.control
    .groundTruth()
    .filter((o) => SETTINGS.fiatTypes.includes(o.fiatType) && (o.type === 1 || o.fiatType === 1)).length
  const orderIds = sb.control.groundTruth().map((o) => o.orderId)

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
      void op(() => client.setWebhookUrl({ webhookUrl }, { priority: 'interactive' }))
      void config.get().then((snap) => {
        coins = snap.coins.filter((c) => c.networks.length > 0)
        clock.schedule(quoting, 5_000)
        clock.schedule(resending, 20_000)
      })
      monitor.start()
    }, 0)
    // The orders the operator pins; the generator moves them along.
    for (let i = 0; i < PINNED; i++) {
      const o = sb.control.createOrder({ type: 1, fiatType: 1 })
      clock.schedule(() => monitor.watch(1, o.orderId), 45_000 + i * 1_000)
    }
    let firstSyncMin: number | null = null
    every(1_000, () => {
      if (firstSyncMin === null && monitor.states().every((st) => st.lastSuccessAt !== null)) firstSyncMin = simMin(clock.now() - start)
    })
    // The sandbox's generator: a tick every 2 s of simulated time.
    every(2_000, () => void sb.control.tick())
    // Tickers: refresh, then the next one a poll interval after it settled (as the service schedules it).
    const tick = () => {
      if (clock.now() >= end) return
      void tickers.refresh().finally(() => clock.schedule(tick, SETTINGS.tickerPollSeconds * 1000))
    }
    clock.schedule(tick, 0)
    // The renderer asks for the config when views open; stale sources revalidate.
    every(MIN, () => op(() => config.get()))
    every(10 * MIN, () => op(() => config.refreshAll()), clock.now() + 10 * MIN)
    // The operator switches the ticker fiat now and then (tickers:get with another fiat).
    let fiat = SETTINGS.tickerFiat
    const switchFiat = () => {
      fiat = fiat === 1 ? 2 : 1
      tickers.configure({ fiatType: fiat })
      return tickers.refresh()
    }
    every(5 * MIN, switchFiat, clock.now() + 5 * MIN)
    // Five impatient minutes.
    every(4_000, () => (clock.now() < start + BURST_TO ? op(() => config.refreshAll()) : undefined), start + BURST_FROM)
    every(6_000, () => (clock.now() < start + BURST_TO ? switchFiat() : undefined), start + BURST_FROM)

    // The operator's quotes, as the quotes:get and quotes:compare handlers send them (the
    // config first, then the quote at interactive priority), and webhook resends.
    const quoteWaitsMs: number[] = []
    const resendWaitsMs: number[] = []
    const failures: Record<string, number> = {}
    let quotes = 0
    let resends = 0
    // A request the budget refused made the operator wait as long as it allowed; a
    // refusal from the service's answer (not a wait) is counted but not timed.
    const timed = async (waits: number[], what: string, fn: () => Promise<unknown>) => {
      const t0 = clock.now()
      try {
        await fn()
      } catch (e) {
        const k = `${what} ${failureKind(e)}`
        failures[k] = (failures[k] ?? 0) + 1
        if (!(e instanceof ApiError && (e.kind === 'rate_limited' || e.kind === 'timeout' || e.kind === 'network'))) return
      }
      waits.push(clock.now() - t0)
    }
    const quoteOne = (coinId: number, chainId: number) => {
      quotes++
      return timed(quoteWaitsMs, 'quote', async () => {
        await config.get()
        await client.onrampQuote({ coinId, chainId, fiatType: 1, fiatAmount: '25000' }, { priority: 'interactive' })
      })
    }
    const quoting = () => {
      if (clock.now() >= end || coins.length === 0) return
      const coin = coins[Math.floor(rng() * coins.length)]!
      if (rng() < 0.2) void Promise.all(coin.networks.map((ch) => quoteOne(coin.id, ch)))
      else void quoteOne(coin.id, coin.networks[Math.floor(rng() * coin.networks.length)]!)
      clock.schedule(quoting, 3_000 + rng() * 3_000)
    }
    const resending = () => {
      if (clock.now() >= end) return
      const orderId = orderIds[Math.floor(rng() * orderIds.length)]!
      resends++
      void timed(resendWaitsMs, 'resend', () => client.resendWebhook({ orderId }, { priority: 'interactive' }))
      clock.schedule(resending, 20_000 + rng() * 20_000)
    }

    await clock.runUntil(end)
    const learned = facts.all<LearnedLimit>('limit').merchantHistory ?? null
    return {
      requests: Object.values(byEndpoint).reduce((n, s) => n + s.sent, 0),
      byEndpoint,
      r429,
      quotes,
      quoteWaitsMs,
      resends,
      resendWaitsMs,
      failures,
      opsFailed,
      firstSyncMin,
      historyOrders,
      learned,
      learnedAtMin: learned ? simMin(learned.learnedAt - start) : null,
      raisedAtMin: learned?.raisedAt != null ? simMin(learned.raisedAt - start) : null,
      realMs: Math.round(performance.now() - realStart)
    }
  } finally {
    await Promise.allSettled([config.close(), tickers.close(), monitor.stop()])
    // Let aborted requests settle before the store closes.
    await clock.runUntil(clock.now() + 60_000)
    await client.close()
    store.close()
    await sb.close()
    receiver.closeAllConnections()
    await new Promise((resolve) => receiver.close(resolve))
  }
}

const perEndpoint = (r: HourResult, pick: (v: { sent: number; r429: number; r429AtMin: number[] }) => unknown, only429 = false) =>
  Object.fromEntries(
    Object.entries(r.byEndpoint)
      .filter(([, v]) => !only429 || v.r429 > 0)
      .map(([k, v]) => [k, pick(v)])
  )

function figures(r: HourResult) {
  const q = summary(r.quoteWaitsMs)
  const w = summary(r.resendWaitsMs)
  return {
    requests: r.requests,
    r429: r.r429,
    r429PerEndpoint: perEndpoint(r, (v) => ({ r429: v.r429, atSimulatedMin: v.r429AtMin }), true),
    quotes: r.quotes,
    longestQuoteWaitMs: round(q.max, 0),
    p95QuoteWaitMs: round(q.p95, 0),
    resends: r.resends,
    longestResendWaitMs: round(w.max, 0),
    p95ResendWaitMs: round(w.p95, 0),
    operatorFailures: r.failures,
    failedBackgroundOperations: r.opsFailed,
    firstSyncDoneAtSimulatedMin: r.firstSyncMin,
    sentPerEndpoint: perEndpoint(r, (v) => v.sent)
  }
}

export async function budgetBench(ctx: BenchContext): Promise<BenchLine> {
  ctx.log(`budget: ${SIM_MS / MIN} simulated minutes with the app's rate budget`)
  const ours = await simulateHour('ours', ctx.tmp)
  ctx.log(`budget: the same with a fixed-window client limiter (${Math.round(ours.realMs / 1000)} s real for ours)`)
  const base = await simulateHour('fixedWindow', ctx.tmp)
  const oursFig = figures(ours)
  const documented429 = Object.entries(ours.byEndpoint)
    .filter(([k]) => k !== 'merchantHistory')
    .reduce((n, [, v]) => n + v.r429, 0)
  const history429 = ours.byEndpoint.merchantHistory?.r429 ?? 0
  return {
    bench: 'budget',
    what: `${SIM_MS / MIN} simulated minutes (discrete-event clock shared by client and sandbox; each request delayed 20-300 ms simulated). Settings as shipped: history every ${SETTINGS.historyPollSeconds} s for fiat types [${SETTINGS.fiatTypes.join(', ')}] (onramp and offramp INR), pinned orders every ${SETTINGS.watchPollSeconds} s (${PINNED} pinned), tickers every ${SETTINGS.tickerPollSeconds} s, reconcile window ${SETTINGS.reconcileHours} h. Sandbox: its own limiter, fixed one-minute windows per API key, 10/min on the six documented endpoints and ${HISTORY_LIMIT}/min on merchantHistory (undocumented, learned by the client), sandbox clock ${SKEW_MS / 1000} s ahead of the client's; ${ours.historyOrders} orders in the synced scopes to page through (${HISTORY_ORDERS} in all). Also: config get every 1 min + refreshAll every 10 min, ticker fiat switch every 5 min, minutes ${simMin(BURST_FROM)}-${simMin(BURST_TO)} impatient (refreshAll every 4 s, fiat switch every 6 s). Operator: a quote every 3-6 s (20% compares across networks; config then quote, interactive), a webhook resend every 20-40 s (interactive)`,
    simulatedMin: SIM_MS / MIN,
    realMs: ours.realMs,
    ...oursFig,
    learnedHistoryLimit: ours.learned
      ? {
          limit: ours.learned.limit,
          learnedAtSimulatedMin: ours.learnedAtMin,
          lastRaisedAtSimulatedMin: ours.raisedAtMin,
          note: 'a probe raises a learned limit by one after 30 min of clean, busy use; background polling uses at most the limit minus 2 reserved for operators, so a raise is only tested when the lane is busy'
        }
      : null,
    baseline: {
      target: {
        r429Documented: 0,
        r429History: 'as few as learning needs (at most 3)',
        longestQuoteWaitMs: QUOTE_TARGET_MS,
        longestResendWaitMs: QUOTE_TARGET_MS
      },
      fixedWindow: {
        what: 'same hour, same seed, the limiter a competent engineer would write (bench/lib/fixed-window-budget.ts): per endpoint a counter reset every minute of the client clock, 10/min on the documented six, no limit elsewhere, FIFO without operator priority, after a 429 the endpoint waits for the next client minute; nothing learned. Same ApiClient retry policy',
        ...figures(base)
      }
    },
    met: {
      noDocumented429: documented429 === 0,
      history429AtMost3: history429 <= 3,
      quoteWaitUnder1s: summary(ours.quoteWaitsMs).max < QUOTE_TARGET_MS,
      resendWaitUnder1s: summary(ours.resendWaitsMs).max < QUOTE_TARGET_MS
    }
  }
}

export default budgetBench
