// The team hub over HTTP(S). POST /rpc/<channel> with `Authorization: Bearer <token>` and
// the channel's JSON input answers the contract's envelope exactly as the web harness
// does; GET /events streams the contract's events (Server-Sent Events) as that operator
// sees them, replaying the order changes a reconnecting desktop missed (event-stream.ts);
// POST /export/orders streams a CSV (export-route.ts); POST /webhook is the service's
// delivery address (hub-webhooks.ts); GET /healthz, GET /readyz and GET /metrics are for
// whoever runs the hub (ops-routes.ts). Every answer is counted in the metrics by route,
// channel and status.
//
// Refused, cheapest first (docs/hub-reference.md, "What the hub refuses"): connections over the caps,
// slow or oversized request lines and headers (front-door.ts); any request carrying an
// Origin header (403: the hub serves desktops, never a browser page, so no web page can use
// a token it got hold of); a malformed path (400); no or an unknown token (401); a role
// without the channel (403, audited); bodies over the cap (413); an operator over their
// request rate (429 with Retry-After). Failed tokens past a few from one client or with one
// token's first characters are answered 429 with a growing Retry-After (auth-throttle.ts); a
// valid token is checked first and never throttled. Refusals are logged with a clipped path
// at most, and summarised per source address (refusal-log.ts). Behind a trusted reverse proxy
// (--trusted-proxy) a request's source is the client X-Forwarded-For names
// (trusted-proxies.ts), and each such client may have as many requests open at once as a peer
// may have connections.
import type { IncomingMessage, ServerResponse } from 'node:http'
import { invokeChannel } from '../main/handlers/invoke'
import { readBody } from '../main/request-body'
import { channelNames, type ChannelName, type ErrorInfo } from '../shared/ipc/contract'
import { channelAccess, roleMay } from '../shared/ipc/team-access'
import { openEventStream, type OpenStream } from './event-stream'
import { answerFilter } from './answer-filter'
import { exportOrders } from './export-route'
import { clipPath, openFrontDoor, type FrontDoor, type FrontDoorLimits } from './front-door'
import type { Hub } from './hub'
import type { Route } from './hub-metrics'
import type { Operator } from './operators'
import { OPS_PATHS, serveOps, type OpsDeps } from './ops-routes'
import { RateCap } from './rate-cap'
import { sendJson } from './json-answer'
import type { RefusalKind } from './refusal-kinds'
import { AuthThrottle } from './auth-throttle'
import { NO_TRUSTED_PROXIES, type TrustedProxies } from './trusted-proxies'
import type { OidcConfig } from './oidc/oidc-config'
import { OIDC_PATH, oidcRoutes } from './oidc/oidc-routes'
import { OidcService } from './oidc/oidc-service'
import { refusalMessage } from './token-expiry'
import { MAX_WRONG_CODES } from './second-factor'
import { auditedInput, SECOND_FACTOR_HEADER, SecondFactorGate, type SecondFactorPolicy } from './second-factor-gate'

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
  /** Connection, header and timeout limits (front-door.ts). */
  limits?: Partial<FrontDoorLimits>
  /** The token GET /metrics asks for; without one, /metrics answers loopback peers only. */
  metricsToken?: string
  /** Reverse proxies whose X-Forwarded-For names the client (--trusted-proxy); none by default. */
  trustedProxies?: TrustedProxies
  /** Failed tokens throttled per client and per token prefix (default: auth-throttle.ts's limits). */
  authThrottle?: AuthThrottle
  /** Sign-in through the team's identity provider (/auth/oidc/*, oidc/); none by default. */
  oidc?: OidcConfig
  /** The hub's clock, for OIDC sessions (tests compress it). */
  now?: () => number
  /** Who must prove a second factor per session (default none: only the enrolled, before redirecting actions). */
  requireSecondFactor?: SecondFactorPolicy
}

export interface HubServer {
  url: string
  port: number
  /** The limits in force. */
  limits: FrontDoorLimits
  /** Open event streams per operator. */
  streams(): Map<string, number>
  close(): Promise<void>
}

const refusal = (kind: string, message: string, extra: Partial<ErrorInfo> = {}) => ({
  ok: false,
  error: { kind, message, retryable: false, ...extra }
})

