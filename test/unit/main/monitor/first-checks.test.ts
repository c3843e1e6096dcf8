// The completeness audit's first checks after a fresh profile's first sync, on a simulated
// clock, with the request budget as shipped pacing merchantHistory (RateBudget, nothing
// set): enough orders that the first sync spans more than one budget window. Every scope
// is proved complete within two minutes of the end of the first sync (the operator reads
// "All orders here"), none of the counts is sent while a first sync still reads (they would
// wait behind its pages and read as a slow service), and they come in the order the
// scopes' first syncs ended. A first sync that fails holds no other scope's check, and the
// operator's "Check now" is not held.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { RateBudget } from '../../../../src/main/api/rate-budget'
import { AUDIT_EVERY_MS, OrderMonitor, type MonitorClient } from '../../../../src/main/monitor/order-monitor'
import { openLocalStore, type LocalStore } from '../../../../src/main/store/local-store'
import { oneFiat } from '../../../../src/shared/domain/fiat-scope'
import { proofStates } from '../../../../src/shared/domain/proof'
import { at, FakeClock, FakeHistory, httpError, onramp, type HistoryCall } from './fake-history'

const PAGE = 50
/**
 * Orders per (type, fiat): 255 pages of 50 and the probes, more than two windows of the
 * shipped budget (118 for polling): the first sync ends with the lane full, and the checks
 * wait for its slots.
 */
const HELD: Record<string, number> = { '1:1': 10000, '2:1': 2000, '1:2': 500, '1:3': 250 }
const TARGET_MS = 2 * 60_000

let dir: string
let store: LocalStore
let fake: FakeHistory
let clock: FakeClock
let monitor: OrderMonitor | undefined
let sent: Array<{ call: HistoryCall; at: number }>

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rampdesk-first-checks-'))
  clock = new FakeClock()
  store = openLocalStore(dir, { now: () => new Date(clock.now()) })
  fake = new FakeHistory()
  let id = 0
  for (const [k, n] of Object.entries(HELD)) {
    const [type, fiat] = k.split(':').map(Number) as [number, number]
    for (let i = 1; i <= n; i++) fake.put(type, fiat, onramp(++id, at(id), 4, fiat))
  }
  sent = []
  fake.beforeAnswer = (call) => sent.push({ call, at: clock.now() })
  monitor = undefined
})

afterEach(async () => {
  await monitor?.stop()
  store.close()
  rmSync(dir, { recursive: true, force: true })
})

/** The fake service behind the shipped budget: every history request waits for its slot at its priority, then for `hold` if given. */
function paced(hold?: (req: { type: number; pageSize?: number }) => Promise<void> | undefined): MonitorClient {
  const budget = new RateBudget({ profileId: 'first-checks', now: clock.now, timers: clock.timers })
  const slot = (o: { priority?: string; signal?: AbortSignal } = {}) =>
    budget.acquire('merchantHistory', {
      priority: (o.priority ?? 'background') as 'background' | 'low' | 'interactive',
      ...(o.signal ? { signal: o.signal } : {})
    })
  return new Proxy(fake, {
    get(target, key, receiver) {
      if (key === 'historyPage')
        return async (req: Parameters<FakeHistory['historyPage']>[0], o: Parameters<FakeHistory['historyPage']>[1] = {}) => {
          await slot(o)
          await hold?.(req)
          return target.historyPage(req, o)
        }
      if (key === 'merchantHistory')
        return async (req: Parameters<FakeHistory['merchantHistory']>[0], o: Parameters<FakeHistory['merchantHistory']>[1] = {}) => {
          await slot(o)
          return target.merchantHistory(req, o)
        }
      return Reflect.get(target, key, receiver) as unknown
    }
  }) as unknown as MonitorClient
}

function make(hold?: Parameters<typeof paced>[0]): OrderMonitor {
  return new OrderMonitor({
    client: paced(hold),
    store,
    fiatTypes: [1],
    discover: { fiats: () => [1, 2, 3] },
    auditEveryMs: AUDIT_EVERY_MS,
    historyPollMs: 30_000,
    watchPollMs: 15_000,
    pageSize: PAGE,
    now: clock.now,
    timers: clock.timers
  })
}

/** A count of the audit: a page of the sync's size without since, at low priority (probes ask for one record). */
const isCount = (c: HistoryCall) => c.priority === 'low' && c.since === undefined && c.pageSize === PAGE
const key = (x: { type: number; fiatType: number }) => `${x.type}:${x.fiatType}`

