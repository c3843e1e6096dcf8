// Sync cursors: where history sync stands per (type, fiat type) scope, moved only by the
// page transaction that read the records, with the ids (and their run positions) at the
// cursor instant, the repair position and the outcome of the last run.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { openLocalStore, type LocalStore } from '../../../../src/main/store/local-store'
import type { OnrampOrder } from '../../../../src/shared/api/schemas'
import { offramp, onramp } from './order-fixtures'

let dir: string
let store: LocalStore
let clock: Date

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rampdesk-cursors-'))
  clock = new Date('2024-05-01T00:00:00.000Z')
  store = openLocalStore(dir, { now: () => clock })
})

afterEach(() => {
  store.close()
  rmSync(dir, { recursive: true, force: true })
})

const t1 = '2024-01-01T00:00:00.000Z'
const t2 = '2024-01-01T00:00:01.000Z'

describe('the cursor of a scope', () => {
  it('moves to the newest updatedAt and counts the distinct ids seen at exactly that instant', () => {
    let r = store.orders.applyHistoryPage({
      type: 1,
      fiatType: 1,
      records: [onramp({ orderId: 1, updatedAt: t1 }), onramp({ orderId: 2, updatedAt: t2 }), onramp({ orderId: 3, updatedAt: t2 })]
    })
    expect(r.cursor).toMatchObject({ cursor: t2, seenAtCursor: 2, pagesApplied: 1 })
    expect(r.progressed).toBe(true)

    // The same instant again, overlapping: only the new id counts.
    r = store.orders.applyHistoryPage({
      type: 1,
      fiatType: 1,
      records: [onramp({ orderId: 3, updatedAt: t2 }), onramp({ orderId: 4, updatedAt: t2 })]
    })
    expect(r.cursor).toMatchObject({ cursor: t2, seenAtCursor: 3, pagesApplied: 2 })

    // Nothing new: no progress, and the cursor never moves backwards (a look-back re-read).
    r = store.orders.applyHistoryPage({
      type: 1,
      fiatType: 1,
      records: [onramp({ orderId: 1, updatedAt: t1 }), onramp({ orderId: 4, updatedAt: t2 })]
    })
    expect(r.progressed).toBe(false)
    expect(r.cursor).toMatchObject({ cursor: t2, seenAtCursor: 3 })

    // A later instant resets the ids.
    r = store.orders.applyHistoryPage({ type: 1, fiatType: 1, records: [onramp({ orderId: 9, updatedAt: '2024-01-02T00:00:00.000Z' })] })
    expect(r.cursor).toMatchObject({ cursor: '2024-01-02T00:00:00.000Z', seenAtCursor: 1 })

    // Cursors are per (type, fiat type).
    expect(store.syncCursors.get(1, 2)).toMatchObject({ cursor: null, seenAtCursor: 0, pagesApplied: 0 })
  })

  it('keeps the positions of the ids in a run of equal updatedAt, and knows when a run was not read from its start', () => {
    const records = [5, 3, 8].map((id) => onramp({ orderId: id, updatedAt: t2 }))
    store.orders.applyHistoryPage({
      type: 1,
      fiatType: 1,
      records,
      runPositions: new Map([
        [5, 0],
        [3, 1],
        [8, 2]
      ])
    })
    expect(store.syncCursors.runAtCursor(1, 1)).toEqual([5, 3, 8])
    // An id at the instant without a position (read by a look-back, not by the run walk)
    // makes the run's positions unknown rather than wrong.
    store.orders.applyHistoryPage({ type: 1, fiatType: 1, records: [onramp({ orderId: 11, updatedAt: t2 })] })
    expect(store.syncCursors.runAtCursor(1, 1)).toBeNull()
    // A gap in positions is unknown too.
    store.orders.applyHistoryPage({
      type: 1,
      fiatType: 1,
      records: [
        onramp({ orderId: 12, updatedAt: '2024-01-03T00:00:00.000Z' }),
        onramp({ orderId: 13, updatedAt: '2024-01-03T00:00:00.000Z' })
      ],
      runPositions: new Map([
        [12, 0],
        [13, 2]
      ])
    })
    expect(store.syncCursors.runAtCursor(1, 1)).toBeNull()
  })

  it('records sync outcomes, the last reconcile, and can be reset without touching orders', () => {
    store.orders.applyHistoryPage({ type: 2, fiatType: 1, records: [offramp({ orderId: 1 })] })
    const failed = store.syncCursors.markError(2, 1, 'timeout', { nextRunAt: '2024-05-01T00:01:00.000Z' })
    expect(failed).toMatchObject({ lastError: 'timeout', nextRunAt: '2024-05-01T00:01:00.000Z', pagesApplied: 1 })
    const ok = store.syncCursors.markSuccess(2, 1, { nextRunAt: '2024-05-01T00:05:00.000Z' })
    expect(ok).toMatchObject({
      lastError: null,
      lastSuccessAt: clock.toISOString(),
      cursor: '2024-03-02T10:05:00.000Z',
      lastReconcileAt: null
    })
    expect(store.syncCursors.markSuccess(2, 1, { reconciled: true }).lastReconcileAt).toBe(clock.toISOString())
    expect(store.syncCursors.list().map((c) => [c.type, c.fiatType])).toEqual([[2, 1]])
    store.syncCursors.reset(2, 1)
    expect(store.syncCursors.get(2, 1).cursor).toBeNull()
    expect(store.orders.get(2, 1)).toBeDefined()
  })

  it('commits a repair position with its page, and only with it', () => {
    const r = store.orders.applyHistoryPage({
      type: 1,
      fiatType: 1,
      records: [onramp({ orderId: 1 })],
      repairFrom: '2024-02-01T00:00:00.000Z'
    })
    expect(r.cursor.repairFrom).toBe('2024-02-01T00:00:00.000Z')
    // A page without repairFrom leaves it alone.
    store.orders.applyHistoryPage({ type: 1, fiatType: 1, records: [onramp({ orderId: 2 })] })
    expect(store.syncCursors.get(1, 1).repairFrom).toBe('2024-02-01T00:00:00.000Z')
    // A page that fails leaves it too.
    const broken = { ...onramp({ orderId: 3 }), chainId: null } as unknown as OnrampOrder
    expect(() => store.orders.applyHistoryPage({ type: 1, fiatType: 1, records: [broken], repairFrom: null })).toThrow()
    expect(store.syncCursors.get(1, 1).repairFrom).toBe('2024-02-01T00:00:00.000Z')
    expect(store.orders.applyHistoryPage({ type: 1, fiatType: 1, records: [], repairFrom: null }).cursor.repairFrom).toBeNull()
    expect(store.syncCursors.setRepairFrom(1, 2, '2024-03-01T00:00:00.000Z').repairFrom).toBe('2024-03-01T00:00:00.000Z')
    expect(store.syncCursors.setRepairFrom(1, 2, null).repairFrom).toBeNull()
  })
})
