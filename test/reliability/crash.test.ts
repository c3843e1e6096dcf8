// Crash: the whole main side in a child process (crash-child.ts: createServices with a
// live profile on a standalone sandbox run here, the real keychain, the real monitor),
// SIGKILLed twice: once in the middle of a history sync, once while a page's write
// transaction is open (rows written, COMMIT not reached). After each kill the database
// opens cleanly (integrity check, migrations, every order with exactly one first-sighting
// event, nothing of the killed transaction), and after a restart and ONE sync the
// database equals the sandbox's ground truth: no order and no transition lost or doubled.
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openLocalStore } from '../../src/main/store/local-store'
import { startSandbox, type Sandbox } from '../../src/sandbox'
import { statusInfo } from '../../src/shared/domain/status'
import { REPO_ROOT, diffAgainstTruth, scopesHeld, expectLossless, lossesOf, recordScenario } from './support'

const NEW_ORDERS = 2_500
const CHILD = resolve(__dirname, 'crash-child.ts')
const SECRET = `crash-secret-${Math.random().toString(36).slice(2)}-0123456789`
/** Every scope the sandbox holds orders in, once it has started (the app syncs them all). */
let SCOPES: { type: 1 | 2; fiatType: number }[] = []

let sb: Sandbox
let root: string
let dataDir: string
let dbDir = ''
let profileId = ''
let forgotten = false
const unobservable = new Map<number, Set<number>>()
const pool: number[] = []

interface ChildRun {
  lines: string[]
  code: number | null
  signal: NodeJS.Signals | null
  stderr: string
}

/** Runs the child; `killWhen` sees every stdout line and returns true to SIGKILL it there. */
function runChild(mode: string, killWhen?: (line: string, all: string[]) => boolean): Promise<ChildRun> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, ['--import', 'tsx', CHILD, dataDir, sb.url, sb.apiKey, mode], {
      cwd: REPO_ROOT,
      env: { ...process.env, RAMPDESK_CRASH_SECRET: SECRET },
      stdio: ['ignore', 'pipe', 'pipe']
    })
    const lines: string[] = []
    let buf = ''
    let stderr = ''
    child.stdout.setEncoding('utf8')
    child.stdout.on('data', (chunk: string) => {
      buf += chunk
      let nl: number
      while ((nl = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, nl)
        buf = buf.slice(nl + 1)
        lines.push(line)
        if (killWhen?.(line, lines) && child.exitCode === null && !child.killed) child.kill('SIGKILL')
      }
    })
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()))
    child.on('error', fail)
    // A hung child is a failure, not a wait.
    const guard = setTimeout(() => child.kill('SIGKILL'), 90_000)
    child.on('close', (code, signal) => {
      clearTimeout(guard)
      done({ lines, code, signal, stderr })
    })
  })
}

const payload = <T>(lines: string[], tag: string): T[] =>
  lines.filter((l) => l.startsWith(tag + ' ')).map((l) => JSON.parse(l.slice(tag.length + 1)) as T)

/** Opens the database the way the app does and checks it is whole. */
function checkDatabase(): { orders: number; created: number; pages: number } {
  const store = openLocalStore(dbDir)
  try {
    expect(store.database.integrityCheck()).toBe('ok')
    const orders = store.orders.count()
    const created = store.database.sql.value<number>('SELECT COUNT(*) FROM order_events WHERE old_status IS NULL') ?? 0
    // Every stored order has its first sighting, exactly once: no half-applied page.
    expect(created).toBe(orders)
    const orphans =
      store.database.sql.value<number>(
        'SELECT COUNT(*) FROM order_events e WHERE NOT EXISTS (SELECT 1 FROM orders o WHERE o.type = e.type AND o.order_id = e.order_id)'
      ) ?? 0
    expect(orphans).toBe(0)
    const pages = store.syncCursors.list().reduce((n, c) => n + c.pagesApplied, 0)
    return { orders, created, pages }
  } finally {
    store.close()
  }
}

/** Moves pool orders one step; a status the app had not seen yet while it knew an earlier one can never be seen. */
function movePool(): number {
  const store = openLocalStore(dbDir)
  let moved = 0
  try {
    for (const id of pool) {
      const o = sb.control.order(id)!
      if (statusInfo(o.type, o.status).terminal) continue
      const row = store.orders.get(o.type, id)
      if (row && row.status !== o.status) {
        const set = unobservable.get(id) ?? new Set<number>()
        set.add(o.status)
        unobservable.set(id, set)
      }
      sb.control.advanceOrder(id)
      moved++
    }
  } finally {
    store.close()
  }
  return moved
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'rampdesk-rel-crash-'))
  dataDir = join(root, 'data')
  // Enough history that a sync takes dozens of pages of 500.
  sb = await startSandbox({ seed: 5, orders: 6_000, autoGenerate: false, apiSecret: SECRET })
  SCOPES = scopesHeld(sb.control.groundTruth())
  for (let i = 0; i < 8; i++) pool.push(sb.control.createOrder({ type: 1, fiatType: 1, path: 'completed', hold: true }).orderId)
  for (let i = 0; i < 4; i++) pool.push(sb.control.createOrder({ type: 2, path: 'completed', hold: true }).orderId)
  const setup = await runChild('setup')
  expect(setup.code, setup.stderr).toBe(0)
  const s = payload<{ profileId: string; backend: string }>(setup.lines, 'setup')[0]!
  profileId = s.profileId
  expect(['keychain', 'safeStorage']).toContain(s.backend)
  dbDir = join(dataDir, 'profiles', profileId)
}, 120_000)

