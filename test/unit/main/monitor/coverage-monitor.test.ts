// The monitor's coverage over a fake service and a real database, with an injected clock:
// scopes found by probing every configured fiat of both types (the fiatTypes setting only
// a preference), empty ones probed again on the slow schedule and at once when a webhook
// reveals an order there; the completeness audit's page arithmetic, and a shortfall found
// and repaired with progress; open orders confirmed within the freshness bound inside the
// sweep's share, and a bound the budget cannot keep shown as a gap; a service that does
// not filter a type by fiat synced as one scope.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { Coverage } from '../../../../src/shared/ipc/contract'
import { openLocalStore, type LocalStore } from '../../../../src/main/store/local-store'
import { OrderMonitor, type OrderMonitorOptions } from '../../../../src/main/monitor/order-monitor'
import { HistoryReadings, isEmptyAnswer } from '../../../../src/main/monitor/history-readings'
import { countOnService } from '../../../../src/main/monitor/completeness-audit'
import { auditLine as auditText } from '../../../../src/main/monitor/coverage'
import { at, FakeClock, FakeHistory, httpError, onramp, settle } from './fake-history'
import { ApiError } from '../../../../src/shared/api/errors'
import { EVERY_FIAT, oneFiat } from '../../../../src/shared/domain/fiat-scope'

const POLL = 30_000
const PROBE = 10 * 60_000
const AUDIT = 30 * 60_000

let dir: string
let store: LocalStore
let fake: FakeHistory
let clock: FakeClock
let monitor: OrderMonitor | undefined
let covers: Coverage[]

function make(over: Partial<OrderMonitorOptions> = {}): OrderMonitor {
  return new OrderMonitor({
    client: fake,
    store,
    fiatTypes: [2],
    discover: { fiats: () => [1, 2, 3], probeEveryMs: PROBE },
    historyPollMs: POLL,
    watchPollMs: 15_000,
    pageSize: 50,
    now: clock.now,
    timers: clock.timers,
    onEvent: (event, payload) => {
      if (event === 'coverage:changed') covers.push(payload as Coverage)
    },
    ...over
  })
}

const scope = (type: 1 | 2, fiat: number) => monitor!.coverage().scopes.find((s) => s.type === type && s.fiatType === fiat)
const probes = () => fake.calls.filter((c) => c.pageSize === 1 && c.since === undefined)

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rampdesk-coverage-'))
  clock = new FakeClock()
  // The database's clock is the monitor's (confirmations are dated by it).
  store = openLocalStore(dir, { now: () => new Date(clock.now()) })
  fake = new FakeHistory()
  monitor = undefined
  covers = []
  // Ten seconds apart: a poll's two-minute look-back reads only the last dozen again.
  for (let i = 1; i <= 120; i++) fake.put(1, 1, onramp(i, at(10 * i), 4, 1))
  for (let i = 1; i <= 30; i++) fake.put(1, 3, onramp(1000 + i, at(i), 4, 3))
  // Offramp numbers its orders apart from onramp: the same ids as onramp's first ones.
  for (let i = 1; i <= 20; i++) fake.put(2, 3, onramp(i, at(i), 6, 3))
})

afterEach(async () => {
  await monitor?.stop()
  store.close()
  rmSync(dir, { recursive: true, force: true })
})

