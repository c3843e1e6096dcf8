import { describe, expect, test } from 'vitest'
import { SkewClock } from '../../../../src/main/api/clock'

describe('SkewClock', () => {
  test('starts at the local time', () => {
    const c = new SkewClock({ now: () => 1_000_000 })
    expect(c.now()).toBe(1_000_000)
    expect(c.skewMs).toBe(0)
  })

  test('first sample: server Date plus half a second minus the local midpoint of the request', () => {
    let local = 10_000_000
    const c = new SkewClock({ now: () => local })
    // Sent at local 10 000 000, answered at 10 000 200; server said 10 030 000 (whole second).
    c.observe(10_030_000, 10_000_000, 10_000_200)
    expect(c.skewMs).toBe(30_400)
    local = 10_001_000
    expect(c.now()).toBe(10_031_400)
  })

  test('later samples are smoothed, so one noisy answer moves the estimate only a little', () => {
    const c = new SkewClock({ now: () => 0, smoothing: 0.25 })
    c.observe(-500, 0, 0) // offset 0
    c.observe(3_500, 0, 0) // sample 4000
    expect(c.skewMs).toBe(1_000)
    expect(c.sampleCount).toBe(2)
  })

  test('resync replaces the estimate with the one sample', () => {
    const c = new SkewClock({ now: () => 0 })
    c.observe(9_500, 0, 0)
    c.resync(-20_500, 0, 0, 'date')
    expect(c.skewMs).toBe(-20_000)
  })

  test('a sample far from the estimate (a clock was set) is taken whole, not smoothed', () => {
    const c = new SkewClock({ now: () => 0 })
    c.observe(-500, 0, 0)
    expect(c.skewMs).toBe(0)
    c.observe(119_500, 0, 0)
    expect(c.skewMs).toBe(120_000)
    // Jitter of a second is still smoothed.
    c.observe(120_500, 0, 0)
    expect(c.skewMs).toBe(120_250)
  })
})
