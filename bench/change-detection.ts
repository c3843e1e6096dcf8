// Benchmark 2: change detection over open orders. The sandbox changes 5% of the open
// orders per minute (one advanceOrder at a time, evenly spaced); we measure the time from
// each change to the OrderMonitor's 'order:changed' event (history sync with `since`,
// poll interval 2 s) and the requests it sends per minute. Beside it, the baseline runs
// for real: a poller that asks orderStatus for every open order each interval, once
// inside the client's default rate budget (120/min for an endpoint with no documented
// limit) and once with the budget lifted. A second, smaller population (100 open orders)
// shows which request rate grows with the number of open orders.
import { mkdtemp } from 'node:fs/promises'
import { join } from 'node:path'
import { ApiClient } from '../src/main/api/client'
import { RateBudget } from '../src/main/api/rate-budget'
import { OrderMonitor } from '../src/main/monitor/order-monitor'
import { openLocalStore } from '../src/main/store/local-store'
import { startSandbox, type Sandbox } from '../src/sandbox'
import { statusInfo } from '../src/shared/domain/status'
import { round, summary } from './lib/stats'
import type { BenchContext, BenchLine } from './lib/types'

const POLL_MS = 2_000
const CHANGE_SHARE_PER_MIN = 0.05
const PHASE_A_MS = Number(process.env.BENCH_CHANGES_MS ?? 60_000)
const PHASE_B_MS = Number(process.env.BENCH_CHANGES_BASELINE_MS ?? 30_000)
const PHASE_C_MS = Number(process.env.BENCH_CHANGES_SMALL_MS ?? 30_000)
/** A change still unseen this long after the phase ends counts as missed. */
const GRACE_MS = POLL_MS + 2_000

interface OpenOrder {
  type: 1 | 2
  orderId: number
  status: number
}

const key = (type: number, orderId: number) => `${type}:${orderId}`

/** Changes made by the sandbox and when each detector first saw them. */
class ChangeLog {
  readonly made: { key: string; at: number }[] = []
  private readonly detectors = new Map<string, Map<string, number[]>>()
  readonly latencies = new Map<string, number[]>()

  detector(name: string): (type: number, orderId: number) => void {
    const pending = new Map<string, number[]>()
    this.detectors.set(name, pending)
    this.latencies.set(name, [])
    return (type, orderId) => {
      const k = key(type, orderId)
      const times = pending.get(k)
      if (!times) return
      const now = performance.now()
      for (const t of times) this.latencies.get(name)!.push(now - t)
      pending.delete(k)
    }
  }

  record(type: number, orderId: number): void {
    const at = performance.now()
    const k = key(type, orderId)
    this.made.push({ key: k, at })
    for (const pending of this.detectors.values()) pending.set(k, [...(pending.get(k) ?? []), at])
  }

  missed(name: string): number {
    let n = 0
    for (const times of this.detectors.get(name)?.values() ?? []) n += times.length
    return n
  }
}

/** The sandbox side: keeps `size` orders open (held) and changes 5% of them per minute. */
class Churn {
  readonly open: OpenOrder[] = []
  private timer: NodeJS.Timeout | undefined
  private seed = 12345

  constructor(
    private readonly sb: Sandbox,
    private readonly log: ChangeLog,
    private readonly onCreated: (o: OpenOrder) => void = () => undefined
  ) {}

  private rand(): number {
    // Deterministic choice of which order changes (mulberry32).
    this.seed = (this.seed + 0x6d2b79f5) | 0
    let t = this.seed
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }

  create(n: number): void {
    for (let i = 0; i < n; i++) {
      const type = i % 3 === 2 ? 2 : 1
      const o = this.sb.control.createOrder({ type, fiatType: 1, hold: true })
      const open = { type: o.type, orderId: o.orderId, status: o.status }
      this.open.push(open)
      this.onCreated(open)
    }
  }

  start(): void {
    const every = 60_000 / (CHANGE_SHARE_PER_MIN * this.open.length)
    this.timer = setInterval(() => this.changeOne(), every)
  }

  stop(): void {
    clearInterval(this.timer)
  }

  private changeOne(): void {
    const i = Math.floor(this.rand() * this.open.length)
    const o = this.open[i]!
    const t = this.sb.control.advanceOrder(o.orderId)
    o.status = t.status
    this.log.record(o.type, o.orderId)
    if (statusInfo(o.type, t.status).terminal || t.history.length >= 10) {
      // Keep the open population constant: a finished order is replaced by a new one.
      this.open.splice(i, 1)
      this.create(1)
    }
  }
}