describe('scopes found, not configured', () => {
  it('probes every configured fiat of both types, syncs those holding orders, whatever fiatTypes prefers', async () => {
    monitor = make()
    monitor!.start()
    await clock.advance(1000)
    expect(
      monitor
        .states()
        .map((s) => `${s.type}:${s.fiatType}`)
        .sort()
    ).toEqual(['1:1', '1:3', '2:3'])
    expect(store.orders.countScope(1, EVERY_FIAT)).toBe(150)
    expect(store.orders.countScope(2, EVERY_FIAT)).toBe(20)
    // The same id names an onramp and an offramp order, both held.
    expect(store.orders.get(1, 5)!.type).toBe(1)
    expect(store.orders.get(2, 5)!.type).toBe(2)
    expect(scope(1, 2)).toMatchObject({ probe: 'empty', orders: 0, nextProbeAt: clock.now() - 1000 + PROBE })
    expect(scope(2, 1)!.probe).toBe('empty')
    // Each probe: one record, no page, no since, behind every poll (low priority).
    expect(probes().every((c) => c.page === 1 && c.order === undefined && c.priority === 'low')).toBe(true)
    expect(monitor!.coverage().spentLastHour.probe).toBe(6)
    // The preferred fiat comes first among onramp scopes.
    expect(
      monitor!
        .coverage()
        .scopes.filter((s) => s.type === 1)
        .map((s) => s.fiatType)
    ).toEqual([2, 1, 3])
    expect(covers.length).toBeGreaterThan(0)
  })

  it('lists the fiats the operator prefers first as soon as the setting changes, syncing the same scopes', async () => {
    monitor = make()
    monitor!.start()
    await clock.advance(1000)
    const onramp = () =>
      monitor!
        .coverage()
        .scopes.filter((s) => s.type === 1)
        .map((s) => s.fiatType)
    expect(onramp()).toEqual([2, 1, 3])
    monitor!.configure({ fiatTypes: [3, 1] })
    expect(onramp()).toEqual([3, 1, 2])
    expect(
      monitor!
        .states()
        .map((s) => `${s.type}:${s.fiatType}`)
        .sort()
    ).toEqual(['1:1', '1:3', '2:3'])
  })

  it('orders appearing later in a fiat nobody has seen are synced within one slow-probe interval', async () => {
    monitor = make()
    monitor!.start()
    await clock.advance(1000)
    for (let i = 1; i <= 7; i++) fake.put(2, 2, onramp(5000 + i, at(500 + i), 0, 2))
    await clock.advance(PROBE - 2000)
    expect(store.orders.countScope(2, oneFiat(2))).toBe(0)
    await clock.advance(2000)
    await clock.advance(1000)
    expect(scope(2, 2)!.probe).toBe('active')
    expect(store.orders.countScope(2, oneFiat(2))).toBe(7)
  })

  it('a webhook for an order in an empty scope probes it at once', async () => {
    monitor = make()
    monitor!.start()
    await clock.advance(1000)
    const rec = onramp(7001, at(900), 4, 2)
    fake.put(1, 2, rec)
    expect(monitor!.ingestWebhook(1, rec)).toBe('unknown')
    await clock.advance(1000)
    expect(scope(1, 2)!.probe).toBe('active')
    expect(store.orders.get(1, 7001)).toBeDefined()
  })

  it('shows scopes not probed yet as gaps until they are', async () => {
    monitor = make()
    const gaps = () => monitor!.coverage().gaps.filter((g) => g.kind === 'unprobed').length
    monitor!.start()
    expect(gaps()).toBe(6)
    await clock.advance(1000)
    expect(gaps()).toBe(0)
  })
})

describe('a fiat the service does not know, answered with its default fiat', () => {
  it("is no scope of its own, and does not make the app decide the type's listings ignore fiatType", async () => {
    // Fiat 9 is named by the configuration; the service answers it with the INR listing.
    fake.readings.answerFiatAs = { 9: 1 }
    for (let i = 1; i <= 40; i++) fake.put(1, 2, onramp(2000 + i, at(5 * i), 4, 2))
    monitor = make({ discover: { fiats: () => [1, 2, 3, 9], probeEveryMs: PROBE } })
    monitor!.start()
    await clock.advance(1000)
    expect(scope(1, 9)?.probe).toBe('empty')
    expect(monitor!.readings.fiatIgnored(1)).toBe(false)
    // New TRY orders keep arriving in their own scope.
    for (let i = 41; i <= 60; i++) fake.put(1, 2, onramp(2000 + i, at(1000 + i), 4, 2))
    await clock.advance(2 * POLL)
    expect(store.orders.countScope(1, oneFiat(2))).toBe(60)
    expect(store.orders.countScope(1, oneFiat(1))).toBe(120)
    expect(store.orders.countScope(1, oneFiat(9))).toBe(0)
  })
})

