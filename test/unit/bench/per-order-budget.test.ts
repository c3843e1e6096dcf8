// What round-robin orderStatus polling can do on a request budget: sweep time, the
// expected latency quantile, and how many orders it covers at a given latency.
import { describe, expect, it } from 'vitest'
import { expectedQuantileMs, ordersCovered, perMinute, sweepMs } from '../../../bench/lib/per-order-budget'

describe('per-order polling on a budget', () => {
  it('sweeps N orders at R requests a minute in N/R minutes', () => {
    expect(sweepMs(100, 20)).toBe(300_000)
    expect(sweepMs(1_000, 60)).toBe(1_000_000)
    expect(sweepMs(10, 0)).toBe(Infinity)
  })

  it('puts the q-quantile of the wait at q of a sweep', () => {
    expect(expectedQuantileMs(100, 20, 0.95)).toBeCloseTo(285_000, 6)
    expect(expectedQuantileMs(100, 20, 0.5)).toBe(150_000)
  })

  it('covers as many orders as keep the p95 wait within the latency, and no more', () => {
    // 20/min for a p95 of 28.5 s: a sweep may take 30 s, which is 10 orders.
    expect(ordersCovered(20, 28_500)).toBe(10)
    expect(ordersCovered(20, 28_499)).toBe(9)
    // The covered count, polled at that rate, stays within the latency; one more does not.
    const n = ordersCovered(19.4, 28_685)
    expect(expectedQuantileMs(n, 19.4, 0.95)).toBeLessThanOrEqual(28_685)
    expect(expectedQuantileMs(n + 1, 19.4, 0.95)).toBeGreaterThan(28_685)
  })

  it('covers nothing without a budget or a latency', () => {
    expect(ordersCovered(0, 30_000)).toBe(0)
    expect(ordersCovered(20, 0)).toBe(0)
  })

  it('turns a count over a span into a rate per minute', () => {
    expect(perMinute(1_248, 3_600_000)).toBe(20.8)
    expect(perMinute(5, 30_000)).toBe(10)
    expect(perMinute(1, 0)).toBeNaN()
  })
})
