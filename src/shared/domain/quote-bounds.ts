// The bounds of an onramp quote before it is asked, from everything the config knows,
// and the bounds a refusal from the service names after it was.
//
// Before: the fiat's {min, max} comes from the limits endpoint and from allCoinLimits
// shape A (the stricter of the two wins); the coin-and-network minimum from the public
// config's minimumBuyAmount (INR amounts) and from allCoinLimits shape B, which the live
// notes describe as coin id -> chain id -> "the fiat amount limit for that coin and chain".
// B is read as a minimum: it has the very shape of minimumBuyAmount, one per fiat, and a
// per-network maximum below the fiat's own would be the rarer rule. A service that means a
// maximum refuses the quote with its text, and that text is shown (below).
//
// After: the service's refusals of an amount out of bounds (413) carry the minimum or
// maximum in their text ("min 100, max 200000", "should be greater than 500 INR",
// "Minimum amount is 1,000"); refusalBounds() picks them out so the operator sees them.
import { cmp, formatDecimal, toDecimalString, type DecimalString } from '../money'
import type { ConfigSnapshot } from '../ipc/contract'

const INR = 1

export interface OnrampBounds {
  /** The fiat's minimum and maximum (null: not known). */
  min: DecimalString | null
  max: DecimalString | null
  /** The coin-and-network minimum in this fiat (null: none known). */
  pairMinimum: DecimalString | null
}

type BoundsConfig = Pick<ConfigSnapshot, 'limits' | 'coinLimits' | 'minimumBuyAmount'>

const larger = (a: DecimalString | null, b: DecimalString | null | undefined) =>
  b === null || b === undefined ? a : a === null || cmp(b, a) > 0 ? b : a
const smaller = (a: DecimalString | null, b: DecimalString | null | undefined) =>
  b === null || b === undefined ? a : a === null || cmp(b, a) < 0 ? b : a

/** Everything the config says bounds an onramp quote in this fiat, for this coin and network. */
export function onrampBounds(config: BoundsConfig, fiatType: number, coinId: number | null, chainId: number | null): OnrampBounds {
  const f = String(fiatType)
  const limit = config.limits.onramp[f]
  const coinLimits = config.coinLimits[f]
  const a = coinLimits?.shape === 'A' ? coinLimits : undefined
  const min = larger(limit?.min ?? null, a?.min)
  const max = smaller(limit?.max ?? null, a?.max)
  if (coinId === null || chainId === null) return { min, max, pairMinimum: null }
  const [c, n] = [String(coinId), String(chainId)]
  // minimumBuyAmount is in INR: it bounds INR quotes only.
  const minBuy = fiatType === INR ? config.minimumBuyAmount[c]?.[n] : undefined
  const b = coinLimits?.shape === 'B' ? coinLimits.byCoin[c]?.[n] : undefined
  return { min, max, pairMinimum: larger(minBuy ?? null, b) }
}

/**
 * An amount with its digits grouped as the locale writes numbers, every decimal place it
 * has kept ("200000" → "200,000", "2,00,000" in en-IN; "99.5" → "99.5").
 */
export function groupedAmount(d: DecimalString, locale: string): string {
  try {
    return formatDecimal(d, d.split('.')[1]?.length ?? 0, locale)
  } catch {
    return d
  }
}

/**
 * The bounds in words for the quote form: "Limits 100 – 200,000 INR; minimum buy on this
 * network 1,000 INR". `write` writes an amount (grouped in the operator's locale).
 */
export function onrampBoundsText(b: OnrampBounds, unit: string, write: (d: DecimalString) => string = (d) => d): string {
  const range =
    b.min !== null && b.max !== null
      ? `Limits ${write(b.min)} – ${write(b.max)} ${unit}`
      : b.min !== null
        ? `Minimum ${write(b.min)} ${unit}`
        : b.max !== null
          ? `Maximum ${write(b.max)} ${unit}`
          : `No limits known for ${unit}`
  return `${range}${b.pairMinimum !== null ? `; minimum buy on this network ${write(b.pairMinimum)} ${unit}` : ''}`
}

