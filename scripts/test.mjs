#!/usr/bin/env node
// The one test command (npm test): every vitest suite, then the Playwright suites
// (browser e2e on the system Chromium, and the _electron specs that skip without a
// binary). Ends with one plain line summing all of them: "N passed, N failed[, N skipped]".
import { spawn } from 'node:child_process'
import { mkdirSync, readFileSync, readdirSync, existsSync, rmSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { stripVTControlCharacters } from 'node:util'

const outDir = join(process.cwd(), 'test-results')
mkdirSync(outDir, { recursive: true })
const vitestJson = join(outDir, 'vitest.json')
const vitestUnitJson = join(outDir, 'vitest-unit.json')
const faultJson = join(outDir, 'vitest-fault.json')
const timedJson = join(outDir, 'vitest-timed.json')
const playwrightJson = join(outDir, 'playwright.json')
const reliabilitySummary = join(outDir, 'reliability-summary.jsonl')
const attackSummary = join(outDir, 'hub-attack-summary.jsonl')
const faultSummary = join(outDir, 'hub-fault-summary.jsonl')
for (const f of [vitestJson, vitestUnitJson, timedJson, faultJson, playwrightJson, reliabilitySummary, attackSummary, faultSummary])
  rmSync(f, { force: true })

const only = process.argv[2] // optional: "unit", "e2e" or "nofault" (everything but test/fault)
const totals = { passed: 0, failed: 0, skipped: 0 }
let crashed = []
// Every failed test by file and name, printed just above the summary line: a CI log that
// keeps only its tail still says what failed.
const failedNames = []
/** The early checks (RAMPDESK_CHECKS_EARLY, see checks()), once started; awaited after the Playwright lane. */
const checksEarly = []
let earlyStarted = false
const startEarlyChecks = () => {
  if (earlyStarted) return
  earlyStarted = true
  checksEarly.push(...checks('RAMPDESK_CHECKS_EARLY'))
}

const firstLine = (m) =>
  stripVTControlCharacters(String(m ?? ''))
    .split('\n')
    .find((l) => l.trim()) ?? ''

/**
 * Runs a command to its end. With a prefix, its output goes line by line with that prefix, so
 * that a run beside another stays readable in the log.
 */
function run(cmd, args, env = {}, prefix = '') {
  return new Promise((done) => {
    const child = spawn(cmd, args, { stdio: prefix ? ['ignore', 'pipe', 'pipe'] : 'inherit', env: { ...process.env, ...env } })
    if (prefix) {
      for (const stream of [child.stdout, child.stderr]) {
        let rest = ''
        stream.on('data', (b) => {
          const lines = (rest + b.toString()).split('\n')
          rest = lines.pop() ?? ''
          for (const l of lines) process.stdout.write(`${prefix}${l}\n`)
        })
        stream.on('end', () => rest && process.stdout.write(`${prefix}${rest}\n`))
      }
    }
    child.on('close', (code) => done(code ?? 1))
  })
}

// Seconds spent per suite (the folder under test/) and the slowest files, printed at the end:
// where CI's time goes is read from every run, not guessed.
const suiteSeconds = new Map()
const fileSeconds = []
function spent(file, ms) {
  const rel = file.replace(process.cwd() + '/', '')
  const suite = rel.split('/').slice(0, 2).join('/')
  suiteSeconds.set(suite, (suiteSeconds.get(suite) ?? 0) + ms / 1000)
  fileSeconds.push([rel, ms / 1000])
}

/** Reads one vitest JSON report into the totals, the failed names and the time spent. */
function readVitest(json, code, label) {
  if (!existsSync(json)) {
    if (code !== 0) crashed.push(`${label} exited ${code} without a report`)
    return
  }
  const r = JSON.parse(readFileSync(json, 'utf8'))
  totals.passed += r.numPassedTests ?? 0
  totals.failed += r.numFailedTests ?? 0
  totals.skipped += (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0)
  // A suite that failed to load has no tests but still failed.
  if (code !== 0 && (r.numFailedTests ?? 0) === 0) crashed.push(`${label} exited ${code}`)
  for (const file of r.testResults ?? []) {
    const rel = String(file.name ?? '').replace(process.cwd() + '/', '')
    if (file.startTime && file.endTime) spent(rel, file.endTime - file.startTime)
    for (const t of file.assertionResults ?? []) {
      if (t.status === 'failed')
        failedNames.push(`vitest ${rel} > ${t.fullName ?? t.title}: ${firstLine(t.failureMessages?.[0]).slice(0, 240)}`)
    }
    if ((file.assertionResults ?? []).length === 0 && file.status === 'failed')
      failedNames.push(`vitest ${rel}: ${firstLine(file.message)}`)
  }
}

// Three vitest lanes side by side, each timed:
// - the fault suite mostly waits (a database stopped for 30 s, a receiver away for 5 minutes)
//   on processes of its own, one file at a time: two at once (at the lanes' higher priority)
//   starve the correctness lane, the longest, of the cores it needs;
// - the files whose figures are held to wall-clock bounds (the attacks' latencies, the
//   reliability canary, leases, failover, the soak) run one at a time, never two at once;
// - everything else runs two files at a time: correctness, not timing, is what they check.
const faultSuite = 'test/fault'
const timedFiles = [
  'test/attack/',
  'test/reliability/',
  'test/integration/hub/team-soak.test.ts',
  'test/integration/hub/failover.test.ts',
  'test/integration/hub/postgres-failover.test.ts',
  'test/unit/hub/pg/pg-lease.test.ts',
  'test/unit/hub/pg/pg-election.test.ts',
  'test/unit/hub/kept/relay-worker.test.ts',
  'test/unit/hub/hub-store.test.ts',
  'test/unit/shared/api/exact-json.test.ts',
  'test/integration/hub/webhooks-kept.test.ts',
  'test/integration/hub/postgres-claims.test.ts',
  // Its virtual minute moves on when the client looks idle: starved of a core, a request in
  // flight looked idle once, a minute passed under it, and the client learned 20 calls a minute.
  'test/integration/fidelity/learned-limit.test.ts'
]
const asGlob = (f) => (f.endsWith('/') ? `${f}**` : f)

// The unit files run in one module registry per worker (--no-isolate): about 190 small files,
// each of which otherwise imports its modules anew (half the unit suite's time). A file that
// mocks a module or stubs a global would leak it into the files after it, so those keep a
// registry of their own and run with the integration suites.
const sharedRegistryRoot = 'test/unit'
const mocks = /\bvi\.(mock|doMock|unmock|stubGlobal|stubEnv|resetModules)\(/
function testFilesUnder(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = `${dir}/${e.name}`
    if (e.isDirectory()) return testFilesUnder(path)
    return e.name.endsWith('.test.ts') ? [path] : []
  })
}
const ownRegistry = testFilesUnder(sharedRegistryRoot).filter((f) => mocks.test(readFileSync(f, 'utf8')))
const laneSeconds = []
async function lane(label, args, json, prefix, niceness = 0) {
  const t0 = Date.now()
  const vitest = ['npx', 'vitest', 'run', ...args, '--reporter=default', '--reporter=json', `--outputFile.json=${json}`]
  const [cmd, ...rest] = niceness ? ['nice', '-n', String(niceness), ...vitest] : vitest
  const code = await run(cmd, rest, {}, prefix)
  laneSeconds.push([label, (Date.now() - t0) / 1000])
  return code
}
if (only !== 'e2e') {
  // The hub as it is deployed (npm run build:hub), built once for the tests that start hub
  // processes (test/support/hub-cli.ts): each then starts on plain node, not through tsx.
  const hubCli = join(process.cwd(), 'node_modules', '.cache', 'rampdesk-hub-test', 'cli.js')
  if ((await run(process.execPath, ['scripts/build-hub.mjs', '--out', dirname(hubCli)])) === 0) process.env.RAMPDESK_TEST_HUB_CLI = hubCli
  else crashed.push('the hub could not be built for its tests (node scripts/build-hub.mjs)')
  const exclude = [`${faultSuite}/`, ...timedFiles].flatMap((f) => ['--exclude', asGlob(f)])
  // The unit files that share a registry first, then the rest (integration, Electron glue, the
  // unit files that mock), one after the other in the same lane.
  const unitThenRest = async () => {
    const unitCode = await lane(
      'vitest (unit, shared registry)',
      [sharedRegistryRoot, '--no-isolate', ...exclude, ...ownRegistry.flatMap((f) => ['--exclude', f]), '--maxWorkers=2'],
      vitestUnitJson,
      '',
      5
    )
    readVitest(vitestUnitJson, unitCode, 'vitest (unit, shared registry)')
    const rest = ['test/integration/', 'test/electron/', ...ownRegistry]
    return lane('vitest', [...rest, ...exclude, '--maxWorkers=2'], vitestJson, '', 5)
  }
  const timed = lane('vitest (timed)', [...timedFiles, '--maxWorkers=1'], timedJson, '[timed] ')
  const fault = only === 'nofault' ? Promise.resolve(0) : lane('vitest (fault)', [faultSuite, '--maxWorkers=1'], faultJson, '[fault] ')
  // Once the timed and fault lanes are done, the rest of vitest has the cores to itself for
  // minutes with one of them often idle (its last long files): the checks that only read
  // start then, below its priority, rather than all beside Playwright.
  if (only !== 'unit') void Promise.all([timed, fault]).then(startEarlyChecks)
  const [mainCode, timedCode, faultCode] = await Promise.all([
    // At a lower priority (and every process it starts): the timed files and the fault suite
    // get the cores first, so their bounds hold beside it; this lane takes what is left.
    unitThenRest(),
    timed,
    fault
  ])
  readVitest(vitestJson, mainCode, 'vitest')
  readVitest(timedJson, timedCode, 'vitest (timed lane)')
  if (only !== 'nofault') readVitest(faultJson, faultCode, 'vitest (fault suite)')
}

