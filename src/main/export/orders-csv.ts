// CSV export of the filtered orders of one profile's database: streamed row by row to a
// 0600 file in the export folder (100,000 rows never sit in memory as one string), with
// progress reported every 5,000 rows and once at the end.
import { createWriteStream } from 'node:fs'
import { mkdir } from 'node:fs/promises'
import { once } from 'node:events'
import { join } from 'node:path'
import type { LocalStore } from '../store/local-store'
import { toStoreFilter } from '../order-rows'
import type { ExportProgress, ExportResult, OrderFilter } from '../../shared/ipc/contract'
import type { OfframpOrder, OnrampOrder } from '../../shared/api/schemas'
import { csvHeader, csvRecord, offrampCsvColumns, onrampCsvColumns, CSV_BOM } from '../../shared/domain/csv'
import { orderKindLabel } from '../../shared/domain/status'

export interface OrdersCsvExport {
  store: Pick<LocalStore, 'orders'>
  filter: OrderFilter
  /** The folder the file is written to (created when missing). */
  dir: string
  /** The time the file name is stamped with. */
  at: number
  onProgress(p: ExportProgress): void
}

const PROGRESS_EVERY = 5000

/** Writes the file, oldest change first, and answers where it is and how many rows it holds. */
export async function exportOrdersCsv(o: OrdersCsvExport): Promise<ExportResult> {
  const { filter } = o
  await mkdir(o.dir, { recursive: true })
  const stamp = new Date(o.at).toISOString().replace(/[:.]/g, '-')
  const path = join(o.dir, `rampdesk-${orderKindLabel(filter.type, 'lowercase')}-${stamp}.csv`)
  const storeFilter = toStoreFilter(filter)
  const total = o.store.orders.query({ ...storeFilter, limit: 1 }).total
  const out = createWriteStream(path, { mode: 0o600 })
  const columns = (filter.type === 1 ? onrampCsvColumns() : offrampCsvColumns()) as Parameters<
    typeof csvRecord<OnrampOrder | OfframpOrder>
  >[1]
  out.write(CSV_BOM + csvHeader(columns))
  let rows = 0
  for (const r of o.store.orders.exportRows({ ...storeFilter, sort: { key: 'updatedAt', dir: 'asc' } })) {
    if (!out.write(csvRecord(r.record, columns))) await once(out, 'drain')
    rows++
    if (rows % PROGRESS_EVERY === 0) o.onProgress({ rows, total, done: false })
  }
  out.end()
  await once(out, 'finish')
  o.onProgress({ rows, total, done: true })
  return { path, rows }
}
