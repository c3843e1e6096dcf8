// Money is carried as decimal strings and computed with big.js, never with float
// arithmetic. The service sends JSON floats with binary artefacts
// (0.008157600000000001): we keep the shortest text form of what arrived and round
// only for display.
import Big from 'big.js'

Big.DP = 40
Big.RM = Big.roundHalfUp
// Never switch to exponent notation when turning a Big into text.
Big.NE = -1e6
Big.PE = 1e6

/** A plain decimal string such as "1234.5" or "-0.0001" (no exponent, no sign on zero). */
export type DecimalString = string

const DECIMAL_RE = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/

export function isDecimalText(s: string): boolean {
  return DECIMAL_RE.test(s.trim())
}

/** Normalises a JSON number or numeric string to a plain decimal string. Throws on anything else. */
export function toDecimalString(v: number | string): DecimalString {
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) throw new RangeError(`not a finite number: ${v}`)
    // String(v) is the shortest text that round-trips the double that arrived.
    return normalise(new Big(String(v)))
  }
  const t = v.trim()
  if (!DECIMAL_RE.test(t)) throw new RangeError(`not a decimal: ${JSON.stringify(v)}`)
  // big.js refuses a leading '+', which DECIMAL_RE (like JSON text) allows.
  return normalise(new Big(t.startsWith('+') ? t.slice(1) : t))
}

function normalise(b: Big): DecimalString {
  const s = b.toFixed()
  return s === '-0' ? '0' : s
}

export function dec(v: number | string | Big): Big {
  return v instanceof Big ? v : new Big(typeof v === 'number' ? String(v) : v.trim().replace(/^\+/, ''))
}

export const add = (a: DecimalString, b: DecimalString): DecimalString => normalise(dec(a).plus(dec(b)))
export const sub = (a: DecimalString, b: DecimalString): DecimalString => normalise(dec(a).minus(dec(b)))
export const mul = (a: DecimalString, b: DecimalString): DecimalString => normalise(dec(a).times(dec(b)))
export function div(a: DecimalString, b: DecimalString, dp = 18): DecimalString {
  if (dec(b).eq(0)) throw new RangeError('division by zero')
  return normalise(dec(a).div(dec(b)).round(dp, Big.roundHalfUp))
}
export const cmp = (a: DecimalString, b: DecimalString): -1 | 0 | 1 => dec(a).cmp(dec(b)) as -1 | 0 | 1
export const isZero = (a: DecimalString): boolean => dec(a).eq(0)
export const sum = (xs: DecimalString[]): DecimalString => normalise(xs.reduce((acc, x) => acc.plus(dec(x)), new Big(0)))

/** Rounds to dp decimal places (half up by default) and trims nothing: "1.50" stays two places. */
export function round(a: DecimalString, dp: number, mode: 'half-up' | 'down' | 'up' = 'half-up'): DecimalString {
  const rm = mode === 'down' ? Big.roundDown : mode === 'up' ? Big.roundUp : Big.roundHalfUp
  return dec(a).toFixed(dp, rm)
}

/**
 * Formats a decimal string for display with the locale's grouping and decimal sign
 * ("1,00,000.50" in en-IN, "100,000.50" in en-US, "100.000,50" in de-DE), using Intl
 * only on the already-rounded whole part, so no precision is lost for large values.
 */
export function formatDecimal(a: DecimalString, dp: number, locale = 'en-US'): string {
  const fixed = round(a, dp)
  const neg = fixed.startsWith('-')
  const [int = '0', frac] = (neg ? fixed.slice(1) : fixed).split('.')
  const f = formatterFor(locale)
  return (neg ? '-' : '') + f.group.format(BigInt(int)) + (frac ? f.decimal + frac : '')
}

/** Intl formatters are costly to build (a tenth of a millisecond): one per locale, kept. */
const formatters = new Map<string, { group: Intl.NumberFormat; decimal: string }>()
function formatterFor(locale: string) {
  let f = formatters.get(locale)
  if (!f) {
    f = buildFormatter(locale)
    formatters.set(locale, f)
  }
  return f
}

function buildFormatter(locale: string): { group: Intl.NumberFormat; decimal: string } {
  try {
    // Latin digits always: the fraction is written from the decimal string as it is, so
    // the whole part must use the same digits.
    const group = new Intl.NumberFormat(locale, { useGrouping: true, maximumFractionDigits: 0, numberingSystem: 'latn' })
    const decimal =
      new Intl.NumberFormat(locale, { numberingSystem: 'latn' }).formatToParts(1.1).find((p) => p.type === 'decimal')?.value ?? '.'
    return { group, decimal }
  } catch {
    // A tag Intl refuses (a malformed OS locale setting): the default grouping rather than no amount at all.
    return buildFormatter('en-US')
  }
}

/**
 * The decimal places a fiat's amounts are shown with: its ISO 4217 minor unit (0 for the
 * dong the spec names as fiat 5, and the other currencies without one), 2 otherwise and
 * for a symbol not known here. Only for display: the stored amount keeps every digit.
 */
export function fiatDecimals(symbol: string): number {
  return ZERO_MINOR_UNIT.has(symbol.toUpperCase()) ? 0 : 2
}
const ZERO_MINOR_UNIT = new Set([
  'VND',
  'JPY',
  'KRW',
  'CLP',
  'PYG',
  'UGX',
  'ISK',
  'XOF',
  'XAF',
  'RWF',
  'KMF',
  'GNF',
  'VUV',
  'XPF',
  'DJF',
  'BIF'
])

export { Big }
