// order:created names an order by its key; a receiver validating it with the contract takes
// the key alone (a desktop's own event), the deprecated whole row (a hub replaying, or of an
// older version), and refuses an event that does not say which order.
import { describe, expect, it } from 'vitest'
import { events, type OrderRow } from '../../../../src/shared/ipc/contract'

const row: OrderRow = {
  type: 1,
  orderId: 42,
  status: 2,
  fiatType: 1,
  coinId: 54,
  chainId: 1,
  fiatAmount: '1000',
  cryptoAmount: '11.5',
  walletAddress: '0xabc',
  merchantRecognitionId: 'm-42',
  referenceId: null,
  transactionHash: null,
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:01:00.000Z',
  firstSeenAt: 1_767_225_600_000,
  lastChangedAt: 1_767_225_660_000,
  watched: false
}

describe("the order:created event's payload", () => {
  it('is the order’s key alone', () => {
    expect(events['order:created'].parse({ type: 2, orderId: 7 })).toEqual({ type: 2, orderId: 7 })
  })

  it('still takes the whole row an older hub sends', () => {
    expect(events['order:created'].parse(row)).toEqual(row)
  })

  it('is refused without its key', () => {
    const { orderId: _id, ...noId } = row
    expect(events['order:created'].safeParse(noId).success).toBe(false)
    expect(events['order:created'].safeParse({ orderId: 7 }).success).toBe(false)
  })
})
