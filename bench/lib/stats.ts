// Small numeric helpers shared by the benchmarks: quantiles over samples, rounding for
// the printed JSON, and megabytes.

/** Nearest-rank quantile (q in 0..1) of unsorted samples; NaN when there are none. */
export function quantile(samples: readonly number[], q: number): number {
  if (samples.length === 0) return NaN
  const sorted = [...samples].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] as number
}

export function summary(samples: readonly number[]): { n: number; p50: number; p95: number; max: number } {
  return {
    n: samples.length,
    p50: round(quantile(samples, 0.5)),
    p95: round(quantile(samples, 0.95)),
    max: round(samples.length ? Math.max(...samples) : NaN)
  }
}

/** Rounds to `dp` decimals (JSON stays readable); NaN becomes null. */
export function round(x: number, dp = 1): number {
  if (!Number.isFinite(x)) return null as unknown as number
  const f = 10 ** dp
  return Math.round(x * f) / f
}

export const mb = (bytes: number): number => round(bytes / (1024 * 1024), 1)

/** How many times larger `a` is than `b` (2 decimals). */
export const ratio = (a: number, b: number): number => round(b === 0 ? NaN : a / b, 2)

/** A figure measured over a few repeated runs: the median (nearest rank) and the spread. */
export function repeated(samples: readonly number[], dp = 0): { runs: number; median: number; min: number; max: number } {
  return {
    runs: samples.length,
    median: round(quantile(samples, 0.5), dp),
    min: round(samples.length ? Math.min(...samples) : NaN, dp),
    max: round(samples.length ? Math.max(...samples) : NaN, dp)
  }
}
