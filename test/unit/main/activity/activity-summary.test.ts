// The summary of what changed since the operator last looked, over a real store with a fixed
// clock: an order that turned failed, an order stalled past its threshold, and the claims
// and notes of other operators are counted from just after the last look up to now, never
// the operator's own; every alert kind is listed by its own text (a kind the summary does
// not know included); the list is bounded with the rest counted; nothing to say is no group.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { AlertTracker } from '../../../../src/main/alerts/alert-tracker'
import { activitySince } from '../../../../src/main/handlers/activity'
import { summarizeActivity } from '../../../../src/main/activity/activity-summary'
import { openLocalStore, type LocalStore } from '../../../../src/main/store/local-store'
import { openOrders } from '../../../../src/main/store/open-orders'
import { ACTIVITY_MAX_ITEMS, DEFAULT_STALLED_MINUTES, type Alert } from '../../../../src/shared/ipc/contract'
import { offramp, onramp } from '../store/order-fixtures'

const MIN = 60_000
const T0 = Date.UTC(2026, 10, 27, 9, 0)
let dir: string
let store: LocalStore
let clock = T0

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rampdesk-activity-'))
  clock = T0
  store = openLocalStore(dir, { now: () => new Date(clock) })
})
afterEach(() => {
  store.close()
  rmSync(dir, { recursive: true, force: true })
})

function session() {
  const alerts = new AlertTracker({
    openOrders: () => openOrders(store.database.sql),
    config: () => null,
    thresholds: () => DEFAULT_STALLED_MINUTES,
    now: () => clock,
    changed: () => undefined
  })
  return { store, alerts }
}
const note = (actor: string, orderId: number, text: string) =>
  store.claims.record({ type: 1, orderId, actor, at: clock, kind: 'note', text })

describe('activity since the last look', () => {
  it('counts a failure, a stall, a claim and a note by others between the last look and now, not the operator’s own', () => {
    // Before the last look: orders 1 (onramp, new), 2 (offramp held for manual review), 3 failed already.
    store.orders.applyRecord(1, onramp({ orderId: 1, status: 0 }), 'sync')
    store.orders.applyRecord(2, offramp({ orderId: 2, status: 3 }), 'sync')
    store.orders.applyRecord(1, onramp({ orderId: 3, status: 0 }), 'sync')
    clock += MIN
    store.orders.applyRecord(1, onramp({ orderId: 3, status: -1 }), 'sync')
    note('ben', 1, 'before the last look')
    const lastLooked = clock
    // Exactly at the last look: already seen.
    store.orders.applyRecord(1, onramp({ orderId: 3, status: -2 }), 'sync')
    clock += 1
    store.orders.applyRecord(1, onramp({ orderId: 1, status: -1 }), 'sync')
    store.claims.record({ type: 1, orderId: 1, actor: 'Ben', at: clock, kind: 'claim' })
    note('ben', 1, 'The customer says the bank returned the money')
    note('ANA', 1, 'my own note')
    store.claims.record({ type: 1, orderId: 1, actor: 'ben', at: clock, kind: 'hand', to: 'ana' })
    // Order 2 reaches its 30 min threshold at T0 + 30 min: raised while away.
    clock = T0 + 45 * MIN

    const s = activitySince(session(), 'ana', lastLooked, clock)
    expect(s.groups.map((g) => g.text)).toEqual([
      '1 order failed',
      '1 stalled',
      'Ben claimed order 1',
      'ben handed order 1 to you',
      '1 note'
    ])
    expect(s.since).toBe(lastLooked)
    expect(s.at).toBe(clock)
    expect(s.items.find((i) => i.kind === 'failed')).toEqual({
      kind: 'failed',
      order: { type: 1, orderId: 1 },
      at: lastLooked + 1,
      text: 'Order 1 (onramp) failed: Timed out'
    })
    expect(s.items.find((i) => i.kind === 'stalled')).toMatchObject({
      order: { type: 2, orderId: 2 },
      at: T0 + 30 * MIN,
      text: expect.stringMatching(/^Order 2: Stalled 45 min in /)
    })
    expect(s.items.find((i) => i.kind === 'note')?.text).toBe('ben noted on order 1: “The customer says the bank returned the money”')
    expect(s.items.map((i) => i.at)).toEqual([...s.items.map((i) => i.at)].sort((a, b) => b - a))
    expect(s.more).toBe(0)

    // Looked at again just after: nothing to say.
    const later = activitySince(session(), 'ana', clock, clock + 1)
    expect(later.groups).toEqual([])
    expect(later.items).toEqual([])
  })

  it('does not count a stall raised before the last look, and refuses a moment still to come', () => {
    store.orders.applyRecord(2, offramp({ orderId: 2, status: 3 }), 'sync')
    clock = T0 + 31 * MIN
    const lastLooked = clock
    clock += 10 * MIN
    expect(activitySince(session(), 'ana', lastLooked, clock).groups).toEqual([])
    expect(activitySince(session(), 'ana', lastLooked - 2 * MIN, clock).groups.map((g) => g.text)).toEqual(['1 stalled'])
    expect(() => activitySince(session(), 'ana', clock + 1, clock)).toThrow(/not come yet/)
  })

  it('lists an alert of a kind it does not know by its own text, and counts it by its kind', () => {
    const unknown = {
      kind: 'future',
      id: 'future:1:5',
      order: { type: 1, orderId: 5 },
      since: T0 + MIN,
      text: 'Completed, the merchant never acknowledged it'
    } as unknown as Alert
    const s = summarizeActivity({ since: T0, at: T0 + 5 * MIN, me: 'ana', failed: [], handling: [], alerts: [unknown] })
    expect(s.groups).toEqual([{ kind: 'future', count: 1, text: '1 future' }])
    expect(s.items).toEqual([
      { kind: 'future', order: { type: 1, orderId: 5 }, at: T0 + MIN, text: 'Order 5: Completed, the merchant never acknowledged it' }
    ])
  })

  it('lists at most ACTIVITY_MAX_ITEMS items, newest first, and counts the rest; many claims are counted, not named', () => {
    const handling = Array.from({ length: ACTIVITY_MAX_ITEMS + 7 }, (_, i) => ({
      type: 1 as const,
      orderId: i + 1,
      kind: i % 2 ? ('note' as const) : ('claim' as const),
      actor: 'ben',
      handler: i % 2 ? null : 'ben',
      text: i % 2 ? 'checked' : null,
      at: T0 + i + 1
    }))
    const s = summarizeActivity({ since: T0, at: T0 + MIN, me: 'ana', failed: [], handling, alerts: [] })
    expect(s.items).toHaveLength(ACTIVITY_MAX_ITEMS)
    expect(s.more).toBe(7)
    expect(s.items[0]!.at).toBe(T0 + ACTIVITY_MAX_ITEMS + 7)
    expect(s.groups.map((g) => g.text)).toEqual(['29 claims and hand-overs', '28 notes'])
  })

  it('reaches back 30 days at most', () => {
    const at = T0 + 90 * 24 * 60 * MIN
    expect(summarizeActivity({ since: 0, at, me: 'ana', failed: [], handling: [], alerts: [] }).since).toBe(at - 30 * 24 * 60 * MIN)
  })
})
