// The hub's log: one line per event worth an administrator's attention (start, refusals,
// operator changes, relayed webhooks), to stdout for journald or a file. The merchant's
// API secret is never handed to it; as a second line of defence every line is scrubbed
// of it anyway, so a message that quotes an unexpected error cannot carry it out.
export type LogLevel = 'info' | 'warn' | 'error'

export interface HubLog {
  info(message: string): void
  warn(message: string): void
  error(message: string): void
}

export interface HubLogOptions {
  /** Where each finished line goes (default: stdout). */
  write?: (line: string) => void
  /** Values that must never appear in a line (the API secret). */
  redact?: () => readonly string[]
  now?: () => number
}

export function createHubLog(o: HubLogOptions = {}): HubLog {
  const write = o.write ?? ((line: string) => void process.stdout.write(line + '\n'))
  const now = o.now ?? Date.now
  const line = (level: LogLevel, message: string) => {
    let text = message.replace(/[\r\n]+/g, ' ')
    for (const secret of o.redact?.() ?? []) if (secret.length >= 4) text = text.split(secret).join('[redacted]')
    write(`${new Date(now()).toISOString()} ${level.toUpperCase()} ${text}`)
  }
  return {
    info: (m) => line('info', m),
    warn: (m) => line('warn', m),
    error: (m) => line('error', m)
  }
}
