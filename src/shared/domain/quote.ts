// Quote calculator helpers. The service computes the quote; this module checks what
// the operator typed before anything is sent, lays the answer out fee by fee, writes
// the "copy for customer" text and picks the cheapest network in a comparison.
// All arithmetic is on decimal strings through money.ts, never on floats.
import { cmp, div, formatDecimal, isZero, sum, toDecimalString, type DecimalString } from '../money'
import type { OrderType } from '../ipc/contract'

// ---------------------------------------------------------------- amount input

export type AmountInput = { ok: true; value: DecimalString } | { ok: false; message: string }

const MAX_INPUT_LENGTH = 40

/**
 * Validates what the operator typed as an amount. Accepts digits with one decimal
 * point (".5" and "5." too) and well-formed grouping commas, thousands ("1,234.5") or
 * Indian ("1,00,000.50"). Refuses negatives, exponents, NaN/Infinity, zero, and more
 * significant decimals than maxDecimals (trailing zeros do not count). Returns the normalised decimal string.
 */
export function validateAmountInput(text: string, maxDecimals: number): AmountInput {
  const t = text.trim()
  if (t === '') return { ok: false, message: 'Enter an amount.' }
  if (t.length > MAX_INPUT_LENGTH) return { ok: false, message: 'That amount is too long.' }
  if (/^-/.test(t)) return { ok: false, message: 'The amount cannot be negative.' }
  if (/^[+-]?(nan|infinity|inf)$/i.test(t)) return { ok: false, message: 'The amount must be a number.' }
  if (/^[+]?(\d+\.?\d*|\.\d+)[eE][+-]?\d+$/.test(t))
    return { ok: false, message: 'Write the amount in full, without an exponent (1500, not 1.5e3).' }
  let plain = t
  if (plain.includes(',')) {
    // Thousands grouping (1,234,567) or the Indian lakh and crore grouping (12,34,567), as operators write them.
    if (!/^(\d{1,3}(,\d{3})+|\d{1,2}(,\d{2})*,\d{3})(\.\d*)?$/.test(plain))
      return { ok: false, message: 'Use a point for decimals; commas only to group digits (1,234.50 or 1,00,000.50).' }
    plain = plain.replace(/,/g, '')
  }
  if (!/^(\d+\.?\d*|\.\d+)$/.test(plain)) return { ok: false, message: 'Use digits and at most one decimal point.' }
  const value = toDecimalString(plain)
  const significant = value.includes('.') ? value.length - value.indexOf('.') - 1 : 0
  const dp = Math.max(0, Math.floor(maxDecimals))
  if (significant > dp) {
    return { ok: false, message: dp === 0 ? 'Whole amounts only: no decimals.' : `At most ${dp} decimal place${dp === 1 ? '' : 's'}.` }
  }
  if (isZero(value)) return { ok: false, message: 'The amount must be greater than zero.' }
  return { ok: true, value }
}

// ---------------------------------------------------------------- limits

export interface AmountLimits {
  min?: DecimalString | null
  max?: DecimalString | null
}

/**
 * A message when the amount is outside the limits (min/max of the fiat type, and the
 * coin/chain minimum buy or sell amount when given), undefined when it is inside.
 * unit ("INR", "USDT") is appended to the numbers in the message.
 */
export function checkLimits(
  amount: DecimalString,
  limits: AmountLimits,
  minimumBuyOrSell?: DecimalString | null,
  unit?: string,
  /** Writes a bound (grouped in the operator's locale); as it is, by default. */
  write: (d: DecimalString) => string = (d) => d
): string | undefined {
  const u = unit ? ` ${unit}` : ''
  const { min, max } = limits
  const minOk = min !== undefined && min !== null && min !== ''
  const extraOk = minimumBuyOrSell !== undefined && minimumBuyOrSell !== null && minimumBuyOrSell !== ''
  // The stricter of the two minimums is the one that would refuse the order.
  if (extraOk && (!minOk || cmp(minimumBuyOrSell, min) > 0) && cmp(amount, minimumBuyOrSell) < 0) {
    return `Below the minimum of ${write(minimumBuyOrSell)}${u} for this coin and network.`
  }
  if (minOk && cmp(amount, min) < 0) return `Below the minimum of ${write(min)}${u}.`
  if (max !== undefined && max !== null && max !== '' && cmp(amount, max) > 0) return `Above the maximum of ${write(max)}${u}.`
  return undefined
}

// ---------------------------------------------------------------- breakdown

