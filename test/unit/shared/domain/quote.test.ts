import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { cheapestNetwork, checkLimits, customerText, quoteBreakdown, validateAmountInput } from '../../../../src/shared/domain/quote'
import { OnrampQuote } from '../../../../src/shared/api/schemas'

describe('validateAmountInput', () => {
  it.each([
    ['1500', 2, '1500'],
    ['  1500.50 ', 2, '1500.5'],
    ['0.5', 2, '0.5'],
    ['.5', 2, '0.5'],
    ['5.', 2, '5'],
    ['007', 0, '7'],
    ['1,234.56', 2, '1234.56'],
    ['1,234,567', 0, '1234567'],
    ['1,00,000.50', 2, '100000.5'],
    ['12,34,567', 0, '1234567'],
    ['1.2500', 2, '1.25'],
    ['123456789012345678901234567890.123456789', 9, '123456789012345678901234567890.123456789']
  ])('accepts %j (max %i decimals) as %s', (text, dp, value) => {
    expect(validateAmountInput(text, dp)).toEqual({ ok: true, value })
  })

  it.each([
    ['', /Enter an amount/],
    ['   ', /Enter an amount/],
    ['-5', /negative/],
    ['-0.01', /negative/],
    ['NaN', /must be a number/],
    ['Infinity', /must be a number/],
    ['1e3', /exponent/],
    ['1.5E-2', /exponent/],
    ['1.234', /At most 2 decimal places/],
    ['0', /greater than zero/],
    ['0.00', /greater than zero/],
    ['1.2.3', /at most one decimal point/],
    ['12a', /digits/],
    ['0x10', /digits/],
    ['1,23', /group digits/],
    ['1,234,56.7', /group digits/],
    ['1,00,00', /group digits/],
    ['1 000', /digits/],
    ['9'.repeat(41), /too long/]
  ])('refuses %j with a clear message', (text, message) => {
    const r = validateAmountInput(text, 2)
    expect(r.ok).toBe(false)
    if (!r.ok) expect(r.message).toMatch(message)
  })

  it('says "whole amounts only" when no decimals are allowed', () => {
    expect(validateAmountInput('1.5', 0)).toEqual({ ok: false, message: 'Whole amounts only: no decimals.' })
    expect(validateAmountInput('1.5', 1)).toEqual({ ok: true, value: '1.5' })
  })

  it('keeps every digit of any valid input and refuses one decimal too many', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 1n, max: 10n ** 20n }),
        fc.integer({ min: 0, max: 12 }),
        fc.integer({ min: 0, max: 12 }),
        (units, scale, maxDp) => {
          // units / 10^scale written out by hand, with any trailing zeros trimmed.
          const digits = units.toString().padStart(scale + 1, '0')
          const int = digits.slice(0, digits.length - scale)
          const frac = digits.slice(digits.length - scale).replace(/0+$/, '')
          const text = frac ? `${int}.${frac}` : int
          const r = validateAmountInput(text, maxDp)
          if (frac.length <= maxDp) expect(r).toEqual({ ok: true, value: text })
          else expect(r.ok).toBe(false)
        }
      )
    )
  })
})

describe('checkLimits', () => {
  const limits = { min: '100', max: '500000' }
  it('passes amounts inside, edges included', () => {
    expect(checkLimits('100', limits)).toBeUndefined()
    expect(checkLimits('500000', limits)).toBeUndefined()
    expect(checkLimits('2500.5', limits, '50')).toBeUndefined()
  })
  it('names the limit that is broken, with the unit', () => {
    expect(checkLimits('99.99', limits, undefined, 'INR')).toBe('Below the minimum of 100 INR.')
    expect(checkLimits('500000.01', limits, undefined, 'INR')).toBe('Above the maximum of 500000 INR.')
  })
  it('applies the coin/chain minimum when it is the stricter one', () => {
    expect(checkLimits('150', limits, '200', 'INR')).toBe('Below the minimum of 200 INR for this coin and network.')
    expect(checkLimits('99', limits, '50')).toBe('Below the minimum of 100.')
    expect(checkLimits('150', {}, '200')).toMatch(/200/)
    expect(checkLimits('150', { min: null, max: null })).toBeUndefined()
  })
  it('compares as decimals, not as text or floats', () => {
    // As text "9" > "100"; as floats 0.30000000000000004 > 0.3.
    expect(checkLimits('9', { min: '100' })).toMatch(/minimum/)
    expect(checkLimits('0.3', { max: '0.3' })).toBeUndefined()
    expect(checkLimits('100000000000000000000000.0000000001', { max: '100000000000000000000000' })).toMatch(/maximum/)
  })
})

