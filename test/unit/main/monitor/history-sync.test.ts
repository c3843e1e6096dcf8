// The history sync algorithm against a fake service with the real paging rules, either
// reading of `since` and of tie order, and a real profile database: request counts,
// overlap recognised, the cutover instant crossed without loop or gap, resume from the
// persisted cursor (checked by overlap), errors that keep every committed page, orders
// that move under a running sync, unreadable records kept apart, and a randomised
// property over every reading with churn while paging.
import fc from 'fast-check'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { ApiError } from '../../../../src/shared/api/errors'
import { openLocalStore, type LocalStore } from '../../../../src/main/store/local-store'
import { HistorySync, type HistorySyncOptions } from '../../../../src/main/monitor/history-sync'
import { HistoryReadings } from '../../../../src/main/monitor/history-readings'
import { at, CUTOVER_ISO, expectStoreMatchesTruth, FakeHistory, onramp, type FakeReadings } from './fake-history'

let dir: string
let store: LocalStore
let fake: FakeHistory
/** What the profile learned of its service: one per profile, shared by its syncs (as ProfileSession does). */
let readings: HistoryReadings

const sync = (s: LocalStore = store, o: Partial<HistorySyncOptions> = {}) => new HistorySync({ client: fake, store: s, readings, ...o })
const before = (iso: string) => new Date(Date.parse(iso) - 1).toISOString()

const expectMatchesTruth = (s: LocalStore = store, type: 1 | 2 = 1, fiat = 1): void => expectStoreMatchesTruth(s, fake, type, fiat)

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rampdesk-sync-'))
  store = openLocalStore(dir)
  fake = new FakeHistory()
  readings = new HistoryReadings()
})

afterEach(() => {
  store.close()
  rmSync(dir, { recursive: true, force: true })
})

