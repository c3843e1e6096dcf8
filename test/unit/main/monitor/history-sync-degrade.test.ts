// The history sync against services that read merchantHistory in ways it cannot pin down
// in advance: `order` ignored, an empty page
// answered with an error, page 0 refused with any status, `since` ignored. Each must end
// with every order held and no failed run; what it costs is checked where it matters.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { ApiError } from '../../../../src/shared/api/errors'
import { openLocalStore, type LocalStore } from '../../../../src/main/store/local-store'
import { HistorySync, type HistorySyncOptions } from '../../../../src/main/monitor/history-sync'
import { HistoryReadings } from '../../../../src/main/monitor/history-readings'
import { countOnService } from '../../../../src/main/monitor/completeness-audit'
import { at, CUTOVER_ISO, expectStoreMatchesTruth, FakeHistory, onramp, type FakeReadings } from './fake-history'

let dir: string
let store: LocalStore
let fake: FakeHistory
let readings: HistoryReadings

const sync = (o: Partial<HistorySyncOptions> = {}) => new HistorySync({ client: fake, store, readings, ...o })
const base: FakeReadings = { since: 'inclusive', tieOrder: 'orderId' }

/** Orders whose last change comes 5 to 300 s after creation: updatedAt order is not creation order. */
function seed(n: number, from = 1): void {
  for (let i = from; i < from + n; i++) fake.put(1, 1, onramp(i, at(10 * i + ((i * 37) % 300) + 5), 0, 1, at(10 * i)))
}

const expectMatchesTruth = (): void => expectStoreMatchesTruth(store, fake)

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rampdesk-degrade-'))
  store = openLocalStore(dir)
  fake = new FakeHistory()
  readings = new HistoryReadings()
})

afterEach(() => {
  store.close()
  rmSync(dir, { recursive: true, force: true })
})

describe('a service that ignores `order`', () => {
  it.each([false, true])(
    'always newest first (probes %s): every order held, the reading remembered, polls keep working',
    async (probes) => {
      fake.readings = { ...base, direction: 'DESC' }
      seed(300)
      await sync({ probes, pageSize: 100 }).run(1, 1)
      expectMatchesTruth()
      expect(readings.state().direction).toMatchObject({ value: 'DESC', state: 'checked' })
      expect(readings.strategy()).toBe('offset')
      fake.change(1, 1, 7, 4, at(99_000))
      seed(3, 20_000)
      const r = await sync({ probes, pageSize: 100 }).run(1, 1)
      expect(r.restarts).toBe(0)
      expectMatchesTruth()
    }
  )

  it('always newest first, with orders changing while it pages: nothing skipped', async () => {
    fake.readings = { ...base, direction: 'DESC' }
    seed(400)
    let clock = 200_000
    fake.beforeAnswer = (_c, n) => {
      if (n % 2) for (let k = 1; k <= 3; k++) fake.change(1, 1, 41 * k + n, 4, at(++clock))
    }
    await sync({ probes: true, pageSize: 50 }).run(1, 1)
    fake.beforeAnswer = undefined
    await sync({ probes: true, pageSize: 50 }).run(1, 1)
    expectMatchesTruth()
  })

  it('always oldest first, sorted by creation: read ASC to the end, nothing lost', async () => {
    fake.readings = { ...base, direction: 'ASC', orderBy: 'createdAt' }
    seed(250)
    await sync({ probes: true, pageSize: 100 }).run(1, 1)
    expectMatchesTruth()
    expect(readings.state().direction).toMatchObject({ value: 'ASC' })
    seed(2, 30_000)
    await sync({ probes: true, pageSize: 100 }).run(1, 1)
    expectMatchesTruth()
  })
  it('answers whose direction keeps changing: the run goes on by offset instead of restarting until it fails', async () => {
    seed(120)
    fake.beforeAnswer = (_c, n) => void (fake.readings = { ...base, direction: n % 2 ? 'DESC' : 'ASC' })
    const r = await sync({ pageSize: 50 }).run(1, 1)
    expect(r.strategy).toBe('offset')
    expect(readings.state().direction.state).toBe('contradicted')
  })
})

