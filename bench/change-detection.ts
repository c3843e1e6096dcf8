// Benchmark 2: change detection at the polling settings the app ships, on a discrete-event
// clock shared by the client and the sandbox (lib/virtual-clock.ts), so an hour at the
// shipped 30 s history interval takes seconds of real time and does not depend on how
// busy the machine is. Every request reaches the sandbox 20-300 ms (simulated) after it
// left the client (lib/sim-network.ts).
//
// Per run: the sandbox keeps N open orders (held) and the bench advances 5% of them a
// minute, one at a time, evenly spaced: the UNWATCHED changes. Five more orders move at
// the sandbox generator's own pace (its dwell times) and are pinned by the "operator" as
// soon as the monitor has shown them: the WATCHED changes; a pinned order that finishes
// is replaced by a new one. The client is the app's own: ApiClient with its default rate
// budget and clock probe, and an OrderMonitor configured from Settings as ProfileSession
// configures it (fiat types [1], history and watch intervals from the settings, the
// default reconcile). Latency runs from the change at the sandbox to the monitor's
// 'order:changed'. One simulated minute of warm-up (the first sync), then a measured
// hour, which holds the hourly reconcile pass, so requests per minute are the hour's.
//
// Baseline, side by side on the same changes: per-order orderStatus polling at OUR
// request budget. Each request our monitor sends (merchantHistory or orderStatus) grants
// the baseline one orderStatus at the same instant; it spends them round-robin over every
// open order (it is handed each new order as it is created, which flatters it). After the
// hour it goes on at the hour's average rate until it has seen every change, so its
// latencies are complete rather than cut off. lib/per-order-budget.ts turns the budget
// into the number of orders such polling can cover at our p95.
import { mkdtemp } from 'node:fs/promises'
import { join } from 'node:path'
import type { ApiClient } from '../src/main/api/client'
import { SkewClock } from '../src/main/api/clock'
import { RateBudget } from '../src/main/api/rate-budget'
import { DEFAULT_SETTINGS } from '../src/main/app-settings'
import { monitorSchedule, OrderMonitor } from '../src/main/monitor/order-monitor'
import { openLocalStore } from '../src/main/store/local-store'
import { startSandbox, type Sandbox } from '../src/sandbox'
import { mulberry32 } from '../src/sandbox/rng'
import type { EndpointName } from '../src/shared/api/endpoints'
import { statusInfo } from '../src/shared/domain/status'
import { Settings, type OrderType } from '../src/shared/ipc/contract'
import { ChangeLog, type ChangeLabel } from './lib/change-log'
import { expectedQuantileMs, ordersCovered, perMinute, sweepMs } from './lib/per-order-budget'
import { NETWORK_DELAY_MS, simulatedNetwork } from './lib/sim-network'
import { benchList, benchSize } from './lib/smoke'
import { round, summary } from './lib/stats'
import type { BenchContext, BenchLine } from './lib/types'
import { VirtualClock } from './lib/virtual-clock'
import { sandboxClient } from './lib/sandbox-client'

const MIN = 60_000
const T0 = Date.parse('2026-03-02T09:00:00.000Z')
const CHANGE_SHARE_PER_MIN = 0.05
const WATCHED_ORDERS = 5
const WARMUP_MS = MIN
const WINDOW_MS = benchSize('BENCH_CHANGES_SIM_MS', 60 * MIN, 3 * MIN)
/** Open orders per run: the line's figures are the larger size's, the smaller beside them. */
const OPEN_SIZES = benchList([100, 1_000], [100])
/** Historical orders in the sandbox beside the open ones. */
const HISTORY_ORDERS = benchSize(null, 2_000, 200)
/** The sandbox generator's period (its default). */
const TICK_MS = 2_000
/** The monitor's requests: what the baseline's budget is made of. */
const MONITOR_ENDPOINTS: readonly EndpointName[] = ['merchantHistory', 'orderStatus']

export interface PollSettings {
  name: 'shipped' | 'minimum'
  historyPollSeconds: number
  watchPollSeconds: number
}

/** What Settings ships (src/main/app-settings.ts). */
export const SHIPPED: PollSettings = {
  name: 'shipped',
  historyPollSeconds: DEFAULT_SETTINGS.historyPollSeconds,
  watchPollSeconds: DEFAULT_SETTINGS.watchPollSeconds
}