/**
 * Checks that need only CPU, named as npm scripts in an environment variable, run at a low
 * priority beside the tests rather than minutes of their own before them:
 * RAMPDESK_CHECKS_BESIDE_E2E (e.g. "build") beside the Playwright lane, whose specs mostly wait;
 * RAMPDESK_CHECKS_EARLY (e.g. "typecheck lint format:check": ones that write nothing) from the
 * end of the timed and fault lanes, beside the rest of vitest. Each one's output is printed
 * whole when it ends; one that fails fails the run. Returns one promise per check.
 */
function checks(variable) {
  const names = (process.env[variable] ?? '').split(/\s+/).filter(Boolean)
  return names.map(
    (name) =>
      new Promise((done) => {
        const t0 = Date.now()
        const child = spawn('nice', ['-n', '10', 'npm', 'run', name], { stdio: ['ignore', 'pipe', 'pipe'] })
        let out = ''
        child.stdout.on('data', (b) => (out += b))
        child.stderr.on('data', (b) => (out += b))
        child.on('close', (code) => {
          process.stdout.write(`\n[check ${name}] exit ${code} after ${((Date.now() - t0) / 1000).toFixed(0)} s\n${out}\n`)
          if (code !== 0) crashed.push(`npm run ${name} failed (exit ${code})`)
          done()
        })
      })
  )
}
if (only !== 'unit') {
  const t0 = Date.now()
  startEarlyChecks()
  const beside = checks('RAMPDESK_CHECKS_BESIDE_E2E')
  const code = await run('npx', ['playwright', 'test', '--reporter=list,json'], { PLAYWRIGHT_JSON_OUTPUT_NAME: playwrightJson })
  laneSeconds.push(['playwright', (Date.now() - t0) / 1000])
  await Promise.all([...beside, ...checksEarly])
  if (existsSync(playwrightJson)) {
    const r = JSON.parse(readFileSync(playwrightJson, 'utf8'))
    const s = r.stats ?? {}
    totals.passed += (s.expected ?? 0) + (s.flaky ?? 0)
    totals.failed += s.unexpected ?? 0
    totals.skipped += s.skipped ?? 0
    if (code !== 0 && (s.unexpected ?? 0) === 0) crashed.push(`playwright exited ${code}`)
    const walk = (suite, path) => {
      for (const spec of suite.specs ?? []) {
        for (const t of spec.tests ?? []) {
          spent(
            `test/${spec.file}`,
            (t.results ?? []).reduce((ms, x) => ms + (x.duration ?? 0), 0)
          )
          if (t.status !== 'unexpected') continue
          const last = (t.results ?? []).at(-1)
          failedNames.push(
            `playwright ${spec.file} > ${[...path, spec.title].join(' > ')}: ${firstLine(last?.error?.message).slice(0, 240)}`
          )
        }
      }
      for (const s2 of suite.suites ?? []) walk(s2, suite.title && !suite.title.endsWith('.ts') ? [...path, suite.title] : path)
    }
    for (const s2 of r.suites ?? []) walk(s2, [])
    for (const e of r.errors ?? []) crashed.push(`playwright: ${String(e.message ?? e).split('\n')[0]}`)
  } else if (code !== 0) crashed.push(`playwright exited ${code} without a report`)
}

