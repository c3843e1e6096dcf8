// The benchmarks `npm run bench` knows, by the name given on its command line, each
// loaded only when it runs (bench/run.ts). The smoke test runs every one of them
// (test/integration/bench-smoke.test.ts), so a bench added here is smoke-tested too.
import type { Bench } from './lib/types'

export const BENCHES: Record<string, { describe: string; load: () => Promise<Bench> }> = {
  history: {
    describe: 'history sync of 100,000 orders vs the request floor and a since-cursor client; churn and ties at page boundaries',
    load: async () => (await import('./history')).historyBench
  },
  changes: {
    describe: 'change detection at the shipped and the minimum intervals, 100 and 1,000 open orders, vs per-order polling at our budget',
    load: async () => (await import('./change-detection')).changeDetectionBench
  },
  budget: {
    describe: 'one simulated hour of app traffic: 429s and the longest operator quote wait',
    load: async () => (await import('./budget')).budgetBench
  },
  completeness: {
    describe:
      'a fresh profile at 10,000, 100,000 and 1,000,000 orders (BENCH_COMPLETE_SIZES), shipped settings and budget, simulated clock: completeAfterFirstSyncMs',
    load: async () => (await import('./completeness')).completenessBench
  },
  renderer: {
    describe:
      'orders view over 100,000 rows in Chromium, simulator generating: first rows, new-value filters, searches (short ones with their pause; typed at once and at 120 ms a key), scroll, heap, bundle',
    load: async () => (await import('./renderer')).rendererBench
  },
  startup: {
    describe: 'start-up on a warm database: the web harness launch to first rows, and the main-side services to first orders:query',
    load: async () => (await import('./startup')).startupBench
  },
  sandbox: {
    describe: 'sandbox merchantHistory p95 per page of 500 over 1,000,000 orders',
    load: async () => (await import('./sandbox')).sandboxBench
  },
  scale: {
    describe:
      'the app at 10,000, 100,000 and 1,000,000 orders (--scale-sizes): first sync, peak RSS, database size, filter/search p95, start-up',
    load: async () => (await import('./scale')).scaleBench
  }
}

export const BENCH_NAMES = Object.keys(BENCHES)
