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

describe('SkewClock sources and bounds', () => {
  const HOUR = 60 * 60_000

  test('currentTimestamp is taken as it is (ms precision, no smoothing) and named as the source', () => {
    const c = new SkewClock({ now: () => 0 })
    c.observe(1_000, 0, 0, 'date')
    c.observe(42_123, 100, 300, 'currentTimestamp')
    expect(c.skewMs).toBe(41_923)
    expect(c.info()).toMatchObject({ source: 'currentTimestamp', samples: 2, rejectedJumps: 0 })
  })

  test('Date headers do not move an estimate made from currentTimestamp in the last 15 minutes', () => {
    let local = 0
    const c = new SkewClock({ now: () => local })
    c.observe(10_000, 0, 0, 'currentTimestamp')
    expect(c.observe(20_500, 1_000, 1_000, 'date')).toBe(false)
    expect(c.skewMs).toBe(10_000)
    local = 16 * 60_000
    expect(c.observe(local + 20_000, local, local, 'date')).toBe(true)
    expect(c.skewMs).toBe(20_500)
  })

  test('a jump of more than an hour is held back until a second source agrees', () => {
    const c = new SkewClock({ now: () => 0 })
    c.observe(-500, 0, 0, 'date')
    expect(c.observe(2 * HOUR - 500, 0, 0, 'date')).toBe(false)
    expect(c.skewMs).toBe(0)
    expect(c.info()).toMatchObject({ rejectedJumps: 1, lastRejected: { skewMs: 2 * HOUR, source: 'date' } })
    // The service's own clock says the same: both sources agree, the jump is real.
    expect(c.observe(2 * HOUR + 300, 0, 0, 'currentTimestamp')).toBe(true)
    expect(c.skewMs).toBe(2 * HOUR + 300)
  })

  test('with a single source, three answers in a row agreeing are believed; a lone outlier never is', () => {
    const c = new SkewClock({ now: () => 0 })
    c.observe(-500, 0, 0, 'date')
    expect(c.observe(3 * HOUR - 500, 0, 0, 'date')).toBe(false)
    expect(c.observe(-500, 0, 0, 'date')).toBe(true)
    expect(c.observe(5 * HOUR - 500, 0, 0, 'date')).toBe(false)
    expect(c.observe(5 * HOUR + 500, 0, 0, 'date')).toBe(false)
    expect(c.skewMs).toBe(0)
    expect(c.observe(5 * HOUR, 0, 0, 'date')).toBe(true)
    expect(c.skewMs).toBe(5 * HOUR + 500)
  })

  test('the first reading may not be more than an hour off the local clock on its own, either', () => {
    const c = new SkewClock({ now: () => 0 })
    expect(c.observe(-3 * HOUR, 0, 0, 'currentTimestamp')).toBe(false)
    expect(c.skewMs).toBe(0)
    expect(c.observe(-3 * HOUR - 400, 0, 0, 'date')).toBe(true)
    expect(c.skewMs).toBe(-3 * HOUR + 100)
  })

  test('resync is bounded the same way', () => {
    const c = new SkewClock({ now: () => 0 })
    c.observe(0, 0, 0, 'currentTimestamp')
    expect(c.resync(10 * HOUR, 0, 0, 'currentTimestamp')).toBe(false)
    expect(c.skewMs).toBe(0)
    expect(c.resync(-20_000, 0, 0, 'currentTimestamp')).toBe(true)
    expect(c.skewMs).toBe(-20_000)
  })
})
