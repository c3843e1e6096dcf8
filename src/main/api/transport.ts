// HTTP transport for the ApiClient on undici: one keep-alive Pool per origin, connect /
// headers / body timeouts, AbortSignal, a cap on response size, and every undici
// failure mapped to an ApiError kind. An injected Dispatcher (MockAgent in tests)
// replaces the pools.
import type { Dispatcher } from 'undici'
import { Pool } from './undici-parts'
import { ApiError } from '../../shared/api/errors'
import pkg from '../../../package.json' with { type: 'json' }

export interface TransportOptions {
  /** Used for every request instead of the per-origin pools (tests pass a MockAgent). */
  dispatcher?: Dispatcher
  connectTimeoutMs?: number
  headersTimeoutMs?: number
  bodyTimeoutMs?: number
  /** Larger answers are cut off and fail with kind 'too_large'. Default 8 MiB. */
  maxResponseBytes?: number
  /** Sockets per origin. */
  connections?: number
  userAgent?: string
}

export interface TransportRequest {
  method: 'GET' | 'POST'
  url: string
  headers?: Record<string, string>
  body?: string
  signal?: AbortSignal
  /** Endpoint name, for error messages. */
  endpoint?: string
}

export interface TransportResponse {
  status: number
  headers: Record<string, string>
  bodyText: string
  /** The Date header in epoch ms, when present and valid. */
  date?: number
}

/** What the ApiClient needs from a transport. */
export interface HttpTransport {
  request(req: TransportRequest): Promise<TransportResponse>
  close(): Promise<void>
}

export const DEFAULT_MAX_RESPONSE_BYTES = 8 * 1024 * 1024

const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT'])
/** The code of a request the outage gate held (api/outage-gate.ts): it never left this machine. */
export const HELD_CODE = 'RAMPDESK_HELD_IN_OUTAGE'
/** Failures that happen before a single byte of the request leaves this machine. */
const UNSENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'UND_ERR_CONNECT_TIMEOUT', HELD_CODE])

export class Transport implements HttpTransport {
  private readonly pools = new Map<string, Pool>()
  private readonly maxBytes: number
  private readonly userAgent: string

  constructor(private readonly opts: TransportOptions = {}) {
    this.maxBytes = opts.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES
    this.userAgent = opts.userAgent ?? `rampdesk/${pkg.version}`
  }

  async request(req: TransportRequest): Promise<TransportResponse> {
    const url = new URL(req.url)
    try {
      const res = await this.dispatcherFor(url.origin).request({
        origin: url.origin,
        path: url.pathname + url.search,
        method: req.method,
        headers: { ...req.headers, 'User-Agent': this.userAgent },
        body: req.body,
        signal: req.signal,
        headersTimeout: this.opts.headersTimeoutMs ?? 15_000,
        bodyTimeout: this.opts.bodyTimeoutMs ?? 30_000
      })
      const headers = flattenHeaders(res.headers)
      const bodyText = await this.readCapped(res.body, headers['content-length'], req.endpoint)
      const date = headers.date === undefined ? NaN : Date.parse(headers.date)
      return { status: res.statusCode, headers, bodyText, ...(Number.isNaN(date) ? {} : { date }) }
    } catch (e) {
      throw toTransportError(e, req)
    }
  }

  async close(): Promise<void> {
    const pools = [...this.pools.values()]
    this.pools.clear()
    await Promise.all(pools.map((p) => p.close()))
  }

  private dispatcherFor(origin: string): Dispatcher {
    if (this.opts.dispatcher) return this.opts.dispatcher
    let pool = this.pools.get(origin)
    if (!pool) {
      pool = new Pool(origin, {
        connections: this.opts.connections ?? 6,
        connect: { timeout: this.opts.connectTimeoutMs ?? 10_000 },
        // Idle sockets are dropped well before a typical server's own idle timeout (5 s for
        // Node, 60 s for most load balancers; undici also honours the server's Keep-Alive
        // hint), so a request is never written to a socket the server is closing.
        keepAliveTimeout: 4_000,
        keepAliveMaxTimeout: 60_000,
        keepAliveTimeoutThreshold: 2_000
      })
      this.pools.set(origin, pool)
    }
    return pool
  }

  private async readCapped(body: Dispatcher.ResponseData['body'], declared: string | undefined, endpoint?: string): Promise<string> {
    const tooLarge = () => new ApiError({ kind: 'too_large', endpoint, message: `response larger than ${this.maxBytes} bytes` })
    if (declared !== undefined && Number(declared) > this.maxBytes) {
      body.destroy()
      throw tooLarge()
    }
    const chunks: Buffer[] = []
    let size = 0
    for await (const chunk of body as AsyncIterable<Buffer>) {
      size += chunk.length
      // Leaving the loop destroys the stream, which aborts the download.
      if (size > this.maxBytes) throw tooLarge()
      chunks.push(chunk)
    }
    return Buffer.concat(chunks).toString('utf8')
  }
}

function flattenHeaders(h: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [k, v] of Object.entries(h)) if (v !== undefined) out[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v
  return out
}

function errorCode(e: unknown): string | undefined {
  const code = (e as { code?: unknown } | null)?.code
  return typeof code === 'string' ? code : undefined
}

function toTransportError(e: unknown, req: TransportRequest): ApiError {
  if (e instanceof ApiError) return e
  const endpoint = req.endpoint
  const code = errorCode(e)
  const detail = e instanceof Error ? e.message : String(e)
  if (req.signal?.aborted || code === 'UND_ERR_ABORTED' || (e as Error | null)?.name === 'AbortError')
    return new ApiError({ kind: 'aborted', endpoint, message: 'request cancelled' }, { cause: e })
  if (code && TIMEOUT_CODES.has(code)) return new ApiError({ kind: 'timeout', endpoint, message: `${detail} (${code})` }, { cause: e })
  return new ApiError({ kind: 'network', endpoint, message: code ? `${detail} (${code})` : detail }, { cause: e })
}

/** True when the failure provably happened before the request reached the server (safe to retry a write). */
export function wasNeverSent(e: unknown): boolean {
  if (!(e instanceof ApiError) || (e.kind !== 'network' && e.kind !== 'timeout')) return false
  const code = errorCode(e.cause)
  return code !== undefined && UNSENT_CODES.has(code)
}
