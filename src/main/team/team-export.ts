// orders:export on a Team profile: the hub streams the CSV from its database and this
// desktop writes it to its own export folder, under the same name and 0600 mode as a
// local export, reporting progress as it goes. Records are counted as they pass (a line
// break inside a quoted field does not end one), so the answer says exactly how many
// rows the file holds. A broken stream leaves no partial file behind. A hub of an older
// version takes only {filter}: asked again without the column names it writes the API's
// (the answer says so), and it cannot put both types in one file (said plainly).
import { createWriteStream } from 'node:fs'
import { mkdir, rm } from 'node:fs/promises'
import { once } from 'node:events'
import { join } from 'node:path'
import { EXPORT_PROGRESS_EVERY, exportFileName } from '../export/orders-csv'
import type { ErrorInfo, ExportHeaders, ExportInput, ExportProgress, ExportResult } from '../../shared/ipc/contract'
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

/** A hub's refusal of a key it does not know: a hub of an older version, whose export takes only {filter}. */
const olderHub = (e: ErrorInfo): boolean => e.kind === 'invalid_input' && /unrecognized key/i.test(e.message)

async function refusal(r: Awaited<ReturnType<HubConnection['post']>>): Promise<ErrorInfo> {
  const text = await r.body.text()
  let error: ErrorInfo = {
    kind: 'http',
    httpStatus: r.statusCode,
    message: `the team hub refused the export (HTTP ${r.statusCode})`,
    retryable: false
  }
  try {
    error = (JSON.parse(text) as { error?: ErrorInfo }).error ?? error
  } catch {
    // keep the generic text
  }
  return error
}

export async function exportFromHub(o: {
  connection: HubConnection
  input: ExportInput
  dir: string
  at: number
  onProgress(p: ExportProgress): void
}): Promise<ExportResult> {
  // Only what differs from the defaults is sent: a hub of an older version refuses keys it does not know.
  const body = {
    filter: o.input.filter,
    ...(o.input.headers === 'words' ? { headers: 'words' } : {}),
    ...(o.input.bothTypes ? { bothTypes: true } : {})
  }
  let headers: ExportHeaders = o.input.headers ?? 'api'
  let r = await o.connection.post('/export/orders', body)
  if (r.statusCode === 400 && Object.keys(body).length > 1) {
    const error = await refusal(r)
    if (!olderHub(error)) throw new HubCallError(error)
    if (o.input.bothTypes)
      throw new HubCallError({
        kind: 'invalid_input',
        message:
          "your team's hub is of an older version and cannot put both order types in one file: export each type on its own, or ask your team's admin to update the hub",
        retryable: false
      })
    headers = 'api'
    r = await o.connection.post('/export/orders', { filter: o.input.filter })
  }
  if (r.statusCode !== 200) throw new HubCallError(await refusal(r))
  const total = Number(r.headers['x-rampdesk-total'] ?? 0)
  await mkdir(o.dir, { recursive: true })
  const file = exportFileName(o.input, o.at)
  const path = join(o.dir, file)
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
  return { path, rows: counter.records, file, headers }
}