export type FeeName = 'onrampFee' | 'clientFee' | 'gatewayFee' | 'gasFee' | 'tdsFee'

/** 'fiat' fees are in the order's fiat; 'coin' fees (gas) are in the crypto being bought. */
export interface FeeLine {
  name: FeeName
  label: string
  amount: DecimalString
  currency: 'fiat' | 'coin'
}

export const FEE_LABELS: Readonly<Record<FeeName, string>> = {
  onrampFee: 'service fee',
  clientFee: 'merchant fee',
  gatewayFee: 'payment gateway fee',
  gasFee: 'network (gas) fee',
  tdsFee: 'TDS (1% tax)'
}

export interface OnrampQuoteInput {
  fiatAmount: DecimalString
  rate: DecimalString
  quantity: DecimalString
  onrampFee: DecimalString
  clientFee: DecimalString
  gatewayFee: DecimalString
  gasFee: DecimalString
}

export interface OfframpQuoteInput {
  quantity: DecimalString
  rate: DecimalString
  fiatAmount: DecimalString
  onrampFee: DecimalString
  clientFee: DecimalString
  gatewayFee: DecimalString
  tdsFee: DecimalString
}

export interface OnrampBreakdown {
  kind: 'onramp'
  fiatAmount: DecimalString
  rate: DecimalString
  quantity: DecimalString
  fees: FeeLine[]
  /** Sum of the fiat fees (onramp, client, gateway). */
  totalFiatFees: DecimalString
  /** Sum of the fees taken in the coin (gas). */
  totalCoinFees: DecimalString
  /** fiatAmount / quantity: fiat paid per coin received, fees included. Undefined when quantity is 0. */
  effectiveRate?: DecimalString
}

export interface OfframpBreakdown {
  kind: 'offramp'
  quantity: DecimalString
  rate: DecimalString
  fiatAmount: DecimalString
  fees: FeeLine[]
  /** Sum of all fees (all fiat: onramp, client, gateway, TDS). */
  totalFees: DecimalString
  /** fiatAmount / quantity: fiat received per coin sold. Undefined when quantity is 0. */
  effectiveRate?: DecimalString
}

export type QuoteBreakdown = OnrampBreakdown | OfframpBreakdown

const EFFECTIVE_RATE_DP = 18

function fee(name: FeeName, amount: DecimalString, currency: 'fiat' | 'coin' = 'fiat'): FeeLine {
  return { name, label: FEE_LABELS[name], amount: toDecimalString(amount), currency }
}

function effective(fiat: DecimalString, quantity: DecimalString): DecimalString | undefined {
  return isZero(quantity) ? undefined : div(fiat, quantity, EFFECTIVE_RATE_DP)
}

/** Onramp: the operator enters fiatAmount, the service answers the rest (spec 4.10). */
export function quoteBreakdown(type: 1, q: OnrampQuoteInput): OnrampBreakdown
/** Offramp: the operator enters quantity, the service answers the rest (spec 4.9). */
export function quoteBreakdown(type: 2, q: OfframpQuoteInput): OfframpBreakdown
export function quoteBreakdown(type: OrderType, q: OnrampQuoteInput | OfframpQuoteInput): QuoteBreakdown
export function quoteBreakdown(type: OrderType, q: OnrampQuoteInput | OfframpQuoteInput): QuoteBreakdown {
  if (type === 1) {
    const o = q as OnrampQuoteInput
    const fees = [
      fee('onrampFee', o.onrampFee),
      fee('clientFee', o.clientFee),
      fee('gatewayFee', o.gatewayFee),
      fee('gasFee', o.gasFee, 'coin')
    ]
    const b: OnrampBreakdown = {
      kind: 'onramp',
      fiatAmount: toDecimalString(o.fiatAmount),
      rate: toDecimalString(o.rate),
      quantity: toDecimalString(o.quantity),
      fees,
      totalFiatFees: sum(fees.filter((f) => f.currency === 'fiat').map((f) => f.amount)),
      totalCoinFees: sum(fees.filter((f) => f.currency === 'coin').map((f) => f.amount))
    }
    const e = effective(b.fiatAmount, b.quantity)
    return e === undefined ? b : { ...b, effectiveRate: e }
  }
  const o = q as OfframpQuoteInput
  const fees = [fee('onrampFee', o.onrampFee), fee('clientFee', o.clientFee), fee('gatewayFee', o.gatewayFee), fee('tdsFee', o.tdsFee)]
  const b: OfframpBreakdown = {
    kind: 'offramp',
    quantity: toDecimalString(o.quantity),
    rate: toDecimalString(o.rate),
    fiatAmount: toDecimalString(o.fiatAmount),
    fees,
    totalFees: sum(fees.map((f) => f.amount))
  }
  const e = effective(b.fiatAmount, b.quantity)
  return e === undefined ? b : { ...b, effectiveRate: e }
}

