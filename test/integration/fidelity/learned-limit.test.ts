// An undocumented limit learned and kept: the sandbox allows 10 merchantHistory calls a
// minute (a limit the spec does not show), counted in fixed or sliding minutes. A first
// sync of 3,000 orders takes at most 3 answers of 429, and after a restart a minute later (a
// new client on the same profile database) a full re-read takes none.
//
// Minutes pass on a virtual clock shared by the sandbox and the client's budget, clock and
// retry waits: when nothing is on the wire, time jumps to the next timer, so the test
// spends seconds, not the minutes the budget really waits. Pages of 100 (not the shipped
// 500) so the sync needs more than one minute's worth of calls.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { ApiClient } from '../../../src/main/api/client'
import { SkewClock } from '../../../src/main/api/clock'
import { RateBudget, type LearnedLimit, type Timers } from '../../../src/main/api/rate-budget'
import { HistorySync } from '../../../src/main/monitor/history-sync'
import { openLocalStore, type LocalStore } from '../../../src/main/store/local-store'
import { startSandbox, type Sandbox } from '../../../src/sandbox'

const dirs: string[] = []
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
})

/**
 * Virtual time: real time plus the jumps taken while the sync was blocked on a timer (a
 * caller queued in the budget, or a retry sleeping), never while it works or a request
 * is on the wire.
 */
class VirtualTime {
  private sleeping = 0
  blocked: () => boolean = () => false
  private jump = 0
  private readonly pending = new Set<{ due: number; fn: () => void }>()
  private lastActivity = Date.now()
  private readonly driver: ReturnType<typeof setInterval>
  readonly now = (): number => Date.now() + this.jump
  readonly timers: Timers = {
    setTimeout: (fn, ms) => {
      const t = { due: this.now() + ms, fn }
      this.pending.add(t)
      return t
    },
    clearTimeout: (h) => void this.pending.delete(h as { due: number; fn: () => void })
  }
  readonly sleep = (ms: number, signal?: AbortSignal): Promise<void> =>
    new Promise((resolve, reject) => {
      this.sleeping++
      const h = this.timers.setTimeout(() => {
        this.sleeping--
        resolve()
      }, ms)
      signal?.addEventListener('abort', () => (this.timers.clearTimeout(h), reject(signal.reason)), { once: true })
    })

  constructor() {
    this.driver = setInterval(() => this.drive(), 5)
  }
  /** Something happened on the wire: do not jump for a moment. */
  activity(): void {
    this.lastActivity = Date.now()
  }
  stop(): void {
    clearInterval(this.driver)
  }
  /** Time passes with nothing running (an app closed for a while). */
  pass(ms: number): void {
    this.jump += ms
  }
  private drive(): void {
    const due = [...this.pending].filter((t) => t.due <= this.now())
    if (due.length === 0 && this.pending.size > 0 && (this.sleeping > 0 || this.blocked()) && Date.now() - this.lastActivity > 20) {
      const next = Math.min(...[...this.pending].map((t) => t.due))
      this.jump += next - this.now()
      due.push(...[...this.pending].filter((t) => t.due <= this.now()))
    }
    for (const t of due) {
      this.pending.delete(t)
      this.lastActivity = Date.now()
      t.fn()
    }
  }
}

function client(sb: Sandbox, store: LocalStore, vt: VirtualTime, tooMany: { n: number }): ApiClient {
  const c = new ApiClient({
    profileId: 'limits',
    baseUrl: sb.url,
    serviceName: sb.serviceName,
    apiKey: sb.apiKey,
    getSecret: async () => sb.apiSecret,
    budget: new RateBudget({
      profileId: 'limits',
      now: vt.now,
      timers: vt.timers,
      limits: { load: () => store.serviceFacts.all<LearnedLimit>('limit'), save: (k, v) => store.serviceFacts.put('limit', k, v) }
    }),
    clock: new SkewClock({ now: vt.now }),
    retry: { sleep: vt.sleep, random: () => 0 }
  })
  vt.blocked = () => c.budget.snapshot().endpoints.some((e) => e.queued > 0)
  c.onRequest((e) => {
    vt.activity()
    if (e.endpoint === 'merchantHistory' && e.httpStatus === 429) tooMany.n++
  })
  return c
}

describe.each(['fixed', 'sliding'] as const)('10 history calls a minute, counted in %s minutes', (limiter) => {
  it('a first sync of 3,000 orders meets at most 3 answers of 429, and none after a restart a minute later', async () => {
    const vt = new VirtualTime()
    const sb = await startSandbox({
      seed: 71,
      orders: 3000,
      autoGenerate: false,
      now: vt.now,
      timestampWindowMs: 24 * 3600_000,
      readings: { unknownLimits: { merchantHistory: 10 }, limiter }
    })
    const dir = mkdtempSync(join(tmpdir(), 'rampdesk-limit-'))
    dirs.push(dir)
    try {
      let store = openLocalStore(dir)
      const first = { n: 0 }
      let c = client(sb, store, vt, first)
      let sync = new HistorySync({ client: c, store, pageSize: 100, now: vt.now })
      let requests = 0
      for (const type of [1, 2] as const) requests += (await sync.run(type, 1)).requests
      expect(requests).toBeGreaterThan(20)
      const total = sb.control.groundTruth({ type: 1, fiatType: 1 }).length + sb.control.groundTruth({ type: 2, fiatType: 1 }).length
      expect(store.orders.count()).toBe(total)
      expect(first.n).toBeLessThanOrEqual(3)
      expect(store.serviceFacts.all<LearnedLimit>('limit').merchantHistory?.limit).toBeLessThanOrEqual(10)
      await c.close()
      store.close()

      // Restart a minute later: the learned limit is where the new client starts. (A restart
      // within the minute also starts from the slots the last run spent, which this bare
      // client does not load: ProfileSession and the hub do, api/budget-carry.ts, tested in
      // test/unit/main/profile-session.test.ts and test/unit/hub/budget-carry.test.ts.)
      vt.pass(60_000)
      store = openLocalStore(dir)
      const second = { n: 0 }
      c = client(sb, store, vt, second)
      sync = new HistorySync({ client: c, store, pageSize: 100, now: vt.now })
      for (const type of [1, 2] as const) await sync.run(type, 1, { mode: 'full' })
      expect(second.n).toBe(0)
      await c.close()
      store.close()
    } finally {
      vt.stop()
      await sb.close()
    }
  })
})
