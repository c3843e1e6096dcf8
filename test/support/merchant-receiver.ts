// The merchant's own webhook receiver, as a hub with --forward-to relays to it: a real HTTP
// server that keeps every request's bytes and headers, can answer slowly, can answer 5xx, and
// can be taken away (its port closed: connections refused) and brought back on the same port.
import { readFileSync } from 'node:fs'
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'

/**
 * A free port below the range the system hands out for port 0. While the receiver is away its
 * port is closed for minutes; a port from that range can meanwhile be given to any other test's
 * server (a sandbox answered a hub's relays with 404 once), one below it only to a process that
 * asks for it by number.
 */
function portBelowEphemeral(): number {
  let low = 32768
  try {
    low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]) || low
  } catch {
    // Not Linux: the usual start of the range.
  }
  const from = Math.max(1024, low - 12000)
  return from + Math.floor(Math.random() * (low - from))
}

export interface Received {
  at: number
  headers: IncomingHttpHeaders
  body: Buffer
}

export interface MerchantReceiver {
  /** http://127.0.0.1:PORT/hook */
  url: string
  received: Received[]
  /** Requests read whole and not yet answered. */
  open(): number
  /** The status to answer (default 200) and how long to wait before answering (default 0). */
  set(o: { status?: number; delayMs?: number }): void
  /** Closes the port: connections are refused until up(). */
  down(): Promise<void>
  up(): Promise<void>
  close(): Promise<void>
}

export async function startMerchantReceiver(): Promise<MerchantReceiver> {
  const received: Received[] = []
  let status = 200
  let delayMs = 0
  let open = 0
  const sockets = new Set<Socket>()
  let server: Server | null = null
  let port = 0

  async function listen(): Promise<void> {
    const s = createServer((req, res) => {
      const chunks: Buffer[] = []
      req.on('data', (c: Buffer) => chunks.push(c))
      req.on('end', () => {
        received.push({ at: Date.now(), headers: req.headers, body: Buffer.concat(chunks) })
        open++
        setTimeout(() => {
          open--
          res.writeHead(status, { 'content-type': 'text/plain' }).end(status === 200 ? 'credited' : 'down')
        }, delayMs)
      })
    })
    s.on('connection', (c: Socket) => {
      sockets.add(c)
      c.once('close', () => sockets.delete(c))
    })
    for (let tries = 0; ; tries++) {
      const at = port || portBelowEphemeral()
      const err = await new Promise<NodeJS.ErrnoException | null>((ok) => {
        s.once('error', ok)
        s.listen(at, '127.0.0.1', () => {
          s.off('error', ok)
          ok(null)
        })
      })
      if (!err) break
      // Taken by another process: a first start tries another; coming back, the port must be the same.
      if (err.code !== 'EADDRINUSE' || port !== 0 || tries >= 50) throw err
      s.close()
    }
    port = (s.address() as AddressInfo).port
    server = s
  }

  async function down(): Promise<void> {
    const s = server
    server = null
    if (!s) return
    await new Promise<void>((ok) => {
      s.close(() => ok())
      for (const c of sockets) c.destroy()
    })
  }

  await listen()
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    open: () => open,
    set(o) {
      status = o.status ?? status
      delayMs = o.delayMs ?? delayMs
    },
    down,
    up: listen,
    close: down
  }
}
