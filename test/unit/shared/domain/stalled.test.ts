// Stalled orders: each shipped threshold raises exactly at its minute, not a millisecond
// before; terminal statuses never stall; the settings' own keys win over the defaults.
import { describe, expect, it } from 'vitest'
import { DEFAULT_STALLED_MINUTES, stalledFor, stalledOrder, stalledText, stalledThreshold } from '../../../../src/shared/domain/stalled'

const T0 = Date.UTC(2026, 10, 27, 10, 0, 0)
const MIN = 60_000

describe('stalledOrder at the shipped thresholds', () => {
  const cases: [string, 1 | 2, number, number][] = [
    ['offramp held for manual review', 2, 3, 30],
    ['offramp alternate bank needed', 2, 17, 120],
    ['onramp deposit secured', 1, 2, 30],
    ['onramp withdrawal initiated', 1, 14, 20],
    ['onramp created (any other open status)', 1, 0, 1440],
    ['offramp crypto sold (any other open status)', 2, 4, 1440]
  ]
  for (const [name, type, status, minutes] of cases) {
    it(`${name}: stalled from exactly ${minutes} min`, () => {
      const o = { type, orderId: 7, status, since: T0 }
      expect(stalledOrder(DEFAULT_STALLED_MINUTES, o, T0 + minutes * MIN - 1)).toBeNull()
      expect(stalledOrder(DEFAULT_STALLED_MINUTES, o, T0 + minutes * MIN)).toEqual({
        type,
        orderId: 7,
        status,
        since: T0,
        thresholdMinutes: minutes,
        forMs: minutes * MIN
      })
      expect(stalledOrder(DEFAULT_STALLED_MINUTES, o, T0 + minutes * MIN + 1)?.forMs).toBe(minutes * MIN + 1)
    })
  }

  it('never stalls a terminal status, however old', () => {
    for (const [type, status] of [
      [1, 4],
      [1, -1],
      [2, 19],
      [2, -2]
    ] as const)
      expect(stalledOrder(DEFAULT_STALLED_MINUTES, { type, orderId: 1, status, since: 0 }, T0)).toBeNull()
  })

  it("an unknown status is open, so it falls under its type's catch-all", () => {
    expect(stalledThreshold(DEFAULT_STALLED_MINUTES, 2, 99)).toBe(1440)
  })

  it("the settings' own keys replace the defaults, and without a catch-all other statuses never stall", () => {
    const mine = { '2:3': 5 }
    expect(stalledOrder(mine, { type: 2, orderId: 1, status: 3, since: T0 }, T0 + 5 * MIN)?.thresholdMinutes).toBe(5)
    expect(stalledThreshold(mine, 2, 17)).toBeNull()
  })
})

describe('stalled words', () => {
  it('says how long in minutes, hours and days', () => {
    expect(stalledFor(42 * MIN + 59_000)).toBe('42 min')
    expect(stalledFor(120 * MIN)).toBe('2 h')
    expect(stalledFor(125 * MIN)).toBe('2 h 5 min')
    expect(stalledFor(27 * 60 * MIN)).toBe('1 d 3 h')
  })
  it('names the status by its label', () => {
    expect(stalledText({ type: 2, status: 3, forMs: 42 * MIN })).toMatch(/^Stalled 42 min in .+/)
    expect(stalledText({ type: 2, status: 3, forMs: 42 * MIN })).not.toMatch(/status 3/)
  })
})
