// The completeness audit over a fake service and a real database, with an injected clock:
// orders the service deleted (orderStatus answers 417) are kept,
// marked gone and counted no more, a few asked about at each check; a difference a full
// read cannot close is read again on its back-off even while new orders grow both counts;
// and the local count is taken before the service's, so a poll landing in between is no
// false surplus.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { openLocalStore, type LocalStore } from '../../../../src/main/store/local-store'
import { OrderMonitor } from '../../../../src/main/monitor/order-monitor'
import { isOrderGone, MAX_UNLISTED_ASKED } from '../../../../src/main/monitor/completeness-audit'
import { auditLine } from '../../../../src/main/monitor/coverage'
import { toContractRow } from '../../../../src/main/order-rows'
import { at, FakeClock, FakeHistory, onramp } from './fake-history'
import { oneFiat } from '../../../../src/shared/domain/fiat-scope'

const AUDIT = 30 * 60_000
// Polls rarer than the app's (30 s): fewer runs to wait through; the audit polls first itself.
const POLL = 5 * 60_000

let dir: string
let store: LocalStore
let fake: FakeHistory
let clock: FakeClock
let monitor: OrderMonitor
/** Fake times at which a full read of onramp INR was reading pages (one per read). */
let repairs: Set<number>

const scope = () => monitor.coverage().scopes.find((s) => s.type === 1 && s.fiatType === 1)!
const auditGap = () => monitor.coverage().gaps.some((g) => g.kind === 'audit' && g.type === 1 && g.fiatType === 1)

/** Counts the times the audit doubts the readings (a new difference), from now on. */
function countDoubts(): { n: number } {
  const count = { n: 0 }
  const doubt = monitor.readings.doubt.bind(monitor.readings)
  monitor.readings.doubt = () => {
    count.n++
    doubt()
  }
  return count
}

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'rampdesk-audit-'))
  clock = new FakeClock()
  store = openLocalStore(dir, { now: () => new Date(clock.now()) })
  fake = new FakeHistory()
  for (let i = 1; i <= 120; i++) fake.put(1, 1, onramp(i, at(10 * i), 4, 1))
  repairs = new Set()
  fake.beforeAnswer = (c) => {
    if (c.type === 1 && c.fiatType === 1 && scope().audit.state === 'repairing') repairs.add(clock.now())
  }
  monitor = new OrderMonitor({
    client: fake,
    store,
    fiatTypes: [1],
    historyPollMs: POLL,
    watchPollMs: 15_000,
    pageSize: 50,
    auditEveryMs: AUDIT,
    now: clock.now,
    timers: clock.timers
  })
  monitor.start()
  // The first sync, then the first check five minutes later: all here.
  await clock.advance(1000)
  await clock.advance(5 * 60_000)
  expect(scope().audit).toMatchObject({ state: 'complete', serviceOrders: 120 })
  repairs.clear()
})

afterEach(async () => {
  await monitor.stop()
  store.close()
  rmSync(dir, { recursive: true, force: true })
})

