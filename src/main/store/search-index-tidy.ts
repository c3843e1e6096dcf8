// Keeps each order type's trigram index (orders_text_N) in few segments. FTS5 writes every
// transaction's entries as a new segment and merges segments of like size as they pile up,
// so after a large first sync the index is several segments of comparable size, and a
// search looks up each of its trigrams in every one: at a million orders about 3x the time
// of the same index merged into one (bench/query-probe.ts; docs/performance-scale.md).
// Merging is work that grows with the index (about 8 s at a million orders), so it runs in
// small steps with the event loop free between them, and only once the segments beside the
// largest hold a share of it: the index has then grown by that share since it was last
// merged whole, so the work stays in proportion to the orders written. While the operator
// is reading orders it waits, so that no step lands between their keystroke and its rows.
import { setImmediate as yieldToEventLoop, setTimeout as sleep } from 'node:timers/promises'
import type { Sql } from './sql'

/** The per-order trigram indexes (migration 5). */
export const ORDER_TEXT_INDEXES = ['orders_text_1', 'orders_text_2'] as const
type TextIndex = (typeof ORDER_TEXT_INDEXES)[number]

/**
 * An index's segments by size: the _idx shadow table holds one row per leaf page on which
 * a segment's terms start anew, so its rows per segment follow the segment's size.
 */
export function segmentSizes(sql: Sql, index: TextIndex): number[] {
  return sql.all<{ n: number }>(`SELECT COUNT(*) AS n FROM ${index}_idx GROUP BY segid ORDER BY n DESC`).map((r) => r.n)
}

/** The index's pages (its _data shadow table holds one row per page). */
export function indexPages(sql: Sql, index: TextIndex): number {
  return sql.value<number>(`SELECT COUNT(*) FROM ${index}_data`) ?? 0
}

/** Whether the segments beside the largest hold `share` of it or more (and the index is worth the work). */
export function wantsMerge(sizes: readonly number[], share: number, minSize: number): boolean {
  const [largest = 0, ...rest] = sizes
  const others = rest.reduce((a, b) => a + b, 0)
  return rest.length > 0 && largest + others >= minSize && others >= share * largest
}

/**
 * One step of merging the whole index into one segment, writing about `pages` pages;
 * false when there was nothing left to merge (FTS5's 'merge' with a negative page count
 * merges across levels; a step that changed under two rows did no work).
 */
export function mergeStep(sql: Sql, index: TextIndex, pages: number): boolean {
  const before = sql.value<number>('SELECT total_changes()') ?? 0
  sql.run(`INSERT INTO ${index} (${index}, rank) VALUES ('merge', ?)`, -Math.abs(pages))
  return (sql.value<number>('SELECT total_changes()') ?? 0) - before >= 2
}

/** How long a merge waits before looking again whether the operator is still reading orders. */
const BUSY_WAIT_MS = 250

export interface SearchIndexTidyOptions {
  sql: Sql
  /** How often the segments are looked at. Default every 2 minutes. */
  everyMs?: number
  /** When they are first looked at after start(). Default 30 s: the look reads the index's page list (a few ms at a million orders), kept off start-up. */
  firstLookMs?: number
  /** Pages written per step (about 15 ms each here). Default 200. */
  pagesPerStep?: number
  /** Default 0.25: merge once the other segments hold a quarter of the largest. */
  share?: number
  /** An index smaller than this many _idx rows is left as it is. Default 2,000 (about 100,000 orders). */
  minSize?: number
  /** Whether someone is reading orders now: no step is taken until it says no. */
  busy?: () => boolean
  onError?: (error: unknown) => void
  /** Told of each index merged whole, with its segments before and the time taken. */
  onMerged?: (index: string, segments: number, ms: number) => void
}

export class SearchIndexTidy {
  private timer: NodeJS.Timeout | undefined
  private running: Promise<string[]> | null = null
  private stopped = false

  constructor(private readonly o: SearchIndexTidyOptions) {}

  /** Looks after firstLookMs, then on the schedule. */
  start(): void {
    this.stopped = false
    const run = () => void this.runNow().catch((e: unknown) => this.o.onError?.(e))
    this.timer = setTimeout(() => {
      run()
      this.timer = setInterval(run, this.o.everyMs ?? 120_000)
      this.timer.unref()
    }, this.o.firstLookMs ?? 30_000)
    this.timer.unref()
  }

  /** Merges each index that wants it; the indexes merged. A call while a run is under way waits for that run. */
  runNow(): Promise<string[]> {
    this.running ??= this.run().finally(() => (this.running = null))
    return this.running
  }

  /** Stops the schedule and waits for a run under way (it ends after its current step; the rest is merged next time). */
  async stop(): Promise<void> {
    this.stopped = true
    clearTimeout(this.timer)
    clearInterval(this.timer)
    this.timer = undefined
    await this.running?.catch(() => undefined)
  }

  private async run(): Promise<string[]> {
    const merged: string[] = []
    for (const index of ORDER_TEXT_INDEXES) {
      if (this.stopped) break
      const sizes = segmentSizes(this.o.sql, index)
      if (!wantsMerge(sizes, this.o.share ?? 0.25, this.o.minSize ?? 2000)) continue
      const t0 = performance.now()
      const pages = this.o.pagesPerStep ?? 200
      // Segments written while it merges (a sync under way) are merged in as well, so a
      // run could go on as long as the writes: it stops after rewriting the index about
      // once and a half, and the next look decides again.
      let steps = Math.ceil((indexPages(this.o.sql, index) * 1.5) / pages) + 1
      let done = false
      for (; steps > 0; steps--) {
        while (!this.stopped && this.o.busy?.()) await sleep(BUSY_WAIT_MS)
        if (this.stopped) break
        if (!mergeStep(this.o.sql, index, pages)) {
          done = true
          break
        }
        await yieldToEventLoop()
      }
      if (this.stopped) break
      if (!done) continue
      merged.push(index)
      this.o.onMerged?.(index, sizes.length, Math.round(performance.now() - t0))
    }
    return merged
  }
}
