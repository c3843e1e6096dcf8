// The live copy of the audit log (serve --audit-log PATH|syslog): every entry the store's
// chain holds, in seq order, as one JSON line (audit-chain.ts), whichever hub or command
// line appended it, so the copy is the whole chain and `audit verify --file` checks it. The
// copy follows the store (a read every pollMs): an entry is in the database before it is
// copied, and one that cannot be copied stays there and is copied when the sink takes it
// again (the failure counted, and said in the hub's log when it starts and when it ends).
// A file copy goes on after the last entry the file holds; a new file, or syslog, starts
// with the entries appended from the start on (`audit export` gives what came before).
import { entryLine, parseEntryLine } from './audit-chain'
import { fileSink, lastLine, syslogSink, type AuditCopyTarget, type AuditSink } from './audit-sinks'
import type { HubLog } from './hub-log'
import type { AuditLog } from './hub-store'

export type CopyState = { kind: 'copying' } | { kind: 'failing'; since: number; error: string; failures: number }

export interface AuditCopy {
  readonly where: string
  state(): CopyState
  /** Copies what is new now (the poll does it every pollMs). */
  pass(): Promise<void>
  /** Starts a new file where the old one was (SIGHUP). */
  reopen(): Promise<void>
  /** Copies what is left, then closes the sink. */
  close(): Promise<void>
}

export interface AuditCopyOptions {
  audit: Pick<AuditLog, 'page' | 'bounds'>
  target: AuditCopyTarget
  log: HubLog
  /** Called once per entry that could not be copied (the metrics' counter). */
  onFailure(): void
  pollMs?: number
  now?: () => number
}

const PAGE = 500

export async function startAuditCopy(o: AuditCopyOptions): Promise<AuditCopy> {
  const now = o.now ?? Date.now
  const sink: AuditSink =
    o.target.kind === 'file' ? fileSink(o.target.path, (m) => o.log.warn(m)) : syslogSink(o.target.host, o.target.port)
  let after = (await o.audit.bounds()).head.seq
  if (o.target.kind === 'file') {
    const last = await lastLine(o.target.path)
    const e = last === null ? null : parseEntryLine(last)
    if (e !== null && typeof e !== 'string' && e.seq <= after) after = e.seq
  }
  let state: CopyState = { kind: 'copying' }
  let running: Promise<void> | null = null
  let closed = false

  async function copyNew(): Promise<void> {
    for (;;) {
      const page = await o.audit.page(after, PAGE)
      for (const e of page) {
        try {
          await sink.write(entryLine(e), Date.parse(e.time))
        } catch (err) {
          o.onFailure()
          const error = (err as Error).message
          if (state.kind === 'copying') {
            state = { kind: 'failing', since: now(), error, failures: 1 }
            o.log.error(
              `cannot write the audit log copy to ${sink.where}: ${error}; the entries from seq ${e.seq} on are kept in the database and copied once it can be written`,
              { auditCopy: sink.where, seq: e.seq }
            )
          } else state = { ...state, error, failures: state.failures + 1 }
          return
        }
        after = e.seq
        if (state.kind === 'failing') {
          o.log.warn(
            `the audit log copy to ${sink.where} is written again (${state.failures} failed attempts since ${new Date(state.since).toISOString()})`,
            {
              auditCopy: sink.where
            }
          )
          state = { kind: 'copying' }
        }
      }
      if (page.length < PAGE) return
    }
  }

  const pass = (): Promise<void> => {
    running ??= copyNew()
      .catch((e: unknown) => o.log.error(`cannot read the audit log for its copy: ${(e as Error).message}`))
      .finally(() => (running = null))
    return running
  }
  const timer = setInterval(() => void pass(), o.pollMs ?? 1_000)
  timer.unref()
  o.log.info(`copying the audit log to ${sink.where} from seq ${after + 1} on`, { auditCopy: sink.where })

  return {
    where: sink.where,
    state: () => state,
    pass,
    async reopen() {
      await running
      await sink.reopen()
      o.log.info(`the audit log copy reopened: ${sink.where}`, { auditCopy: sink.where })
      await pass()
    },
    async close() {
      if (closed) return
      closed = true
      clearInterval(timer)
      await running
      await pass()
      await sink.close()
    }
  }
}
