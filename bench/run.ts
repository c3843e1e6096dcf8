// npm run bench [-- name ...] [--scale-sizes LIST]: runs the benchmarks (all, or the ones
// named) one after another against the sandbox on loopback, prints one JSON object per
// line on stdout ({"bench": name, figures..., "baseline": {...}}), progress on stderr,
// and writes bench/results/latest.json and bench/results/YYYY-MM-DD.json (the lines of
// this run merged over each file's previous lines, so a subset run updates only its own
// benches; lib/results-file.ts). --scale-sizes (e.g. 10k,100k) sets the scale bench's
// sizes, as BENCH_SCALE_SIZES does. Each run also has its own file, bench/results/runs/
// <start time>.json, with the command and the load average.
// --smoke runs every bench named (all by default) once at its smoke size (bench/lib/
// smoke.ts: sizes in the hundreds, seconds each, the same code as the real run), marks
// its lines "smoke": true and writes its files to a temporary directory instead of
// bench/results; --results-dir DIR writes them to DIR.
import { mkdtemp, rm } from 'node:fs/promises'
import { loadavg, tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import { parseArgs } from 'node:util'
import { machineInfo } from './lib/machine'
import { writeResults, type ResultLine } from './lib/results-file'
import { smokeRun } from './lib/smoke'
import type { BenchLine } from './lib/types'
import { BENCHES } from './registry'

const RESULTS_DIR = join(import.meta.dirname, 'results')

function usage(): string {
  return [
    'Usage: npm run bench [-- name ...] [--scale-sizes 10000,100000,1000000] [--smoke] [--results-dir DIR]',
    '',
    ...Object.entries(BENCHES).map(([n, b]) => `  ${n.padEnd(9)} ${b.describe}`)
  ].join('\n')
}

async function main(): Promise<number> {
  let parsed
  try {
    parsed = parseArgs({
      allowPositionals: true,
      options: {
        help: { type: 'boolean', short: 'h' },
        'scale-sizes': { type: 'string' },
        smoke: { type: 'boolean' },
        'results-dir': { type: 'string' }
      }
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
  // Set before any bench module is loaded: they read their sizes when they load.
  if (parsed.values.smoke) process.env.BENCH_SMOKE = '1'
  const smoke = smokeRun()
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
    `rampdesk bench${smoke ? ' (smoke size: the figures say nothing about speed)' : ''}: ${names.join(', ')} on ${machine.nproc} x ${machine.cpuModel}, ${machine.memoryGiB} GiB, load average ${loadAtStart.join(' ')}`
  )
  try {
    for (const name of names) {
      const t0 = performance.now()
      const at = new Date().toISOString()
      const log = (m: string) => console.error(`[${((performance.now() - started) / 1000).toFixed(0).padStart(4)} s] ${m}`)
      log(`${name} started`)
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
        const marked = smoke ? { ...line, smoke: true } : line
        console.log(JSON.stringify(marked))
        fresh.push({ ...marked, at, durationMs })
      }
      log(`${name} took ${(durationMs / 1000).toFixed(1)} s`)
    }
  } finally {
    await rm(tmp, { recursive: true, force: true })
  }
  console.error(`rampdesk bench: done in ${((performance.now() - started) / 1000).toFixed(1)} s`)

  const loadAverage = { atStart: loadAtStart, atEnd: loadavg().map((x) => Math.round(x * 100) / 100) }
  const command = process.argv.slice(2)
  // A smoke run's files never replace the committed ones.
  const resultsDir = parsed.values['results-dir'] ?? (smoke ? await mkdtemp(join(tmpdir(), 'rampdesk-bench-smoke-results-')) : RESULTS_DIR)
  const written = await writeResults(resultsDir, {
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
