// The routes for whoever runs the hub rather than for desktops, behind the same front door:
//   - GET /healthz: the process is alive and serving (`{"ok":true}`), for a load balancer
//     or a supervisor; no token, no work;
//   - GET /readyz: whether to send it desktops: the store, the service and the role, each in
//     the answer, 503 when not ready (readiness.ts; worked out at most once a second);
//   - GET /metrics: Prometheus metrics (hub-metrics.ts), for the metrics token only
//     (`Authorization: Bearer <token>`, compared in constant time), or, when the hub has none,
//     for a peer on this machine that no proxy relayed (a request through a local reverse
//     proxy also comes from loopback, but carries the proxy's Forwarded or X-Forwarded-For).
// Refusals are counted and logged like every other (summarised per source).
import { createHash, timingSafeEqual } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { isLoopbackHost } from '../shared/loopback'
import type { HubMetrics } from './hub-metrics'
import type { Readiness } from './readiness'
import type { RefusalKind } from './refusal-kinds'

export const OPS_PATHS = new Set(['/healthz', '/readyz', '/metrics'])

export interface OpsDeps {
  readiness(): Readiness
  metrics: Pick<HubMetrics, 'render' | 'contentType'>
  /** The metrics token; without one, /metrics answers loopback peers that no proxy relayed. */
  metricsToken?: string
  sendJson(res: ServerResponse, status: number, body: unknown, extra?: Record<string, string>): void
  refuse(
    req: IncomingMessage,
    res: ServerResponse,
    status: number,
    kind: RefusalKind,
    message: string,
    extra?: Record<string, string>
  ): void
}

const digest = (s: string) => createHash('sha256').update(s, 'utf8').digest()

/** Whether `given` is the token, in time that does not depend on where they differ. */
export function tokenMatches(given: string, token: string): boolean {
  return timingSafeEqual(digest(given), digest(token))
}

/** The peer's address without the IPv4-mapped prefix a dual-stack socket gives. */
function peerAddress(req: IncomingMessage): string {
  return (req.socket.remoteAddress ?? '').replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, '')
}

const PROXY_HEADERS = ['forwarded', 'x-forwarded-for', 'x-real-ip'] as const

/** Why this request may not read the metrics, or null when it may. */
export function metricsRefusal(req: IncomingMessage, token: string | undefined): { status: number; message: string } | null {
  if (token !== undefined) {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '')
    if (m && tokenMatches(m[1]!, token)) return null
    return { status: 401, message: 'the metrics need the metrics token (Authorization: Bearer …)' }
  }
  if (!isLoopbackHost(peerAddress(req)))
    return { status: 403, message: 'the metrics answer this machine only; give the hub --metrics-token-file to read them from elsewhere' }
  if (PROXY_HEADERS.some((h) => req.headers[h] !== undefined))
    return {
      status: 403,
      message: 'the metrics answer this machine only, and this request came through a proxy; give the hub --metrics-token-file'
    }
  return null
}

export async function serveOps(req: IncomingMessage, res: ServerResponse, path: string, d: OpsDeps): Promise<void> {
  const read = req.method === 'GET' || req.method === 'HEAD'
  req.resume()
  if (!read)
    return d.sendJson(
      res,
      405,
      { ok: false, error: { kind: 'method_not_allowed', message: 'GET only', retryable: false } },
      { Allow: 'GET, HEAD' }
    )
  if (path === '/healthz') return d.sendJson(res, 200, { ok: true })
  if (path === '/readyz') {
    const r = d.readiness()
    return d.sendJson(res, r.ok ? 200 : 503, r)
  }
  if (req.headers.origin !== undefined)
    return d.refuse(req, res, 403, 'origin', 'the metrics answer Prometheus, not web pages (a request with an Origin header was refused)')
  const no = metricsRefusal(req, d.metricsToken)
  if (no)
    return d.refuse(
      req,
      res,
      no.status,
      'metrics',
      no.message,
      no.status === 401 ? { 'WWW-Authenticate': 'Bearer realm="rampdesk-hub-metrics"' } : {}
    )
  const text = await d.metrics.render()
  res.writeHead(200, {
    'Content-Type': d.metrics.contentType,
    'Content-Length': Buffer.byteLength(text),
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': 'nosniff'
  })
  res.end(text)
}
