// Exact conversion between decimal strings and scaled integers, so the order store can
// keep amounts in typed arrays (8 bytes each instead of a string object) without ever
// holding a binary float approximation: 1234.56 at 2 places is stored as 123456.

import { round } from '../shared/domain/money'

/** Largest integer a double holds exactly: scaled values must stay below it. */
const MAX_EXACT = Number.MAX_SAFE_INTEGER

/** Decimal string -> integer count of 10^-dp units (rounded half up to dp places). */
export function toScaled(value: string, dp: number): number {
  const fixed = round(value, dp)
  const n = Number(dp === 0 ? fixed : fixed.replace('.', ''))
  if (!Number.isSafeInteger(n) || Math.abs(n) > MAX_EXACT) throw new RangeError(`${value} does not fit at ${dp} places`)
  return n
}

/** Integer count of 10^-dp units -> shortest decimal string ("123456", 2 -> "1234.56"; "1000", 2 -> "10"). */
export function fromScaled(n: number, dp: number): string {
  if (!Number.isSafeInteger(n)) throw new RangeError(`not a scaled integer: ${n}`)
  if (dp === 0) return String(n)
  const neg = n < 0
  const digits = String(Math.abs(n)).padStart(dp + 1, '0')
  const int = digits.slice(0, digits.length - dp)
  const frac = digits.slice(digits.length - dp).replace(/0+$/, '')
  const text = frac ? `${int}.${frac}` : int
  return neg && text !== '0' ? `-${text}` : text
}

/** A decimal string as a JSON number: the shortest double that round-trips the text. */
export const asNumber = (value: string): number => Number(value)
