// Completions the merchant's system never confirmed, worked out from completed orders and
// what became of their notices: raised exactly at the grace period after completion, only
// for the successful statuses of each type, cleared by a notice answered 2xx, raised too
// when no notice was ever received, and never for completions before the relay or inbox began.
import { describe, expect, it } from 'vitest'
import {
  noticeOf,
  successStatuses,
  UNACKNOWLEDGED_GRACE_MS,
  unacknowledgedAlerts,
  unacknowledgedText,
  type CompletedOrder,
  type OrderNotice
} from '../../../../src/shared/domain/unacknowledged'
import { UnacknowledgedAlert } from '../../../../src/shared/ipc/contract'

const MIN = 60_000
const T0 = Date.UTC(2026, 10, 27, 9, 0)

const list = (completed: CompletedOrder[], now: number, notices: Array<[string, OrderNotice]> = [], from = 0) =>
  unacknowledgedAlerts({ completed, notices: new Map(notices), now, from, where: 'hub' })

describe('unacknowledged completions', () => {
  it('takes the successful end statuses of each type from the live notes, and no other', () => {
    expect(successStatuses(1)).toEqual([4, 5, 15, 16])
    expect(successStatuses(2)).toEqual([6, 7, 14, 15, 19, 40, 41])
  })

  it('raises a completion with no notice received exactly at the 10 min grace, and says so in words', () => {
    expect(UNACKNOWLEDGED_GRACE_MS).toBe(10 * MIN)
    const done: CompletedOrder = { type: 1, orderId: 7, status: 16, completedAt: T0 }
    expect(list([done], T0 + 10 * MIN - 1)).toEqual([])
    const [a] = list([done], T0 + 25 * MIN)
    expect(UnacknowledgedAlert.parse(a)).toEqual(a)
    expect(a).toMatchObject({
      kind: 'unacknowledged',
      id: 'unacknowledged:1:7',
      order: { type: 1, orderId: 7 },
      status: 16,
      since: T0,
      delivery: { kind: 'not-received' },
      text: "Completed 25 min ago; the merchant's system has not confirmed it"
    })
    expect(a!.why).toMatch(/never reached the team hub/)
    expect(a!.tell).toMatch(/crypto was sent/)
    expect(list([done], T0 + 10 * MIN)).toHaveLength(1)
  })

  it('uses the same numbers per type: offramp 15 is a success, onramp 14 is not one', () => {
    const orders: CompletedOrder[] = [
      { type: 2, orderId: 1, status: 15, completedAt: T0 },
      { type: 1, orderId: 2, status: 14, completedAt: T0 },
      { type: 2, orderId: 3, status: -1, completedAt: T0 },
      { type: 2, orderId: 4, status: 19, completedAt: T0 }
    ]
    expect(list(orders, T0 + 60 * MIN).map((a) => a.id)).toEqual(['unacknowledged:2:1', 'unacknowledged:2:4'])
    expect(list(orders, T0 + 60 * MIN)[0]!.tell).toMatch(/paid out to their bank/)
  })

  it('clears an order once a notice of it was answered 2xx, whatever its other notices say', () => {
    const done: CompletedOrder = { type: 2, orderId: 9, status: 7, completedAt: T0 }
    const failing: OrderNotice = { kind: 'sending', attempts: 4, lastAnswer: 'HTTP 500: "down"' }
    expect(list([done], T0 + 30 * MIN, [['2:9', failing]])).toMatchObject([{ delivery: failing }])
    expect(list([done], T0 + 30 * MIN, [['2:9', { kind: 'acknowledged' }]])).toEqual([])
    expect(noticeOf([failing, { kind: 'acknowledged' }, { kind: 'stopped', attempts: 1, lastAnswer: null }])).toEqual({
      kind: 'acknowledged'
    })
    // The acknowledgement of another order, or of the other type with the same id, clears nothing.
    expect(list([done], T0 + 30 * MIN, [['1:9', { kind: 'acknowledged' }]])).toHaveLength(1)
  })

  it('says why in words for each way a notice can be stuck', () => {
    const done: CompletedOrder = { type: 1, orderId: 5, status: 5, completedAt: T0 }
    const why = (n: OrderNotice) => list([done], T0 + 30 * MIN, [['1:5', n]])[0]!.why
    expect(why({ kind: 'sending', attempts: 3, lastAnswer: 'HTTP 500: "down"' })).toBe(
      "Passed on 3 times; the merchant's system has not accepted it yet, and the hub keeps trying."
    )
    expect(why({ kind: 'stopped', attempts: 1, lastAnswer: 'HTTP 403: "no"' })).toBe(
      "Passed on once; the merchant's system did not accept it and the hub stopped trying."
    )
    expect(why({ kind: 'not-passed-on', receivedAt: T0 })).toMatch(/did not pass it on/)
  })

  it('compares only completions from when the relay or inbox began', () => {
    const before: CompletedOrder = { type: 1, orderId: 1, status: 4, completedAt: T0 - 1 }
    const after: CompletedOrder = { type: 1, orderId: 2, status: 4, completedAt: T0 }
    expect(list([before, after], T0 + 60 * MIN, [], T0).map((a) => a.order.orderId)).toEqual([2])
  })

  it('lists the longest waiting first and counts the minutes in hours past the hour', () => {
    const a: CompletedOrder = { type: 1, orderId: 1, status: 4, completedAt: T0 + 5 * MIN }
    const b: CompletedOrder = { type: 2, orderId: 2, status: 6, completedAt: T0 }
    expect(list([a, b], T0 + 90 * MIN).map((x) => x.order.orderId)).toEqual([2, 1])
    expect(unacknowledgedText(125 * MIN)).toBe("Completed 2 h 5 min ago; the merchant's system has not confirmed it")
    expect(unacknowledgedText(59_999)).toBe("Completed just now; the merchant's system has not confirmed it")
  })
})
