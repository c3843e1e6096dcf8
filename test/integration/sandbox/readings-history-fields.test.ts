// The merchantHistory readings the client checks at run time, over loopback, and the data options they are
// tested with: what `since` filters on and what the order sorts by (updatedAt or
// createdAt), pages counted from 1 or 0, a pageSize capped below the one asked for,
// offramp listings that ignore fiatType; orders in several fiats per type, and one order
// id sequence per type (the same id naming an onramp and an offramp order).
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { defaultReadings, startSandbox, type Sandbox } from '../../../src/sandbox'
import { allPages, call, data, errorOf } from './sandbox-client'

type Rec = { orderId: number; updatedAt: string; createdAt: string; status: number; fiatType: number }

let sb: Sandbox
let t = Date.parse('2025-06-01T10:00:00.000Z')

beforeAll(async () => {
  sb = await startSandbox({
    seed: 41,
    orders: 1500,
    autoGenerate: false,
    now: () => t,
    orderIds: 'perType',
    orderFiats: { onramp: [1, 2, 3, 7], offramp: [1, 2] }
  })
})
afterAll(async () => {
  await sb.close()
})
beforeEach(() => {
  t += 61_000
  const d = defaultReadings()
  sb.control.setReadings({
    historySince: d.historySince,
    historyOrder: d.historyOrder,
    firstPage: d.firstPage,
    missingPage: d.missingPage,
    tieOrder: d.tieOrder,
    pageSizeCap: d.pageSizeCap,
    offrampFiat: d.offrampFiat,
    historyDirection: d.historyDirection,
    emptyHistory: d.emptyHistory
  })
})

const ms = (iso: string): number => Date.parse(iso)
const ids = (rs: readonly Rec[]): number[] => rs.map((r) => r.orderId)

describe('orders in several fiats, ids per type', () => {
  it('holds onramp orders in exactly the fiats asked for, offramp in INR and TRY', () => {
    const fiatsOf = (type: 1 | 2) => [...new Set(sb.control.groundTruth({ type }).map((o) => o.fiatType))].sort()
    expect(fiatsOf(1)).toEqual([1, 2, 3, 7])
    expect(fiatsOf(2)).toEqual([1, 2])
  })

  it('numbers onramp and offramp orders separately: the same id names one order of each, and each type answers for its own', async () => {
    const on = sb.control.groundTruth({ type: 1 })
    const off = sb.control.groundTruth({ type: 2 })
    expect(Math.min(...on.map((o) => o.orderId))).toBe(Math.min(...off.map((o) => o.orderId)))
    const shared = off[0]!.orderId
    const onrampTwin = on.find((o) => o.orderId === shared)!
    expect(onrampTwin.type).toBe(1)
    expect(sb.control.order(shared, 2)!.type).toBe(2)
    expect(sb.control.order(shared, 1)!.type).toBe(1)
    expect(await data<{ orderStatus: number }>(sb, 'orderStatus', { orderId: String(shared), type: 2 })).toEqual({
      orderStatus: sb.control.order(shared, 2)!.status
    })
    expect(await data<{ orderStatus: number }>(sb, 'orderStatus', { orderId: String(shared), type: 1 })).toEqual({
      orderStatus: onrampTwin.status
    })
  })

  it('makes live offramp orders in the fiats allowed, and refuses another', () => {
    expect(sb.control.createOrder({ type: 2, fiatType: 2, coinCode: 'usdt', network: 'bep20', hold: true }).fiatType).toBe(2)
    expect(() => sb.control.createOrder({ type: 2, fiatType: 3, coinCode: 'usdt', network: 'bep20' })).toThrow(/INR.*TRY/)
  })
})

