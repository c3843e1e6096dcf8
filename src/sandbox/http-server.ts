// The sandbox's HTTP front: node:http, no framework. Routes come from the sandbox's own
// route table (/{serviceName}/api/{path}); each request goes through faults, JSON
// parsing, authentication, the rate limit and the endpoint's request fields before the
// service answers. Failures use the live envelope {status: 0, code, error} with the
// HTTP status equal to code. The readings decide the open choices here: whether a Date
// header is sent, whether currentTimestamp exists, the limits the spec does not show and
// how limits count, and how strictly parameter types are held. The control API lives
// under /__sandbox/ and answers loopback only, with its token (admin-api.ts).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import { authenticate, type AuthConfig } from './auth'
import { SandboxError, errorBody } from './errors'
import { handleAdmin, refuseControlRequest, type ControlGuard } from './admin-api'
import type { SandboxService } from './sandbox-service'
import { FixedWindowLimiter, SlidingWindowLimiter, type MinuteLimiter } from './rate-limiter'
import { parseRequest } from './request-schemas'
import { ENDPOINT_NAMES, ROUTES, routePath, type EndpointName } from './routes'

const MAX_BODY_BYTES = 1 << 20

export interface HttpOptions {
  serviceName: string
  aheadToleranceMs: number
  maxAgeMs: number
  /** Base URL, for the admin info answer. */
  url: () => string
  /** The control API's token and own host names. */
  control: ControlGuard
}

const STATUS_TEXT: Record<number, string> = {
  500: 'Internal server error',
  503: 'Service under maintenance, please try again later',
  429: 'Too many requests',
  502: 'Bad gateway',
  504: 'Gateway timeout'
}

class BodyTooLarge extends Error {}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    req.on('data', (c: Buffer) => {
      size += c.length
      // Past the cap, keep draining (so the 400 can still be answered) but keep nothing.
      if (size <= MAX_BODY_BYTES) chunks.push(c)
    })
    req.on('end', () => (size > MAX_BODY_BYTES ? reject(new BodyTooLarge()) : resolve(Buffer.concat(chunks).toString('utf8'))))
    req.on('error', reject)
  })
}

export function isLoopback(addr: string | undefined): boolean {
  if (!addr) return false
  return addr === '::1' || addr.startsWith('127.') || addr.startsWith('::ffff:127.')
}

const sleep = (ms: number): Promise<void> =>
  new Promise((resolve) => {
    const t = setTimeout(resolve, ms)
    t.unref()
  })