/** Ours: the app's order monitor, history sync every POLL_MS, in this process. */
async function startOurs(sb: Sandbox, dir: string, onChange: (type: number, orderId: number) => void) {
  const store = openLocalStore(dir)
  const client = new ApiClient({
    profileId: 'ours',
    baseUrl: sb.url,
    serviceName: sb.serviceName,
    apiKey: sb.apiKey,
    getSecret: async () => sb.apiSecret
  })
  const monitor = new OrderMonitor({ client, store, fiatTypes: [1], historyPollMs: POLL_MS, watchPollMs: 3_600_000 })
  await monitor.syncNow()
  monitor.on('order:changed', (p) => onChange(p.row.type, p.row.orderId))
  const requests = () => client.stats().merchantHistory
  return {
    requests,
    start: () => monitor.start(),
    async close() {
      await monitor.stop()
      await client.close()
      store.close()
    }
  }
}

/**
 * The baseline: one orderStatus request per open order per interval. A sweep asks every
 * known order (six at a time, the transport's connections per origin); the next sweep
 * starts POLL_MS after the previous one started, or at once when a sweep ran longer.
 */
class PerOrderPoller {
  readonly client: ApiClient
  private readonly known = new Map<string, OpenOrder>()
  private running = false
  private loop: Promise<void> | null = null
  private readonly abort = new AbortController()

  constructor(
    sb: Sandbox,
    budgeted: boolean,
    private readonly onChange: (type: number, orderId: number) => void
  ) {
    const budget = budgeted ? undefined : new RateBudget({ profileId: 'per-order', defaultLimitPerMinute: 1e9 })
    this.client = new ApiClient({
      profileId: 'per-order',
      baseUrl: sb.url,
      serviceName: sb.serviceName,
      apiKey: sb.apiKey,
      getSecret: async () => sb.apiSecret,
      budget
    })
  }

  track(o: OpenOrder): void {
    this.known.set(key(o.type, o.orderId), { ...o })
  }

  start(): void {
    this.running = true
    this.loop = (async () => {
      while (this.running) {
        const started = performance.now()
        const list = [...this.known.values()]
        let next = 0
        const worker = async () => {
          while (this.running && next < list.length) {
            const o = list[next++]!
            try {
              const { orderStatus } = await this.client.orderStatus(
                { orderId: o.orderId, type: o.type },
                { priority: 'background', signal: this.abort.signal }
              )
              if (orderStatus !== o.status) {
                o.status = orderStatus
                this.onChange(o.type, o.orderId)
              }
            } catch {
              if (!this.running) return
            }
          }
        }
        await Promise.all(Array.from({ length: 6 }, worker))
        const wait = POLL_MS - (performance.now() - started)
        if (wait > 0 && this.running) await new Promise((r) => setTimeout(r, wait))
      }
    })()
  }

  async close(): Promise<void> {
    this.running = false
    this.abort.abort()
    await this.loop
    await this.client.close()
  }
}

const perMinute = (n: number, ms: number) => round((n * 60_000) / ms, 0)
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

function latencyFigures(log: ChangeLog, name: string) {
  const s = summary(log.latencies.get(name) ?? [])
  return { detected: s.n, missed: log.missed(name), p50Ms: round(s.p50, 0), p95Ms: round(s.p95, 0), maxMs: round(s.max, 0) }
}