describe('orders the service deleted (the live notes: 417 "order no longer exists")', () => {
  it('are asked about after the full read, kept, marked gone, counted no more: the scope is complete, no gap', async () => {
    for (let id = 1; id <= 5; id++) fake.remove(1, 1, id)
    await clock.advance(AUDIT)
    expect(repairs.size).toBe(1)
    expect(scope().audit).toMatchObject({ state: 'complete', serviceOrders: 115 })
    expect(auditGap()).toBe(false)
    // Asked about at low priority, behind every poll and sweep.
    expect(fake.statusCalls.map((c) => [c.orderId, c.priority])).toEqual([1, 2, 3, 4, 5].map((id) => [id, 'low']))
    // Kept, and the detail says it is no longer listed.
    expect(store.orders.countScope(1, oneFiat(1))).toBe(120)
    const row = store.orders.get(1, 3)!
    expect(row.goneAt).not.toBeNull()
    expect(toContractRow(row, false).goneAt).toBe(Date.parse(row.goneAt!))
    expect(store.orders.get(1, 6)!.goneAt).toBeNull()
    // The next check costs a count, no full read, no orderStatus.
    await clock.advance(AUDIT)
    expect(repairs.size).toBe(1)
    expect(fake.statusCalls).toHaveLength(5)
    expect(scope().audit.state).toBe('complete')
  })

  it('listed again, one is no longer gone', async () => {
    const kept = fake.truth(1, 1)[0]!
    fake.remove(1, 1, kept.orderId)
    await clock.advance(AUDIT)
    expect(store.orders.get(1, kept.orderId)!.goneAt).not.toBeNull()
    fake.put(1, 1, { ...kept, updatedAt: at(10_000) })
    await clock.advance(POLL)
    expect(store.orders.get(1, kept.orderId)!.goneAt).toBeNull()
    await clock.advance(AUDIT)
    expect(scope().audit).toMatchObject({ state: 'complete', serviceOrders: 120 })
  })

  it(`are asked about ${MAX_UNLISTED_ASKED} a check at most; the rest at the next checks, with no second full read`, async () => {
    for (let id = 1; id <= MAX_UNLISTED_ASKED + 5; id++) fake.remove(1, 1, id)
    await clock.advance(AUDIT)
    expect(fake.statusCalls).toHaveLength(MAX_UNLISTED_ASKED)
    expect(scope().audit).toMatchObject({ state: 'incomplete', serviceOrders: 120 - MAX_UNLISTED_ASKED - 5 })
    expect(auditLine(scope(), clock.now())).toMatch(/5 orders here the service does not list/)
    await clock.advance(AUDIT)
    expect(fake.statusCalls).toHaveLength(MAX_UNLISTED_ASKED + 5)
    expect(scope().audit.state).toBe('complete')
    expect(repairs.size).toBe(1)
    expect(auditGap()).toBe(false)
  })

  it('one the service still has (listed in another scope) stays a difference, and says so', async () => {
    for (let id = 1; id <= 5; id++) {
      const r = fake.truth(1, 1).find((o) => o.orderId === id)!
      fake.remove(1, 1, id)
      fake.put(1, 9, r)
    }
    await clock.advance(AUDIT)
    expect(fake.statusCalls).toHaveLength(5)
    expect(store.orders.get(1, 1)!.goneAt).toBeNull()
    expect(scope().audit).toMatchObject({ state: 'incomplete', serviceOrders: 115 })
    expect(auditLine(scope(), clock.now())).toMatch(
      /5 orders here the service does not list \(removed at the service, or listed in another scope\)/
    )
    expect(auditGap()).toBe(true)
  })

  it('are told by 417 or "Invalid orderId", nothing else', () => {
    expect(isOrderGone({ kind: 'api', code: 417, httpStatus: 200, message: 'order no longer exists', retryable: false })).toBe(true)
    expect(isOrderGone({ kind: 'api', code: 400, httpStatus: 400, message: 'Invalid orderId', retryable: false })).toBe(true)
    expect(isOrderGone({ kind: 'api', code: 400, httpStatus: 400, message: 'Invalid signature', retryable: false })).toBe(false)
    // Only the exact text: a refusal of the id's form is no word on whether the order exists.
    expect(isOrderGone({ kind: 'api', code: 400, httpStatus: 400, message: 'Invalid orderId format', retryable: false })).toBe(false)
    // Another deployment's wording of the same answer.
    for (const message of ['Invalid orderId.', 'invalid orderId', 'Invalid order id', ' INVALID ORDERID '])
      expect(isOrderGone({ kind: 'api', code: 400, httpStatus: 400, message, retryable: false })).toBe(true)
    expect(isOrderGone({ kind: 'api', code: 409, httpStatus: 200, message: 'invalid order id type', retryable: false })).toBe(false)
    expect(isOrderGone({ kind: 'network', message: 'connection reset', retryable: false })).toBe(false)
    expect(isOrderGone({ kind: 'http', httpStatus: 503, message: 'maintenance', retryable: false })).toBe(false)
  })
})

describe('a difference a full read does not close, while new orders keep coming', () => {
  it('is read in full again on its back-off (30 min, 1 h, 2 h): keyed on the difference, not on the counts', async () => {
    // Three orders the service still has but no longer lists here: a surplus no read closes.
    for (let id = 1; id <= 3; id++) {
      const r = fake.truth(1, 1).find((o) => o.orderId === id)!
      fake.remove(1, 1, id)
      fake.put(1, 9, r)
    }
    // A new order every ten minutes: both counts grow.
    let next = 1000
    const arrive = (): void => {
      fake.put(1, 1, onramp(next, at(next * 10), 4, 1))
      next++
      clock.timers.setTimeout(arrive, 10 * 60_000)
    }
    arrive()
    const doubts = countDoubts()
    await clock.advance(3 * 60 * 60_000)
    // Reads at the first check, 30 min and 1 h 30 after it: not one at each of the six checks.
    expect(repairs.size).toBeGreaterThanOrEqual(2)
    expect(repairs.size).toBeLessThanOrEqual(3)
    // The readings are doubted once, for the new difference, not at every check.
    expect(doubts.n).toBe(1)
    expect(scope().audit.state).toBe('incomplete')
    expect(scope().audit.error).toMatch(/3 orders here the service does not list.*read again in full after \d\d:\d\d UTC/)
  })
})

describe('the local count', () => {
  it('is taken before the service is asked: an order a poll brings in between is no false surplus', async () => {
    const real = fake.historyPage
    let landed = false
    fake.historyPage = async (req, opts) => {
      const r = await real(req, opts)
      // Just after the audit's count is answered, a poll lands with an order created after it.
      if (!landed && opts?.priority === 'low' && req.since === undefined) {
        landed = true
        const created = onramp(500, at(5000), 4, 1)
        fake.put(1, 1, created)
        store.orders.applyHistoryPage({ type: 1, fiatType: 1, records: [created] })
      }
      return r
    }
    const doubts = countDoubts()
    await clock.advance(AUDIT)
    expect(landed).toBe(true)
    expect(repairs.size).toBe(0)
    expect(doubts.n).toBe(0)
    expect(scope().audit.state).toBe('complete')
  })
})
