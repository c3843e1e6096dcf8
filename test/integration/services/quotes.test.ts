// Quotes through the handlers against the embedded sandbox, checked against the
// sandbox's own quote maths at the price it was set to: onramp and offramp figures,
// offramp only in INR, an amount outside the limits as the service's 413 in clear
// words, and quotes:compare with one row per network of the coin.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { findCoinByCode, findFiat } from '../../../src/sandbox/catalogue'
import { quoteOfframp, quoteOnramp, resolveTarget } from '../../../src/sandbox/quote-engine'
import { cmp } from '../../../src/shared/domain/money'
import { QUOTE_FRESH_MS } from '../../../src/main/handlers/quotes'
import { startServicesHarness, type ServicesHarness } from './harness'

let h: ServicesHarness
const usdt = findCoinByCode('usdt')!

/** Same number, whatever the trailing zeros. */
const same = (a: string | undefined, b: string): boolean => a !== undefined && cmp(a, b) === 0

beforeAll(async () => {
  h = await startServicesHarness()
  const sb = h.services.sandbox()!
  sb.control.setPrice({ coinCode: 'usdt', fiatType: 1, price: '88.4' })
  sb.control.setPrice({ coinCode: 'usdt', fiatType: 2, price: '41.25' })
})
afterAll(async () => {
  await h?.close()
})

function priceOf(fiatType: number) {
  return h.services
    .sandbox()!
    .control.prices()
    .find((p) => p.coinId === usdt.id && p.fiatType === fiatType)!
}

describe('quotes:get', () => {
  it('an onramp quote matches the sandbox’s own figures', async () => {
    for (const [fiatType, amount] of [
      [1, '5000'],
      [2, '1000.5']
    ] as const) {
      const chainId = usdt.networks[0]!
      const q = await h.call('quotes:get', { type: 1, coinId: usdt.id, chainId, fiatType, fiatAmount: amount })
      const want = quoteOnramp(findFiat(fiatType)!, resolveTarget({ coinId: usdt.id, chainId }, 'onramp'), amount, priceOf(fiatType).buy)
      expect(q).toMatchObject({ type: 1, coinId: usdt.id, chainId, fiatType, amount })
      expect(same(q.rate, want.rate), `rate ${q.rate} vs ${want.rate}`).toBe(true)
      expect(same(q.quantity, want.quantity), `quantity ${q.quantity} vs ${want.quantity}`).toBe(true)
      expect(same(q.onrampFee, want.onrampFee)).toBe(true)
      expect(same(q.clientFee, want.clientFee)).toBe(true)
      expect(same(q.gatewayFee, want.gatewayFee)).toBe(true)
      expect(same(q.gasFee, want.gasFee)).toBe(true)
    }
  })

  it('an offramp quote matches the sandbox’s own figures, in INR', async () => {
    const chainId = usdt.offrampNetworks[0]!
    const q = await h.call('quotes:get', { type: 2, coinId: usdt.id, chainId, quantity: '100' })
    const want = quoteOfframp(resolveTarget({ coinId: usdt.id, chainId }, 'offramp'), '100', priceOf(1).sell)
    expect(q).toMatchObject({ type: 2, coinId: usdt.id, chainId, fiatType: 1, amount: '100' })
    expect(same(q.rate, want.rate)).toBe(true)
    expect(same(q.fiatAmount, want.fiatAmount), `fiatAmount ${q.fiatAmount} vs ${want.fiatAmount}`).toBe(true)
    expect(same(q.onrampFee, want.onrampFee)).toBe(true)
    expect(same(q.clientFee, want.clientFee)).toBe(true)
    expect(same(q.gatewayFee, want.gatewayFee)).toBe(true)
    expect(same(q.tdsFee, want.tdsFee)).toBe(true)
  })

  it('says from when the quote is stale: main decides, thirty seconds after the answer', async () => {
    const q = await h.call('quotes:get', { type: 2, coinId: usdt.id, chainId: usdt.offrampNetworks[0]!, quantity: '100' })
    expect(q.staleAt - q.quotedAt).toBe(QUOTE_FRESH_MS)
  })

  it('refuses an offramp quote in any fiat but INR', async () => {
    const r = await h.envelope('quotes:get', { type: 2, coinId: usdt.id, chainId: usdt.offrampNetworks[0], quantity: '100', fiatType: 2 })
    expect(r.ok).toBe(false)
    if (!r.ok) expect(r.error.kind).toBe('invalid_input')
  })

  it('an amount outside the limits comes back as the service’s 413, in clear words', async () => {
    const r = await h.envelope('quotes:get', { type: 1, coinId: usdt.id, chainId: usdt.networks[0], fiatType: 1, fiatAmount: '987654321' })
    expect(r.ok).toBe(false)
    if (r.ok) return
    expect(r.error.code).toBe(413)
    expect(r.error.httpStatus).toBe(413)
    expect(r.error.retryable).toBe(false)
    expect(r.error.message).toMatch(/outside the limits/)
    expect(r.error.message).toMatch(/min \d+/)

    const off = await h.envelope('quotes:get', { type: 2, coinId: usdt.id, chainId: usdt.offrampNetworks[0], quantity: '0.01' })
    expect(off.ok).toBe(false)
    if (!off.ok) expect(off.error.code).toBe(413)
  })
})

