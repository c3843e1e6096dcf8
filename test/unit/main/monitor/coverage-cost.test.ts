// What checking coverage costs per hour at the shipped settings (docs/spec-readings.md,
// "Cost per hour"): the monitor as a profile session builds it (default settings, every
// fiat probed, audits every 30 min, readings checked by probes) over a fake service and a
// real database, for the merchant: onramp in INR, TRY, AED and BRL, offramp in INR
// and TRY, the other configured fiats empty and one fiat the service refuses, 30 open
// orders no poll reads again. The hour measured is the second, after discovery, first
// syncs and the daily reading checks. Run this file to reproduce the documented numbers
// (it prints them). A second, smaller run reads `since` on createdAt, where each poll
// lists a whole scope: the readings' checks are settled there too, not made at each poll.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, expect, it } from 'vitest'
import { openLocalStore, type LocalStore } from '../../../../src/main/store/local-store'
import { AUDIT_EVERY_MS, monitorSchedule, OrderMonitor } from '../../../../src/main/monitor/order-monitor'
import { DEFAULT_SETTINGS } from '../../../../src/main/app-settings'
import { at, FakeClock, FakeHistory, httpError, onramp, type FakeReadings } from './fake-history'

const HOUR = 60 * 60_000
const HELD: Array<[1 | 2, number, number]> = [
  [1, 1, 400],
  [1, 2, 120],
  [1, 3, 60],
  [1, 7, 40],
  [2, 1, 80],
  [2, 2, 30]
]
const REFUSED_FIAT = 12
const FIATS = [1, 2, 3, 4, 5, 6, 7, 8, REFUSED_FIAT]

let dir: string
let store: LocalStore
let monitor: OrderMonitor | undefined

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rampdesk-cost-'))
}, 300_000)
afterEach(async () => {
  await monitor?.stop()
  store.close()
  rmSync(dir, { recursive: true, force: true })
}, 300_000)

/** The monitor over `held` for two hours; what the second hour cost, and the open orders. */
async function secondHour(held: typeof HELD, fiats: number[], readings?: FakeReadings) {
  const clock = new FakeClock()
  store = openLocalStore(dir, { now: () => new Date(clock.now()) })
  const fake = new FakeHistory()
  if (readings) fake.readings = readings
  let id = 1
  // Every 13th onramp INR order open, and changed weeks before the rest: only the freshness sweep confirms it again.
  const OLD = Date.parse('2025-01-01T00:00:00.000Z')
  for (const [type, fiat, n] of held)
    for (let i = 0; i < n; i++, id++) {
      const isOpen = type === 1 && fiat === 1 && id % 13 === 0
      fake.put(type, fiat, onramp(id, isOpen ? at(id, OLD) : at(id), isOpen ? 0 : 4, fiat))
    }
  const open = fake.truth(1, 1).filter((o) => o.status === 0).length
  fake.refuse = (c) => (c.fiatType === REFUSED_FIAT ? httpError(422, 'fiatType not supported') : undefined)
  monitor = new OrderMonitor({
    client: fake,
    store,
    ...monitorSchedule(DEFAULT_SETTINGS),
    discover: { fiats: () => fiats },
    auditEveryMs: AUDIT_EVERY_MS,
    probes: true,
    now: clock.now,
    timers: clock.timers
  })
  monitor.start()
  await clock.advance(HOUR)
  const from = fake.calls.length
  await clock.advance(HOUR)
  const calls = fake.calls.slice(from)
  const spent = monitor.coverage().spentLastHour
  const polls = calls.length - spent.probe - spent.audit - spent.reading
  return { open, merchantHistory: calls.length, polls, ...spent }
}

it('costs what docs/spec-readings.md says per hour at the shipped settings', async () => {
  const numbers = await secondHour(HELD, FIATS)
  console.log(`cost per hour at the shipped settings: ${JSON.stringify(numbers)}`)
  // 12 scopes not holding orders (10 empty, 2 refused), each probed every 10 minutes.
  expect(numbers.probe).toBe(12 * 6)
  // 6 scopes audited twice an hour, one or two requests each.
  expect(numbers.audit).toBeGreaterThanOrEqual(12)
  expect(numbers.audit).toBeLessThanOrEqual(24)
  // The readings were checked in the first hour: none again in the second.
  expect(numbers.reading).toBe(0)
  // since was checked to filter on updatedAt: each poll read to its end confirms the open
  // orders unchanged since its look-back, so the sweep asks orderStatus about none of them
  // (where since is not on updatedAt it asks about each about 6 times an hour: freshness.test.ts).
  expect(numbers.freshness).toBe(0)
  expect(numbers.open).toBeGreaterThan(0)
  expect(monitor!.coverage().freshness.stale).toBe(0)
  expect(monitor!.coverage().gaps).toEqual([])
}, 300_000)

it('checks a reading at most twice an hour, not at each poll, where since filters on createdAt and a poll lists a whole scope', async () => {
  // Every order created at one instant: each poll, from just before the newest creation,
  // lists the whole scope in one short page, the largest page seen. Whether such a page is
  // a cap was checked; the same answer again is no new question for half an hour (it cost
  // 119 checks an hour; settled for a day, a cap equal to the listing's size hid new orders
  // that long).
  const numbers = await secondHour([[1, 1, 60]], [1], { since: 'inclusive', tieOrder: 'orderId', sinceField: 'createdAt' })
  console.log(`cost per hour, since on createdAt: ${JSON.stringify(numbers)}`)
  expect(monitor!.readings.state().sinceField).toMatchObject({ value: 'createdAt', state: 'checked' })
  expect(numbers.polls).toBe(120)
  expect(numbers.reading).toBeLessThanOrEqual(2)
  expect(monitor!.coverage().gaps).toEqual([])
}, 300_000)