describe('quoteBreakdown', () => {
  it('lays out an onramp quote: fiat fees, gas in the coin, effective rate', () => {
    // Parsed through the schema, as the app does: floats with artefacts become decimal strings.
    const q = OnrampQuote.parse({
      rate: 88.5,
      quantity: 112.4516,
      onrampFee: 0.1,
      clientFee: 0.2,
      gatewayFee: 25,
      gasFee: 0.008157600000000001
    })
    const b = quoteBreakdown(1, { fiatAmount: '10000', ...q })
    expect(b.kind).toBe('onramp')
    expect(b.fees).toEqual([
      { name: 'onrampFee', label: 'service fee', amount: '0.1', currency: 'fiat' },
      { name: 'clientFee', label: 'merchant fee', amount: '0.2', currency: 'fiat' },
      { name: 'gatewayFee', label: 'payment gateway fee', amount: '25', currency: 'fiat' },
      { name: 'gasFee', label: 'network (gas) fee', amount: '0.008157600000000001', currency: 'coin' }
    ])
    // 0.1 + 0.2 + 25 exactly (floats would give 25.300000000000001).
    expect(b.totalFiatFees).toBe('25.3')
    expect(b.totalCoinFees).toBe('0.008157600000000001')
    // 10000 / 112.4516, to 18 places half-up (checked with Python's decimal module).
    expect(b.effectiveRate).toBe('88.927147323826428437')
  })

  it('lays out an offramp quote with TDS in the total', () => {
    const b = quoteBreakdown(2, {
      quantity: '100',
      rate: '87.1',
      fiatAmount: '8600.471',
      onrampFee: '43.55',
      clientFee: '0',
      gatewayFee: '5',
      tdsFee: '60.979'
    })
    expect(b.kind).toBe('offramp')
    expect(b.fees.map((f) => [f.name, f.currency])).toEqual([
      ['onrampFee', 'fiat'],
      ['clientFee', 'fiat'],
      ['gatewayFee', 'fiat'],
      ['tdsFee', 'fiat']
    ])
    expect(b.totalFees).toBe('109.529')
    expect(b.effectiveRate).toBe('86.00471')
  })

  it('leaves the effective rate out when the quantity is zero', () => {
    const b = quoteBreakdown(1, {
      fiatAmount: '100',
      rate: '1',
      quantity: '0',
      onrampFee: '0',
      clientFee: '0',
      gatewayFee: '0',
      gasFee: '0'
    })
    expect(b.effectiveRate).toBeUndefined()
    expect('effectiveRate' in b).toBe(false)
  })

  it('sums fees without losing a digit', () => {
    const dec = fc.tuple(fc.bigInt({ min: 0n, max: 10n ** 15n }), fc.integer({ min: 0, max: 18 })).map(([u, s]) => ({ u, s }))
    fc.assert(
      fc.property(dec, dec, dec, dec, (a, b, c, d) => {
        const text = ({ u, s }: { u: bigint; s: number }): string => {
          const digits = u.toString().padStart(s + 1, '0')
          return s === 0 ? digits : `${digits.slice(0, -s)}.${digits.slice(-s)}`
        }
        const br = quoteBreakdown(2, {
          quantity: '1',
          rate: '1',
          fiatAmount: '1',
          onrampFee: text(a),
          clientFee: text(b),
          gatewayFee: text(c),
          tdsFee: text(d)
        })
        // Reference: scale everything to 18 places and add as integers.
        const scaled = [a, b, c, d].reduce((acc, { u, s }) => acc + u * 10n ** BigInt(18 - s), 0n)
        const [i, f = ''] = br.totalFees.split('.')
        expect(BigInt((i ?? '0') + f.padEnd(18, '0'))).toBe(scaled)
      })
    )
  })
})

