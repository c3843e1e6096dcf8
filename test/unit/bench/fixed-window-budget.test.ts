// The budget bench's baseline limiter: ten per minute of the client's own clock for the
// documented endpoints, first come first served, a 429 waits for the next minute, and no
// limit (nothing learned) for the endpoints the spec gives none.
import { describe, expect, it } from 'vitest'
import { FixedWindowBudget, minuteStart } from '../../../bench/lib/fixed-window-budget'
import { VirtualClock } from '../../../bench/lib/virtual-clock'

const T0 = Date.parse('2026-01-01T00:00:50.000Z')

function setup() {
  const clock = new VirtualClock(T0)
  const budget = new FixedWindowBudget({ profileId: 'p', now: clock.now, timers: clock.timers })
  const granted: number[] = []
  const ask = (endpoint: Parameters<typeof budget.acquire>[0], n: number) => {
    for (let i = 0; i < n; i++) void budget.acquire(endpoint).then(() => granted.push(clock.now() - T0))
  }
  return { clock, budget, granted, ask }
}

describe('FixedWindowBudget', () => {
  it('rounds to the start of the client clock minute', () => {
    expect(minuteStart(T0)).toBe(Date.parse('2026-01-01T00:00:00.000Z'))
  })

  it('lets ten through in a clock minute and the rest at the next minute, twenty within ten seconds', async () => {
    const { clock, granted, ask } = setup()
    ask('priceTicker', 12)
    await clock.runUntil(T0 + 120_000)
    expect(granted.slice(0, 10)).toEqual(Array(10).fill(0))
    expect(granted.slice(10)).toEqual([10_000, 10_000])
  })

  it('sends an endpoint without a documented limit at once, and after a 429 waits for the next minute', async () => {
    const { clock, budget, granted, ask } = setup()
    ask('merchantHistory', 30)
    await clock.runUntil(T0 + 1)
    expect(granted).toHaveLength(30)
    expect(budget.penalize('merchantHistory')).toBe(T0 + 10_000)
    ask('merchantHistory', 2)
    await clock.runUntil(T0 + 9_999)
    expect(granted).toHaveLength(30)
    await clock.runUntil(T0 + 10_000)
    expect(granted.slice(30)).toEqual([10_000, 10_000])
  })
})
