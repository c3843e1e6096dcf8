// The scale bench's size list (BENCH_SCALE_SIZES, --scale-sizes): the three by default.
import { describe, expect, it } from 'vitest'
import { DEFAULT_SCALE_SIZES, scaleSizes } from '../../../bench/scale'

describe('scaleSizes', () => {
  it('defaults to 10,000, 100,000 and 1,000,000', () => {
    expect(scaleSizes(undefined)).toEqual([10_000, 100_000, 1_000_000])
    expect(scaleSizes('')).toEqual(DEFAULT_SCALE_SIZES)
  })

  it('reads numbers with k and M, in order, each once', () => {
    expect(scaleSizes('1M, 10k,100000,10000')).toEqual([10_000, 100_000, 1_000_000])
    expect(scaleSizes('2.5k')).toEqual([2_500])
  })

  it('refuses what is not a number of orders', () => {
    expect(() => scaleSizes('10k,lots')).toThrow('"lots" is not a number of orders')
    expect(() => scaleSizes('0')).toThrow('is not a number of orders')
  })
})
