// CSV export of the filtered orders of one profile's database: streamed row by row to a
// 0600 file in the export folder (100,000 rows never sit in memory as one string), with
// progress reported every 5,000 rows and once at the end. One type, or both merged into
// one file oldest change first; column names in words or the API's (order-csv.ts). The
// same writer streams the file to a Team profile's desktop from its hub, which writes it
// on the desktop.
import { createWriteStream } from 'node:fs'
import { mkdir } from 'node:fs/promises'
import { once } from 'node:events'
import { join } from 'node:path'
import type { Writable } from 'node:stream'
import type { LocalStore } from '../store/local-store'
import { toStoreFilter } from '../order-rows'
import type { ExportInput, ExportProgress, ExportResult, OrderType } from '../../shared/ipc/contract'
import type { OfframpOrder, OnrampOrder } from '../../shared/api/schemas'
import { csvHeader, csvRecord, CSV_BOM, type CsvNameMappings } from '../../shared/domain/csv'
import { orderCsvColumns, type OrderCsvRow } from '../../shared/domain/order-csv'
import { orderKindLabel } from '../../shared/domain/status'
import type { StoredOrder } from '../store/orders-repo'

export interface OrdersCsvExport {
  store: Pick<LocalStore, 'orders' | 'claims'>
  input: ExportInput
  /** The names of fiats, coins and chains (csvNamesOf the configuration). */
  names: CsvNameMappings
  /** The folder the file is written to (created when missing). */
  dir: string
  /** The time the file name is stamped with. */
  at: number
  onProgress(p: ExportProgress): void
}

export const EXPORT_PROGRESS_EVERY = 5000

/** The types an export holds. */
export const exportTypes = (input: Pick<ExportInput, 'filter' | 'bothTypes'>): OrderType[] =>
  input.bothTypes ? [1, 2] : [input.filter.type]

/** The name of an export made at `at` (ExportFileName): rampdesk-onramp-…, rampdesk-offramp-…, or rampdesk-orders-… with both. */
export function exportFileName(input: Pick<ExportInput, 'filter' | 'bothTypes'>, at: number): string {
  const stamp = new Date(at).toISOString().replace(/[:.]/g, '-')
  return `rampdesk-${input.bothTypes ? 'orders' : orderKindLabel(input.filter.type, 'lowercase')}-${stamp}.csv`
}

/** Where an export made at `at` is written. */
export function exportFilePath(dir: string, input: Pick<ExportInput, 'filter' | 'bothTypes'>, at: number): string {
  return join(dir, exportFileName(input, at))
}

/** How many rows the export selects now (the progress total). */
export function exportTotal(store: Pick<LocalStore, 'orders'>, input: Pick<ExportInput, 'filter' | 'bothTypes'>): number {
  return exportTypes(input).reduce((n, type) => n + store.orders.total(toStoreFilter({ ...input.filter, type })), 0)
}

/** The rows of every type the export holds, oldest change first (the types merged by updatedAt, then type and id). */
function* exportRows(store: Pick<LocalStore, 'orders'>, input: Pick<ExportInput, 'filter' | 'bothTypes'>): Generator<StoredOrder> {
  const walks = exportTypes(input).map((type) =>
    store.orders.exportRows({ ...toStoreFilter({ ...input.filter, type }), sort: { key: 'updatedAt', dir: 'asc' } })
  )
  const heads = walks.map((w) => w.next())
  try {
    for (;;) {
      let pick = -1
      for (let i = 0; i < heads.length; i++) {
        const h = heads[i]!
        if (h.done) continue
        const best = pick < 0 ? null : heads[pick]!
        if (!best || best.done || h.value.updatedAt < best.value.updatedAt) pick = i
      }
      if (pick < 0) return
      yield (heads[pick] as IteratorYieldResult<StoredOrder>).value
      heads[pick] = walks[pick]!.next()
    }
  } finally {
    // Leaving early (a throw, the reader gone) resets each walk's statement.
    for (const w of walks) w.return(undefined)
  }
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
 * the signal's reason. Fiats, coins and chains are written by their names; the column
 * names are the API's unless the input asks for words.
 */
export async function writeOrdersCsv(
  store: Pick<LocalStore, 'orders' | 'claims'>,
  input: ExportInput,
  names: CsvNameMappings,
  out: Writable,
  { onRows, signal, tally = { rows: 0 }, pace }: CsvWriteOptions = {}
): Promise<number> {
  const columns = orderCsvColumns({ headers: input.headers ?? 'api', types: exportTypes(input), names })
  const drain = () => once(out, 'drain', signal ? { signal } : {})
  signal?.throwIfAborted()
  if (!out.write(CSV_BOM + csvHeader(columns))) await drain()
  tally.rows = 0
  // Leaving the loop (a throw included) returns the iterator, which resets the statements.
  for (const r of exportRows(store, input)) {
    signal?.throwIfAborted()
    const row: OrderCsvRow = {
      type: r.type,
      record: r.record as OnrampOrder | OfframpOrder,
      fiatType: r.fiatType,
      handledBy: store.claims.claim(r.type, r.orderId)?.operator ?? null,
      notes: store.claims.notes(r.type, r.orderId)
    }
    const full = !out.write(csvRecord(row, columns))
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
  const file = exportFileName(o.input, o.at)
  const path = join(o.dir, file)
  const total = exportTotal(o.store, o.input)
  const out = createWriteStream(path, { mode: 0o600 })
  const rows = await writeOrdersCsv(o.store, o.input, o.names, out, { onRows: (n) => o.onProgress({ rows: n, total, done: false }) })
  out.end()
  await once(out, 'finish')
  o.onProgress({ rows, total, done: true })
  return { path, rows, file, headers: o.input.headers ?? 'api' }
}
