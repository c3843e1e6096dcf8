// orders:export on a Team profile: the hub streams the CSV from its database and this
// desktop writes it to its own export folder, under the same name and 0600 mode as a
// local export, reporting progress as it goes. Records are counted as they pass (a line
// break inside a quoted field does not end one), so the answer says exactly how many
// rows the file holds. A broken stream leaves no partial file behind.
import { createWriteStream } from 'node:fs'
import { mkdir, rm } from 'node:fs/promises'
import { once } from 'node:events'
import { EXPORT_PROGRESS_EVERY, exportFilePath } from '../export/orders-csv'
import type { ExportProgress, ExportResult, OrderFilter } from '../../shared/ipc/contract'
import type { HubConnection } from './hub-connection'
import { HubCallError } from './team-session'

/** Counts CSV records (RFC 4180: quotes toggle, doubled quotes toggle twice) across chunks. */
export class CsvRecordCounter {
  private quoted = false
  lines = 0

  push(chunk: Buffer): void {
    for (let i = 0; i < chunk.length; i++) {
      const b = chunk[i]
      if (b === 0x22) this.quoted = !this.quoted
      else if (b === 0x0a && !this.quoted) this.lines++
    }
  }

  /** Records after the header line. */
  get records(): number {
    return Math.max(0, this.lines - 1)
  }
}

export async function exportFromHub(o: {
  connection: HubConnection
  filter: OrderFilter
  dir: string
  at: number
  onProgress(p: ExportProgress): void
}): Promise<ExportResult> {
  const r = await o.connection.post('/export/orders', { filter: o.filter })
  if (r.statusCode !== 200) {
    const text = await r.body.text()
    let error = {
      kind: 'http',
      httpStatus: r.statusCode,
      message: `the team hub refused the export (HTTP ${r.statusCode})`,
      retryable: false
    }
    try {
      error = (JSON.parse(text) as { error: typeof error }).error ?? error
    } catch {
      // keep the generic text
    }
    throw new HubCallError(error)
  }
  const total = Number(r.headers['x-rampdesk-total'] ?? 0)
  await mkdir(o.dir, { recursive: true })
  const path = exportFilePath(o.dir, o.filter, o.at)
  const out = createWriteStream(path, { mode: 0o600 })
  const counter = new CsvRecordCounter()
  let reported = 0
  try {
    for await (const chunk of r.body) {
      counter.push(chunk as Buffer)
      if (!out.write(chunk)) await once(out, 'drain')
      if (counter.records - reported >= EXPORT_PROGRESS_EVERY) {
        reported = counter.records - (counter.records % EXPORT_PROGRESS_EVERY)
        o.onProgress({ rows: reported, total, done: false })
      }
    }
    out.end()
    await once(out, 'finish')
  } catch (e) {
    out.destroy()
    await rm(path, { force: true })
    throw new HubCallError({ kind: 'network', message: `the export from the team hub broke off: ${(e as Error).message}`, retryable: true })
  }
  o.onProgress({ rows: counter.records, total, done: true })
  return { path, rows: counter.records }
}