describe('a service that answers an empty page with an error', () => {
  it.each([404, 422, 400])('a short first page checked against a page 2 answered %i: page 1 is held, the run ends well', async (status) => {
    fake.readings = { ...base, emptyStatus: status }
    seed(30)
    const r = await sync().run(1, 1)
    expectMatchesTruth()
    // Page 1, then page 2 at 30 records, by its number found once (page 1 of one record,
    // page 0 refused).
    expect(r.requests).toBe(4)
    expect(readings.state().largestPage).toBe(30)
    expect(readings.state().firstPage).toMatchObject({ value: 1, state: 'checked' })
  })

  it('a listing that is an exact number of pages, read by offset: the page past the end answered 404 ends it', async () => {
    fake.readings = { ...base, orderBy: 'createdAt', emptyStatus: 404 }
    seed(200)
    await sync({ pageSize: 50 }).run(1, 1)
    expectMatchesTruth()
  })

  it('an empty scope answered 404 (or a 4xx saying there is nothing) is an empty listing, not a failed run; another 400 there is still an error', async () => {
    fake.readings = { ...base, emptyStatus: 404 }
    await expect(sync().run(1, 3)).resolves.toMatchObject({ orders: 0 })
    fake.readings = { ...base, emptyStatus: 400 }
    await expect(sync().run(1, 3)).resolves.toMatchObject({ orders: 0 })
    fake.readings = { ...base }
    fake.refuse = () => new ApiError({ kind: 'api', endpoint: 'merchantHistory', httpStatus: 400, code: 400, message: 'Invalid fiatType' })
    await expect(sync().run(1, 3)).rejects.toMatchObject({ httpStatus: 400 })
  })

  it('the check of since’s field answered 404 (no order created since): read as an empty answer, found createdAt', async () => {
    fake.readings = { ...base, sinceField: 'createdAt', emptyStatus: 404 }
    seed(20)
    fake.change(1, 1, 1, 4, at(99_999))
    await sync({ probes: true }).run(1, 1)
    await sync({ probes: true }).run(1, 1)
    expect(readings.state().sinceField).toMatchObject({ value: 'createdAt', state: 'checked' })
    expectMatchesTruth()
  })

  it('the page-size check failing (500, network) never fails the run: page 1 is committed, the check waits', async () => {
    seed(30)
    // The page number known: the second request is the check's page 2.
    readings.found('firstPage', 1, 'known')
    fake.failAt(2, new ApiError({ kind: 'api', endpoint: 'merchantHistory', code: 500, httpStatus: 500, message: 'server problem' }))
    await sync().run(1, 1)
    expectMatchesTruth()
    expect(readings.state().largestPage).toBe(30)
    expect(readings.state().pageSize.state).toBe('assumed')
  })

  it('an auth failure past the end is still a failure (401 is not "no records")', async () => {
    fake.readings = { ...base, orderBy: 'createdAt' }
    seed(20)
    // Read by offset: pages 1 and 2 hold 10 each; page 3, past the data, is refused 401.
    fake.failAt(3, new ApiError({ kind: 'auth', endpoint: 'merchantHistory', code: 401, httpStatus: 401, message: 'Invalid signature' }))
    await sync({ pageSize: 10 })
      .run(1, 1)
      .catch(() => undefined)
    fake.calls.length = 0
    fake.failAt(3, new ApiError({ kind: 'auth', endpoint: 'merchantHistory', code: 401, httpStatus: 401, message: 'Invalid signature' }))
    await expect(sync({ pageSize: 10 }).run(1, 1, { mode: 'full' })).rejects.toMatchObject({ kind: 'auth' })
  })
})

describe('the completeness audit’s count against a service answering an empty page 404', () => {
  it('a local count that is an exact number of pages: the page past it refused 404 counts as empty', async () => {
    fake.readings = { ...base, emptyStatus: 404 }
    seed(40)
    const n = await countOnService(fake, { type: 1, fiatType: 1, pageSize: 20, wirePage: (p) => p, hint: 40 })
    expect(n).toMatchObject({ count: 40, exact: true })
  })
})

