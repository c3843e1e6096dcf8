// The support log: JSON lines in <data dir>/logs/rampdesk.N.log, written by pino through
// pino-roll, which starts a new file at a size limit and deletes the oldest beyond a
// count, so the folder stays bounded however long the app runs. Writes are synchronous,
// so the lines before a crash are on disk. Every message and field passes through
// redactForLog first; a log that cannot be written never takes the app down.
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { pino, stdTimeFunctions, type Logger } from 'pino'
import pinoRoll from 'pino-roll'
import { redactForLog, redactText } from './redact'

export const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const
export type LogLevel = (typeof LOG_LEVELS)[number]
export type LogFields = Record<string, unknown>

export interface Log {
  debug(msg: string, fields?: LogFields): void
  info(msg: string, fields?: LogFields): void
  warn(msg: string, fields?: LogFields): void
  error(msg: string, fields?: LogFields): void
  /** A log whose every line carries these fields too (the profile, say). */
  child(bindings: LogFields): Log
}

export interface LogFile extends Log {
  /** The folder holding the log files. */
  readonly dir: string
  /** Writes what is buffered and closes the file. */
  close(): Promise<void>
}

/** The folder under the data directory. */
export const LOG_DIR = 'logs'
const BASE_NAME = 'rampdesk'
const EXTENSION = '.log'

export interface LogFileOptions {
  dir: string
  level?: LogLevel
  /** Size at which a new file starts. Default 5 MiB. */
  maxFileBytes?: number
  /** Older files kept beside the current one. Default 4. */
  keepFiles?: number
}

/** RAMPDESK_LOG_LEVEL when it names a level, else info. */
export function logLevelFrom(value: string | undefined): LogLevel {
  const v = value?.trim().toLowerCase()
  return (LOG_LEVELS as readonly string[]).includes(v ?? '') ? (v as LogLevel) : 'info'
}

export async function openLogFile(o: LogFileOptions): Promise<LogFile> {
  mkdirSync(o.dir, { recursive: true, mode: 0o700 })
  const stream = await pinoRoll({
    file: join(o.dir, BASE_NAME),
    extension: EXTENSION,
    size: `${Math.max(1, Math.round((o.maxFileBytes ?? 5 * 1024 * 1024) / 1024))}k`,
    limit: { count: o.keepFiles ?? 4, removeOtherLogFiles: true },
    mkdir: true,
    sync: true,
    mode: 0o600
  })
  // A full disk or a folder removed under us must not crash the app: lines are dropped.
  stream.on('error', () => undefined)
  const logger = pino(
    {
      level: o.level ?? 'info',
      base: { pid: process.pid },
      timestamp: stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) }
    },
    stream
  )
  let closed = false
  return {
    ...wrap(logger, () => !closed),
    dir: o.dir,
    close: () =>
      new Promise<void>((resolve) => {
        if (closed) return resolve()
        closed = true
        stream.once('close', () => resolve())
        stream.once('error', () => resolve())
        stream.end()
      })
  }
}

/** Lines after close() are dropped: a late event of a closing session must not throw. */
function wrap(p: Logger, open: () => boolean): Log {
  const line =
    (level: LogLevel) =>
    (msg: string, fields: LogFields = {}): void => {
      if (!open() || !p.isLevelEnabled(level)) return
      p[level](redactForLog(fields) as object, redactText(msg))
    }
  return {
    debug: line('debug'),
    info: line('info'),
    warn: line('warn'),
    error: line('error'),
    child: (bindings) => wrap(p.child(redactForLog(bindings) as object), open)
  }
}

/** A log that writes nothing, for services run without one (benchmarks, some tests). */
export const silentLog: Log = {
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
  child: () => silentLog
}
