// The benchmarks' numeric helpers: nearest-rank quantiles and JSON-friendly rounding.
import { describe, expect, it } from 'vitest'
import { quantile, ratio, repeated, round, summary } from '../../../bench/lib/stats'

describe('bench stats', () => {
  it('takes nearest-rank quantiles of unsorted samples', () => {
    const xs = [5, 1, 4, 2, 3, 10, 9, 8, 7, 6]
    expect(quantile(xs, 0.5)).toBe(5)
    expect(quantile(xs, 0.95)).toBe(10)
    expect(quantile(xs, 0.9)).toBe(9)
    expect(quantile(xs, 0)).toBe(1)
    expect(quantile([], 0.5)).toBeNaN()
  })

  it('gives the median and spread of repeated runs', () => {
    expect(repeated([1_930.4, 1_702, 2_480])).toEqual({ runs: 3, median: 1_930, min: 1_702, max: 2_480 })
    expect(repeated([12.34], 1)).toEqual({ runs: 1, median: 12.3, min: 12.3, max: 12.3 })
    expect(repeated([])).toEqual({ runs: 0, median: null, min: null, max: null })
  })

  it('summarises without touching the input order', () => {
    const xs = [3, 1, 2]
    expect(summary(xs)).toEqual({ n: 3, p50: 2, p95: 3, max: 3 })
    expect(xs).toEqual([3, 1, 2])
  })

  it('rounds to the given places and turns non-numbers into null for JSON', () => {
    expect(round(1.26, 1)).toBe(1.3)
    expect(round(1234.5678, 0)).toBe(1235)
    expect(round(NaN)).toBeNull()
    expect(ratio(3, 2)).toBe(1.5)
    expect(ratio(1, 0)).toBeNull()
  })
})
