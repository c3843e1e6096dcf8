// The orders table's window onto the local database: pages fetched as the table scrolls,
// prefetch in the direction of the scroll, answers to an older filter dropped, live
// patches, refresh and a bounded cache. Main is the contract bridge of test/support with
// an in-memory orders:query whose answers the test releases one by one.
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { contractBridge } from '../../../support/contract-bridge'
import type { ChannelInput, ChannelOutput, OrderFilter, OrderRow } from '../../../../src/shared/ipc/contract'
import type * as OrderWindowModule from '../../../../src/renderer/src/lib/order-window.svelte'

type Query = ChannelInput<'orders:query'>
type Answer = ChannelOutput<'orders:query'>

function row(type: 1 | 2, orderId: number, status = 0): OrderRow {
  return {
    type,
    orderId,
    status,
    fiatType: 1,
    coinId: 54,
    chainId: 1,
    fiatAmount: '1000',
    cryptoAmount: '11.5',
    walletAddress: null,
    merchantRecognitionId: null,
    referenceId: null,
    transactionHash: null,
    createdAt: '2024-01-01T00:00:00.000Z',
    updatedAt: '2024-01-01T00:00:00.000Z',
    firstSeenAt: 0,
    lastChangedAt: 0,
    watched: false
  }
}

/** A search of one character is broad: main counts it up to this many. */
const CAP = 50

/**
 * The database: `total` orders per type; a search narrows to ids starting with it, and
 * finds 2 of the other type on its first window (a one-character search: more than CAP,
 * counted up to CAP in both).
 */
function answer(q: Query, total: number): Answer {
  const ids = Array.from({ length: total }, (_, i) => 100001 + i).filter((id) => !q.filter.search || String(id).startsWith(q.filter.search))
  const rows = ids.slice(q.offset, q.offset + q.limit).map((id) => row(q.filter.type, id))
  if (q.filter.search?.length === 1 && ids.length > CAP)
    return { rows, total: CAP, totalAtLeast: true, ...(q.offset === 0 ? { otherTypeTotal: CAP, otherTypeTotalAtLeast: true } : {}) }
  return q.filter.search && q.offset === 0 ? { rows, total: ids.length, otherTypeTotal: 2 } : { rows, total: ids.length }
}

interface Pending {
  query: Query
  release(total?: number): Promise<void>
  fail(message: string): Promise<void>
}

let pending: Pending[] = []
const main = contractBridge({
  'orders:query': (q) =>
    new Promise<Answer>((resolve, reject) => {
      pending.push({
        query: q,
        release: async (total = 1000) => {
          resolve(answer(q, total))
          await settle()
        },
        fail: async (message) => {
          reject(Object.assign(new Error(message), { kind: 'internal', retryable: false }))
          await settle()
        }
      })
    })
})

/**
 * Lets every answer already released reach the window (envelope, then the window's own
 * code, then what it runs after the answer is painted: a next task, without frames here).
 */
const settle = () => new Promise<void>((r) => setTimeout(() => setTimeout(r, 0), 0))

/** Releases whatever is pending, again and again, until nothing new is asked for. */
async function drain(total = 1000): Promise<void> {
  while (pending.length) {
    const batch = pending
    pending = []
    for (const p of batch) await p.release(total)
  }
}

const pagesAsked = (from = 0) => pending.slice(from).map((p) => p.query.offset / 100)

let OrderWindow: typeof OrderWindowModule.OrderWindow
let PAGE_SIZE: number

beforeAll(async () => {
  vi.stubGlobal('window', { rampdesk: main.bridge })
  vi.stubGlobal('document', { documentElement: { dataset: {} } })
  ;({ OrderWindow, PAGE_SIZE } = await import('../../../../src/renderer/src/lib/order-window.svelte'))
})
afterAll(() => void vi.unstubAllGlobals())
beforeEach(() => {
  pending = []
})

const onramp: OrderFilter = { type: 1 }

/** The operator went through these filters, each answered in full. */
async function visit(win: OrderWindowModule.OrderWindow, ...filters: OrderFilter[]): Promise<void> {
  for (const f of filters) {
    win.reset(f)
    await drain()
  }
}