describe('a probe answered with another fiat’s record', () => {
  it('probes that fiat too, though the configuration does not name it', async () => {
    // Fiat 5 is not configured; asked for fiat 2, the service answers fiat 5's listing.
    fake.readings.answerFiatAs = { 2: 5 }
    for (let i = 1; i <= 8; i++) fake.put(1, 5, onramp(5000 + i, at(7 * i), 4, 5))
    monitor = make()
    monitor!.start()
    await clock.advance(1000)
    await clock.advance(1000)
    expect(scope(1, 2)?.probe).toBe('empty')
    expect(scope(1, 5)?.probe).toBe('active')
    await clock.advance(POLL)
    expect(store.orders.countScope(1, oneFiat(5))).toBe(8)
  })
})

describe('probes the service refuses or fails', () => {
  it('a service answering an empty listing with 404 has empty scopes, and a new fiat is still found within one probe interval', async () => {
    fake.refuse = (_c, rows) => (rows.length === 0 ? httpError(404, 'No transactions found') : undefined)
    monitor = make()
    monitor!.start()
    await clock.advance(1000)
    expect(scope(1, 2)).toMatchObject({ probe: 'empty', error: null })
    fake.put(1, 2, onramp(7001, at(900), 0, 2))
    await clock.advance(PROBE)
    await clock.advance(1000)
    expect(scope(1, 2)!.probe).toBe('active')
    expect(store.orders.get(1, 7001)).toBeDefined()
  })

  it('an empty listing answered HTTP 200 with the envelope {status: 0, code: 404} is empty too, not refused', async () => {
    const envelope404 = new ApiError({
      kind: 'api',
      endpoint: 'merchantHistory',
      httpStatus: 200,
      code: 404,
      message: 'No transactions found'
    })
    fake.refuse = (_c, rows) => (rows.length === 0 ? envelope404 : undefined)
    monitor = make()
    monitor!.start()
    await clock.advance(1000)
    expect(scope(1, 2)).toMatchObject({ probe: 'empty', error: null })
    // A 200 carrying another refusal (an unknown fiat) is still a refusal.
    expect(isEmptyAnswer({ kind: 'api', httpStatus: 200, code: 422, message: 'fiatType not supported', retryable: false })).toBe(false)
    expect(isEmptyAnswer({ kind: 'api', httpStatus: 200, code: 429, message: 'no data for you yet', retryable: false })).toBe(false)
  })

  it('a fiat the service refuses is asked again within one probe interval, and an order seen there is a gap while it refuses', async () => {
    let refusing = true
    fake.refuse = (c) => (refusing && c.fiatType === 2 ? httpError(422, 'fiatType not supported') : undefined)
    monitor = make()
    monitor!.start()
    await clock.advance(1000)
    expect(scope(1, 2)!.probe).toBe('refused')
    // Nothing says orders are there: not a gap.
    expect(monitor!.coverage().gaps).toEqual([])
    const rec = onramp(7001, at(900), 4, 2)
    fake.put(1, 2, rec)
    expect(monitor!.ingestWebhook(1, rec)).toBe('unknown')
    await clock.advance(1000)
    // Probed again at once, still refused: the operator is told orders there may be missing.
    expect(scope(1, 2)!.probe).toBe('refused')
    const gap = monitor!.coverage().gaps.find((g) => g.type === 1 && g.fiatType === 2)
    expect(gap?.kind).toBe('probe')
    expect(gap?.text).toMatch(
      /^Onramp TRY: an order there was seen \(a webhook\) but the service refuses to list it \(fiatType not supported\)/
    )
    // The service starts to take the fiat: found within one probe interval, and the gap goes.
    refusing = false
    await clock.advance(PROBE)
    await clock.advance(1000)
    expect(scope(1, 2)!.probe).toBe('active')
    expect(store.orders.get(1, 7001)).toBeDefined()
    expect(monitor!.coverage().gaps).toEqual([])
  })
})

