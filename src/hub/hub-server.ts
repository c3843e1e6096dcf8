// The team hub over HTTP(S). POST /rpc/<channel> with `Authorization: Bearer <token>` and
// the channel's JSON input answers the contract's envelope exactly as the web harness
// does; GET /events streams the contract's events (Server-Sent Events) as that operator
// sees them, replaying the order changes a reconnecting desktop missed (Last-Event-ID);
// POST /webhook is the service's delivery address; GET /healthz answers a load balancer.
// Refused: no or an unknown token (401), a role without the channel (403, audited), any
// request carrying an Origin header (403: the hub serves desktops, never a browser page,
// so no web page can use a token it got hold of), bodies over the cap (413) and an
// operator over their request rate (429 with Retry-After).
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import { createServer as createHttpsServer } from 'node:https'
import type { AddressInfo } from 'node:net'
import { invokeChannel } from '../main/handlers/invoke'
import { readBody } from '../web/server'
import { exportTotal, writeOrdersCsv } from '../main/export/orders-csv'
import { MAX_BODY_BYTES } from '../main/webhooks/inbox'
import { channelNames, parseInput, toEnvelopeError, type ChannelName, type ErrorInfo } from '../shared/ipc/contract'
import { channelAccess, roleMay } from '../shared/ipc/team-access'
import type { Hub, HubEvent } from './hub'
import type { Operator } from './operators'
import { RateCap } from './rate-cap'

export interface HubServerOptions {
  hub: Hub
  host?: string
  port?: number
  tls?: { cert: string | Buffer; key: string | Buffer }
  /** The address operators and the service reach the hub at, when it is not the listening one (a reverse proxy). */
  publicUrl?: string
  /** Sustained requests per minute per operator (default 600) and the burst above it (default 120). */
  rateLimitPerMinute?: number
  rateBurst?: number
  /** Largest /rpc body (default 2 MiB: webhooks:verify takes a 1 MiB payload). */
  maxBodyBytes?: number
  /** How often open streams check that their token still stands (default 1 s). */
  streamCheckMs?: number
  /** Event streams one operator may hold open (default 8). */
  maxStreamsPerOperator?: number
  /** Events buffered for a stream that does not read before it is cut (it reconnects and replays). Default 8 MiB. */
  maxStreamBacklogBytes?: number
}

export interface HubServer {
  url: string
  port: number
  server: Server
  /** Open event streams per operator. */
  streams(): Map<string, number>
  close(): Promise<void>
}

/**
 * A reconnecting desktop is sent the order changes after the id it names, starting this
 * many ids earlier: the monitor emits a page's first sightings before its transitions, so
 * ids can reach a desktop slightly out of order. The desktop drops ids it already has.
 */
export const REPLAY_OVERLAP = 1000
const PING_MS = 15_000

interface Stream {
  operator: string
  tokenHash: string
  res: ServerResponse
  close(): void
}

function sendJson(res: ServerResponse, status: number, body: unknown, extra: Record<string, string> = {}): void {
  const text = JSON.stringify(body)
  res.writeHead(status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(text),
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': 'nosniff',
    ...extra
  })
  res.end(text)
}

const refusal = (kind: string, message: string, extra: Partial<ErrorInfo> = {}) => ({
  ok: false,
  error: { kind, message, retryable: false, ...extra }
})

/** An input as the audit log keeps it: whole, unless it is large (a 1 MiB payload to verify). */
function clipped(raw: unknown): unknown {
  const text = JSON.stringify(raw) ?? ''
  return text.length <= AUDIT_INPUT_CHARS ? raw : `${text.slice(0, AUDIT_INPUT_CHARS)}… (${text.length} characters)`
}
const AUDIT_INPUT_CHARS = 2000

function bearer(req: IncomingMessage): string | null {
  const h = req.headers.authorization ?? ''
  const m = /^Bearer\s+(\S+)\s*$/i.exec(h)
  return m ? m[1]! : null
}

/** The body, or null when it is over `max` (the web harness's reader: drained, not buffered). */
const readCapped = (req: IncomingMessage, max: number): Promise<string | null> =>
  readBody(req, max).catch((e: { status?: number }) => {
    if (e.status === 413) return null
    throw e
  })

