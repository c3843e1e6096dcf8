// Benchmark 6: the sandbox's merchantHistory, p95 per page of 500 over 1,000,000 orders.
// The measurement itself is bench/sandbox-history.ts (written with the sandbox); this
// module runs it beside its baseline: the same requests against a store of 10,000
// orders, so the line shows whether page time grows with the size of the store.
import { round, ratio } from './lib/stats'
import type { BenchContext, BenchLine } from './lib/types'
import { sandboxHistoryBench } from './sandbox-history'
import { benchSize } from './lib/smoke'

const ORDERS = benchSize('BENCH_SANDBOX_ORDERS', 1_000_000, 500)
const SMALL = benchSize(null, 10_000, 100)
const REQUESTS = benchSize(null, 200, 40)
const P95_TARGET_MS = 50

export async function sandboxBench(ctx: BenchContext): Promise<BenchLine> {
  ctx.log(`sandbox: merchantHistory over ${ORDERS} orders`)
  const big = await sandboxHistoryBench({ orders: ORDERS, requests: REQUESTS })
  ctx.log(`sandbox: the same over ${SMALL} orders`)
  const small = await sandboxHistoryBench({ orders: SMALL, requests: REQUESTS })
  return {
    bench: 'sandbox',
    what: `${big.requests} signed merchantHistory requests (after ${20} warm-up) over loopback, random type (60% onramp), random page within range, pageSize ${big.pageSize}, ASC or DESC, INR; one request at a time`,
    orders: big.orders,
    p50Ms: big.p50Ms,
    p95Ms: big.p95Ms,
    p99Ms: big.p99Ms,
    maxMs: big.maxMs,
    generateMs: big.generateMs,
    baseline: {
      target: { p95Ms: P95_TARGET_MS },
      smallStore: { orders: small.orders, p50Ms: small.p50Ms, p95Ms: small.p95Ms, generateMs: small.generateMs },
      p95RatioToSmallStore: ratio(big.p95Ms, small.p95Ms)
    },
    met: { p95UnderTarget: round(big.p95Ms, 2) < P95_TARGET_MS }
  }
}

export default sandboxBench
