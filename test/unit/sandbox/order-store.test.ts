import { describe, expect, it } from 'vitest'
import { CUTOVER, OrderStore, hiddenRank, reportedUpdatedAt, type NewOrder } from '../../../src/sandbox/order-store'
import { ID_BASE } from '../../../src/sandbox/catalogue'

const base: NewOrder = {
  type: 1,
  fiatIndex: 0,
  coinIndex: 0,
  chainIndex: 0,
  pathId: 0,
  step: 7,
  status: 15,
  paymentType: 1,
  wallet: 0,
  slipBps: 0,
  amountScaled: 100000,
  priceScaled: 840000,
  createdAt: 0,
  updatedAt: 0
}

const ids = (store: OrderStore, rows: number[]): number[] => rows.map((r) => OrderStore.orderIdOf(r))

describe('OrderStore', () => {
  it('reports orders updated on or before the cutover at the cutover (spec 4.4)', () => {
    expect(reportedUpdatedAt(CUTOVER - 1)).toBe(CUTOVER)
    expect(reportedUpdatedAt(CUTOVER)).toBe(CUTOVER)
    expect(reportedUpdatedAt(CUTOVER + 1)).toBe(CUTOVER + 1)
  })

  it('sorts by reported updatedAt then orderId, so orders sharing the cutover page in id order', () => {
    const s = new OrderStore()
    // Inserted out of order: three before the cutover (they tie at CUTOVER), two after.
    s.add({ ...base, createdAt: CUTOVER - 5000, updatedAt: CUTOVER + 2000 })
    s.add({ ...base, createdAt: CUTOVER - 9000, updatedAt: CUTOVER - 100 })
    s.add({ ...base, createdAt: CUTOVER - 9000, updatedAt: CUTOVER - 9000 })
    s.add({ ...base, createdAt: CUTOVER - 9000, updatedAt: CUTOVER + 1000 })
    s.add({ ...base, createdAt: CUTOVER - 9000, updatedAt: CUTOVER })
    const asc = ids(s, s.page(1, 0, { page: 1, pageSize: 10, order: 'ASC' }))
    expect(asc).toEqual([ID_BASE + 1, ID_BASE + 2, ID_BASE + 4, ID_BASE + 3, ID_BASE + 0])
    const desc = ids(s, s.page(1, 0, { page: 1, pageSize: 10, order: 'DESC' }))
    expect(desc).toEqual([...asc].reverse())
    // Pages of 2 cover the same sequence without gaps or repeats.
    const paged = [1, 2, 3].flatMap((p) => ids(s, s.page(1, 0, { page: p, pageSize: 2, order: 'ASC' })))
    expect(paged).toEqual(asc)
    // since is inclusive on the reported updatedAt.
    expect(ids(s, s.page(1, 0, { since: CUTOVER, page: 1, pageSize: 10, order: 'ASC' }))).toEqual(asc)
    expect(ids(s, s.page(1, 0, { since: CUTOVER + 1000, page: 1, pageSize: 10, order: 'ASC' }))).toEqual([ID_BASE + 3, ID_BASE + 0])
    expect(ids(s, s.page(1, 0, { since: CUTOVER + 1001, page: 1, pageSize: 10, order: 'DESC' }))).toEqual([ID_BASE + 0])
    expect(s.page(1, 0, { page: 4, pageSize: 2, order: 'ASC' })).toEqual([])
  })

  it('keeps groups apart and moves an order in its index when it changes', () => {
    const s = new OrderStore()
    const a = s.add({ ...base, pathId: 0, step: 0, status: 0, createdAt: 1000 + CUTOVER, updatedAt: 1000 + CUTOVER })
    const b = s.add({ ...base, pathId: 0, step: 0, status: 0, createdAt: 2000 + CUTOVER, updatedAt: 2000 + CUTOVER })
    s.add({ ...base, type: 2, pathId: 6, createdAt: 1500 + CUTOVER, updatedAt: 1500 + CUTOVER })
    s.add({ ...base, fiatIndex: 1, createdAt: 1500 + CUTOVER, updatedAt: 1500 + CUTOVER })
    expect(s.count(1, 0)).toBe(2)
    expect(s.count(2, 0)).toBe(1)
    expect(s.count(1, 1)).toBe(1)
    s.setStatus(a, 1, 1, 3000 + CUTOVER)
    expect(s.page(1, 0, { page: 1, pageSize: 10, order: 'ASC' })).toEqual([b, a])
    expect(s.history(a).map((h) => h.status)).toEqual([0, 1])
    expect(s.history(a).map((h) => h.at)).toEqual([1000 + CUTOVER, 3000 + CUTOVER])
  })

  it('derives the history of an untouched order from its path and times', () => {
    const s = new OrderStore()
    const r = s.add({ ...base, pathId: 0, step: 7, status: 16, createdAt: 0, updatedAt: 8000 }, false)
    s.rebuildIndexes()
    const h = s.history(r)
    expect(h.map((x) => x.status)).toEqual([0, 1, 2, 11, 12, 13, 14, 15, 16])
    expect(h[0]?.at).toBe(0)
    expect(h[8]?.at).toBe(8000)
    for (let i = 1; i < h.length; i++) expect(h[i]!.at).toBeGreaterThanOrEqual(h[i - 1]!.at)
  })

  it('rebuildIndexes sorts a bulk load like inserts would', () => {
    const a = new OrderStore()
    const b = new OrderStore()
    const times = [5, 3, 9, 3, 1, 7, 3].map((x) => CUTOVER - 10 + x * 3)
    for (const t of times) {
      a.add({ ...base, createdAt: t, updatedAt: t })
      b.add({ ...base, createdAt: t, updatedAt: t }, false)
    }
    b.rebuildIndexes()
    const page = { page: 1, pageSize: 50, order: 'ASC' as const }
    expect(b.page(1, 0, page)).toEqual(a.page(1, 0, page))
  })

  it('since exclusive leaves out the records exactly at since', () => {
    const s = new OrderStore()
    for (const u of [1000, 2000, 2000, 3000]) s.add({ ...base, createdAt: CUTOVER + u, updatedAt: CUTOVER + u })
    const q = (since: number, sinceExclusive: boolean) =>
      ids(s, s.page(1, 0, { since, sinceExclusive, page: 1, pageSize: 10, order: 'ASC' }))
    expect(q(CUTOVER + 2000, false)).toEqual([ID_BASE + 1, ID_BASE + 2, ID_BASE + 3])
    expect(q(CUTOVER + 2000, true)).toEqual([ID_BASE + 3])
    expect(q(CUTOVER + 1999, true)).toEqual([ID_BASE + 1, ID_BASE + 2, ID_BASE + 3])
  })

  it('hidden tie order: the same records, ties in a seeded order that is not by id, kept as orders move', () => {
    const s = new OrderStore(1024, 12345)
    const tied = 40
    for (let i = 0; i < tied; i++) s.add({ ...base, pathId: 0, step: 0, status: 0, createdAt: CUTOVER - 5000, updatedAt: CUTOVER - 5000 })
    s.add({ ...base, createdAt: CUTOVER + 10, updatedAt: CUTOVER + 10 })
    const page = (tie: 'orderId' | 'hidden', p = 1, size = 100) => s.page(1, 0, { page: p, pageSize: size, order: 'ASC', tie })
    const byId = page('orderId')
    const hidden = page('hidden')
    expect([...hidden].sort((a, b) => a - b)).toEqual([...byId].sort((a, b) => a - b))
    expect(hidden.slice(0, tied)).not.toEqual(byId.slice(0, tied))
    expect(hidden.slice(0, tied)).toEqual([...byId.slice(0, tied)].sort((a, b) => hiddenRank(a, 12345) - hiddenRank(b, 12345)))
    expect(hidden[tied]).toBe(tied)
    // Paging the hidden order in small pages gives the same sequence; DESC is its reverse.
    expect([1, 2, 3, 4, 5].flatMap((p) => page('hidden', p, 9))).toEqual(hidden)
    expect(s.page(1, 0, { page: 1, pageSize: 100, order: 'DESC', tie: 'hidden' })).toEqual([...hidden].reverse())
    // An order that moves leaves the tie in both orders; the rest keep their hidden order.
    const moved = hidden[3] as number
    s.setStatus(moved, 1, 1, CUTOVER + 20)
    const after = page('hidden')
    expect(after[after.length - 1]).toBe(moved)
    expect(after.slice(0, tied - 1)).toEqual(hidden.slice(0, tied).filter((r) => r !== moved))
    expect(page('orderId')[tied]).toBe(moved)
    // Another salt, another order.
    const t = new OrderStore(1024, 999)
    for (let i = 0; i < tied; i++) t.add({ ...base, createdAt: CUTOVER - 5000, updatedAt: CUTOVER - 5000 })
    expect(t.page(1, 0, { page: 1, pageSize: 100, order: 'ASC', tie: 'hidden' })).not.toEqual(hidden.slice(0, tied))
  })

  it('keeps the list of open orders (steps left on their path)', () => {
    const s = new OrderStore()
    const open = s.add({ ...base, pathId: 0, step: 0, status: 0, createdAt: CUTOVER + 1, updatedAt: CUTOVER + 1 })
    s.add({ ...base, pathId: 0, step: 7, status: 15, createdAt: CUTOVER + 1, updatedAt: CUTOVER + 1 })
    const other = s.add({ ...base, pathId: 2, step: 0, status: 0, createdAt: CUTOVER + 1, updatedAt: CUTOVER + 1 }, false)
    s.rebuildIndexes()
    expect([...s.openRows()].sort()).toEqual([open, other])
    s.setStatus(other, -1, 1, CUTOVER + 2)
    expect([...s.openRows()]).toEqual([open])
    s.setStatus(open, 1, 1, CUTOVER + 2)
    expect([...s.openRows()]).toEqual([open])
    expect(s.isOpen(open)).toBe(true)
  })
})