describe('quotes:compare', () => {
  it('onramp: one row per network of the coin, each the same as a single quote, the cheapest derivable', async () => {
    const cfg = await h.call('config:get', {})
    const coin = cfg.coins.find((c) => c.id === usdt.id)!
    const { rows } = await h.call('quotes:compare', {
      type: 1,
      coinId: usdt.id,
      chainId: coin.networks[0]!,
      fiatType: 1,
      fiatAmount: '20000'
    })
    expect(rows.map((r) => r.chainId).sort((a, b) => a - b)).toEqual([...coin.networks].sort((a, b) => a - b))
    for (const row of rows) {
      expect(row.ok, `chain ${row.chainId}: ${row.error?.message ?? ''}`).toBe(true)
      const want = quoteOnramp(findFiat(1)!, resolveTarget({ coinId: usdt.id, chainId: row.chainId }, 'onramp'), '20000', priceOf(1).buy)
      expect(same(row.quote!.quantity, want.quantity)).toBe(true)
      expect(same(row.quote!.gasFee, want.gasFee)).toBe(true)
      const fee = cfg.gasFees[String(usdt.id)]?.[String(row.chainId)]
      expect(row.gasFee).toBe(fee?.withdrawalFee ?? null)
      expect(row.minimum).toBe(fee?.minimumWithdrawal ?? null)
      expect(row.nodeInSync).toBe(fee?.nodeInSync ?? null)
      expect(row.depositEnable).toBe(fee?.depositEnable ?? null)
    }
    // The network that gives the most coin for the money is derivable from the rows.
    const best = [...rows].sort((a, b) => cmp(b.quote!.quantity!, a.quote!.quantity!))[0]!
    const truthBest = [...coin.networks]
      .map((chainId) => ({
        chainId,
        q: quoteOnramp(findFiat(1)!, resolveTarget({ coinId: usdt.id, chainId }, 'onramp'), '20000', priceOf(1).buy).quantity
      }))
      .sort((a, b) => cmp(b.q, a.q))[0]!
    expect(cmp(best.quote!.quantity!, truthBest.q)).toBe(0)
  })

  it('offramp: networks the coin cannot be sold on come back as failed rows with the reason', async () => {
    const cfg = await h.call('config:get', {})
    const coin = cfg.coins.find((c) => c.id === usdt.id)!
    const { rows } = await h.call('quotes:compare', { type: 2, coinId: usdt.id, chainId: usdt.offrampNetworks[0]!, quantity: '250' })
    expect(rows).toHaveLength(coin.networks.length)
    for (const row of rows) {
      if (usdt.offrampNetworks.includes(row.chainId)) {
        expect(row.ok).toBe(true)
        const want = quoteOfframp(resolveTarget({ coinId: usdt.id, chainId: row.chainId }, 'offramp'), '250', priceOf(1).sell)
        expect(same(row.quote!.fiatAmount, want.fiatAmount)).toBe(true)
      } else {
        expect(row.ok).toBe(false)
        expect(row.error?.code).toBe(406)
      }
    }
    expect(h.contractViolations).toEqual([])
  })
})
