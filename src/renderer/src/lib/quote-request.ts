// What the quote form would ask the service, worked out from what the operator picked
// and typed: the amount checked as typed (no negatives, NaN or excess decimals), the
// limits that apply and whether the amount is inside them. Only a request that passes
// every check is returned, so nothing outside the limits is ever sent.
import { checkLimits, validateAmountInput, type AmountInput } from '../../../shared/domain/quote'
import { cmp, mul, round } from '../../../shared/money'
import { groupedAmount, onrampBounds, onrampBoundsText } from '../../../shared/domain/quote-bounds'
import type { ConfigSnapshot, OrderType, QuoteInput, QuoteResult } from '../../../shared/ipc/contract'

/** Offramp quotes are in INR only (fiatType 1). */
export const INR = 1
/** Fiat amounts are typed and shown with two decimals. */
export const FIAT_DP = 2

export interface QuoteSelection {
  type: OrderType
  coinId: number | null
  chainId: number | null
  fiatType: number
  amountText: string
}

export interface QuoteRequestContext {
  config: ConfigSnapshot | null
  /** Decimal places of the chosen coin. */
  coinDp: number
  /** The last INR sell price of the chosen coin (offramp limits are in INR of value). */
  sellPrice: string | null
  fiatUnit: string
  coinUnit: string
  /** The locale amounts are written in (digits grouped); en-US when absent. */
  locale?: string
}

export interface QuoteRequest {
  /** null while nothing is typed. */
  parsed: AmountInput | null
  /** Why the amount is outside the limits; undefined inside them. */
  limitMessage: string | undefined
  /** The limits that apply, in words. */
  limitsText: string
  /** The request to send, or null while any check fails. */
  input: QuoteInput | null
}

export function quoteRequest(sel: QuoteSelection, ctx: QuoteRequestContext): QuoteRequest {
  const parsed = sel.amountText === '' ? null : validateAmountInput(sel.amountText, sel.type === 1 ? FIAT_DP : ctx.coinDp)
  const limitMessage = parsed?.ok ? outsideLimits(sel, ctx, parsed.value) : undefined
  const input: QuoteInput | null =
    !parsed?.ok || limitMessage || sel.coinId === null || sel.chainId === null
      ? null
      : sel.type === 1
        ? { type: 1, coinId: sel.coinId, chainId: sel.chainId, fiatType: sel.fiatType, fiatAmount: parsed.value }
        : { type: 2, coinId: sel.coinId, chainId: sel.chainId, quantity: parsed.value }
  return { parsed, limitMessage, limitsText: limitsText(sel, ctx), input }
}

function outsideLimits(sel: QuoteSelection, ctx: QuoteRequestContext, amount: string): string | undefined {
  const config = ctx.config
  if (!config) return undefined
  if (sel.type === 1) {
    const b = onrampBounds(config, sel.fiatType, sel.coinId, sel.chainId)
    return checkLimits(amount, b, b.pairMinimum, ctx.fiatUnit, writer(ctx))
  }
  // Offramp limits are in INR: estimate the quantity's value at the last sell price.
  if (ctx.sellPrice === null) return undefined
  const value = round(mul(amount, ctx.sellPrice), FIAT_DP)
  const w = writer(ctx)
  const m = checkLimits(value, config.limits.offramp[String(INR)] ?? {}, config.minimumSellAmount[String(INR)], 'INR', w)
  return m ? `${w(amount)} ${ctx.coinUnit} is worth about ${w(value)} INR at the last sell price. ${m}` : undefined
}

function limitsText(sel: QuoteSelection, ctx: QuoteRequestContext): string {
  const config = ctx.config
  if (!config) return ''
  const w = writer(ctx)
  if (sel.type === 1) return onrampBoundsText(onrampBounds(config, sel.fiatType, sel.coinId, sel.chainId), ctx.fiatUnit, w)
  const lim = config.limits.offramp[String(INR)]
  const minSell = config.minimumSellAmount[String(INR)]
  return `${lim ? `Limits ${w(lim.min)} – ${w(lim.max)} INR of value` : 'No offramp limits known'}${minSell ? `; minimum sell ${w(minSell)} INR` : ''}`
}

/** Amounts in the limits' words, their digits grouped in the operator's locale. */
const writer =
  (ctx: QuoteRequestContext) =>
  (d: string): string =>
    groupedAmount(d, ctx.locale ?? 'en-US')

/** One text per distinct request: equal keys ask the service the same question. */
export function quoteKey(i: QuoteInput): string {
  return i.type === 1 ? `1|${i.coinId}|${i.chainId}|${i.fiatType}|${i.fiatAmount}` : `2|${i.coinId}|${i.chainId}|${INR}|${i.quantity}`
}

/** The key of the request a quote answers, to tell whether it answers what is typed now. */
export function quoteKeyOf(q: QuoteResult): string {
  return `${q.type}|${q.coinId}|${q.chainId}|${q.type === 1 ? q.fiatType : INR}|${q.amount}`
}

/** What the amount becomes when the direction changes, and the note that says so. */
export interface DirectionSwitch {
  amountText: string
  note: string
}

/**
 * The amount typed for one direction read in the other would be another thing (5000 INR
 * is not 5000 USDT). Where the quote shown answers the amount typed, it converts it: an
 * onramp's fiat becomes the crypto it buys, an offramp's crypto the INR it sells for (an
 * onramp in another fiat than INR cannot take that). Otherwise the amount is cleared.
 * Either way the note says what happened.
 */
export function switchDirection(
  before: { type: OrderType; amountText: string; fiatUnit: string; coinUnit: string },
  quote: QuoteResult | null,
  after: { fiatType: number; coinDp: number }
): DirectionSwitch {
  const typed = before.amountText.trim()
  if (typed === '') return { amountText: '', note: '' }
  const was = `${typed} ${before.type === 1 ? before.fiatUnit : before.coinUnit}`
  const answers = quote !== null && quote.type === before.type && sameAmount(quote.amount, typed)
  if (answers && before.type === 1 && quote.quantity) {
    const q = mul(round(quote.quantity, after.coinDp, 'down'), '1')
    return { amountText: q, note: `${was} bought about ${q} ${before.coinUnit} at the last quote: that is now the quantity to sell.` }
  }
  if (answers && before.type === 2 && quote.fiatAmount && after.fiatType === INR) {
    const f = mul(round(quote.fiatAmount, FIAT_DP, 'down'), '1')
    return { amountText: f, note: `${was} sold for about ${f} INR at the last quote: that is now the amount to pay.` }
  }
  const now = before.type === 1 ? `the quantity of ${before.coinUnit} to sell` : 'the amount to pay'
  return { amountText: '', note: `The amount was ${was}; enter ${now}.` }
}

function sameAmount(a: string, b: string): boolean {
  try {
    return cmp(a, b) === 0
  } catch {
    return false
  }
}