describe('historySince and historyOrder', () => {
  it('since on createdAt (a reading) leaves out orders created before it, however recently they changed', async () => {
    const truth = sb.control.groundTruth({ type: 1, fiatType: 1 })
    // An order created long before its last change: since between the two.
    const o = truth.find((x) => ms(x.updatedAt) - ms(x.createdAt) > 60_000 && ms(x.updatedAt) > Date.parse('2024-01-01'))!
    const since = new Date(ms(o.updatedAt) - 1).toISOString()
    const byUpdate = await allPages<Rec>(sb, { type: 1, fiatType: '1', since }, 500)
    expect(ids(byUpdate)).toContain(o.orderId)
    expect(byUpdate.every((r) => ms(r.updatedAt) >= ms(since))).toBe(true)

    sb.control.setReadings({ historySince: 'createdAt' })
    const byCreation = await allPages<Rec>(sb, { type: 1, fiatType: '1', since }, 500)
    expect(ids(byCreation)).not.toContain(o.orderId)
    expect(byCreation.every((r) => ms(r.createdAt) >= ms(since))).toBe(true)
    expect(byCreation.length).toBe(truth.filter((x) => ms(x.createdAt) >= ms(since)).length)
  })

  it('order on createdAt (a reading) sorts by creation, so a page is not in updatedAt order', async () => {
    const byUpdate = await allPages<Rec>(sb, { type: 1, fiatType: '1' }, 500)
    for (let i = 1; i < byUpdate.length; i++) expect(ms(byUpdate[i]!.updatedAt)).toBeGreaterThanOrEqual(ms(byUpdate[i - 1]!.updatedAt))
    sb.control.setReadings({ historyOrder: 'createdAt' })
    const byCreation = await allPages<Rec>(sb, { type: 1, fiatType: '1' }, 500)
    for (let i = 1; i < byCreation.length; i++)
      expect(ms(byCreation[i]!.createdAt)).toBeGreaterThanOrEqual(ms(byCreation[i - 1]!.createdAt))
    expect(byCreation.some((r, i) => i > 0 && ms(r.updatedAt) < ms(byCreation[i - 1]!.updatedAt))).toBe(true)
    expect([...ids(byCreation)].sort()).toEqual([...ids(byUpdate)].sort())
    const desc = await allPages<Rec>(sb, { type: 1, fiatType: '1', order: 'DESC' }, 500)
    expect(desc).toEqual([...byCreation].reverse())
  })
})

describe('firstPage and pageSizeCap', () => {
  it('a 0-based service answers page 0 with the first records and page 1 with the next ones', async () => {
    const first = await data<Rec[]>(sb, 'merchantHistory', { type: 1, fiatType: '1', pageSize: 3 })
    expect(ids(await data<Rec[]>(sb, 'merchantHistory', { type: 1, fiatType: '1', page: 1, pageSize: 3 }))).toEqual(ids(first))
    expect(errorOf(await call(sb, 'merchantHistory', { body: { page: 0 } }), 400)).toMatch(/page: must be at least 1/)
    sb.control.setReadings({ firstPage: 0 })
    expect(ids(await data<Rec[]>(sb, 'merchantHistory', { type: 1, fiatType: '1', pageSize: 3 }))).toEqual(ids(first))
    expect(ids(await data<Rec[]>(sb, 'merchantHistory', { type: 1, fiatType: '1', page: 0, pageSize: 3 }))).toEqual(ids(first))
    const second = await data<Rec[]>(sb, 'merchantHistory', { type: 1, fiatType: '1', page: 1, pageSize: 3 })
    expect(ids(second)).not.toEqual(ids(first))
    expect(second[0]!.orderId).not.toBe(first[0]!.orderId)
  })

  it('missingPage one: a request without page reads page 1, on a 0-based service its second page', async () => {
    sb.control.setReadings({ firstPage: 0, missingPage: 'one' })
    const zero = await data<Rec[]>(sb, 'merchantHistory', { type: 1, fiatType: '1', page: 0, pageSize: 3 })
    const one = await data<Rec[]>(sb, 'merchantHistory', { type: 1, fiatType: '1', page: 1, pageSize: 3 })
    expect(ids(await data<Rec[]>(sb, 'merchantHistory', { type: 1, fiatType: '1', pageSize: 3 }))).toEqual(ids(one))
    expect(ids(one)).not.toEqual(ids(zero))
    sb.control.setReadings({ firstPage: 1 })
    expect(ids(await data<Rec[]>(sb, 'merchantHistory', { type: 1, fiatType: '1', pageSize: 3 }))).toEqual(ids(zero))
  })

  it('a capped service answers at most its cap and counts offsets in it', async () => {
    const all = await allPages<Rec>(sb, { type: 1, fiatType: '1' }, 500)
    expect(all.length).toBeGreaterThan(200)
    sb.control.setReadings({ pageSizeCap: 100 })
    const p1 = await data<Rec[]>(sb, 'merchantHistory', { type: 1, fiatType: '1', pageSize: 500 })
    expect(ids(p1)).toEqual(ids(all.slice(0, 100)))
    const p2 = await data<Rec[]>(sb, 'merchantHistory', { type: 1, fiatType: '1', page: 2, pageSize: 500 })
    expect(ids(p2)).toEqual(ids(all.slice(100, 200)))
  })
})

