// The quote form's request: the amount checked as typed, the limits in words, and no
// request at all unless every check passes.
import { describe, expect, it } from 'vitest'
import {
  quoteKey,
  quoteKeyOf,
  quoteRequest,
  switchDirection,
  type QuoteRequestContext,
  type QuoteSelection
} from '../../../../src/renderer/src/lib/quote-request'
import type { ConfigSnapshot, QuoteResult } from '../../../../src/shared/ipc/contract'

const config: ConfigSnapshot = {
  fetchedAt: 0,
  stale: false,
  fiats: [
    { id: 1, symbol: 'inr' },
    { id: 2, symbol: 'usd' }
  ],
  coins: [{ id: 54, code: 'usdt', name: 'Tether', tradeFloatPlaces: 2, networks: [3, 13] }],
  chains: [],
  gasFees: {},
  limits: { onramp: { '1': { min: '100', max: '200000' } }, offramp: { '1': { min: '500', max: '100000' } } },
  minimumBuyAmount: { '54': { '3': '250' } },
  minimumSellAmount: { '1': '1000' },
  coinLimits: {},
  gatewayFee: {}
}
const ctx: QuoteRequestContext = { config, coinDp: 2, sellPrice: '90', fiatUnit: 'INR', coinUnit: 'USDT' }
const onramp = (amountText: string, more: Partial<QuoteSelection> = {}): QuoteSelection => ({
  type: 1,
  coinId: 54,
  chainId: 3,
  fiatType: 1,
  amountText,
  ...more
})

describe('quoteRequest', () => {
  it('sends nothing while nothing is typed', () => {
    const r = quoteRequest(onramp(''), ctx)
    expect(r.parsed).toBeNull()
    expect(r.input).toBeNull()
  })

  it('names what is wrong with the amount as typed and sends nothing', () => {
    const r = quoteRequest(onramp('12.345'), ctx)
    expect(r.parsed).toEqual({ ok: false, message: 'At most 2 decimal places.' })
    expect(r.input).toBeNull()
  })

  it('refuses an onramp amount under the network minimum, which is stricter than the fiat minimum', () => {
    const r = quoteRequest(onramp('200'), ctx)
    expect(r.limitMessage).toBe('Below the minimum of 250 INR for this coin and network.')
    expect(r.input).toBeNull()
    // Both bounds written as amounts, their digits grouped in the operator's locale.
    expect(r.limitsText).toBe('Limits 100 – 200,000 INR; minimum buy on this network 250 INR')
    expect(quoteRequest(onramp('200'), { ...ctx, locale: 'en-IN' }).limitsText).toBe(
      'Limits 100 – 2,00,000 INR; minimum buy on this network 250 INR'
    )
  })

  it('builds the onramp request from the normalised amount', () => {
    const r = quoteRequest(onramp('1,000.50'), ctx)
    expect(r.limitMessage).toBeUndefined()
    expect(r.input).toEqual({ type: 1, coinId: 54, chainId: 3, fiatType: 1, fiatAmount: '1000.5' })
  })

  it('says when no limits are known for a fiat and still asks', () => {
    const r = quoteRequest(onramp('5', { fiatType: 2 }), { ...ctx, fiatUnit: 'USD' })
    expect(r.limitsText).toBe('No limits known for USD')
    expect(r.input).toEqual({ type: 1, coinId: 54, chainId: 3, fiatType: 2, fiatAmount: '5' })
  })

  it('values an offramp quantity at the last sell price against the INR limits', () => {
    const r = quoteRequest(onramp('10', { type: 2 }), ctx)
    expect(r.limitMessage).toBe(
      '10 USDT is worth about 900.00 INR at the last sell price. Below the minimum of 1,000 INR for this coin and network.'
    )
    expect(r.input).toBeNull()
    const ok = quoteRequest(onramp('20', { type: 2 }), ctx)
    expect(ok.input).toEqual({ type: 2, coinId: 54, chainId: 3, quantity: '20' })
    expect(ok.limitsText).toBe('Limits 500 – 100,000 INR of value; minimum sell 1,000 INR')
  })

  it('asks for an offramp quote when no sell price is known (the service then judges the limits)', () => {
    expect(quoteRequest(onramp('1', { type: 2 }), { ...ctx, sellPrice: null }).input).toEqual({
      type: 2,
      coinId: 54,
      chainId: 3,
      quantity: '1'
    })
  })

  it('sends nothing without a coin or network', () => {
    expect(quoteRequest(onramp('1000', { coinId: null }), ctx).input).toBeNull()
    expect(quoteRequest(onramp('1000', { chainId: null }), ctx).input).toBeNull()
  })
})

