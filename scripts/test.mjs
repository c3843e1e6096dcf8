#!/usr/bin/env node
// The one test command (npm test): every vitest suite, then the Playwright suites
// (browser e2e on the system Chromium, and the _electron specs that skip without a
// binary). Ends with one plain line summing all of them: "N passed, N failed[, N skipped]".
import { spawnSync } from 'node:child_process'
import { mkdirSync, readFileSync, existsSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { stripVTControlCharacters } from 'node:util'

const outDir = join(process.cwd(), 'test-results')
mkdirSync(outDir, { recursive: true })
const vitestJson = join(outDir, 'vitest.json')
const playwrightJson = join(outDir, 'playwright.json')
const reliabilitySummary = join(outDir, 'reliability-summary.jsonl')
const attackSummary = join(outDir, 'hub-attack-summary.jsonl')
const faultSummary = join(outDir, 'hub-fault-summary.jsonl')
for (const f of [vitestJson, playwrightJson, reliabilitySummary, attackSummary, faultSummary]) rmSync(f, { force: true })

const only = process.argv[2] // optional: "unit" or "e2e"
const totals = { passed: 0, failed: 0, skipped: 0 }
let crashed = []
// Every failed test by file and name, printed just above the summary line: a CI log that
// keeps only its tail still says what failed.
const failedNames = []

const firstLine = (m) =>
  stripVTControlCharacters(String(m ?? ''))
    .split('\n')
    .find((l) => l.trim()) ?? ''

function run(cmd, args, env = {}) {
  const r = spawnSync(cmd, args, { stdio: 'inherit', env: { ...process.env, ...env } })
  return r.status ?? 1
}

if (only !== 'e2e') {
  const code = run('npx', ['vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${vitestJson}`])
  if (existsSync(vitestJson)) {
    const r = JSON.parse(readFileSync(vitestJson, 'utf8'))
    totals.passed += r.numPassedTests ?? 0
    totals.failed += r.numFailedTests ?? 0
    totals.skipped += (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0)
    // A suite that failed to load has no tests but still failed.
    if (code !== 0 && (r.numFailedTests ?? 0) === 0) crashed.push(`vitest exited ${code}`)
    for (const file of r.testResults ?? []) {
      const rel = String(file.name ?? '').replace(process.cwd() + '/', '')
      for (const t of file.assertionResults ?? []) {
        if (t.status === 'failed')
          failedNames.push(`vitest ${rel} > ${t.fullName ?? t.title}: ${firstLine(t.failureMessages?.[0]).slice(0, 240)}`)
      }
      if ((file.assertionResults ?? []).length === 0 && file.status === 'failed')
        failedNames.push(`vitest ${rel}: ${firstLine(file.message)}`)
    }
  } else if (code !== 0) crashed.push(`vitest exited ${code} without a report`)
}

if (only !== 'unit') {
  const code = run('npx', ['playwright', 'test', '--reporter=list,json'], { PLAYWRIGHT_JSON_OUTPUT_NAME: playwrightJson })
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
