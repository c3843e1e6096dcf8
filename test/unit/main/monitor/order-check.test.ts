// "Check now" on a real profile database: orderStatus asked at interactive priority, its
// answer kept as a confirmation by a status check (a change announced), the service not
// knowing the order said as such, and nothing kept where the monitor does not write orders.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { CallOptions } from '../../../../src/main/api/client'
import { ApiError } from '../../../../src/shared/api/errors'
import { checkOrderNow, type OrderCheckDeps } from '../../../../src/main/monitor/order-check'
import { openProfileDatabase, type ProfileDatabase } from '../../../../src/main/store/database'
import { OrdersRepo, type ApplyStatusResult } from '../../../../src/main/store/orders-repo'
import { SyncCursorsRepo } from '../../../../src/main/store/sync-cursors-repo'
import { UnreadableOrdersRepo } from '../../../../src/main/store/unreadable-orders-repo'
import { onramp } from '../store/order-fixtures'

const START = Date.parse('2026-01-01T00:00:00.000Z')
let dir: string
let db: ProfileDatabase
let orders: OrdersRepo
let clock: number

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rampdesk-check-'))
  db = openProfileDatabase(dir)
  clock = START
  orders = new OrdersRepo(db.sql, () => new Date(clock), new SyncCursorsRepo(db.sql), new UnreadableOrdersRepo(db.sql, '0.0.0'))
  orders.applyHistoryPage({ type: 1, fiatType: 1, records: [onramp({ orderId: 5, status: 1 })], at: new Date(START).toISOString() })
})
afterEach(() => {
  db.close()
  rmSync(dir, { recursive: true, force: true })
})

function deps(answer: () => number | Error, keeps = true): { d: OrderCheckDeps; asked: CallOptions[]; changes: ApplyStatusResult[] } {
  const asked: CallOptions[] = []
  const changes: ApplyStatusResult[] = []
  return {
    asked,
    changes,
    d: {
      client: {
        orderStatus: async (_req, opts) => {
          asked.push(opts ?? {})
          const a = answer()
          if (a instanceof Error) throw a
          return { orderStatus: a }
        }
      },
      orders,
      keeps,
      now: () => clock,
      changed: (r) => changes.push(r)
    }
  }
}

describe('checkOrderNow', () => {
  it('asks at interactive priority and keeps a new status as confirmed by a status check, announcing the change', async () => {
    clock = START + 60_000
    const { d, asked, changes } = deps(() => 2)
    expect(await checkOrderNow(d, 1, 5)).toEqual({ kind: 'status', status: 2, previous: 1, at: clock, kept: true })
    expect(asked).toEqual([{ priority: 'interactive' }])
    expect(changes.map((c) => c.change)).toEqual([{ type: 1, orderId: 5, old: 1, new: 2 }])
    const row = orders.get(1, 5)!
    expect(row.status).toBe(2)
    expect(row.statusConfirmedBy).toBe('orderStatus')
    expect(Date.parse(row.statusConfirmedAt!)).toBe(clock)
  })

  it('an unchanged status is confirmed now, with no change announced', async () => {
    clock = START + 5 * 60_000
    const { d, changes } = deps(() => 1)
    expect(await checkOrderNow(d, 1, 5)).toMatchObject({ kind: 'status', status: 1, previous: 1, kept: true })
    expect(changes).toEqual([])
    expect(Date.parse(orders.get(1, 5)!.statusConfirmedAt!)).toBe(clock)
  })

  it('the service not knowing the order is an answer, not a failure; other refusals are thrown as they are', async () => {
    const gone = deps(() => new ApiError({ kind: 'api', code: 417, message: 'order no longer exists', retryable: false }))
    expect(await checkOrderNow(gone.d, 1, 5)).toEqual({ kind: 'unknown-order', at: clock })
    const down = deps(() => new ApiError({ kind: 'network', message: 'connect ECONNREFUSED', retryable: true }))
    await expect(checkOrderNow(down.d, 1, 5)).rejects.toMatchObject({ kind: 'network' })
    expect(orders.get(1, 5)!.status).toBe(1)
  })

  it('where the monitor does not keep orders (a hub that follows), answers without writing', async () => {
    const { d, changes } = deps(() => 4, false)
    expect(await checkOrderNow(d, 1, 5)).toEqual({ kind: 'status', status: 4, previous: 1, at: clock, kept: false })
    expect(orders.get(1, 5)!.status).toBe(1)
    expect(changes).toEqual([])
  })

  it('an order not in the database is still asked about, and said not kept', async () => {
    const { d } = deps(() => 0)
    expect(await checkOrderNow(d, 2, 99)).toEqual({ kind: 'status', status: 0, previous: null, at: clock, kept: false })
  })
})