function bearer(req: IncomingMessage): string | null {
  const h = req.headers.authorization ?? ''
  const m = /^Bearer\s+(\S+)\s*$/i.exec(h)
  return m ? m[1]! : null
}

/** The body, or null when it is over `max` (drained, not buffered). */
const readCapped = (req: IncomingMessage, max: number): Promise<string | null> =>
  readBody(req, max).catch((e: { status?: number }) => {
    if (e.status === 413) return null
    throw e
  })

/** The path of an origin-form request target ("/rpc/x?y"); null for anything else (an absolute URL, "*", junk). */
export function pathOf(target: string): string | null {
  if (!target.startsWith('/') || target.startsWith('//')) return null
  try {
    return new URL(target, 'http://hub').pathname
  } catch {
    return null
  }
}

/** The channel named by a /rpc/ path, or null when the path is not one a client could mean (bad %-escapes). */
export function channelOfPath(path: string): string | null {
  try {
    return decodeURIComponent(path.slice('/rpc/'.length))
  } catch {
    return null
  }
}

/** How late a throttled client's failed token is answered. */
export const THROTTLED_ANSWER_DELAY_MS = 250

export async function startHubServer(o: HubServerOptions): Promise<HubServer> {
  const { hub } = o
  const host = o.host ?? '127.0.0.1'
  const maxBody = o.maxBodyBytes ?? 2 * 1024 * 1024
  const rateCap = new RateCap({ perMinute: o.rateLimitPerMinute ?? 600, burst: o.rateBurst ?? 120 })
  const channelSet = new Set<string>(channelNames)
  const streams = new Set<OpenStream>()
  const replaying = new Set<string>()
  const exportsRunning = new Map<string, number>()
  const maxStreams = o.maxStreamsPerOperator ?? 8
  const maxBacklog = o.maxStreamBacklogBytes ?? 8 * 1024 * 1024
  const refusals = hub.refusals
  const proxies = o.trustedProxies ?? NO_TRUSTED_PROXIES
  const throttle = o.authThrottle ?? new AuthThrottle({ log: hub.log })
  const secondFactor = new SecondFactorGate({ policy: o.requireSecondFactor ?? 'none', store: hub.store.secondFactors, now: o.now })
  /** Requests open now per client behind a trusted proxy (the front door counts every other peer's connections). */
  const proxiedOpen = new Map<string, number>()
  /** A refusal worth a log line (summarised per source) as well as its count. */
  const refused = (req: IncomingMessage, status: number, kind: RefusalKind, what: string) => {
    hub.metrics.refusal(kind)
    refusals.refused(proxies.sourceOf(req), status, `${req.method ?? '?'} ${clipPath(req.url ?? '/')}: ${what}`)
  }

  let publicUrl = ''
  const oidc = o.oidc
    ? oidcRoutes({
        service: new OidcService({
          config: o.oidc,
          store: hub.store.oidc,
          audit: hub.audit,
          log: hub.log,
          publicUrl: () => publicUrl,
          now: o.now,
          providerFailed: (stage) => hub.metrics.oidcProviderFailed(stage),
          pendingDropped: (n) => hub.metrics.oidcPendingDropped(n)
        }),
        sourceOf: (req) => proxies.sourceOf(req),
        refused: (req, status, what) => refused(req, status, 'sign_in', what)
      })
    : null

  const countFor = (name: string) => [...streams].filter((s) => s.operator === name).length

  function authenticate(req: IncomingMessage, res: ServerResponse): Operator | null {
    const token = bearer(req)
    // A valid token is looked up first and never throttled (auth-throttle.ts says why).
    const op = token ? hub.operators.authenticate(token) : null
    if (!op) {
      // A token that ended or was replaced is told which, so its holder knows what to ask for.
      const ended = token ? hub.operators.refusalOf(token) : null
      const why = ended
        ? refusalMessage(ended)
        : token
          ? 'this operator token is unknown or was revoked'
          : 'an operator token is required (Authorization: Bearer …)'
      const verdict = throttle.failed(proxies.sourceOf(req), token)
      req.resume()
      if (verdict.throttled) {
        const seconds = Math.max(1, Math.ceil(verdict.retryAfterMs / 1000))
        refused(req, 429, 'auth_throttled', `${token ? 'unknown or revoked token' : 'no bearer token'}, throttled`)
        // Still "unauthorized" to a desktop (its token is refused), with the back-off on top.
        // Answered a moment late: a client that ignores Retry-After gets at most its open
        // requests' worth of answers each THROTTLED_ANSWER_DELAY_MS (64 per client address).
        const answer = () =>
          sendJson(
            res,
            429,
            refusal(
              'unauthorized',
              `${why}; too many failed tokens ${verdict.by === 'source' ? 'from this address' : 'starting like this one'}: try again in ${seconds} s`,
              { retryable: false, ...(ended ? { reason: ended.kind } : {}) }
            ),
            { 'Retry-After': String(seconds), 'WWW-Authenticate': 'Bearer realm="rampdesk-hub"', Connection: 'close' }
          )
        setTimeout(
          () => {
            if (!res.destroyed) answer()
          },
          Math.min(verdict.retryAfterMs, THROTTLED_ANSWER_DELAY_MS)
        ).unref()
        return null
      }
      refused(req, 401, 'unauthorized', token ? 'unknown or revoked token' : 'no bearer token')
      sendJson(
        res,
        401,
        refusal('unauthorized', why, ended ? { reason: ended.kind } : {}),
        // A stranger's connection is not kept for the next try.
        { 'WWW-Authenticate': 'Bearer realm="rampdesk-hub"', Connection: 'close' }
      )
      return null
    }
    const waitMs = rateCap.take(op.name)
    if (waitMs > 0) {
      hub.metrics.refusal('rate_limited')
      req.resume()
      sendJson(
        res,
        429,
        refusal('rate_limited', `${op.name} is over the hub's request rate; try again in ${Math.ceil(waitMs / 1000)} s`, {
          retryable: true
        }),
        { 'Retry-After': String(Math.ceil(waitMs / 1000)) }
      )
      return null
    }
    return op
  }

  async function rpc(req: IncomingMessage, res: ServerResponse, channel: string | null): Promise<void> {
    if (channel === null) {
      refused(req, 400, 'malformed', 'malformed path')
      req.resume()
      return sendJson(res, 400, refusal('invalid_input', 'the path is not a valid channel name (bad %-escape)'))
    }
    if (req.method !== 'POST') return sendJson(res, 405, refusal('method_not_allowed', 'POST only'), { Allow: 'POST' })
    const op = authenticate(req, res)
    if (!op) return
    if (!(req.headers['content-type'] ?? '').toLowerCase().startsWith('application/json'))
      return sendJson(res, 415, refusal('invalid_input', 'the body must be JSON (Content-Type: application/json)'))
    if (!channelSet.has(channel)) return sendJson(res, 404, refusal('unknown_channel', `unknown channel ${clipPath(channel)}`))
    const name = channel as ChannelName
    if (!roleMay(op.role, name)) {
      const need = channelAccess(name)
      const message =
        need === 'desktop'
          ? `${name} is answered by each desktop itself, not by the team hub`
          : `${name} needs the ${need} role; ${op.name} is ${op.role === 'admin' ? 'an' : 'a'} ${op.role}`
      hub.metrics.refusal('role')
      hub.audit.append(op.name, 'refused', { channel: name, role: op.role })
      hub.log.warn(`refused ${name} to ${op.name} (${op.role})`, { operator: op.name, role: op.role, channel: name })
      return sendJson(res, 403, refusal('forbidden', message))
    }
    const text = await readCapped(req, maxBody)
    if (text === null) {
      hub.metrics.refusal('too_large')
      return sendJson(res, 413, refusal('invalid_input', `request too large (over ${maxBody} bytes)`))
    }
    let raw: unknown
    try {
      raw = text.length ? JSON.parse(text) : {}
    } catch {
      return sendJson(res, 400, refusal('invalid_input', 'body is not JSON'))
    }
    const code = req.headers[SECOND_FACTOR_HEADER]
    const gate = await secondFactor.check(op, name, raw, typeof code === 'string' ? code : undefined, {
      proven: (by) => hub.audit.append(op.name, 'secondFactor:proven', { by }),
      lockedOut: (until) => hub.audit.append(op.name, 'secondFactor:lockedOut', { until, wrongCodes: MAX_WRONG_CODES })
    })
    if (gate) {
      hub.metrics.refusal('role')
      hub.audit.append(op.name, 'refused', { channel: name, secondFactor: gate.kind })
      hub.log.warn(`refused ${name} to ${op.name}: ${gate.message}`, { operator: op.name, channel: name })
      const { kind, message, ...detail } = gate
      return sendJson(res, 403, refusal(kind, message, detail))
    }
    const envelope = await invokeChannel(hub.handlersFor(op), name, raw)
    // Reads are not audited (six desktops poll every second); every action and its outcome is.
    if (channelAccess(name) !== 'viewer') {
      const detail: Record<string, unknown> = { input: auditedInput(name, raw), ok: envelope.ok }
      if (op.account === 'service') detail.account = 'service'
      if (!envelope.ok) detail.error = envelope.error.message
      hub.audit.append(op.name, name, detail)
      hub.log.info(`${op.name} (${op.role}) ${name}: ${envelope.ok ? 'ok' : `failed: ${envelope.error.message}`}`, {
        operator: op.name,
        role: op.role,
        channel: name,
        ok: envelope.ok
      })
    }
    sendJson(res, 200, envelope)
  }

  async function exportRoute(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method !== 'POST') return sendJson(res, 405, refusal('method_not_allowed', 'POST only'), { Allow: 'POST' })
    const op = authenticate(req, res)
    if (!op) return
    if (!roleMay(op.role, 'orders:query')) return sendJson(res, 403, refusal('forbidden', `${op.name} may not read orders`))
    await exportOrders(op, req, res, { hub, rateCap, running: exportsRunning, readBody: (r) => readCapped(r, maxBody), refuse: sendJson })
  }

  function events(req: IncomingMessage, res: ServerResponse): void {
    if (req.method !== 'GET') return sendJson(res, 405, refusal('method_not_allowed', 'GET only'), { Allow: 'GET' })
    const op = authenticate(req, res)
    if (!op) return
    if (countFor(op.name) >= maxStreams) {
      hub.metrics.refusal('streams')
      return sendJson(res, 429, refusal('rate_limited', `${op.name} already has ${maxStreams} event streams open`, { retryable: true }), {
        'Retry-After': '5'
      })
    }
    const stream = openEventStream(op, req, res, {
      hub,
      filter: answerFilter(op.role, hub.profile.baseUrl),
      rateCap,
      replaying,
      maxBacklog,
      onRefused: () => hub.metrics.refusal('streams'),
      onClose(s) {
        streams.delete(s)
        if (countFor(op.name) === 0) hub.operatorLeft(op.name)
      }
    })
    if (stream && !res.writableEnded) streams.add(stream)
  }

  /** Counts the answer when it is over (an event stream when it closes): by route, channel and status (0: none sent). */
  function count(res: ServerResponse, route: Route, channel = ''): void {
    res.once('close', () => hub.metrics.request(route, channel, res.headersSent ? res.statusCode : 0))
  }
  const routeOfPath = (path: string): Route =>
    path.startsWith('/rpc/')
      ? 'rpc'
      : path === '/events'
        ? 'events'
        : path === '/export/orders'
          ? 'export'
          : path === '/webhook'
            ? 'webhook'
            : OPS_PATHS.has(path)
              ? (path.slice(1) as Route)
              : 'other'
  const opsDeps: OpsDeps = {
    readiness: () => hub.readiness(),
    metrics: hub.metrics,
    metricsToken: o.metricsToken,
    sendJson,
    refuse(req, res, status, kind, message, extra = {}) {
      refused(req, status, kind, message)
      sendJson(res, status, refusal(status === 401 ? 'unauthorized' : 'forbidden', message), extra)
    }
  }
  const webhook = (req: IncomingMessage, res: ServerResponse): void => {
    count(res, 'webhook')
    hub.webhook(req, res)
  }

  /**
   * Behind a trusted proxy, the cap the front door puts on one peer's connections, put on one
   * client's open requests instead (an event stream holds its request open). False when refused.
   */
  function admitProxied(req: IncomingMessage, res: ServerResponse): boolean {
    if (!proxies.trusts(req.socket.remoteAddress)) return true
    const client = proxies.sourceOf(req)
    const open = proxiedOpen.get(client) ?? 0
    const cap = door.limits.maxConnectionsPerAddress
    if (open >= cap) {
      refused(req, 503, 'connection_cap', `request over the cap of ${cap} open per address`)
      req.resume()
      sendJson(res, 503, refusal('unavailable', 'too many open requests from this address', { retryable: true }), {
        'Retry-After': '5'
      })
      return false
    }
    proxiedOpen.set(client, open + 1)
    res.once('close', () => {
      const n = (proxiedOpen.get(client) ?? 1) - 1
      if (n > 0) proxiedOpen.set(client, n)
      else proxiedOpen.delete(client)
    })
    return true
  }

  const handler = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    try {
      const path = pathOf(req.url ?? '/')
      if (path === null) {
        count(res, 'other')
        refused(req, 400, 'malformed', 'malformed request target')
        req.resume()
        return sendJson(res, 400, refusal('invalid_input', 'the request target is not a path'), { Connection: 'close' })
      }
      const route = routeOfPath(path)
      if (route === 'webhook') return webhook(req, res)
      if (route !== 'rpc') count(res, route)
      else {
        const channel = channelOfPath(path)
        count(res, route, channel !== null && channelSet.has(channel) ? channel : '(unknown)')
      }
      if (!admitProxied(req, res)) return
      if (OPS_PATHS.has(path)) return await serveOps(req, res, path, opsDeps)
      if (oidc && (path === OIDC_PATH || path.startsWith(`${OIDC_PATH}/`))) return await oidc(req, res, path)
      if (route === 'rpc' || route === 'events' || route === 'export') {
        if (req.headers.origin !== undefined) {
          refused(req, 403, 'origin', 'a request with an Origin header (a web page)')
          req.resume()
          return sendJson(
            res,
            403,
            refusal('forbidden', 'the team hub answers Rampdesk desktops, not web pages (a request with an Origin header was refused)')
          )
        }
        if (path === '/events') return events(req, res)
        if (path === '/export/orders') return await exportRoute(req, res)
        return await rpc(req, res, channelOfPath(path))
      }
      refused(req, 404, 'not_found', 'no such path')
      req.resume()
      sendJson(res, 404, refusal('not_found', 'not found'), { Connection: 'close' })
    } catch (e) {
      hub.log.error(`request failed: ${e instanceof Error ? e.message : String(e)}`)
      if (!res.headersSent) sendJson(res, 500, refusal('internal', 'internal error'))
      else res.destroy()
    }
  }

  const door: FrontDoor = await openFrontDoor({
    host,
    port: o.port ?? 8790,
    tls: o.tls,
    limits: o.limits,
    trustedProxies: proxies,
    onRequest: (req, res) => void handler(req, res),
    onWebhook: webhook,
    onRefused: (r) => {
      hub.metrics.refusal(r.kind)
      refusals.refused(r.source, r.status, r.what)
    }
  })
  hub.metrics.attach({ streams: () => streams.size, connections: () => door.connections().total })

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

  const port = door.port
  const scheme = o.tls ? 'https' : 'http'
  const urlHost = host.includes(':') ? `[${host}]` : host
  const url = `${scheme}://${urlHost}:${port}`
  const unspecified = host === '0.0.0.0' || host === '::'
  publicUrl = o.publicUrl ?? (unspecified ? `${scheme}://127.0.0.1:${port}` : url)
  hub.setPublicUrl(publicUrl)
  if (!o.publicUrl && unspecified)
    hub.log.warn(
      `listening on every interface without --public-url: the webhook URL the hub offers (${hub.webhookUrl()}) only works on this machine`
    )

  return {
    url,
    port,
    limits: door.limits,
    streams() {
      const m = new Map<string, number>()
      for (const s of streams) m.set(s.operator, (m.get(s.operator) ?? 0) + 1)
      return m
    },
    async close() {
      clearInterval(check)
      throttle.close()
      unRevoked()
      for (const s of [...streams]) s.close()
      await door.close()
    }
  }
}