describe('a probe that errors', () => {
  for (const [what, error] of [
    ['the service failing (500)', httpError(500, 'server problem')],
    ['the service refusing for the rate (429)', httpError(429, 'too many requests')],
    ['the network', undefined]
  ] as const) {
    it(`${what}: the scope is a gap, never taken as empty or refused, and is found once the probe answers`, async () => {
      let failing = true
      fake.refuse = (c) =>
        failing && c.type === 1 && c.fiatType === 3 && c.pageSize === 1 ? (error ?? new Error('ECONNRESET')) : undefined
      monitor = make()
      monitor!.start()
      await clock.advance(1000)
      expect(scope(1, 3)!.probe).toBe('failed')
      expect(store.orders.countScope(1, oneFiat(3))).toBe(0)
      const gap = monitor!.coverage().gaps.find((g) => g.type === 1 && g.fiatType === 3)
      expect(gap).toMatchObject({ kind: 'probe' })
      expect(gap!.text).toMatch(/^Onramp AED: could not be probed \(.+\); orders there may be missing$/)
      expect(monitor!.coverage().probeError).not.toBeNull()
      // Asked again soon (15 s, doubling), not at the slow schedule of empty scopes.
      await clock.advance(20_000)
      expect(fake.calls.filter((c) => c.type === 1 && c.fiatType === 3 && c.pageSize === 1).length).toBe(2)
      failing = false
      await clock.advance(60_000)
      expect(scope(1, 3)!.probe).toBe('active')
      expect(store.orders.countScope(1, oneFiat(3))).toBe(30)
      expect(monitor!.coverage().gaps).toEqual([])
    })
  }
})

describe('"Try again now" while a probe is on the wire', () => {
  it('a probe that fails as syncNow() joins it is asked again at once, not after its back-off', async () => {
    const real = fake.historyPage
    let release!: () => void
    const gate = new Promise<void>((r) => (release = r))
    let first = true
    fake.historyPage = async (req, opts) => {
      if (first && req.type === 1 && req.fiatType === 3 && req.pageSize === 1) {
        first = false
        await gate
        throw new ApiError({ kind: 'network', endpoint: 'merchantHistory', message: 'connection reset' })
      }
      return real(req, opts)
    }
    monitor = make()
    monitor!.start()
    await clock.advance(0)
    expect(scope(1, 3)!.probe).toBe('probing')
    const now = monitor!.syncNow()
    release()
    await now
    expect(scope(1, 3)!.probe).toBe('active')
    expect(monitor!.coverage().probeError).toBeNull()
    expect(store.orders.countScope(1, oneFiat(3))).toBe(30)
  })

  it('a scope synced while a probe keeps syncNow() waiting runs once, not again after the probe', async () => {
    // Onramp TRY's first probe fails: syncNow() probes it again, and that probe is held.
    const real = fake.historyPage
    let release!: () => void
    const gate = new Promise<void>((r) => (release = r))
    let probes = 0
    fake.historyPage = async (req, opts) => {
      if (req.type === 1 && req.fiatType === 3 && req.pageSize === 1 && ++probes <= 2) {
        if (probes === 1) throw new ApiError({ kind: 'network', endpoint: 'merchantHistory', message: 'connection reset' })
        await gate
      }
      return real(req, opts)
    }
    monitor = make()
    monitor!.start()
    await clock.advance(0)
    expect(scope(1, 3)!.probe).not.toBe('active')
    const known = monitor!.states().map((s) => `${s.type}:${s.fiatType}`)
    expect(known.length).toBeGreaterThan(0)
    fake.calls.length = 0
    const now = monitor!.syncNow()
    await settle()
    expect(probes).toBe(2)
    release()
    await now
    expect(scope(1, 3)!.probe).toBe('active')
    const runs = (k: string) => fake.calls.filter((c) => `${c.type}:${c.fiatType}` === k && c.pageSize !== 1).length
    for (const k of known) expect(runs(k), k).toBe(1)
  })
})

describe('a probe that never answers', () => {
  it('is given up after its time and is a gap; the other scopes are probed meanwhile', async () => {
    const real = fake.historyPage
    fake.historyPage = (req, opts) =>
      req.type === 1 && req.fiatType === 2
        ? new Promise((_resolve, reject) =>
            opts?.signal?.addEventListener('abort', () => reject(httpError(499, 'aborted')), { once: true })
          )
        : real(req, opts)
    monitor = make()
    monitor!.start()
    await clock.advance(1000)
    expect(scope(1, 2)!.probe).toBe('probing')
    await clock.advance(5 * 60_000)
    // Onramp AED, offramp AED: found although onramp TRY hangs.
    expect(scope(1, 3)!.probe).toBe('active')
    expect(scope(2, 3)!.probe).toBe('active')
    expect(scope(1, 2)).toMatchObject({ probe: 'failed', error: 'no answer within 5 min' })
    expect(monitor!.coverage().gaps.find((g) => g.type === 1 && g.fiatType === 2)?.text).toMatch(
      /^Onramp TRY: could not be probed \(no answer within 5 min\)/
    )
  })
})