afterAll(async () => {
  // The keychain entry outlives the data directory: remove it through the app.
  if (profileId && !forgotten) await runChild('forget').catch(() => undefined)
  await sb?.close()
  rmSync(root, { recursive: true, force: true })
})

describe('crash: SIGKILL during a sync and during a database write', () => {
  it('reopens cleanly after each kill and equals the ground truth after one sync', async () => {
    // 0. A clean first sync, so the app knows the pool orders and the in-progress ones.
    const initial = await runChild('sync')
    expect(initial.code, initial.stderr).toBe(0)
    expect(initial.lines).toContain('synced')
    const baseline = checkDatabase()
    for (const o of sb.control.groundTruth())
      if (o.fiatType === 1 && !statusInfo(o.type, o.status).terminal && !pool.includes(o.orderId)) pool.push(o.orderId)
    let moved = movePool()
    // New history for the next sync to page through.
    for (let i = 0; i < NEW_ORDERS; i++) sb.control.createOrder(i % 3 === 2 ? { type: 2 } : { type: 1, fiatType: 1 })

    // 1. Killed in the middle of that sync, after 2 committed pages.
    const first = await runChild('sync', (line, all) => line.startsWith('page ') && payload(all, 'page').length >= 2)
    expect(first.signal, first.stderr).toBe('SIGKILL')
    expect(first.lines).not.toContain('synced')
    const afterFirst = checkDatabase()
    const reported1 = payload<{ pages: number }>(first.lines, 'page').length
    // Every page reported committed is there; at most one more (committed, not yet reported).
    expect(afterFirst.pages - baseline.pages).toBeGreaterThanOrEqual(reported1)
    expect(afterFirst.pages - baseline.pages).toBeLessThanOrEqual(reported1 + 1)
    moved += movePool()

    // 2. Killed while the 2nd page of the resumed sync is written but not committed.
    const second = await runChild('hold-write:2', (line) => line.startsWith('in-write '))
    expect(second.signal, second.stderr).toBe('SIGKILL')
    const held = payload<{ pages: number; created: number[] }>(second.lines, 'in-write')[0]!
    expect(held.pages).toBe(2)
    const afterSecond = checkDatabase()
    // The open transaction left nothing behind: none of the orders it created is stored.
    const store = openLocalStore(dbDir)
    try {
      for (const id of held.created)
        expect(store.database.sql.value('SELECT 1 FROM orders WHERE order_id = ?', id), `order ${id} of the killed write`).toBeUndefined()
    } finally {
      store.close()
    }
    // It resumed from the committed cursor: one more page on top of the first kill's.
    expect(afterSecond.pages).toBe(afterFirst.pages + 1)
    moved += movePool()

    // 3. Restart: one sync, then the database is the ground truth.
    const third = await runChild('sync+forget')
    expect(third.code, third.stderr).toBe(0)
    expect(third.lines).toContain('synced')
    if (third.lines.includes('forgot')) forgotten = true
    checkDatabase()
    const truth = sb.control.groundTruth()
    const end = openLocalStore(dbDir)
    let diff
    try {
      diff = diffAgainstTruth(end, truth, SCOPES, unobservable)
    } finally {
      end.close()
    }
    recordScenario({
      scenario: 'crash: SIGKILL during a sync and during a database write',
      injected: [
        `SIGKILL of the whole main side (child process) after ${reported1} committed pages of a sync of ${NEW_ORDERS} new orders`,
        `SIGKILL while the 2nd page of the resumed sync was written inside an open transaction (${held.created.length} new orders in it)`,
        `${moved} status moves of ${pool.length} orders between the runs`
      ],
      checked: [
        'after each kill: integrity_check ok, every order with exactly one first-sighting event, no orphan events',
        'the killed transaction left none of its orders',
        'each run resumed from the committed cursor (pages counted)',
        `after a restart and one sync: database = ground truth: ${diff.orders} orders, ${diff.transitions} transitions`
      ],
      lost: lossesOf(diff)
    })
    expectLossless(diff)
    // The moves were seen: more transitions than orders.
    expect(diff.transitions).toBeGreaterThan(diff.orders)
  }, 240_000)
})