// ---------------------------------------------------------------- refusals

export interface RefusalBounds {
  minimum?: DecimalString
  maximum?: DecimalString
  /** One of the units asked about, when the text writes it beside an amount. */
  unit?: string
}

// An amount on its own (not the 20 of "bep20"): digits with any grouping commas (Indian
// "2,00,000" too) and a decimal part.
const NUMBER = String.raw`(?<![A-Za-z0-9.,])\d+(?:,\d+)*(?:\.\d+)?`
// Words that make the amount after them a minimum or a maximum. The comparatives flip
// when negated ("cannot be less than 100" is a minimum).
const KEYWORDS = new RegExp(
  String.raw`(?<![a-z])(?:(min(?:imum)?|at least)|(max(?:imum)?|at most|up to|exceed(?:s|ed|ing)?)|(greater than|more than|higher than|above)|(less than|lower than|fewer than|below))(?![a-z])`,
  'gi'
)
const NEGATED = /(?:\bnot|n't|\bcannot|\bnever)\s+(?:be\s+|go\s+|fall\s+)?$/i

const amount = (text: string): DecimalString | undefined => {
  try {
    return toDecimalString(text.replace(/,/g, ''))
  } catch {
    return undefined
  }
}

/**
 * The minimum and maximum a refusal's text names, if any: each amount is taken as a
 * minimum or a maximum by the nearest such word before it in its sentence ("less than the
 * minimum of 100" names a minimum); "between 100 and 5000" names both. `units` are the
 * currency codes worth recognising beside an amount (the quote's fiat and coin): the unit
 * is given only when the text writes one of them next to a bound, never guessed.
 */
export function refusalBounds(text: string, units: readonly string[] = []): RefusalBounds | undefined {
  const out: RefusalBounds = {}
  let prevEnd = 0
  let prevWasBetween = false
  for (const m of text.matchAll(new RegExp(NUMBER, 'g'))) {
    const before = text.slice(prevEnd, m.index).slice(-48)
    prevEnd = m.index + m[0].length
    // Only words of this sentence count.
    const sentence = before.slice(Math.max(before.lastIndexOf('. '), ...[';', '!', '?', '\n'].map((c) => before.lastIndexOf(c))) + 1)
    const value = amount(m[0])
    let kind: 'minimum' | 'maximum' | undefined
    if (prevWasBetween && /^\s*(?:and|to|-|–)\s*$/i.test(sentence)) kind = 'maximum'
    const between = /between\s*$/i.test(sentence)
    if (between) kind = 'minimum'
    if (kind === undefined) {
      const last = [...sentence.matchAll(KEYWORDS)].at(-1)
      if (last) {
        const negated = NEGATED.test(sentence.slice(0, last.index))
        if (last[1] !== undefined) kind = 'minimum'
        else if (last[2] !== undefined) kind = 'maximum'
        else kind = (last[3] !== undefined) !== negated ? 'minimum' : 'maximum'
      }
    }
    prevWasBetween = between
    if (kind && value !== undefined && out[kind] === undefined) out[kind] = value
  }
  if (out.minimum === undefined && out.maximum === undefined) return undefined
  const unit = unitBeside(text, [out.minimum, out.maximum], units)
  if (unit) out.unit = unit
  return out
}

/** A unit written right before or after one of the amounts ("500 INR", "INR 500"). */
function unitBeside(text: string, amounts: readonly (DecimalString | undefined)[], units: readonly string[]): string | undefined {
  const known = units.map((u) => u.trim()).filter((u) => /^[A-Za-z]{2,10}$/.test(u))
  if (known.length === 0) return undefined
  const alt = known.map((u) => u.toUpperCase()).join('|')
  const re = new RegExp(String.raw`(?:\b(${alt})\s*(${NUMBER})|(${NUMBER})\s*(${alt})\b)`, 'gi')
  for (const m of text.matchAll(re)) {
    const value = amount(m[2] ?? m[3] ?? '')
    if (value !== undefined && amounts.includes(value)) return (m[1] ?? m[4])!.toUpperCase()
  }
  return undefined
}
