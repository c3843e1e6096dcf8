// The smoke size of the benchmarks (`npm run bench -- --smoke`, or BENCH_SMOKE=1): every
// bench runs once through the same code as its real run, at sizes in the hundreds and
// simulated or measured durations of seconds, so CI can run them all in well under a
// minute and a bench that throws or hangs cannot land. A smoke run's figures say nothing
// about speed; bench/run.ts marks its lines and writes them outside bench/results.
// Sizes are read when a bench module is loaded, which run.ts does after its arguments
// are parsed.

/** Whether this process runs the benchmarks at their smoke size. */
export function smokeRun(): boolean {
  const v = process.env.BENCH_SMOKE
  return v !== undefined && v !== '' && v !== '0'
}

/** The full or the smoke value; `envName`, when set, wins over both (the benches' own knobs). */
export function benchSize(envName: string | null, full: number, smoke: number): number {
  const v = envName === null ? undefined : process.env[envName]
  if (v !== undefined && v !== '') {
    const n = Number(v)
    if (!Number.isFinite(n)) throw new Error(`${envName}=${v} is not a number`)
    return n
  }
  return smokeRun() ? smoke : full
}

/** A list (sizes, repeated runs) at the full or the smoke size. */
export function benchList<T>(full: readonly T[], smoke: readonly T[]): T[] {
  return [...(smokeRun() ? smoke : full)]
}
