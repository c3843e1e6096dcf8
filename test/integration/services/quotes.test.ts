// Quotes through the handlers against the embedded sandbox, checked against the
// sandbox's own quote maths at the price it was set to: onramp and offramp figures,
// offramp only in INR and only on the networks of spec 4.9, an amount outside the known
// limits (allCoinLimits shape B included) refused before anything is sent, a refusal from
// the service with the minimum and maximum its text names, and quotes:compare with one
// row per network of the coin.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { findCoinByCode, findFiat } from '../../../src/sandbox/catalogue'
import { quoteOfframp, quoteOnramp, resolveTarget } from '../../../src/sandbox/quote-engine'
import { explainError, type ApiErrorInfo } from '../../../src/shared/api/errors'
import { cmp } from '../../../src/shared/money'
import { QUOTE_FRESH_MS } from '../../../src/main/handlers/quotes'
import { startServicesHarness, type ServicesHarness } from './harness'

let h: ServicesHarness
const usdt = findCoinByCode('usdt')!
const bnb = findCoinByCode('bnb')!
const VND = 5
/** Quote requests that reached the sandbox so far. */
const quotesSent = () => h.services.session().client.stats().quotes

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

  it('an amount outside the known limits is refused before anything is sent', async () => {
    const before = quotesSent()
    const r = await h.envelope('quotes:get', { type: 1, coinId: usdt.id, chainId: usdt.networks[0], fiatType: 1, fiatAmount: '987654321' })
    expect(r.ok).toBe(false)
    if (r.ok) return
    expect(r.error).toMatchObject({ kind: 'invalid_request', retryable: false })
    expect(r.error.message).toBe('Above the maximum of 200000 INR; nothing was sent')
    expect(quotesSent()).toBe(before)
  })

  it('a refusal from the service that names its minimum and maximum carries them to the operator', async () => {
    // Offramp limits are on the INR value: only the service can judge 0.01 USDT.
    const off = await h.envelope('quotes:get', { type: 2, coinId: usdt.id, chainId: usdt.offrampNetworks[0], quantity: '0.01' })
    expect(off.ok).toBe(false)
    if (off.ok) return
    expect(off.error).toMatchObject({ code: 413, httpStatus: 413, retryable: false, bounds: { minimum: '500', maximum: '500000' } })
    expect(explainError(off.error as ApiErrorInfo)).toMatch(/The service's minimum 500, maximum 500000\.$/)
  })

  it('allCoinLimits shape B (coin -> chain -> fiat amount) bounds the quote by its coin and network', async () => {
    const sb = h.services.sandbox()!
    expect(sb.control.readings().coinLimitsShape).toBe('perFiat') // B for VND
    const erc20 = 0
    const vnd = (fiatAmount: string, chainId = erc20) =>
      h.envelope('quotes:get', { type: 1, coinId: usdt.id, chainId, fiatType: VND, fiatAmount })
    const seq = h.lastSeq()
    // VND is not followed: its coin limits are not known yet, so the service judges the first quote.
    const first = await vnd('300000')
    expect(first.ok).toBe(false)
    if (first.ok) return
    expect(first.error).toMatchObject({ code: 413, bounds: { minimum: '1000000', maximum: '500000000', unit: 'VND' } })

    // Asking in VND fetched its coin limits (shape B) in the background.
    const cfg = await h.waitFor('config:updated', (c) => c.coinLimits[String(VND)]?.shape === 'B', seq)
    const b = cfg.coinLimits[String(VND)]
    expect(b?.shape === 'B' && b.byCoin[String(usdt.id)]?.[String(erc20)]).toBe('1000000')
    const before = quotesSent()
    const again = await vnd('300000')
    expect(again.ok).toBe(false)
    if (!again.ok) expect(again.error.message).toBe('Below the minimum of 1000000 VND for this coin and network; nothing was sent')
    expect(quotesSent()).toBe(before)
    // On another network the pair minimum is the fiat's own; at the minimum the quote goes through.
    expect(
      (
        await vnd(
          '300000',
          usdt.networks.find((n) => n !== erc20)
        )
      ).ok
    ).toBe(true)
    expect((await vnd('1000000')).ok).toBe(true)
    expect(quotesSent()).toBe(before + 2)
  })

  it('refuses an offramp quote on a coin or network outside spec 4.9 before anything is sent', async () => {
    const before = quotesSent()
    const r = await h.envelope('quotes:get', { type: 2, coinId: bnb.id, chainId: bnb.networks[0], quantity: '1' })
    expect(r.ok).toBe(false)
    if (!r.ok) {
      expect(r.error.kind).toBe('invalid_request')
      expect(r.error.message).toBe('BNB cannot be sold: offramp quotes are for USDT, USDC, BUSD and ETH only; nothing was sent')
    }
    expect((await h.call('quotes:compare', { type: 2, coinId: bnb.id, chainId: bnb.networks[0]!, quantity: '1' })).rows).toEqual([])
    expect(quotesSent()).toBe(before)
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

  it('offramp: one row per network of spec 4.9, each the same as a single quote', async () => {
    const { rows } = await h.call('quotes:compare', { type: 2, coinId: usdt.id, chainId: usdt.offrampNetworks[0]!, quantity: '250' })
    // usdt on bep20, matic20, erc20, trc20, in the section's order.
    expect(rows.map((r) => r.chainId)).toEqual([1, 3, 0, 2])
    expect([...usdt.offrampNetworks].sort()).toEqual([0, 1, 2, 3])
    for (const row of rows) {
      expect(row.ok, `chain ${row.chainId}: ${row.error?.message ?? ''}`).toBe(true)
      const want = quoteOfframp(resolveTarget({ coinId: usdt.id, chainId: row.chainId }, 'offramp'), '250', priceOf(1).sell)
      expect(same(row.quote!.fiatAmount, want.fiatAmount)).toBe(true)
    }
    expect(h.contractViolations).toEqual([])
  })
})
