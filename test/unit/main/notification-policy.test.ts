// The notification policy, setting by setting: which order changes the operator is told
// about, and the words and order reference of what is shown.
import { describe, expect, it } from 'vitest'
import { orderNotification } from '../../../src/main/notification-policy'
import type { EventPayload, OrderRow, Settings } from '../../../src/shared/ipc/contract'

type Notify = Settings['notify']
const NONE: Notify = { terminalSuccess: false, terminalFailure: false, needsAttention: false, anyChange: false, watchedOnly: false }

function row(over: Partial<OrderRow> = {}): OrderRow {
  return {
    type: 1,
    orderId: 100123,
    status: 15,
    fiatType: 1,
    coinId: 54,
    chainId: 1,
    fiatAmount: '1000',
    cryptoAmount: '11.5',
    walletAddress: null,
    merchantRecognitionId: null,
    referenceId: null,
    transactionHash: null,
    createdAt: '2025-01-01T00:00:00.000Z',
    updatedAt: '2025-01-01T00:05:00.000Z',
    firstSeenAt: 0,
    lastChangedAt: 0,
    watched: false,
    ...over
  }
}

function change(type: 1 | 2, oldStatus: number | null, newStatus: number, over: Partial<OrderRow> = {}): EventPayload<'order:changed'> {
  const r = row({ type, status: newStatus, ...over })
  return { row: r, oldStatus, newStatus, terminal: false }
}

// One change of each kind: onramp 15 withdrawal complete, onramp -1 timed out,
// offramp 3 over limit (attention), onramp 12 purchasing crypto (progress).
const SUCCESS = change(1, 14, 15)
const FAILURE = change(1, 0, -1)
const ATTENTION = change(2, 2, 3)
const PROGRESS = change(1, 11, 12)
const ALL = [SUCCESS, FAILURE, ATTENTION, PROGRESS]

const shown = (n: Notify) => ALL.filter((c) => orderNotification(n, c) !== null)

describe('orderNotification', () => {
  it('with every setting off, notifies nothing', () => {
    expect(shown(NONE)).toEqual([])
  })

  it('terminalSuccess: only completed orders', () => {
    expect(shown({ ...NONE, terminalSuccess: true })).toEqual([SUCCESS])
  })

  it('terminalFailure: only failed orders', () => {
    expect(shown({ ...NONE, terminalFailure: true })).toEqual([FAILURE])
  })

  it('needsAttention: only orders that wait on the operator', () => {
    expect(shown({ ...NONE, needsAttention: true })).toEqual([ATTENTION])
    // Offramp 17 (alternate bank needed) is attention too.
    expect(orderNotification({ ...NONE, needsAttention: true }, change(2, 13, 17))).not.toBeNull()
  })

  it('anyChange: every change, progress steps included', () => {
    expect(shown({ ...NONE, anyChange: true })).toEqual(ALL)
  })

  it('the shipped defaults: terminal and attention, not progress', () => {
    expect(shown({ terminalSuccess: true, terminalFailure: true, needsAttention: true, anyChange: false, watchedOnly: false })).toEqual([
      SUCCESS,
      FAILURE,
      ATTENTION
    ])
  })

  it('watchedOnly: the same choice, for watched orders only', () => {
    const n: Notify = { ...NONE, anyChange: true, watchedOnly: true }
    expect(shown(n)).toEqual([])
    expect(orderNotification(n, change(1, 14, 15, { watched: true }))).not.toBeNull()
    // watchedOnly narrows, it never widens: a watched progress step stays silent without anyChange.
    expect(orderNotification({ ...NONE, terminalSuccess: true, watchedOnly: true }, change(1, 11, 12, { watched: true }))).toBeNull()
  })

  it('an unknown status is progress: shown only for anyChange', () => {
    expect(orderNotification({ ...NONE, terminalSuccess: true, terminalFailure: true, needsAttention: true }, change(1, 15, 99))).toBeNull()
    expect(orderNotification({ ...NONE, anyChange: true }, change(1, 15, 99))?.title).toBe('Onramp order 100123: Unknown status 99')
  })

  it('says which order, what it became and what it was, and opens that order', () => {
    expect(orderNotification({ ...NONE, terminalSuccess: true }, SUCCESS)).toEqual({
      title: 'Onramp order 100123: Complete',
      body: "The crypto was sent to the customer's wallet. Before: Sending crypto.",
      order: { type: 1, orderId: 100123 }
    })
    expect(orderNotification({ ...NONE, needsAttention: true }, change(2, null, 3, { orderId: 7 }))).toEqual({
      title: 'Offramp order 7: Held for review',
      body: "New order. The order is over a limit (such as the customer's monthly limit) and is held until the service reviews it.",
      order: { type: 2, orderId: 7 }
    })
  })
})
