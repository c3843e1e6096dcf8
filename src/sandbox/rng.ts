// Seeded pseudo-random numbers for the sandbox: every piece of generated data (orders,
// price walks, fault dice) comes from a mulberry32 stream derived from --seed, so the
// same seed gives the same service and tests can pin exact values.

export type Rng = () => number

/** mulberry32: a tiny, fast 32-bit generator with good enough statistics for test data. */
export function mulberry32(seed: number): Rng {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** Mixes a seed with a stream number (splitmix-style) so sub-streams do not overlap. */
export function deriveSeed(seed: number, stream: number): number {
  let h = (Math.imul(seed >>> 0, 0x9e3779b1) ^ Math.imul(stream >>> 0, 0x85ebca77)) >>> 0
  h = Math.imul(h ^ (h >>> 16), 0x7feb352d) >>> 0
  h = Math.imul(h ^ (h >>> 15), 0x846ca68b) >>> 0
  return (h ^ (h >>> 16)) >>> 0
}

/** A generator for one named purpose (and optionally one item, e.g. an order id). */
export function streamOf(seed: number, purpose: number, item = 0): Rng {
  return mulberry32(deriveSeed(deriveSeed(seed, purpose), item))
}

/** Integer in [0, n). */
export const randInt = (rng: Rng, n: number): number => Math.floor(rng() * n) % Math.max(1, n)

/** Integer in [lo, hi] inclusive. */
export const randRange = (rng: Rng, lo: number, hi: number): number => lo + randInt(rng, hi - lo + 1)

export function pick<T>(rng: Rng, items: readonly T[]): T {
  const v = items[randInt(rng, items.length)]
  if (v === undefined) throw new RangeError('pick from an empty list')
  return v
}

/** Index chosen with probability proportional to weights[i]. */
export function pickWeighted(rng: Rng, weights: readonly number[]): number {
  let total = 0
  for (const w of weights) total += w
  let r = rng() * total
  for (let i = 0; i < weights.length; i++) {
    r -= weights[i] ?? 0
    if (r < 0) return i
  }
  return weights.length - 1
}

/** Purposes of the sub-streams (fixed numbers so adding one never shifts another). */
export const STREAM = {
  prices: 1,
  historicPrices: 2,
  bulkOrders: 3,
  orderDetail: 4,
  liveOrders: 5,
  faults: 6,
  wallets: 7,
  dummy: 8,
  hiddenOrder: 9,
  churn: 10
} as const
