// quotes:* — a quote at interactive priority (ahead of background polling in the rate
// budget), and the same quote on every network of the coin beside its fees and minimums.
// Before asking, an amount outside what the config knows of the limits (limits, both
// shapes of allCoinLimits, minimumBuyAmount) and an offramp network outside spec 4.9's
// list are refused here, so no budget is spent on a refusal; when the service refuses
// anyway, the minimum or maximum its text names is carried to the operator (bounds).
import type { ProfileSession } from '../profile-session'
import { ApiError, toErrorInfo } from '../../shared/api/errors'
import { chainName, fiatName } from '../../shared/domain/names'
import { offrampNetworkRefusal, offrampNetworks } from '../../shared/domain/offramp-networks'
import { checkLimits } from '../../shared/domain/quote'
import { onrampBounds, refusalBounds } from '../../shared/domain/quote-bounds'
import type { ConfigSnapshot, QuoteInput, QuoteResult } from '../../shared/ipc/contract'
import type { HandlerContext, HandlerSlice } from './context'

/** How long a quote is shown as current: prices move, and the service states no validity for a quote. */
export const QUOTE_FRESH_MS = 30_000

export function quoteHandlers(c: Pick<HandlerContext, 'ready' | 'now'>): HandlerSlice<'quotes'> {
  return {
    'quotes:get': async (q) => {
      const s = await c.ready()
      return quote(c, s, await s.config.get(), q)
    },
    'quotes:compare': async (q) => {
      const s = await c.ready()
      const cfg = await s.config.get()
      const coin = cfg.coins.find((x) => x.id === q.coinId)
      if (!coin) throw new Error(`unknown coin #${q.coinId}`)
      const networks = q.type === 2 ? offrampNetworks(coin.code, cfg.chains) : coin.networks
      const rows = await Promise.all(
        networks.map(async (chainId) => {
          const fee = cfg.gasFees[String(q.coinId)]?.[String(chainId)]
          const base = {
            chainId,
            gasFee: fee?.withdrawalFee ?? null,
            minimum: fee?.minimumWithdrawal ?? null,
            nodeInSync: fee?.nodeInSync ?? null,
            depositEnable: fee?.depositEnable ?? null
          }
          try {
            return { ...base, ok: true, quote: await quote(c, s, cfg, q, chainId), error: null }
          } catch (e) {
            return { ...base, ok: false, quote: null, error: toErrorInfo(e) }
          }
        })
      )
      return { rows }
    }
  }
}

const labels = (cfg: ConfigSnapshot, coinId: number, chainId: number, fiatType: number) => {
  const coin = cfg.coins.find((x) => x.id === coinId)
  return {
    coin,
    coinLabel: coin ? coin.code.toUpperCase() : `#${coinId}`,
    chainLabel: cfg.chains.find((x) => x.id === chainId)?.symbol.toUpperCase() ?? chainName(chainId),
    fiatLabel: cfg.fiats.find((x) => x.id === fiatType)?.symbol ?? fiatName(fiatType)
  }
}

/** Refused before anything is sent: the operator reads why, and that the budget was not spent. */
function notSent(message: string): ApiError {
  return new ApiError({ kind: 'invalid_request', endpoint: 'quotes', message: `${message.replace(/\.$/, '')}; nothing was sent` })
}

async function quote(
  c: Pick<HandlerContext, 'now'>,
  s: ProfileSession,
  cfg: ConfigSnapshot,
  q: QuoteInput,
  chainId = q.chainId
): Promise<QuoteResult> {
  const opts = { priority: 'interactive' as const }
  const fiatType = q.type === 1 ? q.fiatType : 1
  const l = labels(cfg, q.coinId, chainId, fiatType)
  const withBounds = (e: unknown): never => {
    throw withRefusalBounds(e, [l.fiatLabel, l.coinLabel], q.type === 1 ? l.fiatLabel : undefined)
  }
  // Fresh from when the answer arrived.
  const fresh = () => {
    const quotedAt = c.now()
    return { quotedAt, staleAt: quotedAt + QUOTE_FRESH_MS }
  }
  if (q.type === 1) {
    s.config.wantCoinLimits(q.fiatType)
    const b = onrampBounds(cfg, q.fiatType, q.coinId, chainId)
    const outside = checkLimits(q.fiatAmount, b, b.pairMinimum, l.fiatLabel)
    if (outside) throw notSent(outside)
    const r = await s.client
      .onrampQuote({ coinId: q.coinId, chainId, fiatType: q.fiatType, fiatAmount: q.fiatAmount }, opts)
      .catch(withBounds)
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
  // A coin the config does not know yet is left to the service to judge.
  const wrongNetwork = l.coin && offrampNetworkRefusal({ code: l.coin.code, label: l.coinLabel }, chainId, l.chainLabel, cfg.chains)
  if (wrongNetwork) throw notSent(wrongNetwork)
  const r = await s.client.offrampQuote({ coinId: q.coinId, chainId, fiatType: 1, quantity: q.quantity }, opts).catch(withBounds)
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

/**
 * A refusal from the service whose text names a minimum or maximum, with them attached
 * (explainError then states them). `defaultUnit` is the unit of an onramp quote's bounds
 * (its fiat) when the text writes none; offramp texts are left as written.
 */
function withRefusalBounds(e: unknown, units: readonly string[], defaultUnit: string | undefined): unknown {
  if (!(e instanceof ApiError) || (e.kind !== 'api' && e.kind !== 'http')) return e
  const b = refusalBounds(e.message, units)
  if (!b) return e
  const unit = b.unit ?? defaultUnit
  return new ApiError({ ...e.toInfo(), bounds: { ...b, ...(unit ? { unit } : {}) } }, { cause: e })
}