describe('OrderWindow', () => {
  it('asks for the first page of the filter, in the default sort, through the contract', async () => {
    const win = new OrderWindow(onramp)
    win.reset(onramp)
    expect(pending.map((p) => p.query)).toEqual([{ filter: onramp, sort: 'updatedAt:desc', offset: 0, limit: PAGE_SIZE }])
    expect(win.loaded).toBe(false)
    await pending.shift()!.release()
    expect(win.loaded).toBe(true)
    expect(win.total).toBe(1000)
    expect(win.rowAt(0)?.orderId).toBe(100001)
    expect(win.rowAt(99)?.orderId).toBe(100100)
    // Page 1 is on its way (the page ahead), not there yet.
    expect(win.rowAt(100)).toBeUndefined()
    expect(pagesAsked()).toEqual([1])
  })

  it('goes through its phases: previous rows, answered, painted; a recent first page while asked again', async () => {
    const win = new OrderWindow(onramp)
    win.reset(onramp)
    expect(win.phase).toBe('previous')
    await pending.shift()!.release()
    // The answer is in; the pages ahead wait for the frame that shows it (a task later here).
    expect(['answered', 'painted']).toContain(win.phase)
    await drain()
    expect(win.phase).toBe('painted')
    win.reset({ type: 1, search: '1002' })
    await drain()
    win.reset(onramp)
    expect(win.phase).toBe('recent')
    expect(win.loaded).toBe(true)
    await drain()
    expect(win.phase).toBe('painted')
  })

  it("keeps the other type's matches of a search from its first window, and forgets them with the filter", async () => {
    const win = new OrderWindow(onramp)
    await visit(win, { type: 1, search: '1002' })
    expect(win.otherTypeTotal).toBe(2)
    win.reset(onramp)
    expect(win.otherTypeTotal).toBeNull()
    await drain()
    expect(win.otherTypeTotal).toBeNull()
  })

  it('says when more match than the total main counted (a broad search), and forgets it with the filter', async () => {
    const win = new OrderWindow(onramp)
    await visit(win, { type: 1, search: '1' })
    expect([win.total, win.totalAtLeast, win.otherTypeTotal, win.otherTypeTotalAtLeast]).toEqual([CAP, true, CAP, true])
    await visit(win, { type: 1, search: '1002' })
    expect([win.totalAtLeast, win.otherTypeTotal, win.otherTypeTotalAtLeast]).toEqual([false, 2, false])
    // Going back to the broad search shows its kept first page at once, "at least" with it.
    win.reset({ type: 1, search: '1' })
    expect(win.phase).toBe('recent')
    expect([win.total, win.totalAtLeast]).toEqual([CAP, true])
    await drain()
  })

  it('fetches the rows in view with half a page around them, and the page ahead once the total is known', async () => {
    const win = new OrderWindow(onramp)
    win.reset(onramp)
    win.ensure(0, 30)
    expect(pagesAsked()).toEqual([0])
    await pending.shift()!.release()
    expect(pagesAsked()).toEqual([1])
    await drain()
    win.ensure(0, 30)
    expect(pagesAsked()).toEqual([])
    // A small step down: two pages ahead (1 cached, 2 new).
    win.ensure(5, 35)
    expect(pagesAsked()).toEqual([2])
  })

  it('sends the page ahead only after the frame that shows the first answer', async () => {
    const frames: FrameRequestCallback[] = []
    const g = globalThis as Record<string, unknown>
    g.requestAnimationFrame = (f: FrameRequestCallback) => frames.push(f)
    g.cancelAnimationFrame = () => {}
    try {
      const win = new OrderWindow(onramp)
      win.reset(onramp)
      win.ensure(0, 30)
      await pending.shift()!.release()
      expect(win.rowAt(0)?.orderId).toBe(100001)
      expect(pagesAsked()).toEqual([])
      for (const f of frames.splice(0)) f(0)
      await settle()
      expect(pagesAsked()).toEqual([1])
    } finally {
      delete g.requestAnimationFrame
      delete g.cancelAnimationFrame
    }
  })

  it('fetches up to six pages ahead on a fling, never past the last page', async () => {
    const win = new OrderWindow(onramp)
    win.reset(onramp)
    win.ensure(0, 30)
    await drain()
    win.ensure(300, 330)
    // Rows 250-380 are pages 2 and 3; then six ahead, cut at page 9 (1000 rows).
    expect(pagesAsked()).toEqual([2, 3, 4, 5, 6, 7, 8, 9])
  })

  it('fetches behind the rows in view when the table scrolls up', async () => {
    const win = new OrderWindow(onramp)
    win.reset(onramp)
    await drain()
    win.ensure(900, 930)
    await drain()
    win.ensure(880, 910)
    expect(pagesAsked()).toEqual([7, 6])
  })

  it('keeps the old rows on screen until the new filter answers, then shows only the new ones', async () => {
    const win = new OrderWindow(onramp)
    win.reset(onramp)
    await drain()
    const searched: OrderFilter = { type: 1, search: '1002' }
    win.reset(searched)
    expect(win.rowAt(0)?.orderId).toBe(100001)
    expect(win.loaded).toBe(false)
    await drain()
    expect(win.total).toBe(100)
    expect(win.rowAt(0)?.orderId).toBe(100200)
  })

  it('shows the first page of a recent filter at once when the operator goes back to it, and asks again', async () => {
    const win = new OrderWindow(onramp)
    await visit(win, onramp, { type: 1, search: '1002' })
    const answers = win.answers
    win.reset(onramp)
    // The page kept from the first answer, before main has answered again.
    expect(win.loaded).toBe(true)
    expect(win.total).toBe(1000)
    expect(win.rowAt(0)?.orderId).toBe(100001)
    expect(win.rowAt(100)).toBeUndefined()
    expect(win.answers).toBe(answers + 1)
    expect(pending.map((p) => [p.query.filter, p.query.offset])).toEqual([[onramp, 0]])
    // Main's answer replaces it (here the database has grown meanwhile).
    await pending.shift()!.release(1200)
    expect(win.total).toBe(1200)
    // The pages ahead wait for that answer, as after any first answer.
    win.ensure(0, 30)
    await settle()
    expect(pagesAsked()).toEqual([1])
  })

  it('keeps the page it shows when an answer brings the same rows, so nothing is drawn again', async () => {
    const win = new OrderWindow(onramp)
    await visit(win, onramp, { type: 1, search: '1002' })
    win.reset(onramp)
    const kept = win.pageOf(0)
    // Main confirms the kept first page: the window keeps the array the table drew.
    await pending.shift()!.release()
    expect(win.pageOf(0)).toBe(kept)
    // A refresh that finds the page unchanged (only the total grew) keeps it as well.
    win.refresh()
    await pending.shift()!.release(1001)
    expect(win.total).toBe(1001)
    expect(win.pageOf(0)).toBe(kept)
    // An answer that differs in one field replaces it.
    win.patch(row(1, 100001, 15))
    const patched = win.pageOf(0)
    expect(patched).not.toBe(kept)
    win.refresh()
    await pending.shift()!.release(1001)
    expect(win.pageOf(0)).not.toBe(patched)
    expect(win.rowAt(0)?.status).toBe(0)
  })

  it('sameRows compares pages field by field', async () => {
    const { sameRows } = await import('../../../../src/renderer/src/lib/order-window.svelte')
    const a = [row(1, 1), row(1, 2)]
    expect(sameRows(a, [row(1, 1), row(1, 2)])).toBe(true)
    expect(sameRows(a, [row(1, 1)])).toBe(false)
    expect(sameRows(a, [row(1, 1), row(1, 2, 5)])).toBe(false)
    expect(sameRows(a, [row(1, 1), { ...row(1, 2), watched: true }])).toBe(false)
    expect(sameRows(a, [row(1, 1), { ...row(1, 2), walletAddress: '0xabc' }])).toBe(false)
  })

  it('does not show a kept first page once orders changed (a patch, a refresh)', async () => {
    const win = new OrderWindow(onramp)
    await visit(win, onramp, { type: 1, search: '1002' })
    win.patch(row(1, 100200, 15))
    win.reset(onramp)
    expect(win.loaded).toBe(false)
    expect(win.rowAt(0)?.orderId).toBe(100200)
    await drain()
    await visit(win, { type: 1, search: '1002' })
    win.refresh()
    win.reset(onramp)
    expect(win.loaded).toBe(false)
    await drain()
  })

  it('an answer sent before a change is shown, asked for again, and only the new one is kept', async () => {
    const win = new OrderWindow(onramp)
    await visit(win, onramp)
    win.reset({ type: 1, search: '1002' })
    const sentBefore = pending.shift()!
    win.refresh()
    await sentBefore.release()
    expect(win.rowAt(0)?.orderId).toBe(100200)
    // Asked again, since the refresh came while it was on its way.
    expect(pending.map((p) => [p.query.filter.search, p.query.offset])).toEqual([['1002', 0]])
    win.reset(onramp)
    await drain()
    win.reset({ type: 1, search: '1002' })
    // Kept: the answer to the query sent after the refresh.
    expect(win.loaded).toBe(true)
    expect(win.rowAt(0)?.orderId).toBe(100200)
    await drain()
  })

  it('a kept first page whose query fails again goes, and the error shows', async () => {
    const win = new OrderWindow(onramp)
    await visit(win, onramp, { type: 2 })
    win.reset(onramp)
    expect(win.rowAt(0)?.orderId).toBe(100001)
    await pending.shift()!.fail('the database is locked')
    expect(win.error).toMatchObject({ message: 'the database is locked' })
    expect(win.rowAt(0)).toBeUndefined()
  })

  it('keeps the first pages of the last eight filters', async () => {
    const win = new OrderWindow(onramp)
    const filters: OrderFilter[] = Array.from({ length: 9 }, (_, i) => ({ type: 1, search: `100${i}` }))
    await visit(win, ...filters)
    win.reset(filters[0]!)
    expect(win.loaded).toBe(false)
    await drain()
    win.reset(filters[2]!)
    expect(win.loaded).toBe(true)
    expect(win.rowAt(0)?.orderId).toBe(100200)
    await drain()
  })

  it('drops the answer to a filter the operator has already typed past', async () => {
    const win = new OrderWindow(onramp)
    win.reset({ type: 1, search: '1' })
    const first = pending.shift()!
    win.reset({ type: 1, search: '1003' })
    await first.release()
    // The old filter's answer changed nothing on screen.
    expect(win.loaded).toBe(false)
    expect(win.rowAt(0)).toBeUndefined()
    await pending.shift()!.release()
    expect(win.total).toBe(100)
    expect(win.rowAt(0)?.orderId).toBe(100300)
  })

  it('sends at most two first-page queries at a time while the operator types: the latest filter goes next, those typed past never', async () => {
    const win = new OrderWindow(onramp)
    win.reset({ type: 1, search: '1' })
    win.reset({ type: 1, search: '10' })
    win.reset({ type: 1, search: '100' })
    win.reset({ type: 1, search: '1004' })
    expect(pending.map((p) => p.query.filter.search)).toEqual(['1', '10'])
    await pending.shift()!.release()
    expect(pending.map((p) => p.query.filter.search)).toEqual(['10', '1004'])
    await pending.shift()!.release()
    // Neither answer was to the filter on screen.
    expect(win.loaded).toBe(false)
    await pending.shift()!.release()
    expect(win.total).toBe(100)
    expect(win.rowAt(0)?.orderId).toBe(100400)
    // A filter typed with one query on its way goes at once; a failed query frees its place as well.
    win.reset({ type: 1, search: '1' })
    win.reset({ type: 1, search: '1005' })
    expect(pending.map((p) => p.query.filter.search)).toEqual(['1', '1005'])
    win.reset({ type: 1, search: '1006' })
    await pending.shift()!.fail('database is locked')
    expect(pending.map((p) => p.query.filter.search)).toEqual(['1005', '1006'])
    await pending.shift()!.release()
    await pending.shift()!.release()
    expect(win.error).toBeNull()
    expect(win.rowAt(0)?.orderId).toBe(100600)
  })

  it('shows the error of the current filter, in the contract envelope, and not the old rows beside it', async () => {
    const win = new OrderWindow(onramp)
    win.reset(onramp)
    await drain()
    win.reset({ type: 2 })
    await pending.shift()!.fail('the database is locked')
    expect(win.error).toMatchObject({ kind: 'internal', message: 'the database is locked' })
    expect(win.rowAt(0)).toBeUndefined()
    expect(win.loaded).toBe(true)
    win.reset({ type: 2 })
    await drain()
    expect(win.error).toBeNull()
    expect(win.rowAt(0)?.type).toBe(2)
  })

  it('sends a filter main would refuse as the contract refuses it (invalid_input), never as rows', async () => {
    const win = new OrderWindow(onramp)
    win.reset({ type: 1, search: 'x'.repeat(201) })
    await settle()
    expect(pending).toEqual([])
    expect(win.error?.kind).toBe('invalid_input')
  })

  it('patches a changed order in its cached page at once', async () => {
    const win = new OrderWindow(onramp)
    win.reset(onramp)
    win.ensure(0, 30)
    await drain()
    const before = win.pageOf(149)
    win.patch(row(1, 100150, 15))
    expect(win.rowAt(149)).toMatchObject({ orderId: 100150, status: 15 })
    // A new array for the patched page, the old one untouched: what was formatted from it stays true to it.
    expect(win.pageOf(149)).not.toBe(before)
    expect(before?.[49]).toMatchObject({ orderId: 100150, status: 0 })
    expect(win.pageOf(0)).toBe(win.pageOf(99))
    // Same id, other type: another order.
    win.patch(row(2, 100001, 4))
    expect(win.rowAt(0)).toMatchObject({ type: 1, status: 0 })
  })

  it('refresh refetches the pages in view and marks the rest stale, so they refetch when reached', async () => {
    const win = new OrderWindow(onramp)
    win.reset(onramp)
    win.ensure(0, 30)
    await drain()
    win.ensure(450, 480)
    await drain()
    win.ensure(0, 30)
    await drain()
    win.refresh()
    expect(pagesAsked()).toEqual([0])
    await drain(1001)
    expect(win.total).toBe(1001)
    win.ensure(450, 480)
    // Pages 4-5 in view and 6-9 ahead were cached but are stale; page 10 exists now that the total grew.
    expect(pagesAsked()).toEqual([4, 5, 6, 7, 8, 9, 10])
  })

  it('keeps at most 24 pages, dropping those farthest from the rows in view', async () => {
    const win = new OrderWindow(onramp)
    win.reset(onramp)
    win.ensure(0, 30)
    await drain(10_000)
    for (let start = 0; start < 6000; start += 100) {
      win.ensure(start, start + 30)
      await drain(10_000)
    }
    expect(win.cachedPages).toBeLessThanOrEqual(24)
    expect(win.rowAt(5950)).toBeDefined()
    expect(win.rowAt(0)).toBeUndefined()
  })

  it('a first page asked for ahead (a short search in its pause) is the answer of the reset to it, without asking again', async () => {
    const win = new OrderWindow(onramp)
    await visit(win, onramp)
    const short: OrderFilter = { type: 1, search: '1' }
    win.prefetch(short)
    expect(pending.map((p) => p.query)).toEqual([{ filter: short, sort: 'updatedAt:desc', offset: 0, limit: PAGE_SIZE }])
    // Asked again before the pause ends: still the one query.
    win.prefetch(short)
    expect(pending).toHaveLength(1)
    // Nothing shown changes meanwhile.
    expect(win.total).toBe(1000)
    await pending.shift()!.release()
    expect(win.total).toBe(1000)
    // The pause ends: the answer is there already, and main is not asked for it again.
    win.reset(short)
    expect(pending).toHaveLength(0)
    await settle()
    expect(win.phase).not.toBe('previous')
    expect(win.total).toBe(CAP)
    expect(win.totalAtLeast).toBe(true)
    expect(win.rowAt(0)?.orderId).toBe(100001)
  })

  it('a first page asked for ahead goes unused when the operator types on: the reset asks for its own filter', async () => {
    const win = new OrderWindow(onramp)
    await visit(win, onramp)
    win.prefetch({ type: 1, search: '1' })
    win.reset({ type: 1, search: '1002' })
    expect(pending.map((p) => p.query.filter.search)).toEqual(['1', '1002'])
    await drain()
    expect(win.total).toBe(100)
    expect(win.rowAt(0)?.orderId).toBe(100200)
  })
})
