// Where the live copy of the audit log goes (audit-copy.ts): a file, one JSON line per entry,
// opened for appending with mode 0600 and each line written through to the disk before the
// next; reopened on SIGHUP, so logrotate can rename it and have the hub start a new one. Or
// the local syslog as RFC 5424 messages over UDP (facility 13, "log audit"; severity info),
// one entry per datagram. Node has no unix datagram sockets, so /dev/log is out of reach
// without a native module: a syslog daemon takes the copy on its UDP input (rsyslog's imudp,
// syslog-ng's udp() source), on 127.0.0.1:514 unless syslog://HOST:PORT names another.
import { createSocket, type Socket } from 'node:dgram'
import { open, type FileHandle } from 'node:fs/promises'
import { hostname } from 'node:os'
import { isoTime } from './audit-chain'

export type AuditCopyTarget = { kind: 'file'; path: string } | { kind: 'syslog'; host: string; port: number }

export const SYSLOG_DEFAULT = { host: '127.0.0.1', port: 514 }

/** --audit-log's value: `syslog`, `syslog://HOST:PORT` (UDP), or a file's path. */
export function parseAuditLogTarget(v: string): AuditCopyTarget | string {
  if (v === 'syslog') return { kind: 'syslog', ...SYSLOG_DEFAULT }
  if (v.startsWith('syslog://')) {
    let u: URL
    try {
      u = new URL(v)
    } catch {
      return 'syslog://HOST:PORT must name a host and a port'
    }
    const port = Number(u.port || 514)
    if (!u.hostname || !Number.isInteger(port) || port < 1 || port > 65535) return 'syslog://HOST:PORT must name a host and a port'
    return { kind: 'syslog', host: u.hostname.replace(/^\[|\]$/g, ''), port }
  }
  if (v.trim() === '') return 'it is empty: a file path, syslog or syslog://HOST:PORT'
  return { kind: 'file', path: v }
}

export interface AuditSink {
  /** Where it goes, for log lines. */
  readonly where: string
  /** Writes one line; rejects when it could not. */
  write(line: string, at: number): Promise<void>
  /** Starts a new file where the old one was (SIGHUP, after logrotate renamed it); nothing for syslog. */
  reopen(): Promise<void>
  close(): Promise<void>
}

/** The last line of the file, if it has one (where a restarted hub's copy goes on from). */
export async function lastLine(path: string): Promise<string | null> {
  let h: FileHandle
  try {
    h = await open(path, 'r')
  } catch {
    return null
  }
  try {
    const { size } = await h.stat()
    const n = Math.min(size, 64 * 1024)
    const buf = Buffer.alloc(n)
    await h.read(buf, 0, n, size - n)
    const lines = buf
      .toString('utf8')
      .split('\n')
      .filter((l) => l.trim() !== '')
    return lines.at(-1) ?? null
  } finally {
    await h.close()
  }
}

export function fileSink(path: string, warn: (m: string) => void): AuditSink {
  let handle: Promise<FileHandle> | null = null
  const opened = async (): Promise<FileHandle> => {
    const h = await open(path, 'a', 0o600)
    const { mode } = await h.stat()
    if (mode & 0o077) warn(`the audit log copy ${path} can be read by others (mode ${(mode & 0o777).toString(8)}): chmod 600 it`)
    return h
  }
  const current = (): Promise<FileHandle> => {
    handle ??= opened()
    // A file that could not be opened is tried again with the next entry.
    handle.catch(() => (handle = null))
    return handle
  }
  return {
    where: path,
    async write(line) {
      const h = await current()
      await h.appendFile(line + '\n', 'utf8')
      await h.datasync()
    },
    async reopen() {
      const old = handle
      handle = null
      await (await old?.catch(() => null))?.close()
    },
    async close() {
      await (await handle?.catch(() => null))?.close()
      handle = null
    }
  }
}

/** RFC 5424: <PRI>1 TIMESTAMP HOSTNAME APP-NAME PROCID MSGID STRUCTURED-DATA MSG. */
export function syslogMessage(line: string, at: number, host = hostname(), pid = process.pid): string {
  const pri = 13 * 8 + 6
  const name = (host.split('.')[0] || '-').replace(/[^\x21-\x7e]/g, '').slice(0, 255) || '-'
  return `<${pri}>1 ${isoTime(at)} ${name} rampdesk-hub ${pid} audit - ${line}`
}

export function syslogSink(host: string, port: number): AuditSink {
  let socket: Promise<Socket> | null = null
  const connected = (): Promise<Socket> => {
    socket ??= new Promise<Socket>((resolve, reject) => {
      const s = createSocket(host.includes(':') ? 'udp6' : 'udp4')
      s.once('error', reject)
      s.connect(port, host, () => {
        s.off('error', reject)
        // A refusal (nothing listening) surfaces on a later send; the socket is made anew then.
        s.on('error', () => (socket = null))
        resolve(s)
      })
    })
    socket.catch(() => (socket = null))
    return socket
  }
  return {
    where: `syslog udp://${host.includes(':') ? `[${host}]` : host}:${port}`,
    async write(line, at) {
      const s = await connected()
      await new Promise<void>((resolve, reject) =>
        s.send(syslogMessage(line, at), (e) => {
          if (e) {
            socket = null
            s.close()
            reject(e)
          } else resolve()
        })
      )
    },
    async reopen() {
      // Nothing to reopen: every entry is its own datagram.
    },
    async close() {
      const s = await socket?.catch(() => null)
      socket = null
      s?.close()
    }
  }
}