// ---------------------------------------------------------------- customer text

export interface QuoteNames {
  /** "INR" */
  fiat: string
  /** "USDT" */
  coin: string
  /** "BEP20" */
  network?: string
  /** Display decimals; defaults 2 for fiat, 6 for the coin. */
  fiatDecimals?: number
  coinDecimals?: number
  locale?: string
}

/** Plain text an operator can paste into a chat with the customer. */
export function customerText(b: QuoteBreakdown, names: QuoteNames): string {
  const fdp = names.fiatDecimals ?? 2
  const cdp = names.coinDecimals ?? 6
  const locale = names.locale ?? 'en-US'
  const fiat = (v: DecimalString): string => `${formatDecimal(v, fdp, locale)} ${names.fiat}`
  const coin = (v: DecimalString): string => `${formatDecimal(v, cdp, locale)} ${names.coin}`
  const on = names.network ? ` on ${names.network}` : ''
  const feeText = (f: FeeLine): string => `  ${f.label}: ${f.currency === 'coin' ? coin(f.amount) : fiat(f.amount)}`
  const lines: string[] = []
  if (b.kind === 'onramp') {
    lines.push(`Quote: buy ${names.coin}${on} with ${names.fiat}`)
    lines.push(`You pay: ${fiat(b.fiatAmount)}`)
    lines.push(`Rate: 1 ${names.coin} = ${fiat(b.rate)}`)
    lines.push('Fees:')
    for (const f of b.fees) lines.push(feeText(f))
    lines.push(`  total fees: ${fiat(b.totalFiatFees)}${isZero(b.totalCoinFees) ? '' : ` + ${coin(b.totalCoinFees)}`}`)
    lines.push(`You receive: about ${coin(b.quantity)}`)
    if (b.effectiveRate) lines.push(`Effective price, fees included: ${fiat(b.effectiveRate)} per ${names.coin}`)
  } else {
    lines.push(`Quote: sell ${names.coin}${on} for ${names.fiat}`)
    lines.push(`You send: ${coin(b.quantity)}`)
    lines.push(`Rate: 1 ${names.coin} = ${fiat(b.rate)}`)
    lines.push('Fees:')
    for (const f of b.fees) lines.push(feeText(f))
    lines.push(`  total fees: ${fiat(b.totalFees)}`)
    lines.push(`You receive: about ${fiat(b.fiatAmount)}`)
    if (b.effectiveRate) lines.push(`Effective price, fees included: ${fiat(b.effectiveRate)} per ${names.coin}`)
  }
  lines.push('Prices move with the market: the final amount is fixed when the order is placed.')
  return lines.join('\n')
}

// ---------------------------------------------------------------- network comparison

export interface NetworkRow {
  chainId: number
  /** What the customer ends up with on this network; missing when the quote failed. */
  quantity?: DecimalString | null
  gasFee?: DecimalString | null
}

/**
 * The best network of a comparison: the highest resulting quantity, ties broken by
 * the lowest gas, then by the earlier row. Rows without a quantity (failed quotes)
 * are only ranked by gas when no row has a quantity. Undefined for no usable row.
 */
export function cheapestNetwork<T extends NetworkRow>(rows: readonly T[]): T | undefined {
  const has = (v: DecimalString | null | undefined): v is DecimalString => v !== undefined && v !== null && v !== ''
  const withQty = rows.filter((r) => has(r.quantity))
  if (withQty.length > 0) {
    let best: T | undefined
    for (const r of withQty) {
      if (!best) {
        best = r
        continue
      }
      const c = cmp(r.quantity as DecimalString, best.quantity as DecimalString)
      if (c > 0 || (c === 0 && gasLess(r.gasFee, best.gasFee))) best = r
    }
    return best
  }
  let best: T | undefined
  for (const r of rows) {
    if (!has(r.gasFee)) continue
    if (!best || gasLess(r.gasFee, best.gasFee)) best = r
  }
  return best
}

function gasLess(a: DecimalString | null | undefined, b: DecimalString | null | undefined): boolean {
  const ha = a !== undefined && a !== null && a !== ''
  const hb = b !== undefined && b !== null && b !== ''
  if (ha && hb) return cmp(a, b) < 0
  return ha && !hb
}