/** Runs the monitor second by second until the proof reads complete (or `limitMs`): when the first sync ended, and then when it was proved. */
async function untilProved(m: OrderMonitor, limitMs: number) {
  const start = clock.now()
  let firstSyncAt: number | null = null
  const syncedAt = new Map<string, number>()
  while (clock.now() - start < limitMs) {
    await clock.advance(1000)
    const states = m.states()
    for (const s of states) if (s.lastSuccessAt !== null && !syncedAt.has(key(s))) syncedAt.set(key(s), s.lastSuccessAt)
    const coverage = m.coverage()
    const probing = coverage.scopes.some((s) => s.probe === 'unprobed' || s.probe === 'probing')
    if (firstSyncAt === null && states.length > 0 && !probing && states.every((s) => s.lastSuccessAt !== null)) firstSyncAt = clock.now()
    if (firstSyncAt !== null && proofStates({ coverage, sync: states, type: null, now: clock.now() })[0]?.kind === 'complete')
      return { start, firstSyncAt, provedAt: clock.now(), syncedAt }
  }
  return { start, firstSyncAt, provedAt: null, syncedAt }
}

describe('the first checks after a first sync', () => {
  it('prove every scope complete within 2 minutes of the end of the first sync, in the order the scopes were synced, never during it', async () => {
    monitor = make()
    monitor.start()
    const r = await untilProved(monitor, 20 * 60_000)
    expect(r.firstSyncAt).not.toBeNull()
    // The budget paced the first sync over more than one window: the checks met a lane in use.
    expect(r.firstSyncAt! - r.start).toBeGreaterThanOrEqual(61_000)
    expect(r.provedAt, 'never proved complete').not.toBeNull()
    const after = r.provedAt! - r.firstSyncAt!
    console.log(`first sync ${(r.firstSyncAt! - r.start) / 1000} s, complete ${after / 1000} s after it (simulated)`)
    expect(after).toBeLessThanOrEqual(TARGET_MS)

    // Proved means every order is here.
    for (const [k, n] of Object.entries(HELD)) {
      const [type, fiat] = k.split(':').map(Number) as [1 | 2, number]
      expect(store.orders.countScope(type, oneFiat(fiat)), k).toBe(n)
    }
    // Not one count while a first sync read: the last first-sync page went before the first count.
    const counts = sent.filter((x) => isCount(x.call))
    const pages = sent.filter((x) => x.call.priority !== 'low')
    expect(counts.length).toBeGreaterThanOrEqual(Object.keys(HELD).length)
    const lastFirstSyncPage = Math.max(...pages.filter((x) => x.at <= r.firstSyncAt!).map((x) => x.at))
    expect(Math.min(...counts.map((x) => x.at))).toBeGreaterThanOrEqual(lastFirstSyncPage)
    // The order of the first counts is the order the first syncs ended.
    const firstCounted = [...new Set(counts.map((x) => key(x.call)))]
    const synced = [...r.syncedAt].sort((a, b) => a[1] - b[1]).map(([k]) => k)
    expect(firstCounted).toEqual(synced)
  })

  it('a scope whose first sync fails holds no other check; the proof waits for it', async () => {
    // Offramp is refused with a server error at every request: its first sync backs off.
    fake.refuse = (call) => (call.type === 2 && call.pageSize === PAGE ? httpError(500, 'Internal error') : undefined)
    monitor = make()
    monitor.start()
    await clock.advance(10 * 60_000)
    const audits = Object.fromEntries(monitor.coverage().scopes.map((s) => [key(s), s.audit.state]))
    expect(audits).toMatchObject({ '1:1': 'complete', '1:2': 'complete', '1:3': 'complete' })
    expect(monitor.states().find((s) => key(s) === '2:1')?.lastSuccessAt).toBeNull()
    expect(proofStates({ coverage: monitor.coverage(), sync: monitor.states(), type: null, now: clock.now() })[0]?.kind).not.toBe(
      'complete'
    )
  })

  it("the operator's Check now is not held by a first sync still reading", async () => {
    // Offramp's first sync reads (its pages are not answered) until released.
    let release = () => undefined as void
    const reading = new Promise<void>((r) => (release = r))
    monitor = make((req) => (req.type === 2 && req.pageSize === PAGE ? reading : undefined))
    try {
      monitor.start()
      await clock.advance(4 * 60_000)
      expect(monitor.states().find((s) => key(s) === '2:1')).toMatchObject({ running: true, lastSuccessAt: null })
      const synced = monitor.states().filter((s) => s.lastSuccessAt !== null)
      expect(synced.map(key)).toContain('1:1')
      // Held: the scopes synced meanwhile are not checked while offramp's first sync reads.
      expect(sent.filter((x) => isCount(x.call))).toEqual([])
      const done = monitor.auditNow()
      await clock.advance(60_000)
      await done
      expect(new Set(sent.filter((x) => isCount(x.call)).map((x) => key(x.call)))).toEqual(new Set(synced.map(key)))
    } finally {
      release()
    }
  })
})