describe('page 0 refused in any way', () => {
  it.each([422, 404, 409, 413])('a 1-based service refusing page 0 with %i: checked as 1-based, every order held', async (status) => {
    fake.readings = { ...base, pageZeroStatus: status }
    seed(40)
    await sync({ probes: true }).run(1, 1)
    expect(readings.state().firstPage).toMatchObject({ value: 1, state: 'checked' })
    expectMatchesTruth()
  })

  it('page 0 answered 500: the probe is inconclusive, the run goes on and holds every order', async () => {
    fake.readings = { ...base, pageZeroStatus: 500 }
    seed(40)
    await sync({ probes: true }).run(1, 1)
    expect(readings.state().firstPage.how).not.toMatch(/500/)
    expectMatchesTruth()
  })

  it('the first page of every listing leaves `page` to the spec’s default until the base is found, then names it', async () => {
    seed(1200)
    await sync().run(1, 1)
    const listings = fake.calls.filter((c) => c.pageSize === 500)
    expect(listings.length).toBeGreaterThan(1)
    expect(listings.every((c) => c.wirePage === undefined)).toBe(true)
    fake.calls.length = 0
    await sync({ probes: true }).run(1, 1)
    expect(fake.calls.filter((c) => c.pageSize !== 1).every((c) => c.wirePage === 1)).toBe(true)
  })

  it.each<0 | 1>([0, 1])(
    'pages counted from %i with the probe failing: pages past the first never skip one (paged by position)',
    async (firstPage) => {
      fake.readings = { ...base, firstPage, orderBy: 'createdAt' }
      seed(230)
      // The probe and the walk's own check of the page number (both pages of one record)
      // fail: the base stays unknown.
      fake.beforeAnswer = (c) => {
        if (c.wirePage !== undefined && c.pageSize === 1)
          throw new ApiError({ kind: 'api', endpoint: 'merchantHistory', code: 500, httpStatus: 500, message: 'down' })
      }
      await sync({ probes: true, pageSize: 50 }).run(1, 1)
      expect(readings.state().firstPage.state).toBe('assumed')
      expectMatchesTruth()
    }
  )

  it.each<0 | 1>([0, 1])(
    'pages counted from %i, never probed: a run longer than a page at one instant is read whole',
    async (firstPage) => {
      fake.readings = { ...base, firstPage }
      for (let i = 1; i <= 45; i++) fake.put(1, 1, onramp(i, CUTOVER_ISO))
      for (let i = 46; i <= 60; i++) fake.put(1, 1, onramp(i, at(i)))
      await sync({ pageSize: 10 }).run(1, 1)
      expectMatchesTruth()
    }
  )
})

describe('a service that ignores `since`', () => {
  it('is read in full once; each poll after reads one page, and still sees changes to old orders', async () => {
    fake.readings = { ...base, sinceField: 'ignored' }
    seed(1000)
    await sync({ probes: true, pageSize: 100 }).run(1, 1)
    expectMatchesTruth()
    fake.calls.length = 0
    for (let n = 0; n < 5; n++) await sync({ probes: true, pageSize: 100 }).run(1, 1)
    expect(fake.calls.length).toBeLessThanOrEqual(5 + 1)
    fake.change(1, 1, 3, 4, at(50_000))
    seed(2, 40_000)
    await sync({ probes: true, pageSize: 100 }).run(1, 1)
    expectMatchesTruth()
  })
})

describe('an offset walk that fails part way (found on the way)', () => {
  it.each([false, true])(
    'newest first, failing at page 3 of a first sync (since ignored %s): the next poll reads what was left',
    async (ignored) => {
      fake.readings = { ...base, orderBy: 'createdAt', ...(ignored ? { sinceField: 'ignored' as const } : {}) }
      seed(230)
      readings.found('firstPage', 1, 'known')
      await sync({ pageSize: 50 }).run(1, 1) // learns the order (keyset page, restart), reads by offset
      store.close()
      rmSync(dir, { recursive: true, force: true })
      dir = mkdtempSync(join(tmpdir(), 'rampdesk-degrade-'))
      store = openLocalStore(dir)
      fake.calls.length = 0
      fake.failAt(3)
      await expect(sync({ pageSize: 50 }).run(1, 1)).rejects.toThrow()
      expect(store.orders.count(1)).toBeLessThan(230)
      await sync({ pageSize: 50 }).run(1, 1)
      expectMatchesTruth()
    }
  )
})

