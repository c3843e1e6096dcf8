// Quote maths (spec 4.9, 4.10), shared by the quotes endpoint and by every order the
// sandbox creates, so an order's amounts are what a quote at its price would have said.
// All arithmetic is decimal (money.ts). Fees are in the fiat; gasFee is in the coin.
//   onramp:  fees = onrampFee (1%) + clientFee (0.25%) + gatewayFee (threshold table)
//            quantity = (fiatAmount - fees) / rate - gasFee, rounded down to the coin's places
//   offramp: gross = quantity * rate; tdsFee = 1% of gross
//            fiatAmount = gross - onrampFee (1%) - clientFee (0.25%) - gatewayFee - tdsFee
import { cmp, div, mul, round, sub } from '../shared/money'
import {
  COINS,
  FIATS,
  INR,
  MINIMUM_SELL_AMOUNT,
  OFFRAMP_LIMITS,
  RATES,
  chainSymbolOf,
  coinIndexById,
  findChainBySymbol,
  findCoinByCode,
  findCoinById,
  gasEntry,
  gatewayFeeFor,
  minimumBuyAmountInr,
  perCoinMinimum,
  type CoinDef,
  type FiatDef
} from './catalogue'
import { fail } from './errors'

export interface Target {
  coin: CoinDef
  coinIndex: number
  chainId: number
}

export interface TargetInput {
  coinId?: number
  coinCode?: string
  chainId?: number
  network?: string
}

/** coinCode wins over coinId and network over chainId (spec 4.9); unknown coins or pairs are 406. */
export function resolveTarget(input: TargetInput, flow: 'onramp' | 'offramp'): Target {
  const coin =
    input.coinCode !== undefined ? findCoinByCode(input.coinCode) : input.coinId !== undefined ? findCoinById(input.coinId) : undefined
  if (!coin) {
    return fail(
      406,
      input.coinCode !== undefined
        ? `Coin not supported: ${input.coinCode}`
        : input.coinId !== undefined
          ? `Coin not supported: coinId ${input.coinId}`
          : 'Coin not supplied'
    )
  }
  const chainId = input.network !== undefined ? findChainBySymbol(input.network) : input.chainId
  if (chainId === undefined) return fail(406, `Network not supported: ${input.network ?? 'none given'}`)
  const networks = flow === 'onramp' ? coin.networks : coin.offrampNetworks
  if (!networks.includes(chainId)) {
    const names = networks.map(chainSymbolOf).join(', ')
    return fail(
      406,
      `${coin.code} is not supported for ${flow} on ${input.network ?? chainSymbolOf(chainId)}` +
        (names ? ` (supported: ${names})` : ` (${coin.code} cannot be sold)`)
    )
  }
  return { coin, coinIndex: coinIndexById.get(coin.id) ?? 0, chainId }
}

export function fiatOf(fiatType: number): { fiat: FiatDef; fiatIndex: number } {
  const fiatIndex = FIATS.findIndex((f) => f.id === fiatType)
  const fiat = FIATS[fiatIndex]
  if (!fiat) return fail(400, `Unsupported fiatType ${fiatType}: use one of ${FIATS.map((f) => f.id).join(', ')}`)
  return { fiat, fiatIndex }
}

// Division is the one slow decimal operation (big.js at 40 places); prices repeat a lot
// (one per coin, fiat and week for old orders), so each price's reciprocal is computed once.
const reciprocals = new Map<string, string>()
function reciprocal(rate: string): string {
  let r = reciprocals.get(rate)
  if (r === undefined) {
    if (reciprocals.size > 200_000) reciprocals.clear()
    r = div('1', rate, 30)
    reciprocals.set(rate, r)
  }
  return r
}

export interface OnrampFigures {
  rate: string
  quantity: string
  onrampFee: string
  clientFee: string
  gatewayFee: string
  gasFee: string
}

