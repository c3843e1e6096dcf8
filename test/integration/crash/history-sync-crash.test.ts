// Crash safety of history sync: a child process runs the app's HistorySync into a profile
// database and is SIGKILLed mid-way (twice); each time the database must reopen cleanly,
// hold exactly the pages committed so far (every reported page, never part of a page)
// with the cursor of the last of them, and resuming must end with exactly the expected
// orders: none lost, none twice. The first kill lands in a first sync, whose pages are
// those of an uninterrupted run; a resumed run starts with a look-back, so after the
// second kill the database is checked against what the child reported instead.
// Those kills land wherever the child happens to be, which is seldom inside a page write:
// so the child is also killed at counted statements inside the write of one page
// (page-write-points.ts), from the first to the last, and each time the database must hold
// the pages before it, whole, and nothing of that page.
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openLocalStore } from '../../../src/main/store/local-store'
import { killedLine, watchPageWrites, type KillPoint } from '../../fixtures/crash/page-write-points'
import { SyntheticHistoryService, syncHistory, syntheticHistory } from '../../fixtures/crash/synthetic-history'

const CHILD = resolve(__dirname, '../../fixtures/crash/apply-pages-child.ts')
const COUNT = 6000
const AT_CUTOVER = 2500
const PAGE_SIZE = 50
const SEED = 7
/** A page of the 2,500 orders sharing the cutover instant (the cursor keeps their ids), and one past them (the cursor moves). */
const TIE_PAGE = 4
const LATER_PAGE = 55

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
/** How many write statements each page of an uninterrupted run takes. */
let statementsOf = new Map<number, number>()

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'rampdesk-crash-'))
  const history = syntheticHistory({ count: COUNT, atCutover: AT_CUTOVER, seed: SEED })
  for (const r of history) allIds.add(r.orderId)
  const store = openLocalStore(join(root, 'reference'))
  statementsOf = watchPageWrites(store)
  const ids = new Set<number>()
  reference.push({ cursor: null, seen: 0, ids: new Set() })
  await syncHistory(store, new SyntheticHistoryService(history), {
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

/**
 * Runs the child on dir; kills it with SIGKILL once it has reported killAfter pages (if
 * given), or has it kill itself at `killAt` inside a page's write.
 */
function runChild(
  dir: string,
  killAfter?: number,
  killAt?: KillPoint
): Promise<{ committed: Committed[]; done: boolean; killed: boolean; signal: NodeJS.Signals | null; stderr: string }> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', CHILD, dir, String(COUNT), String(AT_CUTOVER), String(PAGE_SIZE), String(SEED)],
      {
        cwd: resolve(__dirname, '../../..'),
        stdio: ['ignore', 'pipe', 'pipe'],
        env: killAt ? { ...process.env, CRASH_KILL_AT: `${killAt.page}:${killAt.statement}` } : process.env
      }
    )
    const committed: Committed[] = []
    let done = false
    let killed = false
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
        else if (killAt && line === killedLine(killAt)) killed = true
        else if (line.startsWith('committed ')) committed.push(JSON.parse(line.slice('committed '.length)) as Committed)
        if (killAfter !== undefined && committed.length >= killAfter && child.exitCode === null && !child.killed) child.kill('SIGKILL')
      }
    })
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()))
    child.on('error', reject)
    // 'close' waits for stdout to drain, so every line the child wrote has been read.
    child.on('close', (_code, signal) => resolvePromise({ committed, done, killed, signal, stderr }))
  })
}

/**
 * Opens the killed child's database and checks it holds exactly the pages committed: the
 * reported ones and at most one more (the kill may land after a commit, before its
 * report). With `reference`, the pages must also be those of an uninterrupted run.
 */
