// The history bench's comparison of a client's database with the sandbox's ground truth.
import { describe, expect, it } from 'vitest'
import { diffAgainstTruth, type OrderFact } from '../../../bench/lib/truth-diff'

const o = (orderId: number, status: number, updatedAt: string, type = 1): OrderFact => ({ type, orderId, status, updatedAt })

describe('diffAgainstTruth', () => {
  it('finds nothing when the database equals the truth, whatever the ISO spelling', () => {
    const truth = [o(1, 0, '2024-01-01T00:00:00.000Z'), o(2, 5, '2024-01-01T00:00:01.000Z')]
    const local = [o(2, 5, '2024-01-01T00:00:01Z'), o(1, 0, '2024-01-01T00:00:00.000Z')]
    expect(diffAgainstTruth(truth, local)).toMatchObject({ truth: 2, local: 2, missing: 0, stale: 0, extra: 0 })
  })

  it('counts missing, stale (status or updatedAt) and extra orders, with sorted samples', () => {
    const truth = [
      o(5, 1, '2024-01-01T00:00:05Z'),
      o(3, 2, '2024-01-01T00:00:03Z'),
      o(4, 0, '2024-01-01T00:00:09Z'),
      o(6, 0, '2024-01-01T00:00:06Z')
    ]
    const local = [o(4, 0, '2024-01-01T00:00:04Z'), o(6, 1, '2024-01-01T00:00:06Z'), o(9, 0, '2024-01-01T00:00:00Z')]
    const d = diffAgainstTruth(truth, local)
    expect(d).toMatchObject({ missing: 2, stale: 2, extra: 1, missingIds: [3, 5], staleIds: [4, 6], extraIds: [9] })
  })

  it('keeps onramp and offramp ids apart', () => {
    const d = diffAgainstTruth([o(7, 0, '2024-01-01T00:00:00Z', 2)], [o(7, 0, '2024-01-01T00:00:00Z', 1)])
    expect(d).toMatchObject({ missing: 1, extra: 1 })
  })
})
