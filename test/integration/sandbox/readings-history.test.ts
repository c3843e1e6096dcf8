// The merchantHistory readings over loopback: since inclusive or exclusive on a record
// exactly at since, ties in updatedAt by orderId or by a hidden row order, and churn
// while paging (N open orders advance one step before each answer, at one shared
// instant), with the ground truth following every move.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { CUTOVER, defaultReadings, startSandbox, type Sandbox, type TruthOrder } from '../../../src/sandbox'
import { allPages, call, data } from './sandbox-client'

type Rec = { orderId: number; updatedAt: string; status: number }

let sb: Sandbox
let t = Date.parse('2025-06-01T10:00:00.000Z')
const CUTOVER_ISO = new Date(CUTOVER).toISOString()

beforeAll(async () => {
  sb = await startSandbox({ seed: 31, orders: 2500, autoGenerate: false, now: () => t })
})
afterAll(async () => {
  await sb.close()
})
beforeEach(() => {
  t += 61_000
  const d = defaultReadings()
  sb.control.setReadings({ since: d.since, tieOrder: d.tieOrder, churnPerHistoryRequest: 0 })
})

const all = (body: Record<string, unknown>, pageSize: number): Promise<Rec[]> => allPages<Rec>(sb, body, pageSize)

const ms = (iso: string): number => Date.parse(iso)

describe('since', () => {
  it('inclusive (default) returns the record exactly at since; exclusive starts after it', async () => {
    const everything = await all({}, 500)
    // A record whose updatedAt no other record shares, so the boundary is one record.
    const at = everything.find(
      (r, i) => i > 100 && everything[i - 1]!.updatedAt !== r.updatedAt && everything[i + 1]!.updatedAt !== r.updatedAt
    )!
    expect(sb.control.readings().since).toBe('inclusive')
    const inclusive = await all({ since: at.updatedAt }, 500)
    expect(inclusive[0]).toEqual(at)
    expect(inclusive).toEqual(everything.filter((r) => ms(r.updatedAt) >= ms(at.updatedAt)))

    sb.control.setReadings({ since: 'exclusive' })
    const exclusive = await all({ since: at.updatedAt }, 500)
    expect(exclusive.map((r) => r.orderId)).not.toContain(at.orderId)
    expect(exclusive).toEqual(everything.filter((r) => ms(r.updatedAt) > ms(at.updatedAt)))
    expect(exclusive).toEqual(inclusive.slice(1))
  })

  it('exclusive at the cutover leaves out every order that reports it', async () => {
    sb.control.setReadings({ since: 'exclusive' })
    const after = await all({ since: CUTOVER_ISO }, 500)
    expect(after.some((r) => r.updatedAt === CUTOVER_ISO)).toBe(false)
    const tied = sb.control.groundTruth({ type: 1, fiatType: 1 }).filter((o) => o.updatedAt === CUTOVER_ISO)
    expect(tied.length).toBeGreaterThan(50)
    expect(after.length).toBe(sb.control.groundTruth({ type: 1, fiatType: 1 }).length - tied.length)
  })
})

describe('tie order', () => {
  it('orderId (default) pages a tie in id order; hidden gives the same records in another order, the same on every read', async () => {
    const byId = await all({}, 50)
    const tiedById = byId.filter((r) => r.updatedAt === CUTOVER_ISO).map((r) => r.orderId)
    expect(tiedById.length).toBeGreaterThan(50)
    expect(tiedById).toEqual([...tiedById].sort((a, b) => a - b))

    sb.control.setReadings({ tieOrder: 'hidden' })
    const hidden = await all({}, 50)
    const tiedHidden = hidden.filter((r) => r.updatedAt === CUTOVER_ISO).map((r) => r.orderId)
    expect([...tiedHidden].sort((a, b) => a - b)).toEqual(tiedById)
    expect(tiedHidden).not.toEqual(tiedById)
    // Nothing in the records tells the order: they are the very records of the orderId reading.
    expect([...hidden].sort((a, b) => a.orderId - b.orderId)).toEqual([...byId].sort((a, b) => a.orderId - b.orderId))
    // Still sorted by updatedAt; only ties differ.
    for (let i = 1; i < hidden.length; i++) expect(ms(hidden[i]!.updatedAt)).toBeGreaterThanOrEqual(ms(hidden[i - 1]!.updatedAt))
    // Stable: another read in other page sizes gives the same sequence; DESC is its reverse.
    expect(await all({}, 37)).toEqual(hidden)
    expect(await all({ order: 'DESC' }, 500)).toEqual([...hidden].reverse())
  })

  it('hidden keeps a tie made by orders moving together in its own order', async () => {
    sb.control.setReadings({ tieOrder: 'hidden' })
    const made = Array.from({ length: 12 }, () =>
      sb.control.createOrder({ type: 1, coinCode: 'usdt', network: 'bep20', fiatType: 1, fiatAmount: 2000, hold: true })
    )
    t += 5_000
    for (const o of made) sb.control.advanceOrder(o.orderId)
    const last = (await data<Rec[]>(sb, 'merchantHistory', { order: 'DESC', pageSize: 12 })).reverse()
    expect(last.map((r) => r.updatedAt)).toEqual(made.map(() => new Date(t).toISOString()))
    expect([...last.map((r) => r.orderId)].sort((a, b) => a - b)).toEqual(made.map((o) => o.orderId))
    expect(last.map((r) => r.orderId)).not.toEqual(made.map((o) => o.orderId))
  })
})