export function createSandboxServer(service: SandboxService, o: HttpOptions): Server {
  const routes = new Map<string, EndpointName>(ENDPOINT_NAMES.map((n) => [routePath(o.serviceName, n), n]))
  const limiters: Record<'sliding' | 'fixed', MinuteLimiter> = { sliding: new SlidingWindowLimiter(), fixed: new FixedWindowLimiter() }
  const auth: AuthConfig = { serviceName: o.serviceName, keys: service.keys, aheadToleranceMs: o.aheadToleranceMs, maxAgeMs: o.maxAgeMs }

  /** The Date header (sandbox clock) when the dateHeader reading is on; none at all, not even node's own, when off. */
  const dateHeader = (res: ServerResponse): Record<string, string> => {
    if (service.r.dateHeader) return { date: new Date(service.serverNow()).toUTCString() }
    res.sendDate = false
    return {}
  }

  const send = (res: ServerResponse, status: number, body: unknown, extra: Record<string, string> = {}): void => {
    const text = JSON.stringify(body)
    res.writeHead(status, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': String(Buffer.byteLength(text)),
      ...dateHeader(res),
      ...extra
    })
    res.end(text)
  }
  const sendError = (res: ServerResponse, code: number, error: string, extra: Record<string, string> = {}): void =>
    send(res, code, errorBody(code, error), extra)

  async function handleApi(req: IncomingMessage, res: ServerResponse, name: EndpointName): Promise<void> {
    const ep = ROUTES[name]
    const fault = service.faults.decide(name)
    if (fault.latencyMs > 0) await sleep(fault.latencyMs)
    if (fault.action === 'drop') {
      req.socket.destroy()
      return
    }
    if (fault.action === 'storm') return sendError(res, 429, 'Too many requests')
    if (fault.action === 'error') return sendError(res, fault.status, STATUS_TEXT[fault.status] ?? `Injected error ${fault.status}`)

    let body: unknown = undefined
    if (ep.method === 'POST') {
      let text: string
      try {
        text = await readBody(req)
      } catch (e) {
        if (e instanceof BodyTooLarge) return sendError(res, 400, `Request body larger than ${MAX_BODY_BYTES} bytes`)
        throw e
      }
      if (text.trim() === '') body = {}
      else {
        try {
          body = JSON.parse(text)
        } catch {
          return sendError(res, 400, 'Malformed JSON body')
        }
      }
      if (body === null || typeof body !== 'object' || Array.isArray(body))
        return sendError(res, 400, 'The request body must be a JSON object')
    } else {
      req.resume()
    }

    const now = service.serverNow()
    const apiKey = ep.signed ? authenticate(req.headers, body, now, auth) : null
    const readings = service.r
    const limit = ep.perMinute ?? readings.unknownLimits[name]
    if (limit !== undefined) {
      // Signed calls count per API key; the public GETs per client address.
      const who = apiKey ?? `address ${req.socket.remoteAddress ?? '?'}`
      const nextSlot = limiters[readings.limiter].take(`${who}\n${name}`, limit, now)
      if (nextSlot !== undefined) {
        return sendError(
          res,
          429,
          `Too many requests: ${name} allows ${limit} per minute; next slot in ${Math.ceil((nextSlot - now) / 1000)} s`
        )
      }
    }
    let value: Record<string, unknown> = {}
    if (ep.method === 'POST') {
      const v = parseRequest(name, body as Record<string, unknown>, (key) => readings.paramTypes[key] ?? 'strict', readings.typeErrorText)
      if (!v.ok) return sendError(res, v.failure.code, v.failure.error)
      value = v.value
    }
    const answer = await service.handle(name, value, apiKey)
    const text = JSON.stringify(answer)
    if (fault.action === 'malformed' || fault.action === 'truncate') {
      const broken =
        fault.action === 'malformed' ? text.slice(0, Math.max(1, Math.floor(text.length / 2))) + '<!-- upstream error -->' : text
      res.writeHead(200, {
        'content-type': 'application/json; charset=utf-8',
        'content-length': String(Buffer.byteLength(broken)),
        ...dateHeader(res)
      })
      if (fault.action === 'malformed') {
        res.end(broken)
      } else {
        // Promise the whole body, send half, then cut the connection.
        res.write(text.slice(0, Math.floor(text.length / 2)))
        setImmediate(() => res.socket?.destroy())
      }
      return
    }
    send(res, 200, answer)
  }

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://sandbox.invalid')
    const path = url.pathname
    const run = async (): Promise<void> => {
      if (path === '/__sandbox' || path.startsWith('/__sandbox/')) {
        if (!isLoopback(req.socket.remoteAddress)) return send(res, 403, { error: 'the control API answers loopback clients only' })
        const refused = refuseControlRequest(req, o.control)
        if (refused) {
          req.resume()
          return send(res, refused.status, { error: refused.error })
        }
        return handleAdmin(service, req, res, url, { url: o.url(), send })
      }
      const name = routes.get(path)
      // With the currentTimestamp reading off, the endpoint does not exist at all.
      if (name === undefined || (name === 'currentTimestamp' && !service.r.currentTimestamp)) {
        req.resume()
        return sendError(res, 404, `Not found: ${req.method ?? 'GET'} ${path}`)
      }
      const ep = ROUTES[name]
      if (req.method !== ep.method) {
        req.resume()
        return sendError(res, 405, `Method ${req.method ?? '?'} not allowed on ${path}: use ${ep.method}`, { allow: ep.method })
      }
      await handleApi(req, res, name)
    }
    run().catch((e: unknown) => {
      if (res.headersSent) {
        res.destroy()
        return
      }
      if (e instanceof SandboxError) return sendError(res, e.code, e.message)
      sendError(res, 500, `Internal server error: ${e instanceof Error ? e.message : String(e)}`)
    })
  })
  // Like the load balancers in front of real services: idle connections live a minute,
  // longer than any client keeps them, so closing is the client's decision.
  server.keepAliveTimeout = 65_000
  server.headersTimeout = 66_000
  return server
}
