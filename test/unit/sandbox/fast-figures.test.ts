import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { COINS, FIATS } from '../../../src/sandbox/catalogue'
import { PLACES, bigText, fastOfframp, fastOnramp, scaledBig, slipped } from '../../../src/sandbox/fast-figures'
import { offrampFigures, onrampFigures } from '../../../src/sandbox/quote-engine'
import { toDecimalString, mul, round } from '../../../src/shared/money'

const norm = (s: string): string => toDecimalString(s)

describe('fast figures agree with the money.ts quote maths', () => {
  it('scaledBig and bigText round-trip', () => {
    expect(bigText(scaledBig('1234.5', 2), 2)).toBe('1234.5')
    expect(bigText(scaledBig('-0.05', 4), 4)).toBe('-0.05')
    expect(bigText(0n, 8)).toBe('0')
    expect(() => scaledBig('1.234', 2)).toThrow()
  })

  it('onramp: every fiat, coin and chain, random amounts and prices', () => {
    const pairs = FIATS.flatMap((f) => COINS.flatMap((c) => c.networks.map((ch) => ({ f, c, ch }))))
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: pairs.length - 1 }),
        fc.integer({ min: 1, max: 50_000_000 }),
        fc.integer({ min: 1, max: 2_000_000_000 }),
        (i, cents, price4) => {
          const { f, c, ch } = pairs[i] as (typeof pairs)[number]
          const amount = bigText(BigInt(cents), 2)
          const price = bigText(BigInt(price4), 4)
          const slow = onrampFigures(f, c, ch, amount, price)
          const fast = fastOnramp(f, c, ch, BigInt(cents), BigInt(price4))
          expect(bigText(fast.quantity, PLACES.crypto)).toBe(norm(slow.quantity))
          expect(bigText(fast.onrampFee, PLACES.fiat)).toBe(norm(slow.onrampFee))
          expect(bigText(fast.clientFee, PLACES.fiat)).toBe(norm(slow.clientFee))
          expect(bigText(fast.gatewayFee, PLACES.fiat)).toBe(norm(slow.gatewayFee))
          expect(bigText(fast.gasFee, PLACES.crypto)).toBe(norm(slow.gasFee))
        }
      ),
      { numRuns: 400 }
    )
  })

  it('offramp: random quantities and prices', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1_000_000_000_000 }), fc.integer({ min: 1, max: 500_000_000 }), (q8, price4) => {
        const slow = offrampFigures(bigText(BigInt(q8), 8), bigText(BigInt(price4), 4))
        const fast = fastOfframp(BigInt(q8), BigInt(price4))
        expect(bigText(fast.gross, 2)).toBe(norm(slow.gross))
        expect(bigText(fast.fiatAmount, 2)).toBe(norm(slow.fiatAmount))
        expect(bigText(fast.tdsFee, 2)).toBe(norm(slow.tdsFee))
        expect(bigText(fast.onrampFee, 2)).toBe(norm(slow.onrampFee))
        expect(bigText(fast.gatewayFee, 2)).toBe(norm(slow.gatewayFee))
      }),
      { numRuns: 400 }
    )
  })

  it('slippage matches round(price * (1 + bps/10000), 4)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 2_000_000_000 }), fc.integer({ min: -100, max: 100 }), (p4, bps) => {
        const price = bigText(BigInt(p4), 4)
        const factor = toDecimalString(String(10000 + bps)) // scaled by 10^4
        const expected = norm(round(mul(price, mul(factor, '0.0001')), 4))
        expect(bigText(slipped(BigInt(p4), bps), 4)).toBe(expected)
      }),
      { numRuns: 300 }
    )
  })
})
