// Price change between two ticks, in decimal strings: the delta, the percentage and the
// direction the ticker's arrow shows.
import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { priceChange } from '../../../../src/renderer/src/lib/change'
import { add, cmp } from '../../../../src/shared/money'

describe('priceChange', () => {
  it('gives delta, percent and direction', () => {
    expect(priceChange('101', '100')).toEqual({ delta: '1', percent: '1', direction: 'up' })
    expect(priceChange('95.5', '100')).toEqual({ delta: '-4.5', percent: '-4.5', direction: 'down' })
    expect(priceChange('88.10', '88.1')).toEqual({ delta: '0', percent: '0', direction: 'flat' })
  })

  it('is exact where float arithmetic is not', () => {
    // 0.3 - 0.1 is 0.19999999999999998 in floats.
    expect(priceChange('0.3', '0.1')).toEqual({ delta: '0.2', percent: '200', direction: 'up' })
    expect(priceChange('8312.04', '8312.03')?.delta).toBe('0.01')
  })

  it('rounds the percentage to 8 places of the ratio (6 of the percent)', () => {
    expect(priceChange('2', '3')?.percent).toBe('-33.333333')
  })

  it('has no percentage from a zero price, and no change without both prices', () => {
    expect(priceChange('5', '0')).toEqual({ delta: '5', percent: null, direction: 'up' })
    expect(priceChange(null, '1')).toBeNull()
    expect(priceChange('1', null)).toBeNull()
  })

  it('delta added to the previous price gives the new one, and direction follows its sign', () => {
    const price = fc.tuple(fc.bigInt({ min: 0n, max: 10n ** 12n }), fc.integer({ min: 0, max: 8 })).map(([units, dp]) => {
      const s = units.toString().padStart(dp + 1, '0')
      return dp ? `${s.slice(0, -dp)}.${s.slice(-dp)}` : s
    })
    fc.assert(
      fc.property(price, price, (now, prev) => {
        const c = priceChange(now, prev)!
        expect(cmp(add(prev, c.delta), now)).toBe(0)
        expect(c.direction).toBe({ 1: 'up', 0: 'flat', [-1]: 'down' }[cmp(now, prev)])
      })
    )
  })
})