describe('HistorySync', () => {
  it('a first sync pages by keyset from just before each page’s newest instant: ASC, pageSize 500, background', async () => {
    for (let i = 1; i <= 1234; i++) fake.put(1, 1, onramp(i, at(i)))
    const r = await sync().run(1, 1)
    expect(fake.calls.map((c) => [c.since, c.page, c.pageSize, c.order, c.priority])).toEqual([
      [undefined, 1, 500, 'ASC', 'background'],
      [before(at(500)), 1, 500, 'ASC', 'background'],
      [before(at(999)), 1, 500, 'ASC', 'background']
    ])
    // Each page after the first re-reads the records at the instant it starts from; orders counts each once.
    expect(r).toMatchObject({ requests: 3, orders: 1234, created: 1234, startedFrom: null, cursor: at(1234) })
    expectMatchesTruth()
  })

  it('when nothing changed, a poll is one request from the look-back window and writes no order', async () => {
    for (let i = 1; i <= 700; i++) fake.put(1, 1, onramp(i, at(i)))
    await sync().run(1, 1)
    fake.calls.length = 0
    const changedBefore = store.orders.get(1, 700)!.lastChangedAt
    for (let n = 0; n < 3; n++) expect(await sync().run(1, 1)).toMatchObject({ requests: 1, created: 0, statusChanged: 0 })
    // Two minutes of look-back at one order a second: the last 121 orders are read again.
    expect(fake.calls.every((c) => c.since === before(at(580)) && c.page === 1)).toBe(true)
    expect(store.orders.get(1, 700)!.lastChangedAt).toBe(changedBefore)
  })

  it('picks up changes and new orders after the cursor, and late records inside the look-back window', async () => {
    for (let i = 1; i <= 10; i++) fake.put(1, 1, onramp(i, i <= 7 ? at(i) : at(8)))
    await sync().run(1, 1)
    fake.change(1, 1, 3, 2, at(20))
    fake.put(1, 1, onramp(11, at(21)))
    // Committed late by the service with an updatedAt before our cursor.
    fake.put(1, 1, onramp(12, at(5)))
    const r = await sync().run(1, 1)
    // 12 records, more than any page so far (10): page 2 at 12 records makes sure 12 is not a cap.
    expect(r).toMatchObject({ requests: 2, created: 2, statusChanged: 1 })
    expect(store.orders.timeline(1, 3).map((e) => e.newStatus)).toEqual([0, 2])
    expectMatchesTruth()
  })

  it('a service whose clock stepped back is read from its own now, not from the cursor ahead of it', async () => {
    for (let i = 1; i <= 600; i++) fake.put(1, 1, onramp(i, at(i)))
    await sync().run(1, 1)
    // The service's clock goes back 5 minutes: what changes now is stamped before our cursor (at(600)).
    const serviceNow = Date.parse(at(600)) - 5 * 60_000
    fake.put(1, 1, onramp(601, new Date(serviceNow).toISOString()))
    fake.change(1, 1, 7, 2, new Date(serviceNow + 1000).toISOString())
    // Only the cursor counts: both are older than its 2-minute look-back and wait for a reconcile.
    await sync().run(1, 1)
    expect(store.orders.get(1, 601)).toBeUndefined()
    // With the service's clock known, the next poll finds both.
    fake.calls.length = 0
    const r = await sync(store, { serviceNow: () => serviceNow + 2000 }).run(1, 1)
    expect(fake.calls[0]!.since).toBe(before(new Date(serviceNow + 2000 - 2 * 60_000).toISOString()))
    expect(r).toMatchObject({ created: 1, statusChanged: 1 })
    expectMatchesTruth()
  })

  it('a service clock ahead of the cursor changes nothing: the look-back starts from the cursor', async () => {
    for (let i = 1; i <= 700; i++) fake.put(1, 1, onramp(i, at(i)))
    await sync().run(1, 1)
    fake.calls.length = 0
    await sync(store, { serviceNow: () => Date.parse(at(700)) + 60_000 }).run(1, 1)
    expect(fake.calls.map((c) => c.since)).toEqual([before(at(580))])
  })

  it.each<FakeReadings['since']>(['inclusive', 'exclusive'])('since read as %s: nothing at the boundary instant is lost', async (since) => {
    fake.readings.since = since
    // Three orders share the instant a page ends on, and more come after.
    for (let i = 1; i <= 8; i++) fake.put(1, 1, onramp(i, at(i)))
    for (let i = 9; i <= 11; i++) fake.put(1, 1, onramp(i, at(9)))
    for (let i = 12; i <= 20; i++) fake.put(1, 1, onramp(i, at(i)))
    await sync(store, { pageSize: 10 }).run(1, 1)
    expectMatchesTruth()
    fake.put(1, 1, onramp(21, at(20)))
    await sync(store, { pageSize: 10, lookbackMs: 0 }).run(1, 1)
    expectMatchesTruth()
  })

  it('crosses 1,203 orders sharing the cutover instant by offset inside that run only, then by keyset again', async () => {
    for (let i = 1; i <= 1203; i++) fake.put(1, 1, onramp(i, CUTOVER_ISO, 4))
    for (let i = 1204; i <= 1510; i++) fake.put(1, 1, onramp(i, at(i)))
    const r = await sync().run(1, 1)
    // Inside the run each page re-reads the last two records of the one before (page sizes
    // 498, 497) to check nothing shifted; past it, keyset again. Before the first page past the
    // first, the page number is found once (page 1 of one record, page 0 refused: counted
    // from 1); from then on every listing names its first page.
    expect(fake.calls.map((c) => [c.since, c.wirePage, c.pageSize])).toEqual([
      [undefined, undefined, 500],
      [undefined, 1, 1],
      [undefined, 0, 1],
      [undefined, 2, 498],
      [undefined, 3, 497],
      [before(at(1491)), 1, 500]
    ])
    expect(r).toMatchObject({ requests: 6, restarts: 0 })
    expectMatchesTruth()
  })

  it.each<FakeReadings['tieOrder']>(['orderId', 'hidden'])(
    'a cursor resting at the end of the cutover run costs one request per poll, checked by overlap (ties by %s)',
    async (tieOrder) => {
      fake.readings.tieOrder = tieOrder
      for (let i = 1; i <= 1203; i++) fake.put(1, 1, onramp(i, CUTOVER_ISO, 4))
      // Three pages and, once, the check of the page number (page 1, page 0 refused).
      expect((await sync().run(1, 1)).requests).toBe(5)
      expect(store.syncCursors.get(1, 1)).toMatchObject({ cursor: CUTOVER_ISO, seenAtCursor: 1203 })
      fake.calls.length = 0
      const again = await sync().run(1, 1)
      expect(again).toMatchObject({ requests: 1, restarts: 0 })
      // since: just before the cutover, a page overlapping the last ids read there (1200-1202).
      expect(fake.calls[0]).toMatchObject({ since: before(CUTOVER_ISO), page: 4, pageSize: 400 })
      fake.put(1, 1, onramp(5000, at(1)))
      expect(await sync().run(1, 1)).toMatchObject({ requests: 1, created: 1 })
      expectMatchesTruth()
    }
  )

  it('resumes after a crash mid-cutover at a page overlapping the last ids read there, checked', async () => {
    for (let i = 1; i <= 1203; i++) fake.put(1, 1, onramp(i, CUTOVER_ISO, 4))
    for (let i = 1204; i <= 1400; i++) fake.put(1, 1, onramp(i, at(i)))
    // Page 1, the check of the page number (two requests), page 2, then the failure.
    fake.failAt(5)
    await expect(sync().run(1, 1)).rejects.toThrow(ApiError)
    store.close()
    store = openLocalStore(dir)
    expect(store.syncCursors.get(1, 1)).toMatchObject({ cursor: CUTOVER_ISO, seenAtCursor: 996 })
    fake.calls.length = 0
    const r = await sync().run(1, 1)
    // Positions 0-995 were read; the first page re-reads 994-995 and goes on.
    expect(fake.calls[0]).toMatchObject({ since: before(CUTOVER_ISO), page: 3, pageSize: 497 })
    expect(r).toMatchObject({ created: 404, restarts: 0 })
    expectMatchesTruth()
  })

  it('when the overlap shows positions moved (orders left the run while we were away), the run is read from its start', async () => {
    for (let i = 1; i <= 1203; i++) fake.put(1, 1, onramp(i, CUTOVER_ISO, 4))
    await sync().run(1, 1)
    // Two orders of the first page leave the run: everything behind them shifts two places.
    fake.change(1, 1, 3, 5, at(1))
    fake.change(1, 1, 4, 5, at(2))
    for (let i = 1204; i <= 1206; i++) fake.put(1, 1, onramp(i, CUTOVER_ISO, 4))
    fake.calls.length = 0
    const r = await sync().run(1, 1)
    expect(r.restarts).toBe(1)
    expect(fake.calls[0]).toMatchObject({ since: before(CUTOVER_ISO), page: 4, pageSize: 400 })
    expect(fake.calls[1]).toMatchObject({ since: before(CUTOVER_ISO), page: 1, pageSize: 500 })
    expectMatchesTruth()
  })

  it('a failing page keeps every committed page; the next run recovers without duplicates', async () => {
    for (let i = 1; i <= 1600; i++) fake.put(1, 1, onramp(i, at(i)))
    fake.failAt(3, new ApiError({ kind: 'http', endpoint: 'merchantHistory', httpStatus: 502, message: 'bad gateway' }))
    await expect(sync().run(1, 1)).rejects.toMatchObject({ kind: 'http' })
    expect(store.orders.count(1)).toBe(999)
    expect(store.syncCursors.get(1, 1).cursor).toBe(at(999))
    const r = await sync().run(1, 1)
    expect(r.created).toBe(601)
    expectMatchesTruth()
    expect(store.orders.timeline(1, 999)).toHaveLength(1)
  })

  it('an abort stops between pages and never splits a page from its cursor', async () => {
    for (let i = 1; i <= 1600; i++) fake.put(1, 1, onramp(i, at(i)))
    const ac = new AbortController()
    fake.beforeAnswer = (_c, n) => {
      if (n === 2) ac.abort()
    }
    await expect(sync().run(1, 1, { signal: ac.signal })).rejects.toBeDefined()
    // The second page was already on its way: it is applied whole, with its cursor, and nothing after it.
    expect(store.orders.count(1)).toBe(999)
    expect(store.syncCursors.get(1, 1).cursor).toBe(at(999))
  })

  it('an order that moves during a keyset walk leaves no gap', async () => {
    for (let i = 1; i <= 1500; i++) fake.put(1, 1, onramp(i, at(i)))
    // Between page 1 and page 2, order 10 (read on page 1) changes: everything after it
    // shifts, but the next page starts from an instant, not an offset.
    fake.beforeAnswer = (_c, n) => {
      if (n === 2) fake.change(1, 1, 10, 3, at(9999))
    }
    const r = await sync().run(1, 1)
    expect(r.restarts).toBe(0)
    expectMatchesTruth()
    expect(store.orders.get(1, 10)!.status).toBe(3)
  })

  it.each<FakeReadings['tieOrder']>(['orderId', 'hidden'])(
    'an order that leaves a long run while it is paged by offset is caught by the overlap, and the run is read again (ties by %s)',
    async (tieOrder) => {
      fake.readings.tieOrder = tieOrder
      for (let i = 1; i <= 1203; i++) fake.put(1, 1, onramp(i, CUTOVER_ISO, 4))
      for (let i = 1204; i <= 1300; i++) fake.put(1, 1, onramp(i, at(i)))
      // An order read on page 1 leaves the run before page 2: the record behind page 1's
      // last place shifts onto it and would be missed by a plain page 2.
      const first: number[] = []
      fake.beforeAnswer = (c, n) => {
        if (n === 1) return
        if (n === 2) fake.change(1, 1, first[3]!, 5, at(5000))
      }
      const page1 = fake.historyPage.bind(fake)
      fake.historyPage = async (req, opts) => {
        const r = await page1(req, opts)
        if (first.length === 0) first.push(...r.records.map((x) => x.orderId))
        return r
      }
      const r = await sync().run(1, 1)
      expect(r.restarts).toBe(1)
      expectMatchesTruth()
    }
  )

  it('one unreadable record never blocks its page: the rest is applied, it is kept apart, and replaced once readable', async () => {
    for (let i = 1; i <= 12; i++) fake.put(1, 1, onramp(i, at(i)))
    fake.putUnreadable(1, 1, onramp(13, at(13)))
    for (let i = 14; i <= 20; i++) fake.put(1, 1, onramp(i, at(i)))
    const r = await sync(store, { pageSize: 10 }).run(1, 1)
    expect(r.unreadable).toBe(1)
    expect(store.orders.count(1)).toBe(19)
    expect(store.unreadableOrders.list()).toEqual([
      expect.objectContaining({ type: 1, fiatType: 1, orderId: 13, updatedAt: at(13), reason: 'status: expected an integer' })
    ])
    expect(store.syncCursors.get(1, 1).cursor).toBe(at(20))
    // The service fixes it (a new update): it is read, stored, and leaves the list.
    fake.change(1, 1, 13, 4, at(30))
    await sync(store, { pageSize: 10 }).run(1, 1)
    expect(store.unreadableOrders.list()).toEqual([])
    expectMatchesTruth()
  })

  it('a reconcile pass reads the recent window again; a full pass everything; unchanged records cost no writes', async () => {
    const now = Date.parse(at(3000))
    for (let i = 1; i <= 2000; i++) fake.put(1, 1, onramp(i, at(i)))
    await sync().run(1, 1)
    // A change the service made without moving updatedAt (only a reconcile can see it).
    fake.put(1, 1, { ...onramp(1900, at(1900)), status: 4 })
    fake.calls.length = 0
    const rec = await sync(store, { now: () => now, reconcileWindowMs: 20 * 60_000 }).run(1, 1, { mode: 'reconcile' })
    expect(fake.calls[0]).toMatchObject({ since: before(at(1800)), page: 1 })
    expect(rec).toMatchObject({ statusChanged: 1, created: 0 })
    fake.calls.length = 0
    const full = await sync().run(1, 1, { mode: 'full' })
    expect(fake.calls[0]).toMatchObject({ since: undefined, page: 1 })
    expect(full).toMatchObject({ created: 0, statusChanged: 0, requests: 5 })
    expectMatchesTruth()
  })

  it('a service that answers every page with the same records is refused, not looped over', async () => {
    for (let i = 1; i <= 30; i++) fake.put(1, 1, onramp(i, CUTOVER_ISO))
    const pageOne = fake.merchantHistory.bind(fake)
    fake.merchantHistory = (req, opts) => pageOne({ ...req, page: 1 }, opts)
    await expect(sync(store, { pageSize: 10 }).run(1, 1)).rejects.toMatchObject({ kind: 'schema', message: /does not page/ })
  })

  it('keeps (type, fiat) scopes apart', async () => {
    for (let i = 1; i <= 30; i++) fake.put(1, 1, onramp(i, at(i)))
    for (let i = 31; i <= 45; i++) fake.put(1, 2, onramp(i, at(i), 0, 2))
    await sync().run(1, 1)
    await sync().run(1, 2)
    expect(store.syncCursors.get(1, 1).cursor).toBe(at(30))
    expect(store.syncCursors.get(1, 2).cursor).toBe(at(45))
    expect(fake.callsFor(1, 2)).toHaveLength(1)
    expect(store.orders.count(1)).toBe(45)
  })
})