export function onrampFigures(
  fiat: FiatDef,
  coin: CoinDef,
  chainId: number,
  fiatAmount: string,
  rate: string
): OnrampFigures & { net: string } {
  const onrampFee = round(mul(fiatAmount, RATES.onrampFee), fiat.dp)
  const clientFee = round(mul(fiatAmount, RATES.clientFee), fiat.dp)
  const gatewayFee = gatewayFeeFor(fiat, fiatAmount, cmp)
  const gasFee = gasEntry(coin.code, chainId)?.withdrawalFee ?? '0'
  const net = sub(sub(sub(fiatAmount, onrampFee), clientFee), gatewayFee)
  return { rate, quantity: onrampQuantity(coin, net, rate, gasFee), onrampFee, clientFee, gatewayFee, gasFee, net }
}

/** Coins bought with what is left after the fiat fees, less the network fee, rounded down. */
function onrampQuantity(coin: CoinDef, net: string, rate: string, gasFee: string): string {
  return round(sub(mul(net, reciprocal(rate)), gasFee), coin.tradeDp, 'down')
}

export interface OfframpFigures {
  rate: string
  gross: string
  fiatAmount: string
  onrampFee: string
  clientFee: string
  gatewayFee: string
  tdsFee: string
}

export function offrampFigures(quantity: string, rate: string): OfframpFigures {
  const inr = FIATS[0] as FiatDef
  const gross = round(mul(quantity, rate), inr.dp)
  const onrampFee = round(mul(gross, RATES.offrampFee), inr.dp)
  const clientFee = round(mul(gross, RATES.clientFee), inr.dp)
  const gatewayFee = gatewayFeeFor(inr, gross, cmp)
  const tdsFee = round(mul(gross, RATES.tds), inr.dp)
  const fiatAmount = round(sub(sub(sub(sub(gross, onrampFee), clientFee), gatewayFee), tdsFee), inr.dp)
  return { rate, gross, fiatAmount, onrampFee, clientFee, gatewayFee, tdsFee }
}

/** Onramp min and max for a fiat and target: the fiat's limits, raised by per coin minimums. */
export function onrampBounds(fiat: FiatDef, target: Target): { min: string; max: string } {
  let min = fiat.onramp.min
  const extra =
    fiat.id === INR
      ? minimumBuyAmountInr(target.coin, target.chainId)
      : fiat.perCoinLimits
        ? perCoinMinimum(fiat, target.coin, target.chainId)
        : undefined
  if (extra !== undefined && cmp(extra, min) > 0) min = extra
  return { min, max: fiat.onramp.max }
}

export function offrampBounds(): { min: string; max: string } {
  const lim = OFFRAMP_LIMITS[INR]
  const minSell = MINIMUM_SELL_AMOUNT[INR] ?? '0'
  return { min: cmp(minSell, lim.min) > 0 ? minSell : lim.min, max: lim.max }
}

/** A checked onramp quote: 413 outside the limits or when fees eat the whole amount. */
export function quoteOnramp(fiat: FiatDef, target: Target, fiatAmount: string, rate: string): OnrampFigures {
  const { min, max } = onrampBounds(fiat, target)
  if (cmp(fiatAmount, min) < 0 || cmp(fiatAmount, max) > 0) {
    fail(
      413,
      `fiatAmount ${fiatAmount} ${fiat.symbol} is outside the limits for ${target.coin.code} on ${chainSymbolOf(target.chainId)}: min ${min}, max ${max}`
    )
  }
  const f = onrampFigures(fiat, target.coin, target.chainId, fiatAmount, rate)
  if (cmp(f.quantity, '0') <= 0)
    fail(413, `fiatAmount ${fiatAmount} ${fiat.symbol} does not cover the fees and the ${f.gasFee} ${target.coin.code} network fee`)
  return f
}

/** A checked offramp quote: 413 when the INR value is outside the limits. */
export function quoteOfframp(target: Target, quantity: string, rate: string): OfframpFigures {
  const f = offrampFigures(quantity, rate)
  const { min, max } = offrampBounds()
  if (cmp(f.gross, min) < 0 || cmp(f.gross, max) > 0) {
    fail(413, `${quantity} ${target.coin.code} is worth ${f.gross} INR, outside the offramp limits: min ${min}, max ${max}`)
  }
  if (cmp(f.fiatAmount, '0') <= 0) fail(413, `${quantity} ${target.coin.code} does not cover the fees`)
  return f
}

export const coinAt = (i: number): CoinDef => COINS[i] as CoinDef
export const fiatAt = (i: number): FiatDef => FIATS[i] as FiatDef
