// The tray's counts in one statement (OrdersRepo.openGroupCounts) answer what the orders
// view's status-group filters count for both types: every status of each type, one no table
// knows (in progress), and orders the service no longer lists (in no open group).
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, expect, it } from 'vitest'
import { openLocalStore, type LocalStore } from '../../../../src/main/store/local-store'
import { toStoreFilter } from '../../../../src/main/order-rows'
import { knownStatuses } from '../../../../src/shared/domain/status'
import type { OrderType, StatusGroup } from '../../../../src/shared/ipc/contract'
import { offramp, onramp } from './order-fixtures'

let dir: string
let store: LocalStore

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rampdesk-open-counts-'))
  store = openLocalStore(dir)
})
afterEach(() => {
  store.close()
  rmSync(dir, { recursive: true, force: true })
})

/** What the orders view's filter of this group counts, over both types. */
const filtered = (group: StatusGroup) =>
  ([1, 2] as const).reduce((n, type) => n + store.orders.query({ ...toStoreFilter({ type, statusGroup: group }), limit: 1 }).total, 0)

it('counts each open group over both types as the group filters do', () => {
  let id = 1
  const put = (type: OrderType, status: number, copies: number) => {
    for (let k = 0; k < copies; k++) {
      const orderId = id++
      if (type === 1) store.orders.applyRecord(1, onramp({ orderId, status }), 'sync')
      else store.orders.applyRecord(2, offramp({ orderId, status }), 'sync')
    }
  }
  for (const type of [1, 2] as const) for (const [i, status] of [...knownStatuses(type), 77].entries()) put(type, status, 1 + (i % 3))
  // Orders the service no longer lists: one needing attention, one in progress.
  const goneFrom = id
  put(2, 3, 1)
  put(1, 0, 1)
  store.orders.scopes.markGone(2, goneFrom)
  store.orders.scopes.markGone(1, goneFrom + 1)

  const counts = store.orders.openGroupCounts()
  expect(counts).toEqual({ 'needs attention': filtered('needs attention'), 'in progress': filtered('in progress') })
  expect(counts['needs attention']).toBeGreaterThan(0)
  expect(counts['in progress']).toBeGreaterThan(0)
})