export async function changeDetectionBench(ctx: BenchContext): Promise<BenchLine> {
  // ---- phase A: 1,000 open orders; ours and the budgeted per-order poller side by side
  ctx.log(`changes: phase A, 1000 open orders, ours + per-order polling within the budget, ${PHASE_A_MS / 1000} s`)
  const a = await (async () => {
    const sb = await startSandbox({ orders: 2_000, seed: 2, autoGenerate: false })
    const log = new ChangeLog()
    const budgeted = new PerOrderPoller(sb, true, log.detector('perOrderBudgeted'))
    const churn = new Churn(sb, log, (o) => budgeted.track(o))
    churn.create(1_000)
    const ours = await startOurs(sb, await mkdtemp(join(ctx.tmp, 'changes-a-')), log.detector('ours'))
    try {
      const r0 = ours.requests()
      const b0 = budgeted.client.stats().orderStatus
      ours.start()
      budgeted.start()
      churn.start()
      const t0 = performance.now()
      await sleep(PHASE_A_MS)
      churn.stop()
      const elapsed = performance.now() - t0
      const oursReq = ours.requests() - r0
      const budgetedReq = budgeted.client.stats().orderStatus - b0
      await sleep(GRACE_MS)
      return {
        changes: log.made.length,
        elapsed,
        ours: { ...latencyFigures(log, 'ours'), requestsPerMin: perMinute(oursReq, elapsed) },
        budgeted: { ...latencyFigures(log, 'perOrderBudgeted'), requestsPerMin: perMinute(budgetedReq, elapsed) }
      }
    } finally {
      churn.stop()
      await ours.close()
      await budgeted.close()
      await sb.close()
    }
  })()

  // ---- phase B: 1,000 open orders; the per-order poller with the budget lifted, alone
  ctx.log(`changes: phase B, 1000 open orders, per-order polling unbudgeted, ${PHASE_B_MS / 1000} s`)
  const b = await (async () => {
    const sb = await startSandbox({ orders: 2_000, seed: 3, autoGenerate: false })
    const log = new ChangeLog()
    const poller = new PerOrderPoller(sb, false, log.detector('perOrder'))
    const churn = new Churn(sb, log, (o) => poller.track(o))
    churn.create(1_000)
    try {
      const r0 = poller.client.stats().orderStatus
      poller.start()
      churn.start()
      const t0 = performance.now()
      await sleep(PHASE_B_MS)
      churn.stop()
      const elapsed = performance.now() - t0
      const req = poller.client.stats().orderStatus - r0
      await sleep(GRACE_MS)
      return { changes: log.made.length, ...latencyFigures(log, 'perOrder'), requestsPerMin: perMinute(req, elapsed) }
    } finally {
      churn.stop()
      await poller.close()
      await sb.close()
    }
  })()

  // ---- phase C: 100 open orders; ours and the unbudgeted per-order poller side by side
  ctx.log(`changes: phase C, 100 open orders, ours + per-order polling unbudgeted, ${PHASE_C_MS / 1000} s`)
  const c = await (async () => {
    const sb = await startSandbox({ orders: 2_000, seed: 4, autoGenerate: false })
    const log = new ChangeLog()
    const poller = new PerOrderPoller(sb, false, log.detector('perOrder'))
    const churn = new Churn(sb, log, (o) => poller.track(o))
    churn.create(100)
    const ours = await startOurs(sb, await mkdtemp(join(ctx.tmp, 'changes-c-')), log.detector('ours'))
    try {
      const r0 = ours.requests()
      const p0 = poller.client.stats().orderStatus
      ours.start()
      poller.start()
      churn.start()
      const t0 = performance.now()
      await sleep(PHASE_C_MS)
      churn.stop()
      const elapsed = performance.now() - t0
      const oursReq = ours.requests() - r0
      const pollerReq = poller.client.stats().orderStatus - p0
      await sleep(GRACE_MS)
      return {
        changes: log.made.length,
        oursRequestsPerMin: perMinute(oursReq, elapsed),
        perOrderRequestsPerMin: perMinute(pollerReq, elapsed),
        ours: latencyFigures(log, 'ours')
      }
    } finally {
      churn.stop()
      await ours.close()
      await poller.close()
      await sb.close()
    }
  })()

  const targetP95 = POLL_MS + 1_000
  return {
    bench: 'changes',
    what: `real time, sandbox in-process: 1000 open (held) INR orders, ${CHANGE_SHARE_PER_MIN * 100}%/min changed one at a time by advanceOrder; OrderMonitor history sync (2 scopes) every ${POLL_MS / 1000} s with the default budget; latency = sandbox change -> 'order:changed'. Phase A ${PHASE_A_MS / 1000} s (ours + per-order polling within the budget, side by side), phase B ${PHASE_B_MS / 1000} s (per-order polling unbudgeted, alone), phase C ${PHASE_C_MS / 1000} s with 100 open orders`,
    openOrders: 1_000,
    pollMs: POLL_MS,
    changes: a.changes,
    p50Ms: a.ours.p50Ms,
    p95Ms: a.ours.p95Ms,
    maxMs: a.ours.maxMs,
    detected: a.ours.detected,
    missed: a.ours.missed,
    requestsPerMin: a.ours.requestsPerMin,
    requestsPerMinAt100Open: c.oursRequestsPerMin,
    baseline: {
      target: { p95Ms: targetP95, requestsPerMin: 'independent of open orders' },
      perOrderUnbudgeted: {
        what: 'orderStatus for each of 1000 open orders every 2 s, 6 in flight, rate budget lifted',
        changes: b.changes,
        p50Ms: b.p50Ms,
        p95Ms: b.p95Ms,
        detected: b.detected,
        missed: b.missed,
        requestsPerMin: b.requestsPerMin,
        requestsPerMinAt100Open: c.perOrderRequestsPerMin
      },
      perOrderBudgeted: {
        what: 'the same poller inside the default budget (orderStatus 120/min), run beside ours on the same changes',
        p50Ms: a.budgeted.p50Ms,
        p95Ms: a.budgeted.p95Ms,
        detected: a.budgeted.detected,
        missed: a.budgeted.missed,
        requestsPerMin: a.budgeted.requestsPerMin
      }
    },
    met: {
      p95WithinPollPlus1s: a.ours.p95Ms <= targetP95 && a.ours.missed === 0,
      requestsIndependentOfOpenOrders: Math.abs(a.ours.requestsPerMin - c.oursRequestsPerMin) <= 0.1 * c.oursRequestsPerMin
    }
  }
}

export default changeDetectionBench
