// The history sync algorithm against a fake service with the real paging rules and a real
// profile database: request counts at the floor, overlap recognised, the cutover instant
// crossed without loop or gap, resume from the persisted cursor, errors that keep every
// committed page, and orders that move under a running sync.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { ApiError } from '../../../../src/shared/api/errors'
import { openLocalStore, type LocalStore } from '../../../../src/main/store/local-store'
import { HistorySync } from '../../../../src/main/monitor/history-sync'
import { at, CUTOVER_ISO, FakeHistory, onramp } from './fake-history'

let dir: string
let store: LocalStore
let fake: FakeHistory

const sync = (s: LocalStore = store) => new HistorySync({ client: fake, orders: s.orders })

/** The database equals the fake's ground truth for (1, 1): same ids, statuses and updatedAt. */
function expectMatchesTruth(s: LocalStore = store, type: 1 | 2 = 1, fiat = 1): void {
  const truth = fake.truth(type, fiat)
  expect(s.orders.count(type)).toBe(truth.length)
  for (const r of truth) {
    const row = s.orders.get(type, r.orderId)
    expect(row, `order ${r.orderId}`).toBeDefined()
    expect([row!.status, row!.updatedAt]).toEqual([r.status, r.updatedAt])
  }
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rampdesk-sync-'))
  store = openLocalStore(dir)
  fake = new FakeHistory()
})

afterEach(() => {
  store.close()
  rmSync(dir, { recursive: true, force: true })
})