describe('completeness audit', () => {
  it('counts by page arithmetic in one or two requests around the local count', async () => {
    const sizes = (n: number) => ({
      historyPage: async (req: { page?: number; pageSize?: number }) => {
        const p = req.page ?? 1
        const size = Math.max(0, Math.min(req.pageSize ?? 50, n - (p - 1) * (req.pageSize ?? 50)))
        return { records: [], rejected: [], size }
      }
    })
    const count = (n: number, hint: number) => countOnService(sizes(n), { type: 1, fiatType: 1, pageSize: 50, wirePage: (p) => p, hint })
    expect(await count(120, 120)).toEqual({ count: 120, exact: true, requests: 1 })
    expect(await count(150, 150)).toEqual({ count: 150, exact: true, requests: 2 })
    expect(await count(150, 100)).toEqual({ count: 150, exact: true, requests: 2 })
    expect(await count(120, 300)).toEqual({ count: 120, exact: true, requests: 5 })
    expect(await count(0, 0)).toEqual({ count: 0, exact: true, requests: 1 })
    expect(await count(100_000, 0)).toMatchObject({ count: 300, exact: false })
  })

  it('finds orders removed behind its back, says so, repairs them with progress, then says complete', async () => {
    monitor = make({ auditEveryMs: AUDIT })
    monitor!.start()
    await clock.advance(1000)
    await clock.advance(5 * 60_000)
    expect(scope(1, 1)!.audit).toMatchObject({ state: 'complete', serviceOrders: 120 })
    expect(auditText(scope(1, 1)!, clock.now())).toMatch(/^complete: 120 orders, checked \d\d:\d\d UTC$/)

    store.database.sql.run('DELETE FROM orders WHERE type = 1 AND fiat_type = 1 AND order_id <= 70')
    // What the scope says while each request of the repair is answered.
    const seen: string[] = []
    const repairPriorities = new Set<string | undefined>()
    fake.beforeAnswer = (c) => {
      if (c.type !== 1 || c.fiatType !== 1) return
      seen.push(auditText(scope(1, 1)!, clock.now()))
      if (scope(1, 1)!.audit.state === 'repairing') repairPriorities.add(c.priority)
    }
    const before = fake.calls.length
    await clock.advance(AUDIT)
    expect(seen).toContain('incomplete: repairing (0 of 3 pages)')
    expect(seen).toContain('incomplete: repairing (2 of 3 pages)')
    // The counts and the repair's pages wait behind every poll; the poll before the repair does not.
    const counts = fake.calls.slice(before).filter((c) => c.type === 1 && c.fiatType === 1 && c.order === 'ASC' && c.since === undefined)
    expect(counts.length).toBeGreaterThanOrEqual(2)
    expect(counts.every((c) => c.priority === 'low')).toBe(true)
    expect([...repairPriorities]).toEqual(['low'])
    expect(scope(1, 1)!.audit).toMatchObject({ state: 'complete', serviceOrders: 120 })
    expect(store.orders.countScope(1, oneFiat(1))).toBe(120)
    expect(monitor!.coverage().gaps).toEqual([])
    expect(monitor!.coverage().spentLastHour.audit).toBeGreaterThanOrEqual(4)
  })
})

