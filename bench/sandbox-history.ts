// Benchmark: merchantHistory over 1,000,000 stored orders, pages of 500, measured end
// to end over loopback (signing, HTTP, auth, validation, paging, rendering, JSON).
// Target (issue #3): p95 under 50 ms. Also reports how long generating the orders took
// and the memory they hold. Its baseline is the same measurement over 10,000 orders:
// the p95 should not grow with the store (binary search plus a slice).
// Run alone: npx tsx bench/sandbox-history.ts
import { request } from 'undici'
import type { Bench } from './lib/types'
import { startSandbox } from '../src/sandbox'
import { mulberry32 } from '../src/sandbox/rng'
import { authHeaderNames, endpointPath } from '../src/shared/api/endpoints'
import { encodePayload, signPayload } from '../src/shared/api/signature'

export interface SandboxHistoryBenchOptions {
  orders?: number
  requests?: number
  warmup?: number
  pageSize?: number
}

export interface SandboxHistoryBenchResult {
  bench: 'sandbox-history'
  p95Ms: number
  p50Ms: number
  p99Ms: number
  maxMs: number
  requests: number
  orders: number
  pageSize: number
  generateMs: number
  memoryMB: number
}

const quantile = (sorted: number[], q: number): number => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? NaN
const round2 = (x: number): number => Math.round(x * 100) / 100

export async function sandboxHistoryBench(o: SandboxHistoryBenchOptions = {}): Promise<SandboxHistoryBenchResult> {
  const orders = o.orders ?? 1_000_000
  const requests = o.requests ?? 200
  const warmup = o.warmup ?? 20
  const pageSize = o.pageSize ?? 500
  const memBefore = process.memoryUsage()
  const t0 = performance.now()
  const sb = await startSandbox({ orders, seed: 1, autoGenerate: false })
  const generateMs = performance.now() - t0
  const memAfter = process.memoryUsage()
  const memoryMB = (memAfter.heapUsed + memAfter.arrayBuffers - memBefore.heapUsed - memBefore.arrayBuffers) / 1e6
  try {
    const names = authHeaderNames(sb.serviceName)
    const path = sb.url + endpointPath(sb.serviceName, 'merchantHistory')
    const rng = mulberry32(42)
    const truth = { onramp: 0, offramp: 0 }
    // Page counts per type (INR), from the first page's neighbourhood: ask for a far page until empty.
    const pagesOf = async (type: 1 | 2): Promise<number> => {
      let lo = 1
      let hi = 1 << 14
      while (lo < hi) {
        const mid = (lo + hi + 1) >>> 1
        if ((await fetchPage({ type, page: mid, pageSize })).length > 0) lo = mid
        else hi = mid - 1
      }
      return lo
    }
    async function fetchPage(body: Record<string, unknown>): Promise<unknown[]> {
      const payload = encodePayload(sb.control.serverNow(), body)
      const res = await request(path, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          [names.apiKey]: sb.apiKey,
          [names.payload]: payload,
          [names.signature]: signPayload(payload, sb.apiSecret)
        },
        body: JSON.stringify(body)
      })
      const j = (await res.body.json()) as { data?: unknown[] }
      if (res.statusCode !== 200 || !Array.isArray(j.data)) throw new Error(`merchantHistory answered ${res.statusCode}`)
      return j.data
    }
    truth.onramp = await pagesOf(1)
    truth.offramp = await pagesOf(2)
    const samples: number[] = []
    for (let i = 0; i < warmup + requests; i++) {
      const type: 1 | 2 = rng() < 0.6 ? 1 : 2
      const pages = type === 1 ? truth.onramp : truth.offramp
      const body = { type, page: 1 + Math.floor(rng() * pages), pageSize, order: rng() < 0.5 ? 'ASC' : 'DESC' }
      const started = performance.now()
      const rows = await fetchPage(body)
      const ms = performance.now() - started
      if (rows.length === 0) throw new Error('empty page inside the range')
      if (i >= warmup) samples.push(ms)
    }
    samples.sort((a, b) => a - b)
    return {
      bench: 'sandbox-history',
      p95Ms: round2(quantile(samples, 0.95)),
      p50Ms: round2(quantile(samples, 0.5)),
      p99Ms: round2(quantile(samples, 0.99)),
      maxMs: round2(samples[samples.length - 1] ?? NaN),
      requests,
      orders,
      pageSize,
      generateMs: Math.round(generateMs),
      memoryMB: Math.round(memoryMB)
    }
  } finally {
    await sb.close()
  }
}

export default sandboxHistoryBench

/** The runner's form (bench/run.ts): the 1M measurement, with a 10,000-order run as its baseline. */
export const sandboxBench: Bench = async (ctx) => {
  ctx.log('sandbox-history: baseline over 10,000 orders')
  const small = await sandboxHistoryBench({ orders: 10_000 })
  ctx.log('sandbox-history: 1,000,000 orders')
  const big = await sandboxHistoryBench()
  return {
    ...big,
    target: { p95Ms: 50 },
    baseline: { orders: small.orders, p95Ms: small.p95Ms, p50Ms: small.p50Ms, generateMs: small.generateMs, memoryMB: small.memoryMB }
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  sandboxHistoryBench()
    .then((r) => console.log(JSON.stringify(r)))
    .catch((e: unknown) => {
      console.error(e)
      process.exit(1)
    })
}