describe('tieOrder limit', () => {
  it('orders ties at one updatedAt differently for each page size; the same page size answers the same', async () => {
    const first = (pageSize: number) => data<Rec[]>(sb, 'merchantHistory', { type: 1, fiatType: '1', pageSize })
    const [a, b] = [await first(20), await first(21)]
    // The oldest records share the spec's cutover instant (4.4).
    expect(new Set([...a, ...b].map((r) => r.updatedAt)).size).toBe(1)
    sb.control.setReadings({ tieOrder: 'hidden' })
    expect(ids((await first(21)).slice(0, 20))).toEqual(ids(await first(20)))
    sb.control.setReadings({ tieOrder: 'limit' })
    const [c, d] = [await first(20), await first(21)]
    expect(ids(d.slice(0, 20))).not.toEqual(ids(c))
    expect(ids(await first(20))).toEqual(ids(c))
  })
})

describe('offrampFiat', () => {
  it('filter (default) lists one fiat; ignore lists every offramp order whatever fiatType says', async () => {
    const inr = await allPages<Rec>(sb, { type: 2, fiatType: '1' }, 500)
    const tryOrders = await allPages<Rec>(sb, { type: 2, fiatType: '2' }, 500)
    expect(inr.every((r) => r.fiatType === 1)).toBe(true)
    expect(tryOrders.every((r) => r.fiatType === 2)).toBe(true)
    expect(tryOrders.length).toBeGreaterThan(0)
    sb.control.setReadings({ offrampFiat: 'ignore' })
    for (const fiat of ['1', '2', '3']) {
      const listed = await allPages<Rec>(sb, { type: 2, fiatType: fiat }, 500)
      expect([...ids(listed)].sort()).toEqual([...ids(inr), ...ids(tryOrders)].sort())
    }
    // Onramp still filters.
    expect((await allPages<Rec>(sb, { type: 1, fiatType: '2' }, 500)).every((r) => r.fiatType === 2)).toBe(true)
  })
})

describe('historyDirection and emptyHistory', () => {
  it('DESC answers newest first whatever order asks; honoured (default) follows it', async () => {
    const asc = await data<Rec[]>(sb, 'merchantHistory', { type: 1, fiatType: '1', order: 'ASC', pageSize: 20 })
    const desc = await data<Rec[]>(sb, 'merchantHistory', { type: 1, fiatType: '1', order: 'DESC', pageSize: 20 })
    expect(ms(asc[0]!.updatedAt)).toBeLessThan(ms(desc[0]!.updatedAt))
    sb.control.setReadings({ historyDirection: 'DESC' })
    const asked = await data<Rec[]>(sb, 'merchantHistory', { type: 1, fiatType: '1', order: 'ASC', pageSize: 20 })
    expect(ids(asked)).toEqual(ids(desc))
  })

  it('404 refuses a page with no records ("No transactions found"); empty (default) answers []', async () => {
    const past = { type: 1, fiatType: '1', page: 10_000, pageSize: 500 }
    expect(await data<Rec[]>(sb, 'merchantHistory', past)).toEqual([])
    sb.control.setReadings({ emptyHistory: '404' })
    expect(errorOf(await call(sb, 'merchantHistory', { body: past }), 404)).toMatch(/No transactions found/)
    expect((await data<Rec[]>(sb, 'merchantHistory', { type: 1, fiatType: '1', pageSize: 5 })).length).toBe(5)
  })

  it('null answers a page with no records as data: null, and a page with records as before', async () => {
    const past = { type: 1, fiatType: '1', page: 10_000, pageSize: 500 }
    sb.control.setReadings({ emptyHistory: 'null' })
    expect(await data<Rec[] | null>(sb, 'merchantHistory', past)).toBeNull()
    expect((await data<Rec[]>(sb, 'merchantHistory', { type: 1, fiatType: '1', pageSize: 5 })).length).toBe(5)
  })
})