describe('completeness audit: cost bounded whatever the service counts', () => {
  /** Fake times at which a repair of onramp INR was reading pages. */
  const repairs = new Set<number>()
  beforeEach(() => {
    repairs.clear()
    fake.beforeAnswer = (c) => {
      if (c.type === 1 && c.fiatType === 1 && scope(1, 1)?.audit.state === 'repairing') repairs.add(clock.now())
    }
  })

  it('counts a record it holds but cannot read as held: complete, no repair', async () => {
    fake.putUnreadable(1, 1, onramp(121, at(10 * 121), 4, 1))
    monitor = make({ auditEveryMs: AUDIT })
    monitor!.start()
    await clock.advance(1000)
    expect(store.unreadableOrders.count()).toBe(1)
    await clock.advance(2 * 60 * 60_000)
    expect(scope(1, 1)!.audit).toMatchObject({ state: 'complete', serviceOrders: 121 })
    expect(repairs.size).toBe(0)
    // Three synced scopes, each counted twice an hour in one or two requests.
    expect(monitor!.coverage().spentLastHour.audit).toBeLessThanOrEqual(12)
    expect(monitor!.coverage().gaps).toEqual([])
  })

  it('a difference a full read does not close is read again less and less often, and says why', async () => {
    // The service's listing holds its last order twice: its count is one more than there are orders.
    const real = fake.historyPage
    fake.historyPage = async (req, opts) => {
      const r = await real(req, opts)
      if (req.type !== 1 || (req.fiatType ?? 1) !== 1 || req.since !== undefined || r.size === 0 || r.size >= (req.pageSize ?? 50)) return r
      return { ...r, records: [...r.records, r.records[r.records.length - 1]!], size: r.size + 1 }
    }
    monitor = make({ auditEveryMs: AUDIT })
    monitor!.start()
    await clock.advance(1000)
    await clock.advance(3 * 60 * 60_000)
    // A repair at the first check, then after 30 min, 1 h, ...: not one every five minutes.
    expect(repairs.size).toBeGreaterThanOrEqual(2)
    expect(repairs.size).toBeLessThanOrEqual(4)
    const a = scope(1, 1)!.audit
    expect(a.state).toBe('incomplete')
    expect(a.error).toMatch(/^1 order the service holds is not here after \d full reads?; read again in full after \d\d:\d\d UTC$/)
    expect(monitor!.coverage().gaps.some((g) => g.kind === 'audit' && g.type === 1 && g.fiatType === 1)).toBe(true)
  })
})

