// The order detail's sentences: the amounts read out first with their units, the text to
// copy to the customer, what "Check now" found and why it could not ask, in plain words.
import { describe, expect, it } from 'vitest'
import { checkFailureText, checkResultText, customerText, keyAmounts } from '../../../../src/shared/domain/order-story'

const N = { fiat: 'INR', coin: 'USDT', fiatDp: 2, locale: 'en-IN', network: 'BEP20' }
const ONRAMP = {
  orderId: 1001,
  status: 16,
  fiatAmount: '100000',
  expectedCryptoAmount: '1150.5',
  actualCryptoAmount: '1150.25',
  onrampFee: '7.5',
  clientFee: '1.88',
  gatewayFee: '5',
  gasFee: '0.3',
  walletAddress: '0x7f85000000000000000000000000000000005c3a',
  transactionHash: '0xabc'
}
/** Integration words an operator or a customer should not read. */
const INTEGRATION = /webhook|reference id|\bAPI\b|endpoint|\bnull\b|orderStatus|merchantHistory/i

describe('keyAmounts', () => {
  it('reads out what was paid and delivered and the fees, each with its unit, the fiat fees together', () => {
    expect(keyAmounts(1, ONRAMP, N)).toEqual([
      { label: 'Customer pays', text: '1,00,000.00 INR' },
      { label: 'Crypto delivered', text: '1,150.25 USDT' },
      { label: 'Fees in INR together', text: '14.38 INR' },
      { label: 'Network fee in USDT', text: '0.3 USDT' }
    ])
  })

  it('says quoted when nothing was delivered yet, and offramp in its own terms', () => {
    expect(keyAmounts(1, { ...ONRAMP, actualCryptoAmount: null }, N)[1]).toEqual({ label: 'Crypto quoted', text: '1,150.5 USDT' })
    expect(keyAmounts(2, { expectedQuantity: '10', actualFiatAmount: '850', onrampFee: '2', tdsFee: '8.5' }, N)).toEqual([
      { label: 'Crypto to sell', text: '10 USDT' },
      { label: 'Fiat paid out', text: '850.00 INR' },
      { label: 'Fees in INR together', text: '10.50 INR' }
    ])
  })
})

describe('customerText', () => {
  it('is what a customer may be told: every amount with its unit, the status in words, no number and no integration word', () => {
    const t = customerText(1, 1001, ONRAMP, N)
    expect(t).toBe(
      [
        'Order 1001: buying USDT on BEP20',
        'Status: Complete',
        'You pay: 1,00,000.00 INR',
        'Crypto delivered: 1,150.25 USDT',
        'Fees in INR together: 14.38 INR',
        'Network fee in USDT: 0.3 USDT',
        'To the wallet ending …005c3a',
        'Transaction: 0xabc'
      ].join('\n')
    )
    expect(t).not.toMatch(INTEGRATION)
    expect(t).not.toMatch(/\(16\)|status 16/)
  })
})

describe('checkResultText', () => {
  it('says the service was asked just now, and whether the status moved', () => {
    expect(checkResultText(1, { kind: 'status', status: 1, previous: 1, at: 0, kept: true })).toBe(
      'Checked with the service just now: still Checking payment.'
    )
    expect(checkResultText(1, { kind: 'status', status: 2, previous: 1, at: 0, kept: true })).toBe(
      'Checked with the service just now: now Payment received (it was Checking payment).'
    )
    expect(checkResultText(2, { kind: 'status', status: 77, previous: 1, at: 0, kept: true })).toBe(
      'Checked with the service just now: now Unknown status 77 (it was Awaiting crypto).'
    )
    expect(checkResultText(1, { kind: 'status', status: 2, previous: 2, at: 0, kept: false })).toMatch(
      /still Payment received\. The team hub that leads keeps the order up to date\.$/
    )
    expect(checkResultText(1, { kind: 'unknown-order', at: 0 })).toMatch(
      /^Checked with the service just now: it does not know this order\./
    )
  })

  it('names why it could not ask, in plain words, never the library or endpoint', () => {
    const time = (ms: number) => new Date(ms).toISOString().slice(11, 16)
    const cases = [
      [{ kind: 'network' }, /the service cannot be reached/],
      [{ kind: 'timeout' }, /the service cannot be reached/],
      [{ kind: 'rate_limited', nextSlotAt: Date.UTC(2026, 0, 1, 14, 31) }, /Try again after 14:31\.$/],
      [{ kind: 'hub_unreachable' }, /your team's hub cannot be reached/],
      [{ kind: 'forbidden' }, /does not allow it/],
      [{ kind: 'auth', code: 401 }, /credentials/],
      [{ kind: 'api', code: 500 }, /refused the request/]
    ] as const
    for (const [e, want] of cases) {
      const t = checkFailureText(e, time)
      expect(t).toMatch(/^Could not check with the service just now: /)
      expect(t).toMatch(want)
      expect(t).not.toMatch(/ECONNREFUSED|orderStatus|\bapi\b|undici/i)
    }
  })
})
