// The service's configuration answers in the sandbox (chain mapping, coin limits, gas fees,
// symbol mappings, limits, the public configuration), built from the catalogue, the chains'
// health a test set, and the price book; where the spec leaves a shape open, the reading in
// force is passed in.
import {
  CHAIN_DETAILS,
  CHAIN_IDS,
  COINS,
  FIATS,
  MINIMUM_SELL_AMOUNT,
  OFFRAMP_LIMITS,
  chainSymbolMapping,
  minimumBuyAmountInr,
  perCoinMinimum
} from './catalogue'
import type { ChainHealth } from './chain-health'
import type { PriceBook } from './price-book'
import { fiatOf } from './quote-engine'
import type { SandboxReadings } from './readings'

const n = (s: string): number => Number(s)

export function chainMap(): Record<string, unknown> {
  return Object.fromEntries(CHAIN_IDS.map((id) => [String(id), CHAIN_DETAILS.get(id)]))
}

/**
 * Shape A ({onramp: {fiat: {min, max}}}) or shape B (coin -> chain -> the fiat amount
 * limit, here each pair's minimum): per the coinLimitsShape reading; perFiat answers B
 * for the fiats flagged perCoinLimits and A for the rest.
 */
export function coinLimits(fiatType: number, shape: SandboxReadings['coinLimitsShape']): unknown {
  const { fiat } = fiatOf(fiatType)
  if (shape === 'B' || (shape === 'perFiat' && fiat.perCoinLimits)) {
    return Object.fromEntries(
      COINS.map((c) => [String(c.id), Object.fromEntries(c.networks.map((ch) => [String(ch), n(perCoinMinimum(fiat, c, ch))]))])
    )
  }
  return { onramp: { [String(fiat.id)]: { min: n(fiat.onramp.min), max: n(fiat.onramp.max) } } }
}

export function gasFees(chains: ChainHealth): unknown {
  return Object.fromEntries(
    COINS.map((c) => [
      String(c.id),
      Object.fromEntries(
        chains.entries(c.code).map(([ch, g]) => [
          ch,
          {
            withdrawalFee: g.withdrawalFee,
            minimumWithdrawal: g.minimumWithdrawal,
            nodeInSync: g.nodeInSync,
            depositEnable: g.depositEnable
          }
        ])
      )
    ])
  )
}

export function publicGasFees(chains: ChainHealth): unknown {
  return Object.fromEntries(
    COINS.map((c) => [
      String(c.id),
      Object.fromEntries(
        chains
          .entries(c.code)
          .map(([ch, g]) => [
            CHAIN_DETAILS.get(Number(ch))?.nativeToken === c.id ? 'native' : ch,
            { withdrawalFee: n(g.withdrawalFee), minimumWithdrawal: n(g.minimumWithdrawal), nodeInSync: g.nodeInSync }
          ])
      )
    ])
  )
}

export function configMapping(): unknown {
  return {
    fiatSymbolMapping: Object.fromEntries(FIATS.map((f) => [f.symbol, f.id])),
    coinSymbolMapping: Object.fromEntries(COINS.map((c) => [c.code, c.idAsText ? String(c.id) : c.id])),
    chainSymbolMapping: chainSymbolMapping()
  }
}

/**
 * Type 1 is {onramp: byFiat} (spec 4.13). Types 2 and 3 (not shown) per limitsShape:
 * typeKeys {offramp: byFiat} and {onramp, offramp}; flat: byFiat itself and {"1": onramp, "2": offramp}.
 */
export function limits(type: number, limitsShape: SandboxReadings['limitsShape']): unknown {
  const onramp = Object.fromEntries(FIATS.map((f) => [String(f.id), { min: n(f.onramp.min), max: n(f.onramp.max) }]))
  const offramp = Object.fromEntries(Object.entries(OFFRAMP_LIMITS).map(([k, v]) => [k, { min: n(v.min), max: n(v.max) }]))
  if (type === 1) return { onramp }
  if (limitsShape === 'flat') return type === 2 ? offramp : { '1': onramp, '2': offramp }
  return type === 2 ? { offramp } : { onramp, offramp }
}

export function publicConfig(chains: ChainHealth, prices: PriceBook): unknown {
  const sellable = COINS.filter((c) => c.offrampNetworks.length > 0)
  return {
    allCoinConfig: Object.fromEntries(
      COINS.map((c) => [
        c.code,
        {
          coinId: c.id,
          coinName: c.name,
          coinIcon: `https://assets.sandbox.invalid/coins/${c.code}.png`,
          balanceFloatPlaces: c.balanceDp,
          tradeFloatPlaces: c.tradeDp,
          markets: { decimals: { inr: 2, usdt: c.code === 'usdt' ? 2 : Math.min(8, c.tradeDp + 2) } },
          networks: c.networks
        }
      ])
    ),
    networkConfig: chainMap(),
    coinData: Object.fromEntries(
      sellable.map((c) => {
        const price = n(prices.price(COINS.indexOf(c), 0, 'sell'))
        return [String(c.id), c.offrampNetworks.length > 1 ? Object.fromEntries(c.offrampNetworks.map((ch) => [String(ch), price])) : price]
      })
    ),
    minimumBuyAmount: Object.fromEntries(
      COINS.map((c) => [String(c.id), Object.fromEntries(c.networks.map((ch) => [String(ch), n(minimumBuyAmountInr(c, ch))]))])
    ),
    allGasFee: Object.fromEntries(
      sellable.map((c) => [
        String(c.id),
        Object.fromEntries(
          c.offrampNetworks.map((ch) => {
            const g = chains.entry(c.code, ch)
            return [
              String(ch),
              { depositFee: n(g?.depositFee ?? '0'), minimumDeposit: n(g?.minimumDeposit ?? '0'), nodeInSync: g?.nodeInSync ?? 1 }
            ]
          })
        )
      ])
    ),
    gatewayFee: Object.fromEntries(
      FIATS.map((f) => [String(f.id), Object.fromEntries(Object.entries(f.gatewayFee).map(([k, v]) => [k, n(v)]))])
    ),
    minimumSellAmount: Object.fromEntries(Object.entries(MINIMUM_SELL_AMOUNT).map(([k, v]) => [k, n(v)]))
  }
}
