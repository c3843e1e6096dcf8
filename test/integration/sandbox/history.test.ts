// merchantHistory (spec 4.4) against the ground truth: paging, pageSize bounds, since
// (inclusive), ASC/DESC, type and fiatType defaults, the cutover rule, and a client
// that pages through everything ends up with exactly the truth.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startSandbox, type Sandbox, type TruthOrder } from '../../../src/sandbox'
import { OfframpHistoryResponse, OnrampHistoryResponse } from '../../../src/shared/api/endpoints'
import { allPages, call, data } from './sandbox-client'

const CUTOVER_ISO = '2022-11-09T16:58:07.000Z'
let sb: Sandbox
let t = Date.parse('2025-06-01T10:00:00.000Z')

type Rec = { orderId: number; updatedAt: string; status: number }

beforeAll(async () => {
  sb = await startSandbox({ seed: 21, orders: 3000, autoGenerate: false, now: () => t })
})
afterAll(async () => {
  await sb.close()
})

const key = (o: { updatedAt: string; orderId: number }) => [Date.parse(o.updatedAt), o.orderId] as const
const byKey = (a: { updatedAt: string; orderId: number }, b: { updatedAt: string; orderId: number }) => {
  const [ua, ia] = key(a)
  const [ub, ib] = key(b)
  return ua - ub || ia - ib
}

const all = (body: Record<string, unknown>, pageSize: number): Promise<Rec[]> => allPages<Rec>(sb, body, pageSize)

describe('merchantHistory', () => {
  it('defaults: page 1, 50 per page, ASC, onramp, INR', async () => {
    const d = await data<Rec[]>(sb, 'merchantHistory', {})
    expect(d).toHaveLength(50)
    const truth = sb.control.groundTruth({ type: 1, fiatType: 1 }).sort(byKey)
    expect(d.map((r) => r.orderId)).toEqual(truth.slice(0, 50).map((o) => o.orderId))
    expect(await data(sb, 'merchantHistory', { type: '' })).toEqual(d)
    expect(await data(sb, 'merchantHistory', { type: 1, fiatType: '1', page: 1, pageSize: 50, order: 'ASC' })).toEqual(d)
  })

  it('pages through every order of a type and fiat, in (updatedAt, orderId) order, matching the truth record for record', async () => {
    for (const [type, fiatType] of [
      [1, 1],
      [2, 1],
      [1, 2]
    ] as const) {
      const got = await all({ type, fiatType: String(fiatType) }, 97)
      const truth = sb.control.groundTruth({ type, fiatType }).sort(byKey)
      expect(got.length).toBe(truth.length)
      expect(got).toEqual(truth.map((o: TruthOrder) => o.record))
      const desc = await all({ type, fiatType: String(fiatType), order: 'DESC' }, 500)
      expect(desc).toEqual([...got].reverse())
    }
  })

  it('reports the cutover instant for orders last updated before it, and pages through the tie by orderId', async () => {
    const truth = sb.control.groundTruth({ type: 1, fiatType: 1 })
    const before = truth.filter((o) => Date.parse(o.lastChangeAt) <= Date.parse(CUTOVER_ISO))
    expect(before.length).toBeGreaterThan(100)
    for (const o of before) expect(o.updatedAt).toBe(CUTOVER_ISO)
    const first = await all({ type: 1 }, 7)
    const tied = first.filter((r) => r.updatedAt === CUTOVER_ISO)
    expect(tied.map((r) => r.orderId)).toEqual(before.map((o) => o.orderId).sort((a, b) => a - b))
  })

  it('since is inclusive on updatedAt', async () => {
    const got = await all({ type: 1 }, 500)
    const pivot = got[Math.floor(got.length / 2)] as Rec
    const from = await all({ type: 1, since: pivot.updatedAt }, 500)
    expect(from[0]!.updatedAt).toBe(pivot.updatedAt)
    expect(from).toEqual(got.filter((r) => Date.parse(r.updatedAt) >= Date.parse(pivot.updatedAt)))
    const fromCutover = await all({ type: 1, since: CUTOVER_ISO }, 500)
    expect(fromCutover).toEqual(got)
    // since given without milliseconds or with an offset is the same instant.
    expect(await data(sb, 'merchantHistory', { since: '2022-11-09T22:28:07+05:30', pageSize: 5 })).toEqual(got.slice(0, 5))
    expect(await data(sb, 'merchantHistory', { since: '2099-01-01T00:00:00.000Z' })).toEqual([])
  })

  it('a page past the end is empty; pageSize 1 and 500 work', async () => {
    expect(await data(sb, 'merchantHistory', { page: 10_000 })).toEqual([])
    expect(await data<Rec[]>(sb, 'merchantHistory', { pageSize: 1 })).toHaveLength(1)
    expect(await data<Rec[]>(sb, 'merchantHistory', { pageSize: 500 })).toHaveLength(500)
  })

  it('parses as onramp or offramp history; the offramp answer omits code as live does', async () => {
    const on = await call(sb, 'merchantHistory', { body: { type: 1 } })
    expect(OnrampHistoryResponse.safeParse(on.json).success).toBe(true)
    expect(on.json).toMatchObject({ status: 1, code: 200 })
    const off = await call(sb, 'merchantHistory', { body: { type: 2 } })
    expect(OfframpHistoryResponse.safeParse(off.json).success).toBe(true)
    expect(off.json).not.toHaveProperty('code')
  })

  it('an order that moves leaves its old place and appears at the end with its new updatedAt', async () => {
    const o = sb.control.createOrder({ type: 1, coinCode: 'usdt', network: 'trc20', fiatType: 1, fiatAmount: 2500, hold: true })
    let last = (await data<Rec[]>(sb, 'merchantHistory', { order: 'DESC', pageSize: 1 }))[0]
    expect(last).toMatchObject({ orderId: o.orderId, status: 0 })
    t += 30_000
    sb.control.advanceOrder(o.orderId)
    last = (await data<Rec[]>(sb, 'merchantHistory', { order: 'DESC', pageSize: 1, since: new Date(t).toISOString() }))[0]
    expect(last).toMatchObject({ orderId: o.orderId, status: 1, updatedAt: new Date(t).toISOString() })
    const everything = await all({ type: 1 }, 500)
    expect(everything.filter((r) => r.orderId === o.orderId)).toHaveLength(1)
    expect((await call(sb, 'orderStatus', { body: { orderId: String(o.orderId), type: 1 } })).json).toMatchObject({
      data: { orderStatus: 1 }
    })
  })
})