/** The shortest intervals the contract's Settings schema accepts. */
export const MINIMUM: PollSettings = {
  name: 'minimum',
  historyPollSeconds: Settings.shape.historyPollSeconds.minValue ?? 1,
  watchPollSeconds: Settings.shape.watchPollSeconds.minValue ?? 1
}

const key = (type: number, orderId: number) => `${type}:${orderId}`

interface Tracked {
  type: OrderType
  orderId: number
  status: number
}

/**
 * The baseline: orderStatus for one open order per granted request, round-robin. It
 * drops an order once it has seen it terminal.
 */
class PerOrderPoller {
  readonly client: ApiClient
  private readonly orders: Tracked[] = []
  private next = 0
  private inflight = 0
  private polls = 0
  private sizeSum = 0
  /** Polls that got no answer (their turn is lost, as it would be in a real poller). */
  failed = 0
  readonly abort = new AbortController()

  constructor(
    sb: Sandbox,
    clock: VirtualClock,
    random: () => number,
    private readonly onChange: (k: string) => void
  ) {
    this.client = sandboxClient(sb, {
      profileId: 'per-order',
      // Its pace is the grants; the client's own budget must not pace it a second time.
      budget: new RateBudget({ profileId: 'per-order', defaultLimitPerMinute: 1e9, now: clock.now, timers: clock.timers }),
      clock: new SkewClock({ now: clock.now }),
      clockProbe: false,
      transport: simulatedNetwork(clock, random),
      retry: { sleep: clock.sleep, random }
    })
  }

  get size(): number {
    return this.orders.length
  }

  track(o: Tracked): void {
    this.orders.push({ ...o })
  }

  /** Orders in the rotation, averaged over the polls (orders join at creation and leave once seen terminal). */
  get meanSize(): number {
    return this.polls ? this.sizeSum / this.polls : 0
  }

  /** One request's worth of budget: polls the next order in turn. */
  grant(): void {
    if (this.orders.length === 0) return
    this.polls++
    this.sizeSum += this.orders.length
    this.next %= this.orders.length
    const o = this.orders[this.next++]!
    this.inflight++
    void this.client
      .orderStatus({ orderId: o.orderId, type: o.type }, { priority: 'background', signal: this.abort.signal })
      .then(({ orderStatus }) => {
        if (orderStatus === o.status) return
        o.status = orderStatus
        this.onChange(key(o.type, o.orderId))
        if (statusInfo(o.type, orderStatus).terminal) {
          const i = this.orders.indexOf(o)
          this.orders.splice(i, 1)
          if (i < this.next) this.next--
        }
      })
      .catch((e: unknown) => {
        this.failed++
        if (process.env.BENCH_DEBUG) console.error('per-order poll failed', e)
      })
      .finally(() => this.inflight--)
  }

  get busy(): boolean {
    return this.inflight > 0
  }

  async close(): Promise<void> {
    this.abort.abort()
    await this.client.close()
  }
}

interface LatencyFigures {
  changes: number
  seen: number
  unseen: number
  p50Ms: number
  p95Ms: number
  maxMs: number
}

export interface RunResult {
  settings: PollSettings
  openOrders: number
  realMs: number
  ours: {
    unwatched: LatencyFigures
    watched: LatencyFigures
    requestsPerMin: number
    perEndpointPerMin: Partial<Record<EndpointName, number>>
    reconcileRunsInHour: number
    /** Changes to orders the monitor had not shown yet (a new order moved before its first sync): not latency samples. */
    beforeFirstSeen: number
  }
  baseline: {
    requestsPerMin: number
    all: LatencyFigures
    meanOrdersInRotation: number
    failedPolls: number
    tailMs: number
  }
}

function figures(log: ChangeLog, detector: string, label?: ChangeLabel): LatencyFigures {
  const s = summary(log.latencies(detector, label))
  return {
    changes: log.made(label),
    seen: s.n,
    unseen: log.unseen(detector, label),
    p50Ms: round(s.p50, 0),
    p95Ms: round(s.p95, 0),
    maxMs: round(s.max, 0)
  }
}