describe('churn while paging', () => {
  const changed = (before: Map<number, TruthOrder>, after: TruthOrder[]): TruthOrder[] =>
    after.filter((o) => before.get(o.orderId)!.history.length !== o.history.length)

  it('advances N open orders one step before each history answer, all at one updatedAt; the ground truth follows', async () => {
    for (let i = 0; i < 20; i++)
      sb.control.createOrder({ type: 1, coinCode: 'usdt', network: 'trc20', fiatType: 1, fiatAmount: 1500, path: 'completed', hold: true })
    t += 10_000
    sb.control.setReadings({ churnPerHistoryRequest: 3 })
    const before = new Map(sb.control.groundTruth().map((o) => [o.orderId, o]))
    const r = await call(sb, 'merchantHistory', { body: { pageSize: 1 } })
    expect(r.status).toBe(200)
    const moved = changed(before, sb.control.groundTruth())
    expect(moved).toHaveLength(3)
    const at = new Date(t).toISOString()
    for (const o of moved) {
      const was = before.get(o.orderId)!
      expect(o.history.length).toBe(was.history.length + 1)
      expect(o.history.at(-1)).toEqual({ status: o.status, at })
      expect(o.updatedAt).toBe(at)
      expect(o.record.updatedAt).toBe(at)
      expect(o.record.status).toBe(o.status)
    }
    // Every request churns again: three more steps, at the next request's instant.
    t += 1_000
    const before2 = new Map(sb.control.groundTruth().map((o) => [o.orderId, o]))
    await data(sb, 'merchantHistory', { type: 2, pageSize: 1 })
    const moved2 = changed(before2, sb.control.groundTruth())
    expect(moved2).toHaveLength(3)
    expect(new Set(moved2.map((o) => o.updatedAt))).toEqual(new Set([new Date(t).toISOString()]))
    // A refused request does not churn.
    const before3 = new Map(sb.control.groundTruth().map((o) => [o.orderId, o]))
    expect((await call(sb, 'merchantHistory', { body: { pageSize: 0 } })).status).toBe(400)
    expect(changed(before3, sb.control.groundTruth())).toHaveLength(0)
  })

  it('a reader paging through while orders churn sees what the service held at each answer; the truth is exact afterwards', async () => {
    for (let i = 0; i < 30; i++)
      sb.control.createOrder({ type: 1, coinCode: 'usdc', network: 'bep20', fiatType: 1, fiatAmount: 1800, path: 'completed', hold: true })
    t += 10_000
    sb.control.setReadings({ churnPerHistoryRequest: 2, tieOrder: 'hidden', since: 'exclusive' })
    const seen = new Map<number, Rec>()
    for (let page = 1; page <= 20; page++) {
      t += 500
      for (const r of await data<Rec[]>(sb, 'merchantHistory', { page, pageSize: 100 })) seen.set(r.orderId, r)
    }
    sb.control.setReadings({ churnPerHistoryRequest: 0 })
    const truth = sb.control.groundTruth({ type: 1, fiatType: 1 })
    const histories = new Map(truth.map((o) => [o.orderId, o.history.map((h) => h.status)]))
    for (const r of seen.values()) expect(histories.get(r.orderId)).toContain(r.status)
    const now = await all({}, 500)
    expect(now).toHaveLength(truth.length)
    const records = new Map(truth.map((o) => [o.orderId, o.record]))
    for (const r of now) expect(r).toEqual(records.get(r.orderId))
  })

  it('with nothing open, churn moves nothing', async () => {
    const s = await startSandbox({ seed: 3, orders: 0, autoGenerate: false, now: () => t, readings: { churnPerHistoryRequest: 5 } })
    try {
      expect(await data(s, 'merchantHistory', {})).toEqual([])
      const done = s.control.createOrder({
        type: 1,
        coinCode: 'usdt',
        network: 'bep20',
        fiatType: 1,
        fiatAmount: 2000,
        path: 'timed out',
        hold: true
      })
      s.control.advanceOrder(done.orderId)
      expect(await data<Rec[]>(s, 'merchantHistory', {})).toMatchObject([{ orderId: done.orderId, status: -1 }])
      expect(s.control.order(done.orderId)!.history).toHaveLength(2)
    } finally {
      await s.close()
    }
  })
})
