// npm run bench [-- name ...] [--scale-sizes LIST]: runs the benchmarks (all, or the ones
// named) one after another against the sandbox on loopback, prints one JSON object per
// line on stdout ({"bench": name, figures..., "baseline": {...}}), progress on stderr,
// and writes bench/results/latest.json and bench/results/YYYY-MM-DD.json (the lines of
// this run merged over each file's previous lines, so a subset run updates only its own
// benches; lib/results-file.ts). --scale-sizes (e.g. 10k,100k) sets the scale bench's
// sizes, as BENCH_SCALE_SIZES does. Each run also has its own file, bench/results/runs/
// <start time>.json, with the command and the load average.
import { mkdtemp, rm } from 'node:fs/promises'
import { loadavg, tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import { parseArgs } from 'node:util'
import { machineInfo } from './lib/machine'
import { writeResults, type ResultLine } from './lib/results-file'
import type { Bench, BenchLine } from './lib/types'

const BENCHES: Record<string, { describe: string; load: () => Promise<Bench> }> = {
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

const RESULTS_DIR = join(import.meta.dirname, 'results')

function usage(): string {
  return [
    'Usage: npm run bench [-- name ...] [--scale-sizes 10000,100000,1000000]',
    '',
    ...Object.entries(BENCHES).map(([n, b]) => `  ${n.padEnd(9)} ${b.describe}`)
  ].join('\n')
}

async function main(): Promise<number> {
  let parsed
  try {
    parsed = parseArgs({
      allowPositionals: true,
      options: { help: { type: 'boolean', short: 'h' }, 'scale-sizes': { type: 'string' } }
    })
  } catch (e) {
    console.error(`${e instanceof Error ? e.message : String(e)}\n\n${usage()}`)
    return 2
  }
  if (parsed.values.help) {
    console.error(usage())
    return 0
  }
  if (parsed.values['scale-sizes'] !== undefined) process.env.BENCH_SCALE_SIZES = parsed.values['scale-sizes']
  const args = parsed.positionals
  const unknown = args.filter((a) => !(a in BENCHES))
  if (unknown.length) {
    console.error(`unknown benchmark${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')}\n\n${usage()}`)
    return 2
  }
  const names = args.length ? [...new Set(args)] : Object.keys(BENCHES)
  const machine = machineInfo()
  const loadAtStart = loadavg().map((x) => Math.round(x * 100) / 100)
  const tmp = await mkdtemp(join(tmpdir(), 'rampdesk-bench-'))
  const startedAt = new Date()
  const started = performance.now()
  const fresh: ResultLine[] = []
  let failures = 0
  console.error(
    `rampdesk bench: ${names.join(', ')} on ${machine.nproc} x ${machine.cpuModel}, ${machine.memoryGiB} GiB, load average ${loadAtStart.join(' ')}`
  )
  try {
    for (const name of names) {
      const t0 = performance.now()
      const at = new Date().toISOString()
      const log = (m: string) => console.error(`[${((performance.now() - started) / 1000).toFixed(0).padStart(4)} s] ${m}`)
      let lines: BenchLine[]
      try {
        const bench = await BENCHES[name]!.load()
        const out = await bench({ log, tmp })
        lines = Array.isArray(out) ? out : [out]
      } catch (e) {
        failures++
        log(`${name} failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`)
        lines = [{ bench: name, error: e instanceof Error ? e.message : String(e), baseline: {} }]
      }
      const durationMs = Math.round(performance.now() - t0)
      for (const line of lines) {
        console.log(JSON.stringify(line))
        fresh.push({ ...line, at, durationMs })
      }
      log(`${name} took ${(durationMs / 1000).toFixed(1)} s`)
    }
  } finally {
    await rm(tmp, { recursive: true, force: true })
  }
  console.error(`rampdesk bench: done in ${((performance.now() - started) / 1000).toFixed(1)} s`)

  const loadAverage = { atStart: loadAtStart, atEnd: loadavg().map((x) => Math.round(x * 100) / 100) }
  const command = process.argv.slice(2)
  const written = await writeResults(RESULTS_DIR, {
    fresh,
    ran: new Set(names),
    moduleOf: benchModuleOf,
    machine,
    startedAt,
    command,
    loadAverage
  })
  console.error(`rampdesk bench: wrote ${written.map((f) => relative(process.cwd(), f)).join(' and ')}`)
  return failures ? 1 : 0
}

/** Which bench module printed a line (a module may print several names, e.g. renderer-*). */
function benchModuleOf(lineName: string): string {
  return Object.keys(BENCHES).find((n) => lineName === n || lineName.startsWith(`${n}-`)) ?? lineName
}

process.exitCode = await main()