/** One simulated hour at `settings` with `open` open orders; ours and the baseline side by side. */
export async function runChangeDetection(settings: PollSettings, open: number, tmp: string): Promise<RunResult> {
  const realStart = performance.now()
  const clock = new VirtualClock(T0)
  const random = mulberry32(open * 31 + settings.historyPollSeconds)
  const sb = await startSandbox({ orders: HISTORY_ORDERS, seed: 2, autoGenerate: false, createChance: 0, now: clock.now })
  const store = openLocalStore(await mkdtemp(join(tmp, `changes-${settings.name}-${open}-`)))
  const client = sandboxClient(sb, {
    profileId: 'ours',
    budget: new RateBudget({ profileId: 'ours', now: clock.now, timers: clock.timers }),
    clock: new SkewClock({ now: clock.now }),
    transport: simulatedNetwork(clock, random),
    retry: { sleep: clock.sleep, random }
  })
  const monitor = new OrderMonitor({
    client,
    store,
    ...monitorSchedule({ ...DEFAULT_SETTINGS, ...settings }),
    now: clock.now,
    serviceNow: () => client.clock.now(),
    timers: clock.timers
  })
  const log = new ChangeLog(clock.now)
  const oursSaw = log.detector('ours')
  const baseline = new PerOrderPoller(sb, clock, random, log.detector('perOrder'))

  const windowStart = T0 + WARMUP_MS
  const windowEnd = windowStart + WINDOW_MS
  const inWindow = () => clock.now() >= windowStart && clock.now() < windowEnd

  // Orders the monitor has shown (the first sync's, then each order:created).
  const seen = new Set<string>()
  const held: Tracked[] = []
  const pinned = new Set<string>()
  /** Moving orders created to be pinned once the monitor shows them. */
  const toPin = new Set<string>()
  let beforeFirstSeen = 0

  const changed = (type: OrderType, orderId: number) => {
    const k = key(type, orderId)
    if (!seen.has(k)) beforeFirstSeen++
    else log.record(k, pinned.has(k) ? 'watched' : 'unwatched')
  }
  const createHeld = () => {
    const type: OrderType = random() < 2 / 3 ? 1 : 2
    const o = sb.control.createOrder({ type, fiatType: 1, hold: true })
    const t = { type: o.type, orderId: o.orderId, status: o.status }
    held.push(t)
    baseline.track(t)
  }
  const createMoving = () => {
    const o = sb.control.createOrder({ type: 1, fiatType: 1 })
    toPin.add(key(o.type, o.orderId))
    baseline.track({ type: o.type, orderId: o.orderId, status: o.status })
  }

  const oursSent: Partial<Record<EndpointName, number>> = {}
  let reconciles = 0
  const reconciling = new Set<string>()
  client.onRequest((e) => {
    if (!inWindow()) return
    oursSent[e.endpoint] = (oursSent[e.endpoint] ?? 0) + 1
    if (MONITOR_ENDPOINTS.includes(e.endpoint)) baseline.grant()
  })
  // One count per reconcile run of a scope (a run reports its state after every page).
  monitor.on('sync:state', (s) => {
    const scope = key(s.type, s.fiatType)
    const now = s.running && s.mode === 'reconcile'
    if (now && !reconciling.has(scope) && inWindow()) reconciles++
    if (now) reconciling.add(scope)
    else reconciling.delete(scope)
  })
  // The event names the order; its status is the store's, as a window would ask for it.
  monitor.on('order:created', ({ type, orderId }) => {
    const k = key(type, orderId)
    seen.add(k)
    const status = store.orders.get(type, orderId)?.status
    if (toPin.delete(k) && status !== undefined && !statusInfo(type, status).terminal) {
      pinned.add(k)
      monitor.watch(type, orderId)
    }
  })
  monitor.on('order:changed', (p) => oursSaw(key(p.row.type, p.row.orderId)))

  try {
    for (let i = 0; i < open; i++) createHeld()
    for (const o of held) seen.add(key(o.type, o.orderId))
    monitor.start()
    await clock.runUntil(windowStart)
    const synced = store.orders.count()
    if (synced < open) throw new Error(`the first sync holds ${synced} orders, fewer than the ${open} open ones`)

    // Unwatched: 5% of the open orders a minute, one at a time, evenly spaced.
    const every = MIN / (CHANGE_SHARE_PER_MIN * open)
    const churn = () => {
      if (clock.now() >= windowEnd) return
      const i = Math.floor(random() * held.length)
      const o = held[i]!
      const t = sb.control.advanceOrder(o.orderId)
      changed(o.type, o.orderId)
      // Keep the open population constant: a finished order is replaced by a new one.
      if (statusInfo(o.type, t.status).terminal || t.history.length >= 10) {
        held.splice(i, 1)
        createHeld()
      }
      clock.schedule(churn, every)
    }
    clock.schedule(churn, every)
    // Watched: the generator moves its orders at its own pace; finished ones are replaced.
    for (let i = 0; i < WATCHED_ORDERS; i++) createMoving()
    const tick = () => {
      if (clock.now() >= windowEnd) return
      const r = sb.control.tick()
      const done = new Set(r.completed)
      for (const id of r.advanced) {
        const o = sb.control.order(id)!
        changed(o.type, id)
        if (!done.has(id)) continue
        const k = key(o.type, id)
        if (pinned.delete(k) || toPin.delete(k)) createMoving()
      }
      clock.schedule(tick, TICK_MS)
    }
    clock.schedule(tick, TICK_MS)

    // The hour, then long enough for ours to report what changed at its end.
    await clock.runUntil(windowEnd + 2 * settings.historyPollSeconds * 1000 + 5_000)
    const oursFigures = {
      unwatched: figures(log, 'ours', 'unwatched'),
      watched: figures(log, 'ours', 'watched')
    }
    await clock.finish(monitor.stop(), "the monitor's stop()")

    // The baseline goes on at the hour's average rate until it has seen every change.
    const monitorRequests = MONITOR_ENDPOINTS.reduce((n, e) => n + (oursSent[e] ?? 0), 0)
    const rate = perMinute(monitorRequests, WINDOW_MS)
    const tailStart = clock.now()
    const tailCap = tailStart + Math.max(30 * MIN, 2 * sweepMs(baseline.size, rate))
    const spend = () => {
      if (log.unseen('perOrder') === 0 || clock.now() >= tailCap) return
      baseline.grant()
      clock.schedule(spend, MIN / rate)
    }
    spend()
    while (clock.now() < tailCap && (log.unseen('perOrder') > 0 || baseline.busy)) await clock.runUntil(clock.now() + 10 * MIN)

    return {
      settings,
      openOrders: open,
      realMs: Math.round(performance.now() - realStart),
      ours: {
        ...oursFigures,
        requestsPerMin: rate,
        perEndpointPerMin: Object.fromEntries(Object.entries(oursSent).map(([e, n]) => [e, perMinute(n, WINDOW_MS)])),
        reconcileRunsInHour: reconciles,
        beforeFirstSeen
      },
      baseline: {
        requestsPerMin: rate,
        all: figures(log, 'perOrder'),
        meanOrdersInRotation: round(baseline.meanSize, 0),
        failedPolls: baseline.failed,
        tailMs: clock.now() - tailStart
      }
    }
  } finally {
    await monitor.stop()
    await baseline.close()
    // Let aborted requests settle before the store closes.
    await clock.runUntil(clock.now() + MIN)
    await client.close()
    store.close()
    await sb.close()
  }
}

