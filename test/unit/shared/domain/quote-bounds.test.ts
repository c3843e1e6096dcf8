// The bounds of an onramp quote from the config (limits, allCoinLimits shapes A and B,
// minimumBuyAmount), and the minimum and maximum read back from refusal texts worded the
// ways services word them.
import { describe, expect, it } from 'vitest'
import { checkLimits } from '../../../../src/shared/domain/quote'
import { onrampBounds, onrampBoundsText, refusalBounds } from '../../../../src/shared/domain/quote-bounds'
import type { ConfigSnapshot } from '../../../../src/shared/ipc/contract'

type Cfg = Pick<ConfigSnapshot, 'limits' | 'coinLimits' | 'minimumBuyAmount'>
const cfg = (over: Partial<Cfg> = {}): Cfg => ({
  limits: { onramp: { '1': { min: '100', max: '200000' }, '5': { min: '250000', max: '500000000' } }, offramp: {} },
  coinLimits: {},
  minimumBuyAmount: { '54': { '0': '1000' } },
  ...over
})

describe('onrampBounds', () => {
  it('takes the fiat limits, and minimumBuyAmount for INR only', () => {
    expect(onrampBounds(cfg(), 1, 54, 0)).toEqual({ min: '100', max: '200000', pairMinimum: '1000' })
    expect(onrampBounds(cfg(), 1, 54, 1)).toEqual({ min: '100', max: '200000', pairMinimum: null })
    // minimumBuyAmount is in INR: it says nothing about a VND quote.
    expect(onrampBounds(cfg(), 5, 54, 0)).toEqual({ min: '250000', max: '500000000', pairMinimum: null })
    expect(onrampBounds(cfg(), 1, null, null)).toEqual({ min: '100', max: '200000', pairMinimum: null })
  })

  it('shape A narrows the fiat limits to the stricter of the two', () => {
    const c = cfg({ coinLimits: { '1': { shape: 'A', min: '50', max: '150000' } } })
    expect(onrampBounds(c, 1, 54, 1)).toEqual({ min: '100', max: '150000', pairMinimum: null })
    const only = cfg({ limits: { onramp: {}, offramp: {} }, coinLimits: { '1': { shape: 'A', min: '50', max: '150000' } } })
    expect(onrampBounds(only, 1, 54, 1)).toEqual({ min: '50', max: '150000', pairMinimum: null })
  })

  it('shape B is the coin-and-network minimum in that fiat, beside minimumBuyAmount (the larger wins)', () => {
    const c = cfg({
      coinLimits: {
        '5': { shape: 'B', byCoin: { '54': { '0': '1000000', '1': '250000' } } },
        '1': { shape: 'B', byCoin: { '54': { '0': '800', '1': '300' } } }
      }
    })
    expect(onrampBounds(c, 5, 54, 0)).toEqual({ min: '250000', max: '500000000', pairMinimum: '1000000' })
    expect(onrampBounds(c, 5, 54, 3).pairMinimum).toBeNull()
    expect(onrampBounds(c, 1, 54, 0).pairMinimum).toBe('1000')
    expect(onrampBounds(c, 1, 54, 1).pairMinimum).toBe('300')
    const b = onrampBounds(c, 5, 54, 0)
    expect(checkLimits('300000', b, b.pairMinimum, 'VND')).toBe('Below the minimum of 1000000 VND for this coin and network.')
    expect(checkLimits('1000000', b, b.pairMinimum, 'VND')).toBeUndefined()
  })

  it('in words', () => {
    expect(onrampBoundsText(onrampBounds(cfg(), 1, 54, 0), 'INR')).toBe('Limits 100 – 200000 INR; minimum buy on this network 1000 INR')
    expect(onrampBoundsText({ min: null, max: null, pairMinimum: null }, 'TRY')).toBe('No limits known for TRY')
    expect(onrampBoundsText({ min: '5', max: null, pairMinimum: null }, 'TRY')).toBe('Minimum 5 TRY')
  })
})

describe('refusalBounds', () => {
  const cases: Array<[string, ReturnType<typeof refusalBounds>]> = [
    [
      'fiatAmount 50 INR is outside the limits for usdt on bep20: min 100, max 200000',
      { minimum: '100', maximum: '200000' } // "50 INR" is the amount asked, not a bound
    ],
    ['Amount should be greater than 500 INR', { minimum: '500', unit: 'INR' }],
    ['Amount is less than the minimum of 1,000', { minimum: '1000' }],
    ['Maximum order value exceeded (2,00,000)', { maximum: '200000' }],
    ['amount must be between 100 and 5000 INR', { minimum: '100', maximum: '5000', unit: 'INR' }],
    ['Amount cannot be less than 250.5', { minimum: '250.5' }],
    ['Amount must not exceed 10000', { maximum: '10000' }],
    ['Minimum amount is INR 300. Try again in 10 minutes', { minimum: '300', unit: 'INR' }],
    ['quantity must be at least 0.001 USDT', { minimum: '0.001', unit: 'USDT' }],
    ['Rate limit: 10 requests per minute', undefined],
    ['Invalid orderId', undefined],
    ['coin 54 not supported on chain 7', undefined]
  ]
  for (const [text, want] of cases) it(JSON.stringify(text), () => expect(refusalBounds(text, ['INR', 'usdt'])).toEqual(want))

  it('names a unit only when it is one asked about', () => {
    expect(refusalBounds('minimum 500 INR', [])).toEqual({ minimum: '500' })
    expect(refusalBounds('minimum 500 EUR', ['INR'])).toEqual({ minimum: '500' })
  })
})
