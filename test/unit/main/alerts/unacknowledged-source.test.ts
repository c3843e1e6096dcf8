// A desktop whose inbox receives the service's notices itself: on a real profile database, a
// completed order with no verified notice in the inbox's log is raised after the grace period;
// a verified notice at a successful status clears it (an unverified one, or one of the order's
// earlier status, does not); nothing is compared while the inbox does not listen, nor orders
// completed before it began; and the tracker lists them with the rest and says when they change.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { AlertTracker } from '../../../../src/main/alerts/alert-tracker'
import { inboxCompletions } from '../../../../src/main/alerts/unacknowledged-source'
import { openLocalStore, type LocalStore } from '../../../../src/main/store/local-store'
import type { AlertList } from '../../../../src/shared/ipc/contract'
import { offramp, onramp } from '../store/order-fixtures'

const MIN = 60_000
const T0 = Date.UTC(2026, 10, 27, 9, 0)
const iso = (ms: number) => new Date(ms).toISOString()

let dir: string
let store: LocalStore
let now = T0
let listening: number | null = T0

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rampdesk-unack-'))
  now = T0
  listening = T0
  store = openLocalStore(dir, { now: () => new Date(now) })
})
afterEach(() => {
  store.close()
  rmSync(dir, { recursive: true, force: true })
})

function notice(type: 1 | 2, orderId: number, status: number, verified = true) {
  store.webhookDeliveries.insert({
    receivedAt: iso(now),
    headers: {},
    payloadHeader: `p-${type}-${orderId}-${status}-${verified}`,
    body: `{"orderId":${orderId},"status":${status}}`,
    verified,
    orderType: type,
    orderId,
    orderStatus: status
  })
}

const source = () => inboxCompletions({ sql: () => store.database.sql, listeningSince: () => listening, now: () => now })

describe("a desktop inbox's unconfirmed completions", () => {
  it('raises a completion without a verified notice after 10 min and clears it on one at a successful status', async () => {
    now = T0 + MIN
    store.orders.applyHistoryPage({
      type: 1,
      fiatType: 1,
      records: [onramp({ orderId: 1, status: 15, updatedAt: iso(T0 + MIN) }), onramp({ orderId: 2, status: 14, updatedAt: iso(T0 + MIN) })]
    })
    store.orders.applyHistoryPage({ type: 2, fiatType: 1, records: [offramp({ orderId: 3, status: 19, updatedAt: iso(T0 + MIN) })] })
    const s = source()
    now = T0 + 11 * MIN - 1
    await s.refresh()
    expect(s.current(now)).toEqual([])
    now = T0 + 11 * MIN
    await s.refresh()
    expect(s.current(now).map((a) => a.id)).toEqual(['unacknowledged:1:1', 'unacknowledged:2:3'])
    expect(s.current(now)[0]!.why).toBe("The service's notice of this completion never reached this desktop's inbox.")

    // Unverified, or at a status that is not a successful end: still not confirmed.
    notice(1, 1, 15, false)
    notice(2, 3, 6 - 5)
    await s.refresh()
    expect(s.current(now).map((a) => a.id)).toEqual(['unacknowledged:1:1', 'unacknowledged:2:3'])
    notice(1, 1, 15)
    notice(2, 3, 19)
    await s.refresh()
    expect(s.current(now)).toEqual([])
  })

  it('compares nothing while the inbox does not listen, nor what completed before it began', async () => {
    store.orders.applyHistoryPage({
      type: 1,
      fiatType: 1,
      records: [onramp({ orderId: 1, status: 4, updatedAt: iso(T0 - MIN) }), onramp({ orderId: 2, status: 4, updatedAt: iso(T0 + MIN) })]
    })
    now = T0 + 60 * MIN
    listening = null
    const s = source()
    await s.refresh()
    expect(s.current(now)).toEqual([])
    listening = T0
    await s.refresh()
    expect(s.current(now).map((a) => a.order.orderId)).toEqual([2])
  })

  it('is listed by the tracker after the other alerts, and a clear is an alerts:changed', async () => {
    store.orders.applyHistoryPage({ type: 1, fiatType: 1, records: [onramp({ orderId: 1, status: 16, updatedAt: iso(T0) })] })
    const emitted: AlertList[] = []
    const t = new AlertTracker({
      openOrders: () => [],
      config: () => null,
      thresholds: () => ({}),
      now: () => now,
      changed: (l) => emitted.push(l)
    })
    t.useUnacknowledged(source())
    now = T0 + 30 * MIN
    expect((await t.look()).alerts).toMatchObject([{ kind: 'unacknowledged', order: { type: 1, orderId: 1 }, since: T0 }])
    now = T0 + 31 * MIN
    await t.look()
    expect(emitted).toHaveLength(1)
    notice(1, 1, 16)
    expect((await t.look()).alerts).toEqual([])
    expect(emitted).toHaveLength(2)
  })
})
