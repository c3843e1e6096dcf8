// Exact conversion of decimal strings to scaled integers, so the order store can
// keep amounts in typed arrays (8 bytes each instead of a string object) without ever
// holding a binary float approximation: 1234.56 at 2 places is stored as 123456.

import { round } from '../shared/money'

/** Largest integer a double holds exactly: scaled values must stay below it. */
const MAX_EXACT = Number.MAX_SAFE_INTEGER

/** Decimal string -> integer count of 10^-dp units (rounded half up to dp places). */
export function toScaled(value: string, dp: number): number {
  const fixed = round(value, dp)
  const n = Number(dp === 0 ? fixed : fixed.replace('.', ''))
  if (!Number.isSafeInteger(n) || Math.abs(n) > MAX_EXACT) throw new RangeError(`${value} does not fit at ${dp} places`)
  return n
}
