// Every amount of an order in its unit: the table the detail, the table, the CSV and the
// customer text read (docs/spec-readings.md, "The units of order amounts"), the detail's
// fields taking their kind from it, and the fees added up per unit on decimals.
import { describe, expect, it } from 'vitest'
import { amountFields, amountUnit, feeTotals, unitText } from '../../../../src/shared/domain/order-amounts'
import { orderFieldSpecs } from '../../../../src/shared/domain/order-fields'
import { quoteBreakdown } from '../../../../src/shared/domain/quote'

/** The units the app assumes, written out again so a slip in the table shows as a mismatch. */
const ONRAMP = {
  fiatAmount: 'fiat',
  expectedCryptoAmount: 'coin',
  actualCryptoAmount: 'coin',
  expectedPrice: 'fiatPerCoin',
  actualPrice: 'fiatPerCoin',
  onRampFee: 'fiat',
  onrampFee: 'fiat',
  clientFee: 'fiat',
  gatewayFee: 'fiat',
  gasFee: 'coin'
}
const OFFRAMP = {
  expectedQuantity: 'coin',
  actualQuantity: 'coin',
  expectedPrice: 'fiatPerCoin',
  actualPrice: 'fiatPerCoin',
  actualFiatAmount: 'fiat',
  onrampFee: 'fiat',
  onRampFee: 'fiat',
  clientFee: 'fiat',
  gatewayFee: 'fiat',
  tdsFee: 'fiat'
}

describe('the unit of every amount field', () => {
  it.each([
    [1, ONRAMP],
    [2, OFFRAMP]
  ] as const)('type %i: each field in the unit the app assumes', (type, want) => {
    expect(Object.fromEntries(amountFields(type).map((f) => [f.key, f.unit]))).toEqual(want)
    expect(amountUnit(type, 'walletAddress')).toBeNull()
  })

  it('gasFee is onramp only; tdsFee offramp only', () => {
    expect(amountUnit(2, 'gasFee')).toBeNull()
    expect(amountUnit(1, 'tdsFee')).toBeNull()
  })

  it('agrees with the quote, which reads the same fees', () => {
    const q = quoteBreakdown(1, {
      fiatAmount: '1000',
      rate: '88',
      quantity: '11',
      onrampFee: '7.5',
      clientFee: '1.88',
      gatewayFee: '5',
      gasFee: '0.3'
    })
    for (const f of q.fees) expect(amountUnit(1, f.name), f.name).toBe(f.currency)
  })

  it('the detail shows every amount field with its unit: no amount without one', () => {
    for (const type of [1, 2] as const) {
      for (const spec of orderFieldSpecs(type)) {
        const unit = amountUnit(type, spec.key)
        if (unit === null) continue
        expect(spec.kind, spec.key).toBe(unit === 'fiat' ? 'fiatAmount' : unit === 'coin' ? 'coinAmount' : 'price')
      }
      // Every amount the table knows has a line in the detail.
      for (const f of amountFields(type)) expect(orderFieldSpecs(type).map((s) => s.key)).toContain(f.key)
    }
  })

  it('writes a unit as the operator reads it', () => {
    const names = { fiat: 'INR', coin: 'USDT' }
    expect([unitText('fiat', names), unitText('coin', names), unitText('fiatPerCoin', names)]).toEqual(['INR', 'USDT', 'INR per USDT'])
  })
})

describe('feeTotals', () => {
  it('adds the fiat fees together and keeps the coin fee apart, exactly', () => {
    // The order: 7.5 + 1.88 + 5 INR, and 0.3 USDT of network fee.
    expect(feeTotals(1, { onrampFee: '7.5', clientFee: '1.88', gatewayFee: '5', gasFee: '0.3' })).toEqual({
      fiat: '14.38',
      coin: '0.3',
      fiatCount: 3,
      coinCount: 1
    })
    expect(feeTotals(1, { onrampFee: 0.1, clientFee: 0.2, gatewayFee: 1.1 }).fiat).toBe('1.4')
    expect(feeTotals(2, { onrampFee: '10', clientFee: 0, gatewayFee: '5', tdsFee: '85' })).toMatchObject({ fiat: '100', coin: null })
  })

  it('counts a fee spelt both ways once, and skips what is missing or not a number', () => {
    expect(feeTotals(1, { onRampFee: '7.5', onrampFee: '7.5', clientFee: null, gatewayFee: 'n/a' })).toEqual({
      fiat: '7.5',
      coin: null,
      fiatCount: 1,
      coinCount: 0
    })
    expect(feeTotals(2, {})).toEqual({ fiat: null, coin: null, fiatCount: 0, coinCount: 0 })
  })
})
