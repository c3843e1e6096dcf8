// The hub's log: one line per event worth an administrator's attention (start, refusals,
// operator changes, relayed webhooks), to stdout for journald or a file. Two formats:
//   - text (the default): `<ISO time> INFO|WARN|ERROR <message>`, as it always was;
//   - json (--log-format json): one JSON object per line, `time`, `level` and `msg` plus the
//     line's structured fields where it has some, written by pino (the support log's writer).
// The merchant's API secret is never handed to it; as a second line of defence every line
// (its message and every string among its fields) is scrubbed of it anyway, so a message
// that quotes an unexpected error cannot carry it out, and of the user information of every
// URL (`https://user:password@host`: a webhook URL an admin set, a receiver, a database).
import { pino } from 'pino'
import { redactUrlCredentials } from '../main/logging/redact'

export type LogLevel = 'info' | 'warn' | 'error'
export const LOG_FORMATS = ['text', 'json'] as const
export type LogFormat = (typeof LOG_FORMATS)[number]
/** Structured fields of a line: shown in the json format, left out of the text one (its lines stay as they were). */
export type LogFields = Record<string, unknown>

export interface HubLog {
  info(message: string, fields?: LogFields): void
  warn(message: string, fields?: LogFields): void
  error(message: string, fields?: LogFields): void
}

export interface HubLogOptions {
  /** Where each finished line goes, without its newline (default: stdout). */
  write?: (line: string) => void
  /** Default text. */
  format?: LogFormat
  /** Values that must never appear in a line (the API secret). */
  redact?: () => readonly string[]
  now?: () => number
}

/** Keys every json line has itself: a field of the same name is written with a leading underscore. */
const OWN_KEYS = new Set(['time', 'level', 'msg'])

function scrub(text: string, secrets: readonly string[]): string {
  let out = redactUrlCredentials(text)
  for (const secret of secrets) if (secret.length >= 4) out = out.split(secret).join('[redacted]')
  return out
}

function scrubFields(v: unknown, secrets: readonly string[], depth = 0): unknown {
  if (typeof v === 'string') return scrub(v, secrets)
  if (v === null || typeof v !== 'object' || depth > 4) return v
  if (Array.isArray(v)) return v.map((x) => scrubFields(x, secrets, depth + 1))
  const out: Record<string, unknown> = {}
  for (const [k, x] of Object.entries(v)) out[depth === 0 && OWN_KEYS.has(k) ? `_${k}` : k] = scrubFields(x, secrets, depth + 1)
  return out
}

export function createHubLog(o: HubLogOptions = {}): HubLog {
  const write = o.write ?? ((line: string) => void process.stdout.write(line + '\n'))
  const now = o.now ?? Date.now
  const secrets = () => o.redact?.() ?? []
  let line: (level: LogLevel, message: string, fields?: LogFields) => void
  if (o.format === 'json') {
    const p = pino(
      {
        base: undefined,
        timestamp: () => `,"time":"${new Date(now()).toISOString()}"`,
        formatters: { level: (label) => ({ level: label }) }
      },
      { write: (s: string) => write(s.replace(/\n$/, '')) }
    )
    line = (level, message, fields) => {
      const s = secrets()
      p[level]((fields ? scrubFields(fields, s) : {}) as object, scrub(message, s))
    }
  } else {
    line = (level, message) =>
      write(`${new Date(now()).toISOString()} ${level.toUpperCase()} ${scrub(message.replace(/[\r\n]+/g, ' '), secrets())}`)
  }
  return {
    info: (m, f) => line('info', m, f),
    warn: (m, f) => line('warn', m, f),
    error: (m, f) => line('error', m, f)
  }
}
