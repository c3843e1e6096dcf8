import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { GramFiller } from '../../../../src/main/store/gram-filler'
import { openLocalStore, type LocalStore } from '../../../../src/main/store/local-store'
import { gramsReady } from '../../../../src/main/store/order-grams'
import type { Sql } from '../../../../src/main/store/sql'
import { undoGramsMigration } from './grams-upgrade'
import { onramp } from './order-fixtures'

let dir: string
let store: LocalStore | null = null

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rampdesk-gram-filler-'))
})
afterEach(() => {
  store?.close()
  store = null
  rmSync(dir, { recursive: true, force: true })
})

/** A store upgraded to the gram index with `n` onramp orders held from before it. */
function upgraded(n: number): LocalStore {
  const s = openLocalStore(dir)
  s.orders.applyHistoryPage({
    type: 1,
    fiatType: 1,
    records: Array.from({ length: n }, (_, i) => onramp({ orderId: i + 1, merchantRecognitionId: `MR-REF-${i + 1}` })) as never
  })
  s.close()
  undoGramsMigration(dir)
  return openLocalStore(dir)
}

const pending = (sql: Sql): number | undefined => sql.value<number>('SELECT through_id FROM orders_grams_fill')

describe('GramFiller', () => {
  it('adds the orders held in steps, pausing between them, and says once how many it added', async () => {
    store = upgraded(50)
    const sql = store.database.sql
    const filled: Array<{ orders: number }> = []
    const between: number[] = []
    const filler = new GramFiller({ sql, batch: 8, pauseMs: 1, onFilled: (r) => filled.push(r) })
    // What the fill left for later, seen from the event loop between steps (another caller's turn).
    const watch = setInterval(() => between.push(pending(sql) ?? 0), 0)
    filler.start()
    expect(filler.current.kind).toBe('filling')
    await filler.settled()
    clearInterval(watch)
    expect(filler.current.kind).toBe('filled')
    expect(gramsReady(sql)).toBe(true)
    expect(filled).toEqual([{ orders: 50, ms: expect.any(Number) }])
    expect(sql.value('SELECT COUNT(*) FROM orders_grams_1')).toBe(50)
    // Others ran between the steps, while part of the orders was still to be added.
    expect(between.some((through) => through > 0 && through < 50)).toBe(true)
    expect(store.orders.query({ type: 1, search: 'mr-ref-37' }).rows.map((r) => r.orderId)).toEqual([37])
  })

  it('stopped mid-way, leaves the rest for the next start, which finishes it', async () => {
    store = upgraded(60)
    const sql = store.database.sql
    const first = new GramFiller({ sql, batch: 5, pauseMs: 20 })
    first.start()
    await new Promise((r) => setTimeout(r, 30))
    await first.stop()
    expect(first.current.kind).toBe('stopped')
    const left = pending(sql)
    expect(left).toBeGreaterThan(0)
    expect(left).toBeLessThan(60)
    // Every order above what is left is in the index; none below.
    expect(sql.value('SELECT MIN(rowid) FROM orders_grams_1')).toBe(left! + 1)
    const second = new GramFiller({ sql, batch: 5, pauseMs: 0 })
    second.start()
    await second.settled()
    expect(gramsReady(sql)).toBe(true)
    expect(sql.value('SELECT COUNT(*) FROM orders_grams_1')).toBe(60)
  })

  it('a step that fails is told and tried again, losing nothing', async () => {
    store = upgraded(20)
    const sql = store.database.sql
    const errors: unknown[] = []
    let failures = 2
    const { transaction } = sql
    // The database busy twice (another process holding the write lock past the busy timeout).
    sql.transaction = ((fn: () => unknown) => {
      if (failures-- > 0) throw Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' })
      return transaction.call(sql, fn)
    }) as typeof sql.transaction
    const filler = new GramFiller({ sql, batch: 6, pauseMs: 0, retryMs: 5, onError: (e) => errors.push(e) })
    filler.start()
    await filler.settled()
    expect(errors.map((e) => (e as Error).message)).toEqual(['database is locked', 'database is locked'])
    expect(gramsReady(sql)).toBe(true)
    expect(sql.value('SELECT COUNT(*) FROM orders_grams_1')).toBe(20)
  })

  it('on a profile created with the index, is filled at once and says nothing', async () => {
    store = openLocalStore(dir)
    const filled: unknown[] = []
    const filler = new GramFiller({ sql: store.database.sql, onFilled: (r) => filled.push(r) })
    filler.start()
    await filler.settled()
    expect(filler.current.kind).toBe('filled')
    expect(filled).toEqual([])
  })
})