describe('pages from 0 where a missing page means page 1, the spec’s literal default', () => {
  const zeroOne: FakeReadings = { ...base, firstPage: 0, missingPage: 'one' }

  it('with the probes (as shipped): the base is found, every request names its page, and every order is held', async () => {
    fake.readings = zeroOne
    seed(1000)
    await sync({ probes: true, pageSize: 100 }).run(1, 1)
    expect(readings.state().firstPage).toMatchObject({ value: 0, state: 'checked' })
    // Once the base is known, nothing is left to what a missing page means (listings, the since check).
    const afterProbe = fake.calls.slice(fake.calls.findIndex((c) => c.pageSize !== 1))
    expect(afterProbe.every((c) => c.wirePage !== undefined)).toBe(true)
    expectMatchesTruth()
    seed(5, 5000)
    await sync({ probes: true, pageSize: 100 }).run(1, 1)
    expectMatchesTruth()
  })

  it('never probed: a run longer than a page found to be read from the second page is read again from the first', async () => {
    fake.readings = zeroOne
    for (let i = 1; i <= 45; i++) fake.put(1, 1, onramp(i, CUTOVER_ISO))
    for (let i = 46; i <= 60; i++) fake.put(1, 1, onramp(i, at(i)))
    await sync({ pageSize: 10 }).run(1, 1)
    expect(readings.state().firstPage).toMatchObject({ value: 0, state: 'checked' })
    expectMatchesTruth()
  })

  it.each([false, true])(
    'keyset with the base unknown (probes %s, the run’s check failing): a listing not starting where the last page ended is checked',
    async (probes) => {
      fake.readings = zeroOne
      seed(1000)
      // The run's own check gets a 500 the first time: inconclusive, then backed off.
      let failed = false
      fake.beforeAnswer = (c) => {
        if (probes && c.pageSize === 1 && !failed) {
          failed = true
          throw new ApiError({ kind: 'api', endpoint: 'merchantHistory', code: 500, httpStatus: 500, message: 'down' })
        }
      }
      await sync({ probes, pageSize: 100 }).run(1, 1)
      expect(readings.state().firstPage).toMatchObject({ value: 0, state: 'checked' })
      expectMatchesTruth()
    }
  )

  it('a poll with the base unknown whose page left out lacks the orders at the cursor checks it and reads on, named', async () => {
    seed(40)
    await sync().run(1, 1)
    // The profile forgot what it knew (a new service behind the same URL): pages from 0, a missing page is page 1.
    readings = new HistoryReadings()
    fake.readings = zeroOne
    seed(3, 5000)
    await sync().run(1, 1)
    expect(readings.state().firstPage).toMatchObject({ value: 0, state: 'checked' })
    expectMatchesTruth()
  })

  it('never probed, read by offset: a first page found to be the second is read again by its number, nothing skipped', async () => {
    fake.readings = { ...zeroOne, orderBy: 'createdAt' }
    seed(230)
    await sync({ pageSize: 50 }).run(1, 1)
    expect(readings.state().firstPage).toMatchObject({ value: 0, state: 'checked' })
    expectMatchesTruth()
  })

  it.each<FakeReadings['missingPage']>(['first', 'one'])(
    'the first-page check finds the base whatever a missing page means (%s), pages from 0 or 1',
    async (missingPage) => {
      for (const firstPage of [0, 1] as const) {
        fake = new FakeHistory()
        fake.readings = { ...base, firstPage, missingPage }
        readings = new HistoryReadings()
        for (let i = 1; i <= 45; i++) fake.put(1, 1, onramp(i, CUTOVER_ISO))
        await sync({ pageSize: 10 }).run(1, 1)
        expect(readings.state().firstPage.value).toBe(firstPage)
        expectMatchesTruth()
      }
    }
  )
})

describe('an inconclusive first-page check is backed off', () => {
  it('runs once, then after 5 min, 10 min, 20 min...: not 3 requests at every run of every scope', async () => {
    let t = Date.parse('2026-11-25T00:00:00.000Z')
    readings = new HistoryReadings(null, () => t)
    // Page 0 answered 500: the check tells nothing, every time.
    fake.readings = { ...base, pageZeroStatus: 500 }
    seed(40)
    const checks = () => fake.calls.filter((c) => c.pageSize === 1 && c.wirePage === 0).length
    const run = async (minutes: number) => {
      t += minutes * 60_000
      await sync({ probes: true }).run(1, 1)
    }
    await run(0)
    expect(checks()).toBe(1)
    for (let i = 0; i < 4; i++) await run(1)
    expect(checks()).toBe(1)
    await run(1) // 5 min after the first
    expect(checks()).toBe(2)
    await run(9)
    expect(checks()).toBe(2)
    await run(1) // 10 min after the second
    expect(checks()).toBe(3)
    expectMatchesTruth()
    // An answer that settles it ends the back-off; the audit's doubt asks again at once.
    fake.readings = { ...base }
    await run(20)
    expect(readings.state().firstPage).toMatchObject({ value: 1, state: 'checked' })
    readings.doubt()
    const before = checks()
    await run(0)
    expect(checks()).toBe(before + 1)
  })
})

