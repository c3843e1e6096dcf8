import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { openLocalStore, type LocalStore } from '../../../../src/main/store/local-store'
import { SearchIndexTidy, segmentSizes, wantsMerge } from '../../../../src/main/store/search-index-tidy'
import { onramp } from './order-fixtures'

let dir: string
let store: LocalStore

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rampdesk-tidy-'))
  store = openLocalStore(dir)
})
afterEach(() => {
  store.close()
  rmSync(dir, { recursive: true, force: true })
})

/** Onramp orders written a page at a time, as a first sync writes them: a segment per page. */
function writePages(pages: number, perPage: number, from = 0): void {
  for (let p = 0; p < pages; p++) {
    const records = []
    for (let i = 0; i < perPage; i++) {
      const n = from + p * perPage + i
      records.push(
        onramp({
          orderId: 100_000 + n,
          merchantRecognitionId: `MR-${n.toString(36)}-${(n * 7919).toString(16)}`,
          transactionHash: `0x${(n * 2654435761).toString(16).padStart(12, '0')}${n.toString(16)}`,
          referenceId: `UTR${n * 31}`
        })
      )
    }
    store.orders.applyHistoryPage({ type: 1, fiatType: 1, records: records as never })
  }
}

const found = (search: string): number[] => store.orders.query({ type: 1, search, limit: 1000 }).rows.map((r) => r.orderId)

describe('SearchIndexTidy', () => {
  it('merges an index left in many segments into one, and every search finds what it found before', async () => {
    writePages(40, 50)
    const sql = store.database.sql
    expect(segmentSizes(sql, 'orders_text_1').length).toBeGreaterThan(1)
    const searches = ['mr-1', 'utr3', '0x00', '2a', 'a-1']
    const before = searches.map(found)
    expect(before.flat().length).toBeGreaterThan(50)
    const tidy = new SearchIndexTidy({ sql, share: 0, minSize: 0, pagesPerStep: 2 })
    expect(await tidy.runNow()).toEqual(['orders_text_1'])
    expect(segmentSizes(sql, 'orders_text_1')).toHaveLength(1)
    expect(searches.map(found)).toEqual(before)
    // Nothing left to merge: the next look does nothing.
    expect(await tidy.runNow()).toEqual([])
    // Orders written after are in new segments, found beside the merged one.
    writePages(2, 50, 2000)
    expect(found(`utr${2050 * 31}`)).toEqual([102050])
  })

  it('leaves an index whose other segments are small beside its largest, or which is small', () => {
    expect(wantsMerge([1000, 100, 50], 0.25, 0)).toBe(false)
    expect(wantsMerge([1000, 200, 50], 0.25, 0)).toBe(true)
    expect(wantsMerge([1000], 0, 0)).toBe(false)
    expect(wantsMerge([], 0, 0)).toBe(false)
    expect(wantsMerge([1000, 900], 0.25, 5000)).toBe(false)
  })

  it('started, looks first after its delay, not during start-up', async () => {
    writePages(40, 50)
    const sql = store.database.sql
    let looked = 0
    const tidy = new SearchIndexTidy({ sql, share: 0, minSize: 0, pagesPerStep: 50, firstLookMs: 300, onMerged: () => looked++ })
    const changes = () => sql.value<number>('SELECT total_changes()')
    const before = changes()
    tidy.start()
    await new Promise((r) => setTimeout(r, 100))
    // No step written yet.
    expect(changes()).toBe(before)
    expect(looked).toBe(0)
    expect(segmentSizes(sql, 'orders_text_1').length).toBeGreaterThan(1)
    await expect.poll(() => looked, { timeout: 5000 }).toBe(1)
    expect(segmentSizes(sql, 'orders_text_1')).toHaveLength(1)
    await tidy.stop()
  })

  it('takes no step while someone reads orders, and merges once they stop', async () => {
    writePages(40, 50)
    const sql = store.database.sql
    let reading = true
    const tidy = new SearchIndexTidy({ sql, share: 0, minSize: 0, pagesPerStep: 50, busy: () => reading })
    const run = tidy.runNow()
    await new Promise((r) => setTimeout(r, 600))
    expect(segmentSizes(sql, 'orders_text_1').length).toBeGreaterThan(1)
    reading = false
    expect(await run).toEqual(['orders_text_1'])
    expect(segmentSizes(sql, 'orders_text_1')).toHaveLength(1)
  })

  it('ends a run while orders keep being written (a sync under way), after rewriting the index about once and a half', async () => {
    writePages(40, 50)
    const sql = store.database.sql
    let written = 0
    // Called before every step: a page of orders lands between any two steps.
    const writing = () => {
      writePages(1, 20, 5000 + 20 * written++)
      return false
    }
    const tidy = new SearchIndexTidy({ sql, share: 0, minSize: 0, pagesPerStep: 4, busy: writing })
    const merged = await tidy.runNow()
    expect(written).toBeGreaterThan(5)
    // Whether it caught up or not, it ended; the orders written meanwhile are all found.
    expect(merged.length).toBeLessThanOrEqual(1)
    expect(store.orders.query({ type: 1, search: `utr${(5000 + 20 * (written - 1)) * 31}` }).total).toBe(1)
  }, 20_000)

  it('stops between steps when asked, and merges the rest at its next run', async () => {
    writePages(40, 50)
    const sql = store.database.sql
    const tidy = new SearchIndexTidy({ sql, share: 0, minSize: 0, pagesPerStep: 1 })
    const run = tidy.runNow()
    await tidy.stop()
    expect(await run).toEqual([])
    expect(segmentSizes(sql, 'orders_text_1').length).toBeGreaterThan(1)
    const again = new SearchIndexTidy({ sql, share: 0, minSize: 0, pagesPerStep: 50 })
    expect(await again.runNow()).toEqual(['orders_text_1'])
    expect(segmentSizes(sql, 'orders_text_1')).toHaveLength(1)
  })
})
