// What per-order orderStatus polling can do on a given request budget: it sweeps the
// open orders round-robin, one request each, so a sweep of N orders at R requests a
// minute takes 60 000 N / R ms, and a change at a random instant waits for its order's
// next turn, uniformly between 0 and one sweep. The bench measures the baseline too;
// these formulas say how many orders it could cover at a given latency, which is the
// figure a reader wants beside ours.

const MIN = 60_000

/** How long one round-robin sweep over `orders` takes at `requestsPerMin` (ms). */
export function sweepMs(orders: number, requestsPerMin: number): number {
  if (requestsPerMin <= 0) return Infinity
  return (orders * MIN) / requestsPerMin
}

/** The q-quantile (0..1) of the wait for a change at a random instant: q of a sweep. */
export function expectedQuantileMs(orders: number, requestsPerMin: number, q: number): number {
  return q * sweepMs(orders, requestsPerMin)
}

/** The most open orders it can poll at `requestsPerMin` with its q-quantile wait within `latencyMs`. */
export function ordersCovered(requestsPerMin: number, latencyMs: number, q = 0.95): number {
  if (requestsPerMin <= 0 || latencyMs <= 0 || q <= 0) return 0
  return Math.floor((latencyMs * requestsPerMin) / (q * MIN))
}

/** Requests per minute of `count` requests over `ms` (rounded to 0.1). */
export function perMinute(count: number, ms: number): number {
  if (ms <= 0) return NaN
  return Math.round(((count * MIN) / ms) * 10) / 10
}
