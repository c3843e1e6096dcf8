import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { add, cmp, div, mul, round, sub, sum, toDecimalString, formatDecimal } from '../../../src/shared/money'

// Reference arithmetic: a decimal is units / 10^scale with bigint units, so the
// expected results below are exact by construction.
interface Dec {
  units: bigint
  scale: number
}
const decArb = fc.record({ units: fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }), scale: fc.integer({ min: 0, max: 20 }) })

function text({ units, scale }: Dec): string {
  const neg = units < 0n
  const digits = (neg ? -units : units).toString().padStart(scale + 1, '0')
  const body = scale === 0 ? digits : `${digits.slice(0, -scale)}.${digits.slice(-scale)}`
  return (neg ? '-' : '') + body
}

/** The canonical form money.ts produces: no trailing fractional zeros, no "-0". */
function canonical(d: Dec): string {
  let { units, scale } = d
  while (scale > 0 && units % 10n === 0n) {
    units /= 10n
    scale--
  }
  return units === 0n ? '0' : text({ units, scale })
}

const align = (a: Dec, b: Dec): [bigint, bigint, number] => {
  const s = Math.max(a.scale, b.scale)
  return [a.units * 10n ** BigInt(s - a.scale), b.units * 10n ** BigInt(s - b.scale), s]
}

describe('money: no precision lost', () => {
  it('toDecimalString keeps every digit of a decimal string', () => {
    fc.assert(
      fc.property(decArb, (d) => {
        expect(toDecimalString(text(d))).toBe(canonical(d))
      })
    )
  })

  it('add and sub are exact', () => {
    fc.assert(
      fc.property(decArb, decArb, (a, b) => {
        const [x, y, s] = align(a, b)
        expect(add(text(a), text(b))).toBe(canonical({ units: x + y, scale: s }))
        expect(sub(text(a), text(b))).toBe(canonical({ units: x - y, scale: s }))
        expect(sub(add(text(a), text(b)), text(b))).toBe(canonical(a))
      })
    )
  })

  it('mul is exact and sum equals repeated add', () => {
    fc.assert(
      fc.property(decArb, decArb, fc.array(decArb, { maxLength: 10 }), (a, b, xs) => {
        expect(mul(text(a), text(b))).toBe(canonical({ units: a.units * b.units, scale: a.scale + b.scale }))
        expect(sum(xs.map(text))).toBe(xs.map(text).reduce(add, '0'))
      })
    )
  })

  it('cmp orders like the exact values', () => {
    fc.assert(
      fc.property(decArb, decArb, (a, b) => {
        const [x, y] = align(a, b)
        expect(cmp(text(a), text(b))).toBe(x < y ? -1 : x > y ? 1 : 0)
      })
    )
  })

  it('div by a power of ten only moves the point', () => {
    fc.assert(
      fc.property(decArb, fc.integer({ min: 0, max: 15 }), (a, k) => {
        expect(div(text(a), (10n ** BigInt(k)).toString(), 40)).toBe(canonical({ units: a.units, scale: a.scale + k }))
      })
    )
  })

  it('keeps the float artefacts the service sends, and the decimal sum of 0.1 and 0.2 is 0.3', () => {
    expect(toDecimalString(0.008157600000000001)).toBe('0.008157600000000001')
    expect(toDecimalString(1e21)).toBe('1000000000000000000000')
    expect(toDecimalString(1e-7)).toBe('0.0000001')
    expect(add('0.1', '0.2')).toBe('0.3')
  })

  it('rounds and formats from the decimal text, not through a float', () => {
    expect(round('2.675', 2)).toBe('2.68')
    expect(round('-0.005', 2)).toBe('-0.01')
    expect(formatDecimal('12345678901234567890.125', 2)).toBe('12,345,678,901,234,567,890.13')
  })

  it("groups and marks decimals as the operator's locale writes them", () => {
    expect(formatDecimal('100000', 2, 'en-IN')).toBe('1,00,000.00')
    expect(formatDecimal('12345678901234567890.125', 2, 'en-IN')).toBe('1,23,45,67,89,01,23,45,67,890.13')
    expect(formatDecimal('100000', 2, 'en-US')).toBe('100,000.00')
    expect(formatDecimal('-1234567.5', 1, 'de-DE')).toBe('-1.234.567,5')
  })

  it('writes every digit in Latin digits, and takes a locale tag Intl refuses as en-US', () => {
    expect(formatDecimal('1234.56', 2, 'ar-EG')).toMatch(/^1.234.56$/)
    expect(formatDecimal('1234.56', 2, 'not a locale!')).toBe('1,234.56')
  })
})
