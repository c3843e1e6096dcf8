// Change of a price since the previous tick, as decimal strings (never floats).
import { cmp, div, mul, sub } from '../../../shared/money'

export interface Change {
  delta: string
  percent: string | null
  direction: 'up' | 'down' | 'flat'
}

export function priceChange(now: string | null, prev: string | null): Change | null {
  if (now === null || prev === null) return null
  const delta = sub(now, prev)
  const direction = cmp(delta, '0') > 0 ? 'up' : cmp(delta, '0') < 0 ? 'down' : 'flat'
  const percent = cmp(prev, '0') === 0 ? null : mul(div(delta, prev, 8), '100')
  return { delta, percent, direction }
}
