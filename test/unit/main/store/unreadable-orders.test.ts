// Unreadable history records: kept raw with the reason, one row per order (a newer copy
// replaces the older), gone once the order is read fine, and parsed again after an update
// by retryUnreadable; service facts kept per profile across restarts.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { openLocalStore, type LocalStore } from '../../../../src/main/store/local-store'
import { retryUnreadable } from '../../../../src/main/monitor/unreadable-retry'
import { onramp } from './order-fixtures'

let dir: string
let store: LocalStore

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rampdesk-unreadable-'))
  store = openLocalStore(dir, { appVersion: '1.0.0' })
})

afterEach(() => {
  store.close()
  rmSync(dir, { recursive: true, force: true })
})

const reopen = (appVersion: string) => {
  store.close()
  store = openLocalStore(dir, { appVersion })
}

describe('unreadable orders', () => {
  it('are kept with the page that listed them, one row per order, and leave when the order is read fine', () => {
    const bad = { ...onramp({ orderId: 7 }), status: 'pending' }
    store.orders.applyHistoryPage({
      type: 1,
      fiatType: 1,
      records: [onramp({ orderId: 6 })],
      unreadable: [{ orderId: 7, updatedAt: bad.updatedAt, raw: bad, reason: 'status: expected number' }]
    })
    expect(store.orders.count(1)).toBe(1)
    expect(store.unreadableOrders.list()).toMatchObject([
      { type: 1, fiatType: 1, orderId: 7, reason: 'status: expected number', appVersion: '1.0.0', timesSeen: 1 }
    ])
    // Seen again: the same row, counted.
    store.orders.applyHistoryPage({
      type: 1,
      fiatType: 1,
      records: [],
      unreadable: [{ orderId: 7, updatedAt: bad.updatedAt, raw: bad, reason: 'status: expected number' }]
    })
    expect(store.unreadableOrders.list()).toMatchObject([{ orderId: 7, timesSeen: 2 }])
    // A record without a readable id is kept by its content.
    store.orders.applyHistoryPage({
      type: 1,
      fiatType: 1,
      records: [],
      unreadable: [{ orderId: null, updatedAt: null, raw: { junk: true }, reason: 'orderId: required' }]
    })
    expect(store.unreadableOrders.count()).toBe(2)
    // The service fixed the record: the readable copy replaces the unreadable one.
    store.orders.applyHistoryPage({ type: 1, fiatType: 1, records: [onramp({ orderId: 7 })] })
    expect(store.unreadableOrders.list().map((u) => u.orderId)).toEqual([null])
    expect(store.orders.get(1, 7)).toBeDefined()
  })

  it('are parsed again after an update: what the new schema reads is applied, the rest stays, marked as tried', () => {
    const readable = onramp({ orderId: 8 })
    const still = { ...onramp({ orderId: 9 }), coinId: 'eth' }
    store.orders.applyHistoryPage({
      type: 1,
      fiatType: 1,
      records: [],
      unreadable: [
        // An older version could not read this one (e.g. its schema lacked a field the record has).
        { orderId: 8, updatedAt: readable.updatedAt, raw: readable, reason: 'an older reason' },
        { orderId: 9, updatedAt: still.updatedAt, raw: still, reason: 'coinId: expected number' }
      ]
    })
    // The same version does not retry.
    expect(retryUnreadable(store)).toEqual({ recovered: 0, stillUnreadable: 0 })
    reopen('1.1.0')
    expect(retryUnreadable(store)).toEqual({ recovered: 1, stillUnreadable: 1 })
    expect(store.orders.get(1, 8)).toMatchObject({ orderId: 8, status: readable.status })
    expect(store.unreadableOrders.list()).toMatchObject([{ orderId: 9, appVersion: '1.1.0' }])
    expect(store.unreadableOrders.list()[0]!.reason).toMatch(/coinId/)
    // Tried by this version: not again until the next one.
    expect(retryUnreadable(store)).toEqual({ recovered: 0, stillUnreadable: 0 })
  })
})

describe('service facts', () => {
  it('are kept per family across a restart; a damaged value is skipped, not fatal', () => {
    store.serviceFacts.put('param', 'merchantHistory.fiatType', { encoding: 'string' })
    store.serviceFacts.put('limit', 'merchantHistory', { limit: 10 })
    store.serviceFacts.put('param', 'merchantHistory.fiatType', { encoding: 'integer' })
    store.database.sql.run("INSERT INTO service_facts (kind, key, value_json, updated_at) VALUES ('param', 'x.y', '{bad', 'now')")
    reopen('1.0.0')
    expect(store.serviceFacts.all('param')).toEqual({ 'merchantHistory.fiatType': { encoding: 'integer' } })
    expect(store.serviceFacts.all('limit')).toEqual({ merchantHistory: { limit: 10 } })
  })
})