describe('status freshness', () => {
  beforeEach(() => {
    // Open, and changed long before the newest change: polls do not read them again.
    for (let i = 1; i <= 40; i++) fake.put(2, 1, onramp(9000 + i, at(i), 0, 1))
    fake.put(2, 1, onramp(9999, at(5000), 6, 1))
    // A service whose since filters on createdAt: a poll's answer says nothing of the older
    // open orders, only orderStatus does (where since is on updatedAt, see below).
    fake.readings.sinceField = 'createdAt'
  })

  it('needs no orderStatus where since was checked to filter on updatedAt: a poll read to its end confirms the open orders unchanged since', async () => {
    fake.readings.sinceField = 'updatedAt'
    monitor = make({ freshnessMs: 10 * 60_000 })
    monitor!.start()
    await clock.advance(1000)
    await clock.advance(30 * 60_000)
    expect(monitor!.readings.state().sinceField).toMatchObject({ value: 'updatedAt', state: 'checked' })
    expect(fake.statusCalls).toHaveLength(0)
    expect(monitor!.coverage().freshness).toMatchObject({ open: 40, stale: 0 })
    const row = store.orders.get(2, 9001)!
    expect(row.statusConfirmedBy).toBe('history')
    expect(clock.now() - Date.parse(row.statusConfirmedAt!)).toBeLessThanOrEqual(POLL)
  })

  it('confirms open orders nothing else confirmed, oldest first, before the bound; the order says how', async () => {
    monitor = make({ freshnessMs: 10 * 60_000 })
    monitor!.start()
    await clock.advance(1000)
    const first = store.orders.get(2, 9001)!
    expect(first.statusConfirmedBy).toBe('history')
    expect(fake.statusCalls).toHaveLength(0)
    await clock.advance(9.5 * 60_000)
    expect(fake.statusCalls.length).toBeGreaterThan(0)
    const row = store.orders.get(2, fake.statusCalls[0]!.orderId)!
    expect(row.statusConfirmedBy).toBe('orderStatus')
    expect(Date.parse(row.statusConfirmedAt!)).toBeGreaterThan(Date.parse(first.statusConfirmedAt!))
    await clock.advance(3 * 60_000)
    expect(monitor!.coverage().freshness).toMatchObject({ open: 40, stale: 0 })
    expect(monitor!.coverage().spentLastHour.freshness).toBe(40)
  })

  it('orders orderStatus always fails for take their turn and are named as a gap; every other open order is still confirmed', async () => {
    // 20 open orders the service cannot tell about, more than a sweep's 15 requests, held before the others.
    const real = fake.orderStatus
    fake.orderStatus = async (req, opts) => {
      if (Number(req.orderId) <= 9020) {
        fake.statusCalls.push({ type: req.type, orderId: Number(req.orderId), priority: opts?.priority })
        throw httpError(417, 'order no longer exists')
      }
      return real(req, opts)
    }
    monitor = make({ freshnessMs: 10 * 60_000 })
    monitor!.start()
    await clock.advance(1000)
    const synced = clock.now()
    await clock.advance(12 * 60_000)
    // Within the bound (and a sweep's slack), each order the service answers for was confirmed by orderStatus.
    for (let id = 9021; id <= 9040; id++) {
      const row = store.orders.get(2, id)!
      expect(row.statusConfirmedBy, `order ${id}`).toBe('orderStatus')
      expect(Date.parse(row.statusConfirmedAt!), `order ${id}`).toBeGreaterThan(synced)
    }
    await clock.advance(5 * 60_000)
    const f = monitor!.coverage().freshness
    expect(f).toMatchObject({ stale: 20, unconfirmable: 20 })
    const gap = monitor!.coverage().gaps.find((g) => g.kind === 'freshness' && /cannot be confirmed/.test(g.text))
    expect(gap?.text).toBe('20 open orders cannot be confirmed: orderStatus failed 3 times in a row (order no longer exists)')
    // Still asked, in turn: a status the service starts to answer is confirmed again.
    const asked = fake.statusCalls.filter((c) => c.orderId <= 9020).length
    await clock.advance(2 * 60_000)
    expect(fake.statusCalls.filter((c) => c.orderId <= 9020).length).toBeGreaterThan(asked)
  })

  it('a bound the share cannot carry shows how many orders went unconfirmed, as a gap', async () => {
    monitor = make({ freshnessMs: 3 * 60_000 })
    // A lane of 8 a minute: a quarter is one request a sweep, two a minute, for 40 open orders.
    Object.assign(fake, { budget: { snapshot: () => ({ endpoints: [{ endpoint: 'orderStatus', limit: 8 }] }) } })
    monitor!.start()
    await clock.advance(1000)
    await clock.advance(10 * 60_000)
    const f = monitor!.coverage().freshness
    expect(f.stale).toBeGreaterThan(0)
    // It kept to its share: one request a sweep, two sweeps a minute.
    const spent = monitor!.coverage().spentLastHour.freshness
    expect(spent).toBeGreaterThan(0)
    expect(spent).toBeLessThanOrEqual(21)
    expect(monitor!.coverage().gaps.find((g) => g.kind === 'freshness')?.text).toMatch(
      /open orders? not confirmed by the service within 3 min/
    )
  })
})

describe('a service that does not filter a type by fiat', () => {
  it('is synced as one scope of every fiat of that type', async () => {
    // Every offramp listing holds every offramp order, whatever fiat it asks for: here
    // orders in two fiats (one listing of another fiat alone would say nothing: a fiat the
    // service does not know, answered with its default).
    for (let i = 21; i <= 30; i++) fake.put(2, 3, onramp(i, at(i), 6, 1))
    const real = fake.historyPage
    fake.historyPage = async (req, opts) => (req.type === 2 ? real({ ...req, fiatType: 3 }, opts) : real(req, opts))
    monitor = make()
    monitor!.start()
    await clock.advance(1000)
    await settle()
    await clock.advance(1000)
    expect(monitor!.readings.fiatIgnored(2)).toBe(true)
    expect(
      monitor!
        .states()
        .filter((s) => s.type === 2)
        .map((s) => s.fiatType)
    ).toEqual([0])
    expect(store.orders.countScope(2, EVERY_FIAT)).toBe(30)
    expect(scope(2, 0)!.probe).toBe('active')
  })
})

