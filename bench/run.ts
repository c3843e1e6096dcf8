// npm run bench [-- name ...]: runs the benchmarks (all, or the ones named) one after
// another against the sandbox on loopback, prints one JSON object per line on stdout
// ({"bench": name, figures..., "baseline": {...}}), progress on stderr, and writes
// bench/results/latest.json (the lines of this run merged over the previous file's, so a
// subset run updates only its own benches).
import { mkdtemp, mkdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { machineInfo, type MachineInfo } from './lib/machine'
import type { Bench, BenchLine } from './lib/types'

const BENCHES: Record<string, { describe: string; load: () => Promise<Bench> }> = {
  history: {
    describe: 'history sync of 100,000 orders vs the request floor and a naive re-reading client',
    load: async () => (await import('./history')).historyBench
  },
  changes: {
    describe: 'change detection over 1,000 open orders vs per-order orderStatus polling',
    load: async () => (await import('./change-detection')).changeDetectionBench
  },
  budget: {
    describe: 'one simulated hour of app traffic: 429s and the longest operator quote wait',
    load: async () => (await import('./budget')).budgetBench
  },
  renderer: {
    describe: 'orders view over 100,000 rows in Chromium: first rows, filter/search, scroll, heap, bundle',
    load: async () => (await import('./renderer')).rendererBench
  },
  startup: {
    describe: 'browser harness launch to first orders rendered, warm database',
    load: async () => (await import('./startup')).startupBench
  },
  sandbox: {
    describe: 'sandbox merchantHistory p95 per page of 500 over 1,000,000 orders',
    load: async () => (await import('./sandbox')).sandboxBench
  }
}

interface ResultsFile {
  machine: MachineInfo
  updatedAt: string
  lines: Array<BenchLine & { at: string; durationMs: number }>
}

const RESULTS = join(import.meta.dirname, 'results', 'latest.json')

function usage(): string {
  return ['Usage: npm run bench [-- name ...]', '', ...Object.entries(BENCHES).map(([n, b]) => `  ${n.padEnd(9)} ${b.describe}`)].join('\n')
}

async function main(): Promise<number> {
  const args = process.argv.slice(2)
  if (args.includes('--help') || args.includes('-h')) {
    console.error(usage())
    return 0
  }
  const unknown = args.filter((a) => !(a in BENCHES))
  if (unknown.length) {
    console.error(`unknown benchmark${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')}\n\n${usage()}`)
    return 2
  }
  const names = args.length ? [...new Set(args)] : Object.keys(BENCHES)
  const machine = machineInfo()
  const tmp = await mkdtemp(join(tmpdir(), 'rampdesk-bench-'))
  const started = performance.now()
  const fresh: ResultsFile['lines'] = []
  let failures = 0
  console.error(`rampdesk bench: ${names.join(', ')} on ${machine.nproc} x ${machine.cpuModel}, ${machine.memoryGiB} GiB`)
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

  let previous: ResultsFile | null = null
  try {
    previous = JSON.parse(await readFile(RESULTS, 'utf8')) as ResultsFile
  } catch {
    previous = null
  }
  const ran = new Set(names)
  const kept = (previous?.lines ?? []).filter((l) => !ran.has(benchModuleOf(l.bench)))
  const file: ResultsFile = { machine, updatedAt: new Date().toISOString(), lines: [...kept, ...fresh] }
  await mkdir(join(import.meta.dirname, 'results'), { recursive: true })
  await writeFile(RESULTS, JSON.stringify(file, null, 2) + '\n')
  return failures ? 1 : 0
}

/** Which bench module printed a line (a module may print several names, e.g. renderer-*). */
function benchModuleOf(lineName: string): string {
  return Object.keys(BENCHES).find((n) => lineName === n || lineName.startsWith(`${n}-`)) ?? lineName
}

process.exitCode = await main()
