// quotes:* — a quote at interactive priority (ahead of background polling in the rate
// budget), and the same quote on every network of the coin beside its fees and minimums.
import type { ProfileSession } from '../profile-session'
import { toErrorInfo } from '../../shared/api/errors'
import type { QuoteInput, QuoteResult } from '../../shared/ipc/contract'
import type { HandlerContext, HandlerSlice } from './context'

/** How long a quote is shown as current: prices move, and the service states no validity for a quote. */
export const QUOTE_FRESH_MS = 30_000

export function quoteHandlers(c: Pick<HandlerContext, 'ready' | 'now'>): HandlerSlice<'quotes'> {
  return {
    'quotes:get': async (q) => quote(c, await c.ready(), q),
    'quotes:compare': async (q) => {
      const s = await c.ready()
      const cfg = await s.config.get()
      const coin = cfg.coins.find((x) => x.id === q.coinId)
      if (!coin) throw new Error(`unknown coin #${q.coinId}`)
      const rows = await Promise.all(
        coin.networks.map(async (chainId) => {
          const fee = cfg.gasFees[String(q.coinId)]?.[String(chainId)]
          const base = {
            chainId,
            gasFee: fee?.withdrawalFee ?? null,
            minimum: fee?.minimumWithdrawal ?? null,
            nodeInSync: fee?.nodeInSync ?? null,
            depositEnable: fee?.depositEnable ?? null
          }
          try {
            return { ...base, ok: true, quote: await quote(c, s, q, chainId), error: null }
          } catch (e) {
            return { ...base, ok: false, quote: null, error: toErrorInfo(e) }
          }
        })
      )
      return { rows }
    }
  }
}

async function quote(c: Pick<HandlerContext, 'now'>, s: ProfileSession, q: QuoteInput, chainId = q.chainId): Promise<QuoteResult> {
  const opts = { priority: 'interactive' as const }
  // Fresh from when the answer arrived.
  const fresh = () => {
    const quotedAt = c.now()
    return { quotedAt, staleAt: quotedAt + QUOTE_FRESH_MS }
  }
  if (q.type === 1) {
    const r = await s.client.onrampQuote({ coinId: q.coinId, chainId, fiatType: q.fiatType, fiatAmount: q.fiatAmount }, opts)
    return {
      type: 1,
      coinId: q.coinId,
      chainId,
      fiatType: q.fiatType,
      amount: q.fiatAmount,
      rate: r.rate,
      quantity: r.quantity,
      onrampFee: r.onrampFee,
      clientFee: r.clientFee,
      gatewayFee: r.gatewayFee,
      gasFee: r.gasFee,
      ...fresh()
    }
  }
  const r = await s.client.offrampQuote({ coinId: q.coinId, chainId, fiatType: 1, quantity: q.quantity }, opts)
  return {
    type: 2,
    coinId: q.coinId,
    chainId,
    fiatType: 1,
    amount: q.quantity,
    rate: r.rate,
    fiatAmount: r.fiatAmount,
    onrampFee: r.onrampFee,
    clientFee: r.clientFee,
    gatewayFee: r.gatewayFee,
    tdsFee: r.tdsFee,
    ...fresh()
  }
}