describe('ties ordered differently for each page size, a run longer than a page at one instant', () => {
  // SQL `ORDER BY updatedAt LIMIT n OFFSET m` with no tie-breaker: the spec's cutover
  // instant (4.4) shared by 1,200 orders, 300 after it.
  beforeEach(() => {
    fake.readings = { ...base, tieOrder: 'limit' }
    for (let i = 1; i <= 1200; i++) fake.put(1, 1, onramp(i, CUTOVER_ISO, 4))
    for (let i = 1201; i <= 1500; i++) fake.put(1, 1, onramp(i, at(i), 4))
  })

  it.each([false, true])('a first sync (probes %s) ends with every order held, by offset when restarts run out', async (probes) => {
    const r = await sync({ probes }).run(1, 1)
    expect(r.strategy).toBe('offset')
    expectMatchesTruth()
    // Polls after it cost one page (the cursor is past the run).
    fake.calls.length = 0
    seed(3, 200_000)
    await sync({ probes }).run(1, 1)
    expect(fake.calls.length).toBeLessThanOrEqual(2)
    expectMatchesTruth()
  })

  it('a full re-sync reads it too', async () => {
    await sync().run(1, 1)
    store.close()
    rmSync(dir, { recursive: true, force: true })
    dir = mkdtempSync(join(tmpdir(), 'rampdesk-degrade-'))
    store = openLocalStore(dir)
    await sync().run(1, 1, { mode: 'full' })
    expectMatchesTruth()
  })

  it('the records of a page whose overlap check failed are kept (not its cursor): a walk cut short holds them', async () => {
    // The first page, a page past it at another size whose overlap fails, page 1 again (the
    // first restart), a mismatch again; then the second restart's first page fails.
    let restarted = false
    fake.beforeAnswer = (c, n) => {
      if (c.pageSize === 500 && n > 1 && !restarted) restarted = true
      else if (restarted && c.pageSize === 500) throw new ApiError({ kind: 'network', endpoint: 'merchantHistory', message: 'reset' })
    }
    await expect(sync().run(1, 1)).rejects.toThrow()
    // Page 1 (500) and what the mismatched pages held: kept, the cursor still at page 1's end.
    expect(store.orders.count(1)).toBeGreaterThan(600)
    expect(store.syncCursors.get(1, 1).seenAtCursor).toBe(500)
  })
})

describe('an empty listing refused as HTTP 200 carrying the envelope code 404', () => {
  it.each([false, true])(
    'is an empty listing, not a failed run, for the keyset and the offset walk (order on createdAt: %s)',
    async (byCreation) => {
      fake.readings = { ...base, ...(byCreation ? { orderBy: 'createdAt' as const } : {}) }
      fake.refuse = (_c, rows) =>
        rows.length === 0
          ? new ApiError({ kind: 'api', endpoint: 'merchantHistory', httpStatus: 200, code: 404, message: 'No transactions found' })
          : undefined
      // A scope with no orders yet, then one whose recent window is quiet.
      const empty = await sync({ pageSize: 100 }).run(1, 1)
      expect(empty.orders).toBe(0)
      seed(30)
      await sync({ pageSize: 100 }).run(1, 1)
      expectMatchesTruth()
      await sync({ pageSize: 100 }).run(1, 1, { mode: 'reconcile' })
      expectMatchesTruth()
    }
  )
})

describe('a first-page check on a listing with nothing in it', () => {
  it('is inconclusive and backed off, not "pages count from 1": a 0-based service is found once orders come', async () => {
    let t = Date.parse('2026-11-25T00:00:00.000Z')
    readings = new HistoryReadings(null, () => t)
    // Counting from 0, a missing page read as the spec's literal 1 (its second page).
    fake.readings = { ...base, firstPage: 0, missingPage: 'one' }
    await sync({ probes: true }).run(1, 1)
    expect(readings.state().firstPage.state).not.toBe('checked')
    expect(readings.pageBaseKnown()).toBe(false)
    // Backed off: the next run a minute later does not ask again.
    const checks = () => fake.calls.filter((c) => c.pageSize === 1 && c.wirePage === 0).length
    t += 60_000
    await sync({ probes: true }).run(1, 1)
    expect(checks()).toBe(1)
    // Orders come; past the back-off the check finds page 0, and the first page (page 0) is read.
    seed(30)
    t += 5 * 60_000
    await sync({ probes: true }).run(1, 1)
    expect(readings.state().firstPage).toMatchObject({ value: 0, state: 'checked' })
    expectMatchesTruth()
  })
})