function checkCommitted(
  dir: string,
  reported: Committed[],
  opts: { reference: boolean; before?: ReadonlySet<number> }
): { pages: number; ids: Set<number> } {
  const lastReported = reported.at(-1)!
  const store = openLocalStore(dir)
  try {
    expect(store.database.integrityCheck()).toBe('ok')
    const cursor = store.syncCursors.get(1, 1)
    expect([lastReported.pages, lastReported.pages + 1]).toContain(cursor.pagesApplied)
    const rows = store.database.sql.all<{ order_id: number; updated_at: string }>('SELECT order_id, updated_at FROM orders WHERE type = 1')
    const stored = new Set(rows.map((r) => r.order_id))
    // Every page the child reported is in.
    const reportedIds = new Set<number>(opts.before)
    for (const c of reported) for (const id of c.created ? c.created.split(',').map(Number) : []) reportedIds.add(id)
    expect([...reportedIds].every((id) => stored.has(id))).toBe(true)
    if (cursor.pagesApplied === lastReported.pages) expect(stored.size).toBe(reportedIds.size)
    else expect(stored.size - reportedIds.size).toBeLessThanOrEqual(PAGE_SIZE)
    // The cursor is the newest record committed, never past it.
    expect(cursor.cursor).toBe(rows.reduce<string | null>((m, r) => (m === null || r.updated_at > m ? r.updated_at : m), null))
    if (opts.reference) {
      const expected = reference[cursor.pagesApplied]
      expect(expected, `reference has page ${cursor.pagesApplied}`).toBeDefined()
      expect(cursor.cursor).toBe(expected!.cursor)
      expect(cursor.seenAtCursor).toBe(expected!.seen)
      // Exactly the orders of the committed pages: nothing from a half-applied page.
      expect(stored.size).toBe(expected!.ids.size)
      expect([...stored].every((id) => expected!.ids.has(id))).toBe(true)
      for (const c of reported) expect(c.cursor).toBe(reference[c.pages]!.cursor)
    }
    // One 'created' event per stored order.
    const events = store.database.sql.value<number>('SELECT COUNT(*) FROM order_events WHERE old_status IS NULL') ?? 0
    expect(events).toBe(stored.size)
    return { pages: cursor.pagesApplied, ids: stored }
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
    const { pages: after1, ids: ids1 } = checkCommitted(dir, first.committed, { reference: true })
    expect(after1).toBeLessThan(totalPages)

    // Resume from the cursor and crash again.
    const second = await runChild(dir, 20)
    expect(second.done, second.stderr).toBe(false)
    expect(second.signal).toBe('SIGKILL')
    // It resumed where the database said, not from the start.
    expect(second.committed[0]!.pages).toBe(after1 + 1)
    const { pages: after2 } = checkCommitted(dir, second.committed, { reference: false, before: ids1 })
    expect(after2).toBeGreaterThan(after1)

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
      expect(store.syncCursors.get(1, 1).cursor).toBe(reference[totalPages]!.cursor)
    } finally {
      store.close()
    }
  })
})

/**
 * What the database of a child killed inside page `page`'s write holds, in words: "the
 * pages before it, whole" when it holds exactly those of an uninterrupted run (orders,
 * events, cursor and the ids kept at it) and nothing of that page; otherwise what is wrong.
 */
function afterKillInside(dir: string, page: number): string {
  const store = openLocalStore(dir)
  try {
    if (store.database.integrityCheck() !== 'ok') return 'the database is not intact'
    const expected = reference[page - 1]!
    const cursor = store.syncCursors.get(1, 1)
    const stored = new Set(
      store.database.sql.all<{ order_id: number }>('SELECT order_id FROM orders WHERE type = 1').map((r) => r.order_id)
    )
    const events = store.database.sql.value<number>('SELECT COUNT(*) FROM order_events') ?? 0
    const idsAtCursor = store.syncCursors.idsAtCursor(1, 1).length
    const extra = [...stored].filter((id) => !expected.ids.has(id)).length
    const missing = [...expected.ids].filter((id) => !stored.has(id)).length
    const wrong = [
      cursor.pagesApplied !== page - 1 ? `the cursor counts ${cursor.pagesApplied} pages` : '',
      cursor.cursor !== expected.cursor || cursor.seenAtCursor !== expected.seen
        ? `the cursor is ${cursor.cursor} with ${cursor.seenAtCursor} seen, not page ${page - 1}'s`
        : '',
      idsAtCursor !== expected.seen ? `${idsAtCursor} ids kept at the cursor for ${expected.seen} seen` : '',
      extra > 0 ? `${extra} orders of page ${page} stored` : '',
      missing > 0 ? `${missing} orders of earlier pages missing` : '',
      events !== stored.size ? `${events} order events for ${stored.size} orders` : ''
    ].filter((w) => w !== '')
    return wrong.length > 0 ? wrong.join('; ') : 'the pages before it, whole'
  } finally {
    store.close()
  }
}

describe('history sync killed inside a page write', () => {
  // From before the page's first write statement to before its last (the cursor's), with
  // points between: the page is either all committed or not at all, so every kill leaves
  // exactly the pages before it. A page written in several transactions leaves a part.
  it.each([
    { page: TIE_PAGE, at: [0, 1 / 3, 2 / 3, 1] },
    { page: LATER_PAGE, at: [1 / 2, 1] }
  ])(
    'page $page: holds the pages before it, whole, wherever in its write the kill lands',
    async ({ page, at }) => {
      const n = statementsOf.get(page)!
      expect(n, 'write statements of the page').toBeGreaterThan(PAGE_SIZE)
      const outcomes: string[] = []
      for (const statement of [...new Set(at.map((f) => Math.max(1, Math.round(f * n))))]) {
        const dir = join(root, `inside-${page}-${statement}`)
        const run = await runChild(dir, undefined, { page, statement })
        expect([run.killed, run.signal], run.stderr).toEqual([true, 'SIGKILL'])
        expect(run.committed.map((c) => c.pages)).toEqual(Array.from({ length: page - 1 }, (_, i) => i + 1))
        outcomes.push(`killed before write ${statement} of ${n}: ${afterKillInside(dir, page)}`)
        rmSync(dir, { recursive: true, force: true })
      }
      console.info(`page ${page}:\n  ${outcomes.join('\n  ')}`)
      expect(outcomes.filter((o) => !o.endsWith(': the pages before it, whole'))).toEqual([])
    },
    120_000
  )
})