export async function startHubServer(o: HubServerOptions): Promise<HubServer> {
  const { hub } = o
  const host = o.host ?? '127.0.0.1'
  const maxBody = o.maxBodyBytes ?? 2 * 1024 * 1024
  const rateCap = new RateCap({ perMinute: o.rateLimitPerMinute ?? 600, burst: o.rateBurst ?? 120 })
  const channelSet = new Set<string>(channelNames)
  const streams = new Set<Stream>()
  const maxStreams = o.maxStreamsPerOperator ?? 8
  const maxBacklog = o.maxStreamBacklogBytes ?? 8 * 1024 * 1024

  const countFor = (name: string) => [...streams].filter((s) => s.operator === name).length

  function authenticate(req: IncomingMessage, res: ServerResponse): Operator | null {
    const token = bearer(req)
    const op = token ? hub.operators.authenticate(token) : null
    if (!op) {
      const remote = req.socket.remoteAddress ?? '?'
      hub.log.warn(
        `refused ${req.method} ${req.url?.split('?')[0]} from ${remote}: ${token ? 'unknown or revoked token' : 'no bearer token'}`
      )
      sendJson(
        res,
        401,
        refusal(
          'unauthorized',
          token ? 'this operator token is unknown or was revoked' : 'an operator token is required (Authorization: Bearer …)'
        ),
        {
          'WWW-Authenticate': 'Bearer realm="rampdesk-hub"'
        }
      )
      return null
    }
    const waitMs = rateCap.take(op.name)
    if (waitMs > 0) {
      sendJson(
        res,
        429,
        refusal('rate_limited', `${op.name} is over the hub's request rate; try again in ${Math.ceil(waitMs / 1000)} s`, {
          retryable: true
        }),
        {
          'Retry-After': String(Math.ceil(waitMs / 1000))
        }
      )
      return null
    }
    return op
  }

  async function rpc(req: IncomingMessage, res: ServerResponse, channel: string): Promise<void> {
    if (req.method !== 'POST') return sendJson(res, 405, refusal('method_not_allowed', 'POST only'), { Allow: 'POST' })
    const op = authenticate(req, res)
    if (!op) return
    if (!(req.headers['content-type'] ?? '').toLowerCase().startsWith('application/json'))
      return sendJson(res, 415, refusal('invalid_input', 'the body must be JSON (Content-Type: application/json)'))
    if (!channelSet.has(channel)) return sendJson(res, 404, refusal('unknown_channel', `unknown channel ${channel}`))
    const name = channel as ChannelName
    if (!roleMay(op.role, name)) {
      const need = channelAccess(name)
      const message =
        need === 'desktop'
          ? `${name} is answered by each desktop itself, not by the team hub`
          : `${name} needs the ${need} role; ${op.name} is ${op.role === 'admin' ? 'an' : 'a'} ${op.role}`
      hub.audit.append(op.name, 'refused', { channel: name, role: op.role })
      hub.log.warn(`refused ${name} to ${op.name} (${op.role})`)
      return sendJson(res, 403, refusal('forbidden', message))
    }
    const text = await readCapped(req, maxBody)
    if (text === null) return sendJson(res, 413, refusal('invalid_input', `request too large (over ${maxBody} bytes)`))
    let raw: unknown
    try {
      raw = text.length ? JSON.parse(text) : {}
    } catch {
      return sendJson(res, 400, refusal('invalid_input', 'body is not JSON'))
    }
    const envelope = await invokeChannel(hub.handlersFor(op), name, raw)
    // Reads are not audited (six desktops poll every second); every action and its outcome is.
    if (channelAccess(name) !== 'viewer') {
      const detail: Record<string, unknown> = { input: clipped(raw), ok: envelope.ok }
      if (!envelope.ok) detail.error = envelope.error.message
      hub.audit.append(op.name, name, detail)
      hub.log.info(`${op.name} (${op.role}) ${name}: ${envelope.ok ? 'ok' : `failed: ${envelope.error.message}`}`)
    }
    sendJson(res, 200, envelope)
  }

  /**
   * POST /export/orders {filter}: the CSV a desktop's orders:export writes, streamed from the
   * hub's database (the same writer as the desktop's own export). Anyone who may read
   * orders may export them; the total rows come first, in X-Rampdesk-Total, for progress.
   */
  async function exportOrders(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method !== 'POST') return sendJson(res, 405, refusal('method_not_allowed', 'POST only'), { Allow: 'POST' })
    const op = authenticate(req, res)
    if (!op) return
    if (!roleMay(op.role, 'orders:query')) return sendJson(res, 403, refusal('forbidden', `${op.name} may not read orders`))
    const text = await readCapped(req, maxBody)
    if (text === null) return sendJson(res, 413, refusal('invalid_input', 'request too large'))
    let filter
    try {
      filter = parseInput('orders:export', JSON.parse(text || '{}')).filter
    } catch (e) {
      return sendJson(res, 400, { ok: false, error: toEnvelopeError(e) })
    }
    const store = hub.session().store
    res.writeHead(200, {
      'Content-Type': 'text/csv; charset=utf-8',
      'Cache-Control': 'no-store',
      'X-Content-Type-Options': 'nosniff',
      'X-Rampdesk-Total': String(exportTotal(store, filter))
    })
    const rows = await writeOrdersCsv(store, filter, res)
    res.end()
    hub.audit.append(op.name, 'orders:export', { filter, rows })
    hub.log.info(`${op.name} (${op.role}) exported ${rows} orders`)
  }

  function events(req: IncomingMessage, res: ServerResponse): void {
    if (req.method !== 'GET') return sendJson(res, 405, refusal('method_not_allowed', 'GET only'), { Allow: 'GET' })
    const op = authenticate(req, res)
    if (!op) return
    if (countFor(op.name) >= maxStreams)
      return sendJson(res, 429, refusal('rate_limited', `${op.name} already has ${maxStreams} event streams open`, { retryable: true }), {
        'Retry-After': '5'
      })
    res.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-store',
      Connection: 'keep-alive',
      // nginx: do not buffer the stream.
      'X-Accel-Buffering': 'no'
    })
    res.write(`retry: 2000\n: rampdesk hub events for ${op.name}\n\n`)
    let open = true
    const write = (e: HubEvent) => {
      if (!open) return
      const shaped = hub.shapeFor(op.name, e)
      if (!shaped) return
      res.write(`${shaped.id !== null ? `id: ${shaped.id}\n` : ''}event: ${shaped.event}\ndata: ${JSON.stringify(shaped.payload)}\n\n`)
      // A desktop that stopped reading is cut off rather than buffered without end; it replays on reconnect.
      if (res.writableLength > maxBacklog) stream.close()
    }
    const stream: Stream = {
      operator: op.name,
      tokenHash: op.tokenHash,
      res,
      close() {
        if (!open) return
        open = false
        res.end()
      }
    }
    const lastId = Number(req.headers['last-event-id'] ?? NaN)
    // Replay and subscribe in one synchronous run: no event can fall between them.
    if (Number.isSafeInteger(lastId) && lastId >= 0) for (const e of hub.replay(Math.max(0, lastId - REPLAY_OVERLAP))) write(e)
    const unsubscribe = hub.subscribe(write)
    streams.add(stream)
    const ping = setInterval(() => open && res.write(': ping\n\n'), PING_MS)
    ping.unref()
    res.on('close', () => {
      open = false
      clearInterval(ping)
      unsubscribe()
      streams.delete(stream)
      if (countFor(op.name) === 0) hub.operatorLeft(op.name)
    })
  }

  const handler = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    try {
      const path = new URL(req.url ?? '/', 'http://hub').pathname
      if (path === '/healthz' && (req.method === 'GET' || req.method === 'HEAD')) return sendJson(res, 200, { ok: true })
      if (path === '/webhook') return hub.webhook(req, res)
      if (path.startsWith('/rpc/') || path === '/events' || path === '/export/orders') {
        if (req.headers.origin !== undefined) {
          req.resume()
          return sendJson(
            res,
            403,
            refusal('forbidden', 'the team hub answers Rampdesk desktops, not web pages (a request with an Origin header was refused)')
          )
        }
        if (path === '/events') return events(req, res)
        if (path === '/export/orders') return await exportOrders(req, res)
        return await rpc(req, res, decodeURIComponent(path.slice('/rpc/'.length)))
      }
      req.resume()
      sendJson(res, 404, refusal('not_found', 'not found'))
    } catch (e) {
      hub.log.error(`request failed: ${e instanceof Error ? e.message : String(e)}`)
      if (!res.headersSent) sendJson(res, 500, refusal('internal', 'internal error'))
      else res.destroy()
    }
  }

  const serverOptions = {
    // Webhook deliveries carry the whole body again, base64, in a header.
    maxHeaderSize: Math.ceil((MAX_BODY_BYTES * 4) / 3) + 64 * 1024,
    headersTimeout: 10_000,
    requestTimeout: 30_000
  }
  const server: Server = o.tls
    ? createHttpsServer({ ...serverOptions, cert: o.tls.cert, key: o.tls.key }, (req, res) => void handler(req, res))
    : createHttpServer(serverOptions, (req, res) => void handler(req, res))

  const unRevoked = hub.onRevoked((name) => {
    rateCap.forget(name)
    for (const s of [...streams]) if (s.operator === name) s.close()
  })
  // Revocations made from another process (the command line) reach open streams here.
  const check = setInterval(() => {
    try {
      for (const s of [...streams]) if (!hub.operators.isActive(s.tokenHash)) s.close()
      hub.sweep()
    } catch (e) {
      hub.log.error(`stream check failed: ${(e as Error).message}`)
    }
  }, o.streamCheckMs ?? 1000)
  check.unref()

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(o.port ?? 8790, host, () => {
      server.off('error', reject)
      resolve()
    })
  })
  const port = (server.address() as AddressInfo).port
  const scheme = o.tls ? 'https' : 'http'
  const urlHost = host.includes(':') ? `[${host}]` : host
  const url = `${scheme}://${urlHost}:${port}`
  const unspecified = host === '0.0.0.0' || host === '::'
  hub.setPublicUrl(o.publicUrl ?? (unspecified ? `${scheme}://127.0.0.1:${port}` : url))
  if (!o.publicUrl && unspecified)
    hub.log.warn(
      `listening on every interface without --public-url: the webhook URL the hub offers (${hub.webhookUrl()}) only works on this machine`
    )

  return {
    url,
    port,
    server,
    streams() {
      const m = new Map<string, number>()
      for (const s of streams) m.set(s.operator, (m.get(s.operator) ?? 0) + 1)
      return m
    },
    async close() {
      clearInterval(check)
      unRevoked()
      for (const s of [...streams]) s.close()
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    }
  }
}
