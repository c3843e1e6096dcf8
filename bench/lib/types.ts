// The shape every benchmark prints: one JSON object per line, the figure first, then
// what was run, then its baseline (a measured comparison run in the same process run)
// and/or its target, so a reader never sees a number without what it is measured against.

export interface BenchLine {
  bench: string
  /** The measured figures and how they were run; every line carries a baseline. */
  [metric: string]: unknown
  baseline: Record<string, unknown>
}

export interface BenchContext {
  /** Writes progress to stderr (stdout is reserved for the JSON lines). */
  log(message: string): void
  /** Scratch directory of this run, removed at the end. */
  tmp: string
}

export type Bench = (ctx: BenchContext) => Promise<BenchLine | BenchLine[]>