describe('customerText', () => {
  it('writes an onramp quote a customer can read', () => {
    const b = quoteBreakdown(1, {
      fiatAmount: '10000',
      rate: '88.5',
      quantity: '112.4516',
      onrampFee: '25',
      clientFee: '10',
      gatewayFee: '5',
      gasFee: '0.5'
    })
    const text = customerText(b, { fiat: 'INR', coin: 'USDT', network: 'BEP20' })
    expect(text.split('\n')).toEqual([
      'Quote: buy USDT on BEP20 with INR',
      'You pay: 10,000.00 INR',
      'Rate: 1 USDT = 88.50 INR',
      'Fees:',
      '  service fee: 25.00 INR',
      '  merchant fee: 10.00 INR',
      '  payment gateway fee: 5.00 INR',
      '  network (gas) fee: 0.500000 USDT',
      '  total fees: 40.00 INR + 0.500000 USDT',
      'You receive: about 112.451600 USDT',
      'Effective price, fees included: 88.93 INR per USDT',
      'Prices move with the market: the final amount is fixed when the order is placed.'
    ])
  })

  it('writes an offramp quote with the chosen decimals', () => {
    const b = quoteBreakdown(2, {
      quantity: '100',
      rate: '87.1',
      fiatAmount: '8600.471',
      onrampFee: '43.55',
      clientFee: '0',
      gatewayFee: '5',
      tdsFee: '60.979'
    })
    const text = customerText(b, { fiat: 'INR', coin: 'USDT', coinDecimals: 2 })
    expect(text).toContain('Quote: sell USDT for INR')
    expect(text).toContain('You send: 100.00 USDT')
    expect(text).toContain('  TDS (1% tax): 60.98 INR')
    expect(text).toContain('  total fees: 109.53 INR')
    expect(text).toContain('You receive: about 8,600.47 INR')
  })
})

describe('cheapestNetwork', () => {
  it('picks the highest quantity', () => {
    const rows = [
      { chainId: 0, quantity: '99.5', gasFee: '5' },
      { chainId: 1, quantity: '104.2', gasFee: '0.3' },
      { chainId: 3, quantity: '104.19999999999999999', gasFee: '0.01' }
    ]
    expect(cheapestNetwork(rows)?.chainId).toBe(1)
  })
  it('breaks quantity ties by the lowest gas, then by order', () => {
    expect(
      cheapestNetwork([
        { chainId: 0, quantity: '10', gasFee: '1' },
        { chainId: 2, quantity: '10.0', gasFee: '0.5' }
      ])?.chainId
    ).toBe(2)
    expect(
      cheapestNetwork([
        { chainId: 0, quantity: '10', gasFee: '1' },
        { chainId: 2, quantity: '10', gasFee: '1' }
      ])?.chainId
    ).toBe(0)
  })
  it('skips failed quotes, falls back to gas alone, and answers undefined for nothing', () => {
    expect(
      cheapestNetwork([
        { chainId: 0, quantity: null, gasFee: '0' },
        { chainId: 2, quantity: '1', gasFee: '9' }
      ])?.chainId
    ).toBe(2)
    expect(cheapestNetwork([{ chainId: 0, gasFee: '3' }, { chainId: 2, gasFee: '0.2' }, { chainId: 5 }])?.chainId).toBe(2)
    expect(cheapestNetwork([])).toBeUndefined()
    expect(cheapestNetwork([{ chainId: 4 }])).toBeUndefined()
  })
  it('agrees with a sort by (quantity desc, gas asc)', () => {
    const dec = fc.integer({ min: 0, max: 50 }).map((n) => (n / 10).toFixed(1))
    fc.assert(
      fc.property(fc.array(fc.record({ chainId: fc.nat(30), quantity: dec, gasFee: dec }), { minLength: 1, maxLength: 8 }), (rows) => {
        const best = cheapestNetwork(rows)
        const sorted = [...rows].sort((a, b) => Number(b.quantity) - Number(a.quantity) || Number(a.gasFee) - Number(b.gasFee))
        expect(best?.quantity).toBe(sorted[0]?.quantity)
        expect(best?.gasFee).toBe(sorted[0]?.gasFee)
      })
    )
  })
})