describe('HistorySync under every reading, with churn while paging (property)', () => {
  it('after the service goes quiet, one poll leaves the database equal to the truth: nothing missing, stale or extra', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          since: fc.constantFrom<FakeReadings['since']>('inclusive', 'exclusive'),
          tieOrder: fc.constantFrom<FakeReadings['tieOrder']>('orderId', 'hidden'),
          pageSize: fc.integer({ min: 2, max: 9 }),
          lookbackMs: fc.constantFrom(0, 5_000),
          // How many orders share the cutover instant, and how many instants the rest spread over (ties).
          cutover: fc.integer({ min: 0, max: 25 }),
          others: fc.integer({ min: 0, max: 40 }),
          instants: fc.integer({ min: 1, max: 12 }),
          churn: fc.array(
            fc.record({ call: fc.integer({ min: 1, max: 30 }), moves: fc.integer({ min: 1, max: 4 }), create: fc.boolean() }),
            { maxLength: 12 }
          ),
          failAt: fc.option(fc.integer({ min: 1, max: 12 }), { nil: undefined }),
          seed: fc.integer({ min: 1, max: 2 ** 30 })
        }),
        async (p) => {
          const d = mkdtempSync(join(tmpdir(), 'rampdesk-prop-'))
          const s = openLocalStore(d)
          try {
            fake = new FakeHistory()
            fake.readings = { since: p.since, tieOrder: p.tieOrder }
            let rnd = p.seed
            const next = () => (rnd = (Math.imul(rnd, 1103515245) + 12345) >>> 0) / 2 ** 32
            let id = 1
            for (let i = 0; i < p.cutover; i++) fake.put(1, 1, onramp(id++, CUTOVER_ISO))
            for (let i = 0; i < p.others; i++) fake.put(1, 1, onramp(id++, at(1 + Math.floor(next() * p.instants))))
            let clock = 100
            fake.beforeAnswer = (_c, n) => {
              for (const c of p.churn.filter((x) => x.call === n)) {
                // Several orders change at ONE instant (they tie there), sometimes a new one appears.
                const t = at(++clock)
                for (let k = 0; k < c.moves && id > 1; k++)
                  fake.change(1, 1, 1 + Math.floor(next() * (id - 1)), 1 + Math.floor(next() * 5), t)
                if (c.create) fake.put(1, 1, onramp(id++, t))
              }
            }
            if (p.failAt !== undefined) fake.failAt(p.failAt)
            const hs = new HistorySync({ client: fake, store: s, pageSize: p.pageSize, lookbackMs: p.lookbackMs })
            await hs.run(1, 1).catch(() => undefined)
            await hs.run(1, 1).catch(() => undefined)
            // Quiet from here on.
            fake.beforeAnswer = undefined
            fake.clearFailures()
            await hs.run(1, 1)
            const truth = fake.truth(1, 1)
            const db = truth.map((r) => s.orders.get(1, r.orderId)).map((r) => (r ? [r.orderId, r.status, r.updatedAt] : null))
            expect(db).toEqual(truth.map((r) => [r.orderId, r.status, r.updatedAt]))
            expect(s.orders.count(1)).toBe(truth.length)
          } finally {
            s.close()
            rmSync(d, { recursive: true, force: true })
          }
        }
      ),
      { numRuns: Number(process.env.PROPERTY_RUNS ?? 300), seed: Number(process.env.PROPERTY_SEED ?? 20261122) }
    )
    // 300 runs of a fixed size, each on a database of its own: about 10 s on two idle cores,
    // over 30 s when the machine is shared.
  }, 120_000)
})