describe('quoteKey', () => {
  const answer = {
    type: 1 as const,
    coinId: 54,
    chainId: 3,
    fiatType: 1,
    amount: '1000.5',
    rate: '90',
    onrampFee: '1',
    clientFee: '0',
    gatewayFee: '0',
    quotedAt: 0,
    staleAt: 30_000
  }

  it('ties a quote to the request it answers, so the view can tell whether it answers what is typed now', () => {
    const asked = quoteRequest(onramp('1,000.50'), ctx).input!
    expect(quoteKey(asked)).toBe(quoteKeyOf(answer))
    expect(quoteKey(quoteRequest(onramp('1000.6'), ctx).input!)).not.toBe(quoteKeyOf(answer))
    expect(quoteKey({ ...asked, chainId: 13 })).not.toBe(quoteKeyOf(answer))
  })

  it('tells an offramp quantity from an onramp amount of the same digits', () => {
    const off = quoteRequest(onramp('1000.5', { type: 2, coinId: 54 }), { ...ctx, sellPrice: '90' }).input!
    expect(quoteKey(off)).not.toBe(quoteKeyOf(answer))
    expect(quoteKey(off)).toBe(quoteKeyOf({ ...answer, type: 2 }))
  })
})

describe('switchDirection', () => {
  const base = {
    coinId: 54,
    chainId: 3,
    fiatType: 1,
    rate: '85.75',
    onrampFee: '1',
    clientFee: '0',
    gatewayFee: '0',
    quotedAt: 1,
    staleAt: 2
  }
  const onQuote: QuoteResult = { ...base, type: 1, amount: '5000', quantity: '58.300612' }
  const offQuote: QuoteResult = { ...base, type: 2, amount: '58.3', fiatAmount: '4912.345' }
  const units = { fiatUnit: 'INR', coinUnit: 'USDT' }

  it('converts an amount the quote shown answers: the fiat paid becomes the crypto it bought, and back', () => {
    expect(switchDirection({ type: 1, amountText: '5000', ...units }, onQuote, { fiatType: 1, coinDp: 2 })).toEqual({
      amountText: '58.3',
      note: '5000 INR bought about 58.3 USDT at the last quote: that is now the quantity to sell.'
    })
    expect(switchDirection({ type: 2, amountText: '58.30', ...units }, offQuote, { fiatType: 1, coinDp: 2 })).toEqual({
      amountText: '4912.34',
      note: '58.30 USDT sold for about 4912.34 INR at the last quote: that is now the amount to pay.'
    })
  })

  it('clears an amount no quote answers (none yet, another amount, an onramp in another fiat), saying so', () => {
    expect(switchDirection({ type: 1, amountText: '5000', ...units }, null, { fiatType: 1, coinDp: 2 })).toEqual({
      amountText: '',
      note: 'The amount was 5000 INR; enter the quantity of USDT to sell.'
    })
    expect(switchDirection({ type: 1, amountText: '6000', ...units }, onQuote, { fiatType: 1, coinDp: 2 }).amountText).toBe('')
    expect(switchDirection({ type: 2, amountText: '58.3', ...units }, offQuote, { fiatType: 2, coinDp: 2 })).toEqual({
      amountText: '',
      note: 'The amount was 58.3 USDT; enter the amount to pay.'
    })
    expect(switchDirection({ type: 1, amountText: '  ', ...units }, onQuote, { fiatType: 1, coinDp: 2 })).toEqual({
      amountText: '',
      note: ''
    })
  })
})
