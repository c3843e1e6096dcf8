// The hub's listening socket, in front of its two HTTP servers, so that a stranger gets no
// memory or disk of the hub's. Node's HTTP server has one header size limit for every path, but
// only POST /webhook needs a large one (the service sends the whole body again, base64, in a
// header: 4/3 of the body); every other path needs a few KiB. So the front
// door reads each connection's first request line itself and hands the connection to one of
// two servers that never listen on their own:
//   - the webhook server (large headers), for a connection whose first request is /webhook,
//     with caps of its own on such connections, per address and in all;
//   - the main server (headers up to 32 KiB), for everything else: /rpc, /events, /export,
//     /healthz.
// Before that: a cap on open connections in all and per address, where a newcomer from
// another address takes the place of the largest holder's oldest connection when the pool is
// full (a stranger holding connections cannot crowd out the team: connection-pool.ts), a few seconds for the request line and headers,
// and over TLS a few seconds for the handshake, TLS 1.2 only with forward-secret suites and
// TLS 1.3 preferred. Every refusal goes to `onRefused`, which the hub summarises per address
// instead of logging each one (refusal-log.ts). A trusted reverse proxy (--trusted-proxy) is
// one peer carrying the whole team: its connections count against the caps in all only, and
// the per-address cap is put on each client it names once a request's headers are read
// (hub-server.ts).
import { createServer as createHttpServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http'
import { createServer as createNetServer, type AddressInfo, type Server as NetServer, type Socket } from 'node:net'
import { createServer as createTlsServer, type TLSSocket } from 'node:tls'
import { sourceOf } from '../main/webhooks/source-limits'
import { ConnectionPool } from './connection-pool'
import type { RefusalKind } from './refusal-kinds'
import type { TrustedProxies } from './trusted-proxies'

export interface FrontDoorLimits {
  /** Open connections in all (default 512). */
  maxConnections: number
  /** Open connections from one address, an IPv4 address or an IPv6 /64 (default 64). */
  maxConnectionsPerAddress: number
  /** Header bytes (request line included) on every path but /webhook (default 32 KiB). */
  maxHeaderBytes: number
  /**
   * Header bytes on /webhook (default 256 KiB: a payload header for a body of about 190 KiB;
   * an order record is about 1 KiB). A larger delivery is refused 431.
   */
  maxWebhookHeaderBytes: number
  /**
   * Open /webhook connections in all (default 128) and from one address (default 16): each may
   * hold up to maxWebhookHeaderBytes. At the cap another address takes the place of the
   * largest holder's oldest connection (connection-pool.ts).
   */
  maxWebhookConnections: number
  maxWebhookConnectionsPerAddress: number
  /** Until the request line and the headers are in (default 5 s). */
  headersTimeoutMs: number
  /** Until the whole request (body included) is in (default 15 s). */
  requestTimeoutMs: number
  /** Until a TLS handshake is done (default 5 s). */
  tlsHandshakeTimeoutMs: number
  /** An idle keep-alive connection is closed after this (default 5 s). */
  keepAliveTimeoutMs: number
}

export const FRONT_DOOR_DEFAULTS: FrontDoorLimits = {
  maxConnections: 512,
  maxConnectionsPerAddress: 64,
  maxHeaderBytes: 32 * 1024,
  maxWebhookHeaderBytes: 256 * 1024,
  maxWebhookConnections: 128,
  maxWebhookConnectionsPerAddress: 16,
  headersTimeoutMs: 5_000,
  requestTimeoutMs: 15_000,
  tlsHandshakeTimeoutMs: 5_000,
  keepAliveTimeoutMs: 5_000
}

/** The longest request line read before it is refused (414). */
const MAX_REQUEST_LINE = 8 * 1024

/**
 * TLS 1.2 suites with forward secrecy (ECDHE) and AEAD only; the TLS 1.3 suites all have
 * both. Node negotiates TLS 1.3 whenever the client offers it.
 */
export const TLS_CIPHERS = [
  'TLS_AES_256_GCM_SHA384',
  'TLS_CHACHA20_POLY1305_SHA256',
  'TLS_AES_128_GCM_SHA256',
  'ECDHE-ECDSA-AES256-GCM-SHA384',
  'ECDHE-RSA-AES256-GCM-SHA384',
  'ECDHE-ECDSA-CHACHA20-POLY1305',
  'ECDHE-RSA-CHACHA20-POLY1305',
  'ECDHE-ECDSA-AES128-GCM-SHA256',
  'ECDHE-RSA-AES128-GCM-SHA256'
].join(':')

export interface Refusal {
  /** The source (an IPv4 address or an IPv6 /64). */
  source: string
  kind: RefusalKind
  status: number
  /** What was refused, in a few words (never the request's own bytes beyond a clipped path). */
  what: string
}

export interface FrontDoorOptions {
  host: string
  port: number
  tls?: { cert: string | Buffer; key: string | Buffer }
  limits?: Partial<FrontDoorLimits>
  /** Peers that are reverse proxies: held to the caps in all, not to the per-address ones. */
  trustedProxies?: Pick<TrustedProxies, 'trusts'>
  /** Requests to every path but /webhook. */
  onRequest(req: IncomingMessage, res: ServerResponse): void
  /** Requests on a connection that began with /webhook. */
  onWebhook(req: IncomingMessage, res: ServerResponse): void
  onRefused(r: Refusal): void
}

export interface FrontDoor {
  readonly port: number
  readonly limits: FrontDoorLimits
  /** Open connections now, in all and per source. */
  connections(): { total: number; webhook: number; bySource: Map<string, number> }
  close(): Promise<void>
}

/** A path fit for a log line: no query, printable ASCII only, at most 100 characters. */
export function clipPath(target: string): string {
  const path = target.split('?')[0] ?? ''
  const clean = path.replace(/[^\x21-\x7e]/g, '?')
  return clean.length <= 100 ? clean : `${clean.slice(0, 100)}… (${path.length} characters)`
}

/** Which server a request target belongs to. */
export function routeOf(target: string): 'webhook' | 'main' {
  const path = target.split('?')[0]
  return path === '/webhook' ? 'webhook' : 'main'
}

const REASONS: Record<number, string> = {
  400: 'Bad Request',
  408: 'Request Timeout',
  414: 'URI Too Long',
  431: 'Request Header Fields Too Large',
  503: 'Service Unavailable'
}

/** Answers on a raw socket (nothing of the request is parsed) and closes it. */
function refuseRaw(socket: Socket, status: number, message: string): void {
  if (socket.destroyed) return
  const text = JSON.stringify({
    ok: false,
    error: { kind: status === 503 ? 'unavailable' : 'invalid_input', message, retryable: status === 503 }
  })
  socket.on('error', () => undefined)
  socket.end(
    `HTTP/1.1 ${status} ${REASONS[status] ?? 'Refused'}\r\ncontent-type: application/json; charset=utf-8\r\n` +
      `content-length: ${Buffer.byteLength(text)}\r\nconnection: close\r\n${status === 503 ? 'retry-after: 5\r\n' : ''}\r\n${text}`
  )
  // The client may still be writing: give the answer a moment, then drop the connection.
  setTimeout(() => socket.destroy(), 1_000).unref()
}

export async function openFrontDoor(o: FrontDoorOptions): Promise<FrontDoor> {
  const limits: FrontDoorLimits = { ...FRONT_DOOR_DEFAULTS, ...o.limits }
  const pool = new ConnectionPool(limits.maxConnections, limits.maxConnectionsPerAddress)
  const webhookPool = new ConnectionPool(limits.maxWebhookConnections, limits.maxWebhookConnectionsPerAddress)
  const sockets = new Set<Socket>()

  const httpOptions = (maxHeaderSize: number) => ({
    maxHeaderSize,
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    // How often Node checks the two timeouts above (its default, 30 s, let a stalled request live 40 s).
    connectionsCheckingInterval: Math.min(1_000, limits.headersTimeoutMs)
  })
  const main: HttpServer = createHttpServer(httpOptions(limits.maxHeaderBytes), o.onRequest)
  const webhook: HttpServer = createHttpServer(httpOptions(limits.maxWebhookHeaderBytes), (req, res) => {
    // A connection handed here for /webhook serves /webhook only: no large headers on other paths.
    if (routeOf(req.url ?? '/') === 'webhook') return o.onWebhook(req, res)
    req.resume()
    res.writeHead(421, { 'content-type': 'application/json; charset=utf-8', connection: 'close' })
    res.end(
      JSON.stringify({ ok: false, error: { kind: 'invalid_input', message: 'open a new connection for this path', retryable: true } })
    )
  })
  for (const server of [main, webhook]) {
    // These servers never listen themselves, but Node starts enforcing headersTimeout and
    // requestTimeout (and tracking connections for closeAllConnections) on 'listening'.
    server.emit('listening')
    server.on('clientError', (err: Error & { code?: string }, socket: Socket) => {
      const status =
        err.code === 'HPE_HEADER_OVERFLOW' ? 431 : err.code === 'ERR_HTTP_REQUEST_TIMEOUT' || err.code === 'HPE_TIMEOUT' ? 408 : 400
      if (err.code !== 'ECONNRESET' && err.code !== 'EPIPE')
        o.onRefused({
          source: sourceOf(socket.remoteAddress),
          kind: status === 431 ? 'headers_too_large' : status === 408 ? 'too_slow' : 'malformed',
          status,
          what: status === 431 ? 'headers too large' : `malformed request (${err.code ?? 'error'})`
        })
      if (socket.writable && !(socket as Socket & { _httpMessage?: unknown })._httpMessage)
        refuseRaw(socket, status, status === 431 ? 'request headers too large' : status === 408 ? 'request too slow' : 'malformed request')
      else socket.destroy()
    })
  }

  const proxied = (socket: Socket) => o.trustedProxies?.trusts(socket.remoteAddress) === true

  function onTcp(socket: Socket): void {
    const source = sourceOf(socket.remoteAddress)
    const admission = pool.admit(source, socket, proxied(socket) ? limits.maxConnections : limits.maxConnectionsPerAddress)
    if (admission.ok && admission.evicted)
      o.onRefused({
        source: sourceOf(admission.evicted.remoteAddress),
        kind: 'evicted',
        status: 0,
        what: 'its oldest connection closed to make room for another address'
      })
    if (!admission.ok) {
      o.onRefused({
        source,
        kind: 'connection_cap',
        status: 503,
        what:
          admission.reason === 'source'
            ? `connection over the cap of ${limits.maxConnectionsPerAddress} per address`
            : `connection over the cap of ${limits.maxConnections} in all`
      })
      // Over TLS nothing can be said before a handshake we will not spend on it.
      if (o.tls) socket.destroy()
      else refuseRaw(socket, 503, 'too many open connections from this address')
      return
    }
    sockets.add(socket)
    socket.once('close', () => sockets.delete(socket))
    socket.on('error', () => undefined)
    if (!o.tls) sniff(socket, source)
  }

  /** Reads the first request line, then hands the connection to the server for its path. */
  function sniff(socket: Socket, source: string): void {
    const chunks: Buffer[] = []
    let size = 0
    const timer = setTimeout(() => {
      done()
      o.onRefused({ source, kind: 'too_slow', status: 408, what: 'request line not received in time' })
      refuseRaw(socket, 408, 'request too slow')
    }, limits.headersTimeoutMs)
    timer.unref()
    const done = () => {
      clearTimeout(timer)
      socket.off('data', onData)
      socket.off('close', done)
    }
    socket.once('close', done)
    const onData = (chunk: Buffer) => {
      chunks.push(chunk)
      size += chunk.length
      const head = chunks.length === 1 ? chunk : Buffer.concat(chunks)
      // Empty lines before a request line are allowed (RFC 9112 2.2).
      let start = 0
      while (start < head.length && (head[start] === 0x0d || head[start] === 0x0a)) start++
      const eol = head.indexOf(0x0a, start)
      if (eol < 0 && size <= MAX_REQUEST_LINE) return
      // Over the limit whether the line came in pieces or in one packet with its end.
      if (eol < 0 || eol - start > MAX_REQUEST_LINE) {
        done()
        o.onRefused({ source, kind: 'request_line_too_long', status: 414, what: `request line over ${MAX_REQUEST_LINE} bytes` })
        return refuseRaw(socket, 414, 'request line too long')
      }
      done()
      const line = head.subarray(start, eol).toString('latin1').replace(/\r$/, '')
      const target = /^[A-Z]+ (\S+) HTTP\/\d\.\d$/.exec(line)?.[1]
      if (!target) {
        o.onRefused({ source, kind: 'malformed', status: 400, what: 'malformed request line' })
        return refuseRaw(socket, 400, 'malformed request line')
      }
      let server = main
      if (routeOf(target) === 'webhook') {
        const admitted = webhookPool.admit(
          source,
          socket,
          proxied(socket) ? limits.maxWebhookConnections : limits.maxWebhookConnectionsPerAddress
        )
        if (!admitted.ok) {
          o.onRefused({ source, kind: 'webhook_connection_cap', status: 503, what: 'webhook connection over the cap' })
          return refuseRaw(socket, 503, 'too many open webhook connections from this address')
        }
        server = webhook
      }
      socket.pause()
      socket.unshift(head)
      server.emit('connection', socket)
      socket.resume()
    }
    socket.on('data', onData)
  }

  let front: NetServer
  if (o.tls) {
    const tls = createTlsServer({
      cert: o.tls.cert,
      key: o.tls.key,
      minVersion: 'TLSv1.2',
      ciphers: TLS_CIPHERS,
      honorCipherOrder: true,
      handshakeTimeout: limits.tlsHandshakeTimeoutMs,
      ALPNProtocols: ['http/1.1']
    })
    tls.on('connection', onTcp)
    tls.on('secureConnection', (socket: TLSSocket) => sniff(socket, sourceOf(socket.remoteAddress)))
    tls.on('tlsClientError', (err: Error & { code?: string }, socket: TLSSocket) => {
      o.onRefused({
        source: sourceOf(socket.remoteAddress),
        kind: 'tls_handshake',
        status: 0,
        what: `TLS handshake failed (${err.code ?? err.message.slice(0, 60)})`
      })
      socket.destroy()
    })
    front = tls
  } else {
    front = createNetServer(onTcp)
  }

  await new Promise<void>((resolve, reject) => {
    front.once('error', reject)
    front.listen(o.port, o.host, () => {
      front.off('error', reject)
      resolve()
    })
  })
  const port = (front.address() as AddressInfo).port

  return {
    port,
    limits,
    connections: () => ({ total: pool.size, webhook: webhookPool.size, bySource: pool.counts() }),
    async close() {
      await new Promise<void>((resolve) => {
        front.close(() => resolve())
        for (const server of [main, webhook]) {
          server.closeAllConnections()
          // Stops the timeout checks started on 'listening' (it answers 'not running', which is true).
          server.close(() => undefined)
        }
        for (const s of sockets) s.destroy()
      })
    }
  }
}