describe('HistorySync checks the readings of merchantHistory it relies on', () => {
  /** Orders whose last change comes 5 to 300 s after creation: updatedAt order is not creation order. */
  function seed(n: number, from = 1): void {
    for (let i = from; i < from + n; i++) fake.put(1, 1, onramp(i, at(10 * i + ((i * 37) % 300) + 5), 0, 1, at(10 * i)))
  }
  const probing = (o: Partial<HistorySyncOptions> = {}) => sync(store, { probes: true, ...o })

  it('a service counting pages from 0: the probe finds it (page 0 answers a record before page 1) and nothing is skipped', async () => {
    fake.readings = { since: 'inclusive', tieOrder: 'orderId', firstPage: 0 }
    seed(1200)
    await probing().run(1, 1)
    expect(readings.state().firstPage).toMatchObject({ value: 0, state: 'checked' })
    expect(fake.calls.some((c) => c.page === 0)).toBe(true)
    expectMatchesTruth()
  })

  it('a 1-based service refusing page 0 is checked as the spec reads it, at two requests', async () => {
    seed(20)
    const r = await probing().run(1, 1)
    expect(readings.state().firstPage).toMatchObject({ value: 1, state: 'checked', how: 'page 0 refused (400)' })
    expect(r.requests).toBeGreaterThanOrEqual(3)
    expectMatchesTruth()
  })

  it('a refusal of page 0 settles how pages count: not asked again a day later, only after the audit doubts the readings', async () => {
    let now = Date.parse('2026-03-01T00:00:00.000Z')
    readings = new HistoryReadings(null, () => now)
    seed(20)
    const pageZero = () => fake.calls.filter((c) => c.wirePage === 0).length
    await probing().run(1, 1)
    expect(pageZero()).toBe(1)
    expect(readings.state().firstPage).toMatchObject({ value: 1, state: 'checked', settled: true })
    now += 3 * 24 * 60 * 60_000
    await probing().run(1, 1)
    expect(pageZero()).toBe(1)
    readings.doubt()
    await probing().run(1, 1)
    expect(pageZero()).toBe(2)
    expectMatchesTruth()
  })

  it('a service holding 100 records a page whatever pageSize asks: the short first page is checked, the cap learned, nothing lost', async () => {
    fake.readings = { since: 'inclusive', tieOrder: 'orderId', pageSizeCap: 100 }
    seed(1000)
    await sync().run(1, 1)
    expect(readings.state().pageSize).toMatchObject({ value: 100, state: 'checked' })
    expect(fake.calls.at(-1)!.pageSize).toBe(100)
    expectMatchesTruth()
  })

  it('a short page that is the end is checked once; later short pages below it cost nothing more', async () => {
    seed(120)
    const first = await sync().run(1, 1)
    // Page 1, then page 2 at its size by the page number found once (page 1 of one record,
    // page 0 refused).
    expect(first.requests).toBe(4)
    expect(readings.state().largestPage).toBe(120)
    fake.put(1, 1, onramp(500, at(99_999), 0, 1, at(99_000)))
    expect((await sync().run(1, 1)).requests).toBe(1)
  })

  it('a service sorting by creation: the first page shows it, the walk goes by offset, and churn while paging loses nothing', async () => {
    fake.readings = { since: 'inclusive', tieOrder: 'orderId', orderBy: 'createdAt' }
    seed(1300)
    let clock = 200_000
    fake.beforeAnswer = (_c, n) => {
      if (n % 2) for (let k = 1; k <= 4; k++) fake.change(1, 1, 37 * k + n, 4, at(++clock))
    }
    const r = await probing({ pageSize: 100 }).run(1, 1)
    expect(r.strategy).toBe('offset')
    expect(readings.state().orderField).toMatchObject({ value: 'createdAt', state: 'checked' })
    fake.beforeAnswer = undefined
    // New orders, after the churn's last change.
    seed(3, 30_000)
    await probing({ pageSize: 100 }).run(1, 1)
    expectMatchesTruth()
  })

  it('a service whose since filters on createdAt: found before the first listing relies on it, read by offset, new orders polled', async () => {
    fake.readings = { since: 'inclusive', tieOrder: 'orderId', sinceField: 'createdAt' }
    seed(1200)
    const r = await probing().run(1, 1)
    expect(readings.state().sinceField).toMatchObject({ value: 'createdAt', state: 'checked' })
    expect(r.strategy).toBe('offset')
    expectMatchesTruth()
    seed(5, 3000)
    fake.calls.length = 0
    await probing().run(1, 1)
    expectMatchesTruth()
    // Answers come newest first by updatedAt: the poll sends no since (it would select by
    // creation) and stops after the page that passes the cursor's look-back.
    expect(fake.calls).toHaveLength(1)
    expect(fake.calls[0]!.since).toBeUndefined()
  })

  it('without the probes, the same service loses orders: what the check is for', async () => {
    fake.readings = { since: 'inclusive', tieOrder: 'orderId', sinceField: 'createdAt' }
    seed(1200)
    await sync().run(1, 1)
    expect(store.orders.count(1)).toBeLessThan(1200)
  })

  it('a listing of one fiat holding orders of another shows the service ignores fiatType for that type', async () => {
    for (let i = 1; i <= 5; i++) fake.put(2, 1, onramp(i, at(i), 0, i % 2 ? 1 : 2))
    await sync().run(2, 1)
    expect(readings.fiatIgnored(2)).toBe(true)
    expect(readings.fiatIgnored(1)).toBe(false)
  })
})
