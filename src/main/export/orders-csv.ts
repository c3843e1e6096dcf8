// CSV export of the filtered orders of one profile's database: streamed row by row to a
// 0600 file in the export folder (100,000 rows never sit in memory as one string), with
// progress reported every 5,000 rows and once at the end. The same writer streams the
// file to a Team profile's desktop from its hub, which writes it on the desktop.
import { createWriteStream } from 'node:fs'
import { mkdir } from 'node:fs/promises'
import { once } from 'node:events'
import { join } from 'node:path'
import type { Writable } from 'node:stream'
import type { LocalStore } from '../store/local-store'
import { toStoreFilter } from '../order-rows'
import type { ExportProgress, ExportResult, OrderFilter } from '../../shared/ipc/contract'
import type { OfframpOrder, OnrampOrder } from '../../shared/api/schemas'
import { csvHeader, csvRecord, offrampCsvColumns, onrampCsvColumns, CSV_BOM, type CsvNameMappings } from '../../shared/domain/csv'
import { orderKindLabel } from '../../shared/domain/status'

export interface OrdersCsvExport {
  store: Pick<LocalStore, 'orders'>
  filter: OrderFilter
  /** The names of fiats, coins and chains (csvNamesOf the configuration). */
  names: CsvNameMappings
  /** The folder the file is written to (created when missing). */
  dir: string
  /** The time the file name is stamped with. */
  at: number
  onProgress(p: ExportProgress): void
}

export const EXPORT_PROGRESS_EVERY = 5000

/** Where an export of this filter made at `at` is written. */
export function exportFilePath(dir: string, filter: Pick<OrderFilter, 'type'>, at: number): string {
  const stamp = new Date(at).toISOString().replace(/[:.]/g, '-')
  return join(dir, `rampdesk-${orderKindLabel(filter.type, 'lowercase')}-${stamp}.csv`)
}

/** How many rows the filter selects now (the progress total). */
export function exportTotal(store: Pick<LocalStore, 'orders'>, filter: OrderFilter): number {
  return store.orders.total(toStoreFilter(filter))
}

export interface CsvWriteOptions {
  /** Called every EXPORT_PROGRESS_EVERY rows. */
  onRows?: (rows: number) => void
  /** Aborted when the reader went away. */
  signal?: AbortSignal
  /** Kept up to date with the rows written, also when the write stops early. */
  tally?: { rows: number }
  /**
   * Awaited after every `every` rows: a server yields to its other work here (and may make
   * the writer wait its turn), so a long export never holds the event loop.
   */
  pace?: { every: number; pause: () => Promise<void> }
}

/**
 * Writes the CSV (BOM, header, one record per order, oldest change first) to `out`, without
 * ending it; answers the rows written. Waits for `out` to drain when it is full; when
 * `signal` aborts (the reader went away) it stops, ends its walk of the database, and throws
 * the signal's reason. Fiats, coins and chains are written by their names.
 */
export async function writeOrdersCsv(
  store: Pick<LocalStore, 'orders'>,
  filter: OrderFilter,
  names: CsvNameMappings,
  out: Writable,
  { onRows, signal, tally = { rows: 0 }, pace }: CsvWriteOptions = {}
): Promise<number> {
  const columns = (filter.type === 1 ? onrampCsvColumns(names) : offrampCsvColumns(names)) as Parameters<
    typeof csvRecord<OnrampOrder | OfframpOrder>
  >[1]
  const drain = () => once(out, 'drain', signal ? { signal } : {})
  signal?.throwIfAborted()
  if (!out.write(CSV_BOM + csvHeader(columns))) await drain()
  tally.rows = 0
  // Leaving the loop (a throw included) returns the iterator, which resets the statement.
  for (const r of store.orders.exportRows({ ...toStoreFilter(filter), sort: { key: 'updatedAt', dir: 'asc' } })) {
    signal?.throwIfAborted()
    const full = !out.write(csvRecord(r.record, columns))
    tally.rows++
    if (tally.rows % EXPORT_PROGRESS_EVERY === 0) onRows?.(tally.rows)
    if (full) await drain()
    if (pace && tally.rows % pace.every === 0) await pace.pause()
  }
  return tally.rows
}

/** Writes the file, oldest change first, and answers where it is and how many rows it holds. */
export async function exportOrdersCsv(o: OrdersCsvExport): Promise<ExportResult> {
  await mkdir(o.dir, { recursive: true })
  const path = exportFilePath(o.dir, o.filter, o.at)
  const total = exportTotal(o.store, o.filter)
  const out = createWriteStream(path, { mode: 0o600 })
  const rows = await writeOrdersCsv(o.store, o.filter, o.names, out, { onRows: (n) => o.onProgress({ rows: n, total, done: false }) })
  out.end()
  await once(out, 'finish')
  o.onProgress({ rows, total, done: true })
  return { path, rows }
}
