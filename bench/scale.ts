// Benchmark 7: the same app at 10,000, 100,000 and 1,000,000 orders (BENCH_SCALE_SIZES or
// `npm run bench -- scale --scale-sizes 10000,100000`), one line per size. For each size:
//   - a live profile for a sandbox of N orders (seeded; not generating while it fills,
//     so the database ends with exactly N), made through the handlers (scale-worker.ts);
//   - the first sync of every order through the real ApiClient, OrderMonitor and SQLite
//     store into that profile's database, in a child process (lib/warm-app.ts): its
//     requests against the floor (sum over type and fiat of ceil(orders/500)), its wall
//     time and that process's peak RSS, then the database's size on disk;
//   - the sandbox's generator started (a tick every 2 s, as shipped), then the app started
//     on that data directory in a fresh process (createServices and start() as the
//     Electron main calls them, settings as shipped): start-up to the orders view's first
//     rows, then orders:query through invokeChannel as the renderer's IPC sends it, once
//     per new filter value and per search.
// A live profile, because the app forgets the sandbox profile's orders whenever its
// embedded simulator starts (src/main/store/sandbox-run.ts).
// Ratios are to the 100,000-order line of the same run; the targets are docs/performance.md's.
import { randomBytes } from 'node:crypto'
import { readdir, rm, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { DATABASE_FILE } from '../src/main/store/database'
import { PROFILES_DIR } from '../src/main/profiles/profile-store'
import { startWorker } from './lib/child'
import { benchList, benchSize } from './lib/smoke'
import { ratio, summary } from './lib/stats'
import type { BenchContext, BenchLine } from './lib/types'
import { startSandbox } from '../src/sandbox'
import { fillDatabase, requestFloor } from './lib/warm-app'
import type { ScaleCommand, ScaleQueryFigures } from './scale-worker'

export const DEFAULT_SCALE_SIZES = [10_000, 100_000, 1_000_000]
/** At the smoke size: the reference, then a larger size held to the growth and memory targets. */
export const SMOKE_SCALE_SIZES = [200, 500]
const REFERENCE = benchSize(null, 100_000, SMOKE_SCALE_SIZES[0]!)
const SEED = 3
const RSS_TARGET_MB = 200
const RSS_TARGET_AT = benchSize(null, 1_000_000, SMOKE_SCALE_SIZES[1]!)
const GROWTH_TARGET = 1.5

/** The sizes to run: BENCH_SCALE_SIZES (comma-separated, "100k" and "1M" allowed), else the three (the smoke's two). */
export function scaleSizes(spec = process.env.BENCH_SCALE_SIZES): number[] {
  if (!spec) return benchList(DEFAULT_SCALE_SIZES, SMOKE_SCALE_SIZES)
  const sizes = spec.split(',').map((s) => {
    const m = /^\s*(\d+(?:\.\d+)?)\s*([kKmM]?)\s*$/.exec(s)
    const n = m ? Number(m[1]) * (m[2] ? (m[2].toLowerCase() === 'k' ? 1_000 : 1_000_000) : 1) : NaN
    if (!Number.isInteger(n) || n < 1) throw new Error(`scale sizes: ${JSON.stringify(s)} is not a number of orders`)
    return n
  })
  return [...new Set(sizes)].sort((a, b) => a - b)
}

async function dbBytes(dbDir: string): Promise<number> {
  let bytes = 0
  for (const f of await readdir(dbDir)) if (f === DATABASE_FILE || f === `${DATABASE_FILE}-wal`) bytes += (await stat(join(dbDir, f))).size
  return bytes
}

interface SizeFigures {
  orders: number
  firstSyncRequests: number
  requestFloor: number
  firstSyncMs: number
  peakRssMb: number
  dbBytes: number
  filterNewValueP95Ms: number
  searchP95Ms: number
  startupToFirstRowsMs: number
}

const RATIO_KEYS = [
  'firstSyncRequests',
  'requestFloor',
  'firstSyncMs',
  'peakRssMb',
  'dbBytes',
  'filterNewValueP95Ms',
  'searchP95Ms',
  'startupToFirstRowsMs'
] as const

async function measureSize(ctx: BenchContext, orders: number): Promise<{ figures: SizeFigures; line: Omit<BenchLine, 'bench'> }> {
  const t0 = performance.now()
  const dataDir = join(ctx.tmp, `scale-${orders}`)
  ctx.log(`scale: generating ${orders} orders in the sandbox`)
  const sb = await startSandbox({ orders, seed: SEED, autoGenerate: false, apiSecret: `scale-${randomBytes(12).toString('hex')}` })
  try {
    const keyHex = randomBytes(32).toString('hex')
    // The profile is made while the sandbox answers 503: the switch's own sync then adds
    // nothing, and the first sync below is the one that fills the database.
    sb.control.setFault('*', { errorRate: 1, errorStatus: 503 })
    const setup = await workerAsk<{ profileId: string }>({
      cmd: 'setup',
      dataDir,
      baseUrl: sb.url,
      apiKey: sb.apiKey,
      secret: sb.apiSecret,
      keyHex
    })
    sb.control.clearFaults()
    const dbDir = join(dataDir, PROFILES_DIR, setup.profileId)
    ctx.log(`scale: first sync of ${orders} orders`)
    const { firstSync: sync, counts } = await fillDatabase(sb, dbDir, orders)
    const floor = requestFloor(counts)
    const bytes = await dbBytes(dbDir)
    ctx.log(
      `scale: ${orders} orders synced in ${(sync.wallMs / 1000).toFixed(1)} s (${sync.requests} requests, floor ${floor}); starting the app on them`
    )
    // From here the service moves as the shipped simulator does (a tick every 2 s).
    sb.control.startGenerator()
    const cpu0 = process.cpuUsage()
    const wall0 = performance.now()
    const q = await workerAsk<ScaleQueryFigures>({ cmd: 'measure', dataDir, keyHex })
    const used = process.cpuUsage(cpu0)
    const measuredCpuShare = Math.round(((used.user + used.system) / 1000 / (performance.now() - wall0)) * 100) / 100
    const filter = summary(q.filterNewValueMs)
    const search = summary(q.searchMs)
    const short = summary(q.searchShortMs)
    const figures: SizeFigures = {
      orders,
      firstSyncRequests: sync.requests,
      requestFloor: floor,
      firstSyncMs: sync.wallMs,
      peakRssMb: sync.peakRssMb,
      dbBytes: bytes,
      filterNewValueP95Ms: filter.p95,
      searchP95Ms: search.p95,
      startupToFirstRowsMs: q.start.servicesToFirstRowsMs
    }
    return {
      figures,
      line: {
        ...figures,
        firstSyncFailedRequests: sync.failed,
        // What of the sync process's memory is JavaScript: the rest of its RSS is native (SQLite, buffers).
        firstSyncPeakHeapMb: sync.peakHeapMb,
        firstSyncHeapAfterGcMb: sync.heapAfterGcMb,
        firstSyncRssAtEndMb: sync.rssMb,
        complete: sync.ordersInDb === orders,
        filterNewValueP50Ms: filter.p50,
        filterNewValueSamples: filter.n,
        searchP50Ms: search.p50,
        searchSamples: search.n,
        searchShortP95Ms: short.p95,
        searchShortSamples: short.n,
        searchTexts: q.searches,
        // Every sample, in the order of searchTexts.long: which texts make the p95.
        searchEachMs: q.searchMs.map((ms) => Math.round(ms * 100) / 100),
        searchEachFsReads: q.searchFsReads,
        searchEachCpuMs: q.searchCpuMs,
        searchEachSql: q.searchSql,
        // The simulator's share of a CPU while the app was measured (it runs in this process,
        // generating over every order): what the app's process competed with on this machine.
        sandboxCpuShareWhileMeasured: measuredCpuShare,
        filterEachMs: q.filterNewValueMs.map((ms) => Math.round(ms * 100) / 100),
        filterEachFsReads: q.filterFsReads,
        startup: q.start,
        startupSyncSettleMs: q.settleMs,
        appPeakRssMb: q.peakRssMb,
        sizeTookMs: Math.round(performance.now() - t0)
      }
    }
  } finally {
    await sb.close()
  }
}

/** One command in a fresh scale worker. */
async function workerAsk<T>(command: ScaleCommand): Promise<T> {
  const worker = await startWorker<ScaleCommand, T | { error: string }>(join(import.meta.dirname, 'scale-worker.ts'))
  try {
    const r = await worker.ask(command)
    if (r && typeof r === 'object' && 'error' in r) throw new Error(String(r.error))
    return r as T
  } finally {
    await worker.close()
  }
}

export async function scaleBench(ctx: BenchContext): Promise<BenchLine[]> {
  const sizes = scaleSizes()
  ctx.log(`scale: sizes ${sizes.join(', ')}`)
  const done: Array<{ orders: number; figures?: SizeFigures; line: Omit<BenchLine, 'bench'> }> = []
  for (const orders of sizes) {
    const t0 = performance.now()
    try {
      done.push({ orders, ...(await measureSize(ctx, orders)) })
      await rm(join(ctx.tmp, `scale-${orders}`), { recursive: true, force: true })
    } catch (e) {
      ctx.log(`scale: ${orders} orders failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`)
      done.push({ orders, line: { orders, error: e instanceof Error ? e.message : String(e), baseline: {} } })
    }
    ctx.log(`scale: ${orders} orders took ${((performance.now() - t0) / 1000).toFixed(0)} s`)
  }
  const ref = done.find((d) => d.orders === REFERENCE)?.figures
  return done.map(({ orders, figures, line }): BenchLine => {
    if (!figures) return { bench: 'scale', ...line, baseline: {} }
    const ratios = ref ? Object.fromEntries(RATIO_KEYS.map((k) => [k, ratio(figures[k], ref[k])])) : null
    const met: Record<string, boolean | null> = { requestsAtFloor: figures.firstSyncRequests === figures.requestFloor }
    const misses: string[] = []
    if (!met.requestsAtFloor)
      misses.push(`first sync took ${figures.firstSyncRequests} requests against a floor of ${figures.requestFloor}`)
    if (orders === RSS_TARGET_AT) {
      met.peakRssUnderTarget = figures.peakRssMb < RSS_TARGET_MB
      if (!met.peakRssUnderTarget) misses.push(`peak RSS ${figures.peakRssMb} MB, target under ${RSS_TARGET_MB} MB`)
    }
    if (orders > REFERENCE) {
      for (const [key, k] of [
        ['filterWithinGrowth', 'filterNewValueP95Ms'],
        ['searchWithinGrowth', 'searchP95Ms'],
        ['startupWithinGrowth', 'startupToFirstRowsMs']
      ] as const) {
        const r = ratios?.[k] ?? null
        met[key] = r === null ? null : r <= GROWTH_TARGET
        if (r === null) misses.push(`${k}: no ${REFERENCE}-order figure in this run to compare with`)
        else if (r > GROWTH_TARGET) misses.push(`${k} is ${r}x the ${REFERENCE}-order figure, target within ${GROWTH_TARGET}x`)
      }
    }
    return {
      bench: 'scale',
      what: `a live profile for a sandbox of ${orders} orders (seed ${SEED}); first sync of every order (not generating) through ApiClient + OrderMonitor + SQLite store in a child process, fiat types 1-8 configured, merchantHistory lane opened wide; then, the sandbox generating, the app (createServices + start(), settings as shipped) in a fresh process: start-up to the first orders:query answered, then orders:query via invokeChannel once per new filter value (each select alone, status x fiat, fiat x coin) and per search (long: ids, wallet starts and ends, merchant references, hashes; short: 1-2 characters, main's time only, without the view's pause)`,
      ...line,
      baseline: {
        target: {
          requests: 'the floor, at every size',
          peakRssMb: `under ${RSS_TARGET_MB} at ${RSS_TARGET_AT}`,
          growth: `filter and search p95 and start-up to first rows within ${GROWTH_TARGET}x of the ${REFERENCE}-order figures`
        },
        ratiosTo100k: ratios
      },
      met,
      misses
    }
  })
}

export default scaleBench
