// Orders the service no longer has (gone_at) are in no open group: not in the tray's list of
// what needs attention or is in progress (unless watched), not in the status filter's open
// groups or their counts; still listed without a group filter.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, expect, it } from 'vitest'
import { trayRows } from '../../../../src/main/handlers/orders'
import { toStoreFilter } from '../../../../src/main/order-rows'
import { openLocalStore, type LocalStore } from '../../../../src/main/store/local-store'
import type { OrderType, StatusGroup } from '../../../../src/shared/ipc/contract'
import { offramp, onramp } from '../store/order-fixtures'

let dir: string
let store: LocalStore

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rampdesk-gone-'))
  store = openLocalStore(dir)
  // Onramp 1 and 2 in progress, 3 completed; offramp 11 held for manual review (needs attention), 12 in progress.
  store.orders.applyRecord(1, onramp({ orderId: 1, status: 0 }), 'sync')
  store.orders.applyRecord(1, onramp({ orderId: 2, status: 2 }), 'sync')
  store.orders.applyRecord(1, onramp({ orderId: 3, status: 4 }), 'sync')
  store.orders.applyRecord(2, offramp({ orderId: 11, status: 3 }), 'sync')
  store.orders.applyRecord(2, offramp({ orderId: 12, status: 1 }), 'sync')
  store.orders.markGone(1, 2)
  store.orders.markGone(2, 11)
})

afterEach(() => {
  store.close()
  rmSync(dir, { recursive: true, force: true })
})

const ids = (type: OrderType, statusGroup?: StatusGroup) =>
  store.orders.query(toStoreFilter({ type, ...(statusGroup ? { statusGroup } : {}) })).rows.map((r) => r.orderId)
const total = (type: OrderType, statusGroup: StatusGroup) => store.orders.query({ ...toStoreFilter({ type, statusGroup }), limit: 1 }).total

it('leave the open groups and their counts (what the tray counts), and stay in the list without a group', () => {
  expect(ids(1, 'in progress')).toEqual([1])
  expect(total(1, 'in progress')).toBe(1)
  expect(total(2, 'needs attention')).toBe(0)
  expect(total(2, 'in progress')).toBe(1)
  // A store filter naming the group itself says the same.
  expect(store.orders.query({ type: 2, statusGroup: 'needs attention' }).total).toBe(0)
  expect(ids(1).sort()).toEqual([1, 2, 3])
  expect(ids(2).sort()).toEqual([11, 12])
})

it("leave the tray's list unless watched; a watched one comes with its mark", () => {
  expect(trayRows(store, []).map((r) => `${r.type}:${r.orderId}`)).toEqual(['1:1', '2:12'])
  const watched = trayRows(store, [{ type: 2, orderId: 11 }])
  expect(watched.map((r) => `${r.type}:${r.orderId}`)).toEqual(['2:11', '1:1', '2:12'])
  expect(watched[0]!.goneAt).toEqual(expect.any(Number))
  expect(watched[1]!.goneAt).toBeNull()
})