const seconds = (s: PollSettings) => `history ${s.historyPollSeconds} s, watch ${s.watchPollSeconds} s`

/** One line per settings: its figures at the most open orders (1,000), the fewest (100) beside them. */
function line(settings: PollSettings, runs: RunResult[]): BenchLine {
  const byOpen = [...runs].sort((a, b) => a.openOrders - b.openOrders)
  const small = byOpen[0]!
  const big = byOpen[byOpen.length - 1]!
  const target = { unwatchedP95Ms: (settings.historyPollSeconds + 1) * 1000, watchedP95Ms: (settings.watchPollSeconds + 1) * 1000 }
  const at = (r: RunResult) => ({
    openOrders: r.openOrders,
    unwatched: r.ours.unwatched,
    watched: r.ours.watched,
    requestsPerMin: r.ours.requestsPerMin,
    perEndpointPerMin: r.ours.perEndpointPerMin,
    reconcileRunsInHour: r.ours.reconcileRunsInHour,
    beforeFirstSeen: r.ours.beforeFirstSeen,
    realMs: r.realMs
  })
  const perOrder = (r: RunResult) => ({
    openOrders: r.openOrders,
    requestsPerMin: r.baseline.requestsPerMin,
    ...r.baseline.all,
    meanOrdersInRotation: r.baseline.meanOrdersInRotation,
    failedPolls: r.baseline.failedPolls,
    expectedP95Ms: round(expectedQuantileMs(r.baseline.meanOrdersInRotation, r.baseline.requestsPerMin, 0.95), 0),
    ordersCoveredAtOurUnwatchedP95: ordersCovered(r.baseline.requestsPerMin, r.ours.unwatched.p95Ms),
    ordersCoveredAtOurWatchedP95: ordersCovered(r.baseline.requestsPerMin, r.ours.watched.p95Ms)
  })
  return {
    bench: settings.name === 'shipped' ? 'changes' : 'changes-minimum',
    settings: `${settings.name === 'shipped' ? 'Settings defaults' : "the contract's minimum"}: ${seconds(settings)}; fiat types [1], reconcile ${DEFAULT_SETTINGS.reconcileHours} h, default rate budget`,
    what: `${WINDOW_MS / MIN} simulated minutes after 1 min of first sync (virtual clock shared by client and sandbox; each request reaches the sandbox ${NETWORK_DELAY_MS.min}-${NETWORK_DELAY_MS.max} ms after it is sent); unwatched: N held INR orders, ${CHANGE_SHARE_PER_MIN * 100}%/min advanced one at a time; watched: ${WATCHED_ORDERS} orders moved by the sandbox generator (its dwell times) and pinned once shown, replaced when finished; latency = change at the sandbox -> OrderMonitor 'order:changed'; requests = the monitor's merchantHistory + orderStatus over the hour`,
    historyPollSeconds: settings.historyPollSeconds,
    watchPollSeconds: settings.watchPollSeconds,
    openOrders: big.openOrders,
    unwatchedP50Ms: big.ours.unwatched.p50Ms,
    unwatchedP95Ms: big.ours.unwatched.p95Ms,
    unwatchedMaxMs: big.ours.unwatched.maxMs,
    watchedP50Ms: big.ours.watched.p50Ms,
    watchedP95Ms: big.ours.watched.p95Ms,
    watchedMaxMs: big.ours.watched.maxMs,
    requestsPerMin: big.ours.requestsPerMin,
    requestsPerMinAt100Open: small.ours.requestsPerMin,
    runs: [at(small), at(big)],
    baseline: {
      target,
      perOrderAtOurBudget: {
        what: "orderStatus round-robin over every open order, one request per request our monitor sent (same instants), then at the hour's average rate until every change was seen; handed each new order at creation",
        runs: [perOrder(small), perOrder(big)]
      }
    },
    met: {
      unwatchedP95: big.ours.unwatched.p95Ms <= target.unwatchedP95Ms && small.ours.unwatched.p95Ms <= target.unwatchedP95Ms,
      watchedP95: big.ours.watched.p95Ms <= target.watchedP95Ms && small.ours.watched.p95Ms <= target.watchedP95Ms,
      nothingUnseen: runs.every((r) => r.ours.unwatched.unseen === 0 && r.ours.watched.unseen === 0),
      requestsFlatInOpenOrders: Math.abs(big.ours.requestsPerMin - small.ours.requestsPerMin) <= 0.1 * small.ours.requestsPerMin
    }
  }
}

export async function changeDetectionBench(ctx: BenchContext): Promise<BenchLine[]> {
  const lines: BenchLine[] = []
  for (const settings of [SHIPPED, MINIMUM]) {
    const runs: RunResult[] = []
    for (const open of OPEN_SIZES) {
      ctx.log(`changes: ${settings.name} (${seconds(settings)}), ${open} open orders, ${WINDOW_MS / MIN} simulated minutes`)
      const r = await runChangeDetection(settings, open, ctx.tmp)
      ctx.log(
        `changes: unwatched p95 ${r.ours.unwatched.p95Ms} ms, watched p95 ${r.ours.watched.p95Ms} ms, ${r.ours.requestsPerMin}/min; per-order p95 ${r.baseline.all.p95Ms} ms (${Math.round(r.realMs / 1000)} s real)`
      )
      runs.push(r)
    }
    lines.push(line(settings, runs))
  }
  return lines
}

export default changeDetectionBench