describe('a completeness check that does not finish', () => {
  it('says since when it runs, is shown overdue (a gap, said at once) well before it is given up, then says it could not finish', async () => {
    const seenAt: Array<{ at: number; gaps: string[] }> = []
    monitor = make({
      auditEveryMs: AUDIT,
      // Polls and probes far apart, so no other change says it in their stead.
      historyPollMs: 11 * 60_000,
      discover: { fiats: () => [1, 2, 3], probeEveryMs: 13 * 60_000 },
      onEvent: (event, payload) => {
        if (event === 'coverage:changed') seenAt.push({ at: clock.now(), gaps: (payload as Coverage).gaps.map((g) => g.text) })
      }
    })
    monitor!.start()
    await clock.advance(1000)
    // From now on the service leaves onramp INR's counts unanswered (the polls still answer).
    const real = fake.historyPage
    fake.historyPage = (req, opts) =>
      req.type === 1 && req.fiatType === 1 && opts?.priority === 'low'
        ? new Promise((_resolve, reject) => opts?.signal?.addEventListener('abort', () => reject(new Error('aborted')), { once: true }))
        : real(req, opts)
    while (scope(1, 1)!.audit.state !== 'checking') await clock.advance(10_000)
    const started = scope(1, 1)!.audit.startedAt!
    const hhmm = (ms: number) => new Date(ms).toISOString().slice(11, 16)
    expect(clock.now() - started).toBeLessThanOrEqual(10_000)
    expect(auditText(scope(1, 1)!, clock.now())).toBe(`checking since ${hhmm(started)} UTC (120 orders here)`)
    expect(monitor!.coverage().gaps.filter((g) => g.type === 1 && g.fiatType === 1)).toEqual([])

    await clock.advance(started + 4 * 60_000 - clock.now())
    expect(monitor!.coverage().gaps.filter((g) => g.type === 1 && g.fiatType === 1)).toEqual([])
    await clock.advance(60_000)
    // Overdue at 5 min: a gap, and a coverage:changed that carries it without waiting for another change.
    const overdue = `Onramp INR: check overdue: no count from the service since ${hhmm(started)} UTC; given up at ${hhmm(started + 15 * 60_000)} UTC`
    expect(monitor!.coverage().gaps.filter((g) => g.type === 1 && g.fiatType === 1)).toEqual([
      { kind: 'audit', text: overdue, type: 1, fiatType: 1 }
    ])
    await clock.advance(1000)
    // Said when it fell overdue (within the quarter second coverage:changed gathers), not at some later change.
    expect(seenAt.find((e) => e.gaps.includes(overdue))?.at).toBeLessThanOrEqual(started + 5 * 60_000 + 250)

    // Given up at 15 min: no longer running, and the scope says its latest check could not finish.
    await clock.advance(10 * 60_000)
    expect(scope(1, 1)!.audit).toMatchObject({ startedAt: null, error: 'the check could not finish: no answer within 15 min' })
    expect(
      monitor!
        .coverage()
        .gaps.filter((g) => g.type === 1 && g.fiatType === 1)
        .map((g) => g.text)
    ).toEqual([expect.stringMatching(/^Onramp INR: .*; the latest check could not finish: no answer within 15 min$/)])
    fake.historyPage = real
  })
})

describe('a scope probe on a service counting pages from 0 whose missing page means page 1', () => {
  it('names the first page once its number is known: a fiat holding one order is found, not read as empty', async () => {
    fake.readings = { since: 'inclusive', tieOrder: 'orderId', firstPage: 0, missingPage: 'one' }
    fake.put(1, 2, onramp(7000, at(5), 4, 2))
    const readings = new HistoryReadings(null, clock.now)
    readings.found('firstPage', 0, 'known')
    monitor = make({ readings })
    monitor.start()
    await clock.advance(1000)
    expect(scope(1, 2)!.probe).not.toBe('empty')
    expect(store.orders.get(1, 7000)).toBeDefined()
    expect(probes().every((c) => c.wirePage === 0)).toBe(true)
  })
})