// The reliability suite's summary: what was injected, what was checked, what was lost.
if (existsSync(reliabilitySummary)) {
  const rows = readFileSync(reliabilitySummary, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l))
  console.log('\nReliability summary')
  for (const r of rows) {
    const list = (v) => (Array.isArray(v) ? v.join(', ') : String(v ?? ''))
    console.log(`- ${r.scenario}: injected ${list(r.injected)}; checked ${list(r.checked)}; lost ${list(r.lost) || 'nothing'}`)
  }
  console.log('')
}

// The hub's attack and fault suites' figures: each attack or fault, what it measured, and the bound each is held to.
for (const [file, title] of [
  [attackSummary, 'Hub attack figures'],
  [faultSummary, 'Hub fault figures']
]) {
  if (!existsSync(file)) continue
  const rows = readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l))
  console.log(`\n${title}`)
  for (const r of rows) {
    const figures = Object.entries(r.figures).map(([k, v]) => `${k} ${v}${r.bounds[k] ? ` (bound ${r.bounds[k]})` : ''}`)
    console.log(`- ${r.attack ?? r.scenario}: ${figures.join('; ')}`)
  }
  console.log('')
}

// Per file, the playwright tests' times add up (one file's tests run one after another).
if (suiteSeconds.size) {
  const byFile = new Map()
  for (const [f, sec] of fileSeconds) byFile.set(f, (byFile.get(f) ?? 0) + sec)
  console.log('\nTime per suite (s)')
  for (const [suite, sec] of [...suiteSeconds].sort((a, b) => b[1] - a[1])) console.log(`- ${suite}: ${sec.toFixed(0)}`)
  console.log('Slowest files (s)')
  for (const [f, sec] of [...byFile].sort((a, b) => b[1] - a[1]).slice(0, 12)) console.log(`- ${f}: ${sec.toFixed(0)}`)
  console.log('Wall time per lane (s; the three vitest lanes run side by side, then playwright)')
  for (const [l, sec] of laneSeconds) console.log(`- ${l}: ${sec.toFixed(0)}`)
  console.log('')
}

if (failedNames.length) {
  console.log('Failed tests')
  for (const n of failedNames) console.log(`- ${n}`)
  console.log('')
}
for (const c of crashed) console.log(`test run problem: ${c}`)
totals.failed += crashed.length
const line = `${totals.passed} passed, ${totals.failed} failed` + (totals.skipped ? `, ${totals.skipped} skipped` : '')
console.log(line)
process.exit(totals.failed > 0 ? 1 : 0)
