// POST /export/orders {filter}: the CSV a desktop's orders:export writes, streamed from the
// hub's database (the same writer as the desktop's own export). Anyone who may read orders
// may export them; the total rows come first, in X-Rampdesk-Total, for progress.
//
// Audited twice, since an export takes the team's orders off the hub: when it starts
// (operator, filter, rows selected) and when it ends (rows sent and the outcome: complete,
// aborted when the desktop went away, or failed). A desktop that goes away mid-stream, or
// keeps the connection but reads nothing for EXPORT_STALL_MS, ends the walk of the database:
// the writer's wait for the socket to drain is cut, and the statement is reset
// (Sql.iterate), so nothing waits forever and no read snapshot is held.
import type { IncomingMessage, ServerResponse } from 'node:http'
import { setImmediate as yieldToLoop } from 'node:timers/promises'
import { exportTotal, writeOrdersCsv } from '../main/export/orders-csv'
import { csvNamesOf } from '../shared/domain/csv'
import { parseInput, toEnvelopeError, type ExportInput } from '../shared/ipc/contract'
import type { Hub } from './hub'
import type { Operator } from './operators'
import type { RateCap } from './rate-cap'

export type ExportOutcome = 'complete' | 'aborted' | 'failed'

export interface ExportDeps {
  hub: Pick<Hub, 'session' | 'audit' | 'log'>
  /** The operator's request budget: an export pays one request per EXPORT_BATCH rows. */
  rateCap: Pick<RateCap, 'take'>
  /** Exports running now, per operator (shared by every request of the server). */
  running: Map<string, number>
  /** Reads the request body (null when it is over the cap). */
  readBody(req: IncomingMessage): Promise<string | null>
  /** Answers an error envelope. */
  refuse(res: ServerResponse, status: number, body: unknown): void
  /** How long the desktop may stop reading before the export is given up (default EXPORT_STALL_MS). */
  stallMs?: number
}

/** A desktop that reads nothing of its export for this long has abandoned it. */
export const EXPORT_STALL_MS = 5_000
/** Rows written between two yields to the hub's other work; each batch costs the operator one request. */
export const EXPORT_BATCH = 500
/** Exports one operator, and the whole team, may run at once. */
export const EXPORTS_PER_OPERATOR = 1
export const EXPORTS_AT_ONCE = 2
/** An export still running after this is given up (its read snapshot would hold back the database's log). */
export const EXPORT_MAX_MS = 10 * 60_000

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms).unref())

export async function exportOrders(op: Operator, req: IncomingMessage, res: ServerResponse, d: ExportDeps): Promise<void> {
  const text = await d.readBody(req)
  if (text === null)
    return d.refuse(res, 413, { ok: false, error: { kind: 'invalid_input', message: 'request too large', retryable: false } })
  // The body is the channel's input: {filter, headers?, bothTypes?} (a desktop of an older version sends {filter}).
  let input: ExportInput
  try {
    input = parseInput('orders:export', JSON.parse(text || '{}'))
  } catch (e) {
    return d.refuse(res, 400, { ok: false, error: toEnvelopeError(e) })
  }
  const mine = d.running.get(op.name) ?? 0
  const all = [...d.running.values()].reduce((a, b) => a + b, 0)
  if (mine >= EXPORTS_PER_OPERATOR || all >= EXPORTS_AT_ONCE) {
    res.setHeader('Retry-After', '10')
    return d.refuse(res, 429, {
      ok: false,
      error: {
        kind: 'rate_limited',
        message:
          mine >= EXPORTS_PER_OPERATOR
            ? `${op.name} already has an export running; try again when it is done`
            : `the team hub is running ${all} exports; try again in a moment`,
        retryable: true
      }
    })
  }
  d.running.set(op.name, mine + 1)
  try {
    await run(op, res, input, d)
  } finally {
    const left = (d.running.get(op.name) ?? 1) - 1
    if (left > 0) d.running.set(op.name, left)
    else d.running.delete(op.name)
  }
}

async function run(op: Operator, res: ServerResponse, input: ExportInput, d: ExportDeps): Promise<void> {
  const { hub } = d
  const { filter } = input
  const store = hub.session().store
  const total = exportTotal(store, input)
  // Fiats, coins and chains by the names the configuration gives them (cached; fetched at start).
  const config = hub.session().config
  const names = csvNamesOf(await config.get().catch(() => config.snapshot()))
  const started = Date.now()
  const asked = { filter, ...(input.headers ? { headers: input.headers } : {}), ...(input.bothTypes ? { bothTypes: true } : {}) }
  hub.audit.append(op.name, 'orders:export:start', { ...asked, total })
  hub.log.info(`${op.name} (${op.role}) started an export of ${total} orders`)

  const gone = new AbortController()
  const onClose = () => {
    if (!res.writableFinished) gone.abort(new Error('the desktop closed the connection before the export was complete'))
  }
  res.once('close', onClose)
  // A desktop that keeps the connection but stops reading: no drain for EXPORT_STALL_MS.
  let drainedAt = Date.now()
  const onDrain = () => void (drainedAt = Date.now())
  res.on('drain', onDrain)
  const watchdog = setInterval(() => {
    if (Date.now() - started > EXPORT_MAX_MS) gone.abort(new Error(`the export took longer than ${EXPORT_MAX_MS / 60_000} min`))
    if (res.writableNeedDrain && Date.now() - drainedAt > (d.stallMs ?? EXPORT_STALL_MS))
      gone.abort(new Error(`the desktop stopped reading for over ${Math.round((d.stallMs ?? EXPORT_STALL_MS) / 1000)} s`))
    else if (!res.writableNeedDrain) drainedAt = Date.now()
  }, 500)
  watchdog.unref()
  res.writeHead(200, {
    'Content-Type': 'text/csv; charset=utf-8',
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': 'nosniff',
    'X-Rampdesk-Total': String(total)
  })
  const tally = { rows: 0 }
  let outcome: ExportOutcome = 'complete'
  let error: string | null = null
  try {
    const pace = {
      every: EXPORT_BATCH,
      async pause() {
        // The operator's budget, then the hub's other work: a long export holds neither.
        for (let wait = d.rateCap.take(op.name); wait > 0 && !gone.signal.aborted; wait = d.rateCap.take(op.name)) await sleep(wait)
        await yieldToLoop()
      }
    }
    await writeOrdersCsv(store, input, names, res, { signal: gone.signal, tally, pace })
    res.end()
  } catch (e) {
    outcome = gone.signal.aborted ? 'aborted' : 'failed'
    const why: unknown = gone.signal.aborted ? gone.signal.reason : e
    error = why instanceof Error ? why.message : String(why)
    res.destroy()
  } finally {
    clearInterval(watchdog)
    res.off('close', onClose)
    res.off('drain', onDrain)
  }
  const rows = tally.rows
  const detail: Record<string, unknown> = { ...asked, total, rows, outcome, ms: Date.now() - started }
  if (error) detail.error = error
  hub.audit.append(op.name, 'orders:export', detail)
  const line = `${op.name} (${op.role}) export ${outcome}: ${rows} of ${total} orders${error ? ` (${error})` : ''}`
  if (outcome === 'complete') hub.log.info(line)
  else hub.log.warn(line)
}