describe('HistorySync', () => {
  it('first sync of N orders costs ceil(N/500) requests, ASC, pageSize 500, background priority, one since', async () => {
    for (let i = 1; i <= 1234; i++) fake.put(1, 1, onramp(i, at(i)))
    const r = await sync().run(1, 1)
    expect(r.requests).toBe(3)
    expect(fake.calls.map((c) => [c.since, c.page, c.pageSize, c.order, c.priority])).toEqual([
      [undefined, 1, 500, 'ASC', 'background'],
      [undefined, 2, 500, 'ASC', 'background'],
      [undefined, 3, 500, 'ASC', 'background']
    ])
    expect(r).toMatchObject({ pages: 3, orders: 1234, created: 1234, startedFrom: null, cursor: at(1234) })
    expectMatchesTruth()
  })

  it('an exact multiple of 500 needs one empty page to prove the end', async () => {
    for (let i = 1; i <= 1000; i++) fake.put(1, 1, onramp(i, at(i)))
    const r = await sync().run(1, 1)
    expect(r.requests).toBe(3)
    expectMatchesTruth()
  })

  it('when nothing changed, a run is exactly one request and writes nothing', async () => {
    for (let i = 1; i <= 700; i++) fake.put(1, 1, onramp(i, at(i)))
    await sync().run(1, 1)
    fake.calls.length = 0
    for (let n = 0; n < 3; n++) {
      const r = await sync().run(1, 1)
      expect(r).toMatchObject({ requests: 1, created: 0, statusChanged: 0 })
    }
    expect(fake.calls.every((c) => c.since === at(700) && c.page === 1)).toBe(true)
  })

  it('recognises the inclusive overlap (same id, same content) and picks up changes and new orders', async () => {
    // Three orders share the last instant: the next run re-reads them and must not duplicate them.
    for (let i = 1; i <= 10; i++) fake.put(1, 1, onramp(i, i <= 7 ? at(i) : at(8)))
    await sync().run(1, 1)
    fake.change(1, 1, 3, 2, at(20))
    fake.put(1, 1, onramp(11, at(21)))
    const seen: number[] = []
    const r = await sync().run(1, 1)
    expect(r.requests).toBe(1)
    expect(r.created).toBe(1)
    expect(r.statusChanged).toBe(1)
    expect(fake.calls.at(-1)).toMatchObject({ since: at(8), page: 1 })
    seen.push(...store.orders.timeline(1, 3).map((e) => e.newStatus))
    expect(seen).toEqual([0, 2])
    expectMatchesTruth()
  })

  it('crosses 1,203 orders sharing the cutover instant without loop or gap, at the floor', async () => {
    for (let i = 1; i <= 1203; i++) fake.put(1, 1, onramp(i, CUTOVER_ISO, 4))
    for (let i = 1204; i <= 1510; i++) fake.put(1, 1, onramp(i, at(i)))
    const r = await sync().run(1, 1)
    expect(r.requests).toBe(Math.ceil(1510 / 500))
    expect(fake.calls.map((c) => c.page)).toEqual([1, 2, 3, 4])
    expectMatchesTruth()
  })

  it('a cursor resting on the cutover instant costs one request per run, not a page-1 loop', async () => {
    for (let i = 1; i <= 1203; i++) fake.put(1, 1, onramp(i, CUTOVER_ISO, 4))
    const first = await sync().run(1, 1)
    expect(first.requests).toBe(3)
    expect(store.orders.getCursor(1, 1)).toMatchObject({ cursor: CUTOVER_ISO, seenAtCursor: 1203 })
    fake.calls.length = 0
    const again = await sync().run(1, 1)
    expect(again.requests).toBe(1)
    // since = the cutover, page 3: the 203 not-yet-full page, recognised as unchanged.
    expect(fake.calls[0]).toMatchObject({ since: CUTOVER_ISO, page: 3 })
    // And a new order after it is found by the same single request.
    fake.put(1, 1, onramp(5000, at(1)))
    const third = await sync().run(1, 1)
    expect(third).toMatchObject({ requests: 1, created: 1 })
    expectMatchesTruth()
  })

  it('resumes after a crash mid-cutover from the persisted cursor (cursor instant + page), not from page 1', async () => {
    for (let i = 1; i <= 1203; i++) fake.put(1, 1, onramp(i, CUTOVER_ISO, 4))
    for (let i = 1204; i <= 1400; i++) fake.put(1, 1, onramp(i, at(i)))
    fake.failAt(2)
    await expect(sync().run(1, 1)).rejects.toThrow(ApiError)
    // Page 1 committed with its cursor; close and reopen the database as after a restart.
    store.close()
    store = openLocalStore(dir)
    expect(store.orders.getCursor(1, 1)).toMatchObject({ cursor: CUTOVER_ISO, seenAtCursor: 500 })
    expect(store.orders.count(1)).toBe(500)
    fake.calls.length = 0
    const r = await sync().run(1, 1)
    expect(fake.calls.map((c) => [c.since, c.page])).toEqual([
      [CUTOVER_ISO, 2],
      [CUTOVER_ISO, 3]
    ])
    expect(r.created).toBe(900)
    expectMatchesTruth()
  })

  it('a failing page keeps every committed page; the next run recovers without duplicates', async () => {
    for (let i = 1; i <= 1600; i++) fake.put(1, 1, onramp(i, at(i)))
    fake.failAt(3, new ApiError({ kind: 'http', endpoint: 'merchantHistory', httpStatus: 502, message: 'bad gateway' }))
    await expect(sync().run(1, 1)).rejects.toMatchObject({ kind: 'http' })
    expect(store.orders.count(1)).toBe(1000)
    expect(store.orders.getCursor(1, 1).cursor).toBe(at(1000))
    const r = await sync().run(1, 1)
    expect(r.created).toBe(600)
    expect(r.requests).toBe(2)
    expectMatchesTruth()
    expect(store.orders.timeline(1, 1000)).toHaveLength(1)
  })

  it('an abort stops between pages and never splits a page from its cursor', async () => {
    for (let i = 1; i <= 1600; i++) fake.put(1, 1, onramp(i, at(i)))
    const ac = new AbortController()
    fake.beforeAnswer = (_c, n) => {
      if (n === 2) ac.abort()
    }
    await expect(sync().run(1, 1, { signal: ac.signal })).rejects.toBeDefined()
    const count = store.orders.count(1)
    expect(count % 500).toBe(0)
    expect(store.orders.getCursor(1, 1).cursor).toBe(count ? at(count) : null)
  })

  it('repairs the gap when an order already read moves to the end during the run', async () => {
    for (let i = 1; i <= 1500; i++) fake.put(1, 1, onramp(i, at(i)))
    // Between page 1 and page 2, order 10 (read on page 1) changes: every later record shifts
    // left by one and order 501 would fall between page 1 and page 2.
    fake.beforeAnswer = (_c, n) => {
      if (n === 2) fake.change(1, 1, 10, 3, at(9999))
    }
    const r = await sync().run(1, 1)
    expect(r.repairs).toBe(1)
    expectMatchesTruth()
    expect(store.orders.get(1, 501)).toBeDefined()
    expect(store.orders.get(1, 10)!.status).toBe(3)
  })

  it('commits the repair it owes, so a restart before the repair pass starts with it', async () => {
    for (let i = 1; i <= 1400; i++) fake.put(1, 1, onramp(i, at(i)))
    fake.beforeAnswer = (_c, n) => {
      if (n === 2) fake.change(1, 1, 10, 3, at(9999))
    }
    fake.failAt(4) // the repair pass's first page
    await expect(sync().run(1, 1)).rejects.toThrow(ApiError)
    fake.beforeAnswer = undefined
    store.close()
    store = openLocalStore(dir)
    expect(store.orders.getCursor(1, 1).repairFrom).toBe(at(10))
    expect(store.orders.get(1, 501)).toBeUndefined()
    fake.calls.length = 0
    const s = sync()
    await s.run(1, 1)
    expect(fake.calls[0]).toMatchObject({ since: at(10), page: 1 })
    expect(s.pendingRepair(1, 1)).toBeNull()
    expectMatchesTruth()
  })

  it('stays complete under random changes during long syncs (randomised, seeded)', async () => {
    let seed = 12345
    const rnd = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31
    let clock = 0
    for (let i = 1; i <= 3000; i++) fake.put(1, 1, onramp(i, i <= 900 ? CUTOVER_ISO : at(++clock)))
    let next = 3001
    fake.beforeAnswer = () => {
      // Each request: a few orders change status, sometimes a new one appears.
      for (let k = 0; k < 2; k++) {
        const id = 1 + Math.floor(rnd() * (next - 1))
        fake.change(1, 1, id, 1 + Math.floor(rnd() * 3), at(++clock))
      }
      if (rnd() < 0.5) fake.put(1, 1, onramp(next++, at(++clock)))
    }
    const s = sync()
    await s.run(1, 1)
    // Catching up with changes made during the last pages is the next run's job; once the
    // service is quiet, one more run must leave the database equal to the truth.
    fake.beforeAnswer = undefined
    await s.run(1, 1)
    expect(s.pendingRepair(1, 1)).toBeNull()
    expectMatchesTruth()
  })

  it('keeps (type, fiat) scopes apart', async () => {
    for (let i = 1; i <= 30; i++) fake.put(1, 1, onramp(i, at(i)))
    for (let i = 31; i <= 45; i++) fake.put(1, 2, onramp(i, at(i), 0, 2))
    await sync().run(1, 1)
    await sync().run(1, 2)
    expect(store.orders.getCursor(1, 1).cursor).toBe(at(30))
    expect(store.orders.getCursor(1, 2).cursor).toBe(at(45))
    expect(fake.callsFor(1, 2)).toHaveLength(1)
    expect(store.orders.count(1)).toBe(45)
  })
})
