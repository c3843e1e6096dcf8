// Crash safety of history sync: a child process applies history pages to a profile
// database and is SIGKILLed mid-way (twice); each time the database must reopen cleanly,
// hold exactly the pages committed so far (every reported page, never part of a page)
// with the cursor of the last of them, and resuming must end with exactly the expected
// orders: none lost, none twice.
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openLocalStore } from '../../../src/main/store/local-store'
import { SyntheticHistoryService, syncHistory, syntheticHistory } from '../../fixtures/crash/synthetic-history'

const CHILD = resolve(__dirname, '../../fixtures/crash/apply-pages-child.ts')
const COUNT = 6000
const AT_CUTOVER = 2500
const PAGE_SIZE = 50
const SEED = 7

interface Committed {
  pages: number
  cursor: string
  seen: number
  created: string
}

interface Snapshot {
  cursor: string | null
  seen: number
  ids: Set<number>
}

let root: string
/** The state after each page of an uninterrupted run, indexed by pages applied. */
const reference: Snapshot[] = []
const allIds = new Set<number>()

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'rampdesk-crash-'))
  const history = syntheticHistory({ count: COUNT, atCutover: AT_CUTOVER, seed: SEED })
  for (const r of history) allIds.add(r.orderId)
  const store = openLocalStore(join(root, 'reference'))
  const ids = new Set<number>()
  reference.push({ cursor: null, seen: 0, ids: new Set() })
  syncHistory(store.orders, new SyntheticHistoryService(history), {
    pageSize: PAGE_SIZE,
    onCommitted: (r) => {
      for (const c of r.created) ids.add(c.orderId)
      reference[r.cursor.pagesApplied] = { cursor: r.cursor.cursor, seen: r.cursor.seenAtCursor, ids: new Set(ids) }
    }
  })
  store.close()
})

afterAll(() => {
  rmSync(root, { recursive: true, force: true })
})

/** Runs the child on dir; kills it with SIGKILL once it has reported killAfter pages (if given). */
function runChild(
  dir: string,
  killAfter?: number
): Promise<{ committed: Committed[]; done: boolean; signal: NodeJS.Signals | null; stderr: string }> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', CHILD, dir, String(COUNT), String(AT_CUTOVER), String(PAGE_SIZE), String(SEED)],
      {
        cwd: resolve(__dirname, '../../..'),
        stdio: ['ignore', 'pipe', 'pipe']
      }
    )
    const committed: Committed[] = []
    let done = false
    let buffer = ''
    let stderr = ''
    child.stdout.setEncoding('utf8')
    child.stdout.on('data', (chunk: string) => {
      buffer += chunk
      let nl: number
      while ((nl = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, nl)
        buffer = buffer.slice(nl + 1)
        if (line === 'done') done = true
        else if (line.startsWith('committed ')) committed.push(JSON.parse(line.slice('committed '.length)) as Committed)
        if (killAfter !== undefined && committed.length >= killAfter && child.exitCode === null && !child.killed) child.kill('SIGKILL')
      }
    })
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()))
    child.on('error', reject)
    // 'close' waits for stdout to drain, so every line the child wrote has been read.
    child.on('close', (_code, signal) => resolvePromise({ committed, done, signal, stderr }))
  })
}

function checkAgainstReference(dir: string, reported: Committed[]): number {
  const lastReported = reported.at(-1)!
  const store = openLocalStore(dir)
  try {
    expect(store.database.integrityCheck()).toBe('ok')
    const cursor = store.orders.getCursor(1, 1)
    // The kill may land after a commit but before its report reached stdout: one page more.
    expect([lastReported.pages, lastReported.pages + 1]).toContain(cursor.pagesApplied)
    const expected = reference[cursor.pagesApplied]
    expect(expected, `reference has page ${cursor.pagesApplied}`).toBeDefined()
    expect(cursor.cursor).toBe(expected!.cursor)
    expect(cursor.seenAtCursor).toBe(expected!.seen)
    const stored = new Set(
      store.database.sql.all<{ order_id: number }>('SELECT order_id FROM orders WHERE type = 1').map((r) => r.order_id)
    )
    // Exactly the orders of the committed pages: nothing from a half-applied page.
    expect(stored.size).toBe(expected!.ids.size)
    expect([...stored].every((id) => expected!.ids.has(id))).toBe(true)
    // Every page the child reported is in, and was the page an uninterrupted run applies.
    for (const c of reported) {
      expect(c.cursor).toBe(reference[c.pages]!.cursor)
      for (const id of c.created ? c.created.split(',').map(Number) : []) expect(stored.has(id)).toBe(true)
    }
    // One 'created' event per stored order.
    const events = store.database.sql.value<number>('SELECT COUNT(*) FROM order_events WHERE old_status IS NULL') ?? 0
    expect(events).toBe(stored.size)
    return cursor.pagesApplied
  } finally {
    store.close()
  }
}

describe('history sync killed mid-way', () => {
  it('keeps exactly the committed pages and resumes to the exact expected set', async () => {
    const dir = join(root, 'victim')
    const totalPages = reference.length - 1
    expect(totalPages).toBeGreaterThan(60)

    const first = await runChild(dir, 15)
    expect(first.done, first.stderr).toBe(false)
    expect(first.signal).toBe('SIGKILL')
    expect(first.committed.length).toBeGreaterThanOrEqual(15)
    const after1 = checkAgainstReference(dir, first.committed)
    expect(after1).toBeLessThan(totalPages)

    // Resume from the cursor and crash again.
    const second = await runChild(dir, 20)
    expect(second.done, second.stderr).toBe(false)
    expect(second.signal).toBe('SIGKILL')
    // It resumed where the database said, not from the start.
    expect(second.committed[0]!.pages).toBe(after1 + 1)
    const after2 = checkAgainstReference(dir, second.committed)
    expect(after2).toBeGreaterThan(after1)
    expect(after2).toBeLessThan(totalPages)

    // Resume to the end.
    const last = await runChild(dir)
    expect(last.done, last.stderr).toBe(true)
    expect(last.committed[0]!.pages).toBe(after2 + 1)
    const store = openLocalStore(dir)
    try {
      expect(store.database.integrityCheck()).toBe('ok')
      const rows = store.database.sql.all<{ order_id: number }>('SELECT order_id FROM orders WHERE type = 1')
      expect(rows.length).toBe(COUNT)
      expect(new Set(rows.map((r) => r.order_id))).toEqual(allIds)
      expect(store.database.sql.value<number>('SELECT COUNT(*) FROM order_events')).toBe(COUNT)
      const cursor = store.orders.getCursor(1, 1)
      expect(cursor.cursor).toBe(reference[totalPages]!.cursor)
      expect(cursor.pagesApplied).toBe(totalPages)
    } finally {
      store.close()
    }
  })
})
