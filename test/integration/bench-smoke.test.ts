// Every benchmark of `npm run bench` runs once at its smoke size (`--smoke`: sizes in the
// hundreds, seconds each, the same code as a real run), each in a process of its own
// with a time limit, so that a bench that throws, exits non-zero or hangs cannot land.
// Two run at a time (the machine's two cores). Each writes its results files to a
// temporary directory; bench/results, which holds the committed runs, is left alone.
// The renderer and start-up benches drive the system Chromium (CHROMIUM_PATH, else
// /usr/bin/chromium) on the built renderer (out/web, built here first if it is stale).
// The time per bench is printed: the suite's share of CI's time is read, not guessed.
import { spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync } from 'node:fs'
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import { loadavg, tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BENCH_NAMES } from '../../bench/registry'
import { buildRenderer } from '../../src/web/build-renderer'

const ROOT = resolve(import.meta.dirname, '../..')
const RESULTS = join(ROOT, 'bench', 'results')
/** A bench still running after this long is taken for hung (they take seconds each). */
const HANG_MS = 120_000
const AT_ONCE = 2
/** Longest first, so the two lanes end together; a bench not listed runs after these. */
const ORDER = ['startup', 'history', 'scale', 'renderer', 'changes', 'budget', 'sandbox']

interface Outcome {
  name: string
  code: number | null
  signal: NodeJS.Signals | null
  hung: boolean
  ms: number
  stdout: string
  stderr: string
  resultsDir: string
}

/** Runs `npm run bench -- --smoke <name>` as its own process group; kills it all after HANG_MS. */
async function runSmoke(name: string, resultsDir: string): Promise<Outcome> {
  // Only the smoke flag sets the sizes: a BENCH_* knob of the caller's shell would change them.
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('BENCH_')))
  const t0 = performance.now()
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/run.ts', '--smoke', '--results-dir', resultsDir, name], {
    cwd: ROOT,
    env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe']
  })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (b: Buffer) => (stdout += b.toString()))
  child.stderr.on('data', (b: Buffer) => (stderr += b.toString()))
  let hung = false
  const timer = setTimeout(() => {
    hung = true
    // The whole group: the bench's workers, harness and Chromium with it.
    try {
      process.kill(-child.pid!, 'SIGKILL')
    } catch {
      child.kill('SIGKILL')
    }
  }, HANG_MS)
  const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((done) => child.once('close', (c, s) => done([c, s])))
  clearTimeout(timer)
  return { name, code, signal, hung, ms: performance.now() - t0, stdout, stderr, resultsDir }
}

/** What a failed bench said last: its own progress lines name the step it was at. */
const tail = (o: Outcome) => o.stderr.trim().split('\n').slice(-15).join('\n')

/** Names, sizes and contents of bench/results, to prove a smoke run left them alone. */
async function resultsFingerprint(): Promise<string> {
  const h = createHash('sha256')
  const walk = async (dir: string): Promise<void> => {
    for (const e of (await readdir(dir, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name))) {
      const p = join(dir, e.name)
      if (e.isDirectory()) await walk(p)
      else h.update(p).update(await readFile(p))
    }
  }
  await walk(RESULTS)
  return h.digest('hex')
}

describe('every benchmark at its smoke size', () => {
  const outcomes = new Map<string, Promise<Outcome>>()
  let scratch = ''
  let before = ''
  const load = { atStart: loadavg(), atEnd: [] as number[] }
  let started = 0

  beforeAll(async () => {
    before = await resultsFingerprint()
    // The renderer and start-up benches serve the built renderer; built once here, not by
    // two benches at once (a fresh CI checkout has it from npm ci).
    await buildRenderer({ quiet: true })
    scratch = await mkdtemp(join(tmpdir(), 'rampdesk-bench-smoke-'))
    const queue = [...ORDER.filter((n) => BENCH_NAMES.includes(n)), ...BENCH_NAMES.filter((n) => !ORDER.includes(n))]
    const gates: Array<() => void> = []
    let running = 0
    const slot = () => (running < AT_ONCE ? (running++, Promise.resolve()) : new Promise<void>((r) => gates.push(r)))
    const free = () => {
      const next = gates.shift()
      if (next) next()
      else running--
    }
    started = performance.now()
    for (const name of queue) {
      outcomes.set(
        name,
        slot().then(() => runSmoke(name, join(scratch, name)).finally(free))
      )
    }
  }, 300_000)

  afterAll(async () => {
    const done = await Promise.all([...outcomes.values()].map((p) => p.catch(() => null)))
    load.atEnd = loadavg()
    const fmt = (l: number[]) => l.map((x) => x.toFixed(1)).join(' ')
    const rows = done
      .filter((o): o is Outcome => o !== null)
      .map(
        (o) =>
          `  ${o.name.padEnd(9)} ${(o.ms / 1000).toFixed(1).padStart(5)} s  ${o.hung ? 'HUNG' : o.code === 0 ? 'ok' : `exit ${o.code ?? o.signal}`}`
      )
    console.log(
      [
        `bench smoke: ${((performance.now() - started) / 1000).toFixed(1)} s in all, ${AT_ONCE} at a time; load average ${fmt(load.atStart)} at the start, ${fmt(load.atEnd)} at the end`,
        ...rows
      ].join('\n')
    )
    if (scratch) await rm(scratch, { recursive: true, force: true })
  })

  for (const name of BENCH_NAMES) {
    it(`${name} runs to its end without an error`, async () => {
      const o = await outcomes.get(name)!
      if (o.hung) expect.fail(`bench ${name} did not finish in ${HANG_MS / 1000} s at its smoke size (hung?); it said last:\n${tail(o)}`)
      if (o.code !== 0) expect.fail(`bench ${name} exited ${o.code ?? o.signal} at its smoke size; it said last:\n${tail(o)}`)
      // Every line printed is a smoke line without an error (the scale bench reports a failed size as a line).
      const lines = o.stdout
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as Record<string, unknown>)
      expect(lines.length, `bench ${name} printed no result line`).toBeGreaterThan(0)
      for (const l of lines) {
        expect(l.error, `bench ${name}: line ${String(l.bench)} reports an error`).toBeUndefined()
        expect(l.smoke).toBe(true)
      }
      // Its files went to the directory it was given.
      const runs = await readdir(join(o.resultsDir, 'runs'))
      expect(runs).toHaveLength(1)
      expect(existsSync(join(o.resultsDir, 'latest.json'))).toBe(true)
    }, 600_000)
  }

  it('leaves the committed results in bench/results as they were', async () => {
    await Promise.all([...outcomes.values()].map((p) => p.catch(() => null)))
    expect(await resultsFingerprint()).toBe(before)
  }, 600_000)
})
