// The browser harness: the same contract the preload exposes, served over HTTP so the
// real renderer can run in a plain browser against the real services (npm run web,
// Playwright e2e, benchmarks). POST /rpc/<channel> answers the channel's envelope;
// GET /events streams contract events as Server-Sent Events; GET /exports/<file> hands a
// CSV export of the export folder to the browser as a download (a desktop opens it).
// Guarded like a local app should be. It binds to loopback (anything else needs
// allowRemote) and is reached by a per-launch name, <random>.localhost, which browsers
// resolve to loopback themselves: its cookie is sent to no other loopback server (cookies
// ignore ports, so one set for 127.0.0.1 would be), and only that name passes the Host
// check (DNS rebinding), but for a sign-in coming back to 127.0.0.1 (sign-in-return.ts). The printed token is exchanged for a session id of its own in an
// HttpOnly SameSite=Strict cookie, so the cookie never carries the token, and a foreign
// Origin is refused (cross-site requests).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import { randomBytes, timingSafeEqual } from 'node:crypto'
import { readFile, stat } from 'node:fs/promises'
import { extname, join, normalize, resolve, sep } from 'node:path'
import type { AddressInfo } from 'node:net'
import { channelNames, eventNames, ExportFileName, type ChannelName, type ContractHandlers, type EventName } from '../shared/ipc/contract'
import { invokeChannel } from '../main/handlers/invoke'
import { readBody } from '../main/request-body'
import { CONTENT_SECURITY_POLICY } from '../shared/csp'
import { isLoopbackHost } from '../shared/loopback'
import { SIGN_IN_BACK, SIGN_IN_DONE, signInBack, signInDone, type SignInReturn } from './sign-in-return'

const CSP = CONTENT_SECURITY_POLICY

const MIME: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
  '.ico': 'image/x-icon'
}

const MAX_RPC_BODY = 2 * 1024 * 1024
export const SESSION_COOKIE = 'rampdesk_session'
/** Browser sessions kept at once (each exchange of the token opens one); the oldest go first. */
const MAX_SESSIONS = 32

export interface WebHarnessOptions {
  handlers: ContractHandlers
  /** Subscribe to every contract event; returns an unsubscribe. */
  subscribe: (listener: (event: EventName, payload: unknown) => void) => () => void
  /** Folder of the built renderer (index.html and assets). */
  staticDir: string
  /** The address to bind (default 127.0.0.1); one beyond loopback needs allowRemote. */
  host?: string
  port?: number
  token?: string
  /** Accept a bind address beyond loopback (other machines can then reach the harness). */
  allowRemote?: boolean
  /** The folder CSV exports are written to (GET /exports/<file>); absent: no downloads. */
  exportDir?: string
  /** Finishes a sign-in through a team hub's identity provider whose page came back to /oidc/done. */
  signIn?: SignInReturn
}

export interface WebHarness {
  /** http://<random>.localhost:PORT/ : the name browsers reach the harness by. */
  url: string
  /** The URL to open, with the token. */
  openUrl: string
  token: string
  port: number
  /** The per-launch host name (<random>.localhost). */
  hostname: string
  /** Where the harness listens (for clients that cannot resolve *.localhost: connect here, send Host of `url`). */
  listenUrl: string
  /** Another URL browsers may use: http://HOST:PORT/ when bound beyond loopback with allowRemote. */
  remoteUrl: string | null
  server: Server
  /** Where a sign-in's page comes back to (the hub accepts loopback addresses only); null when bound elsewhere. */
  signInRedirectUri: string | null
  close(): Promise<void>
}

/** A name a wildcard bind would answer to under any Host; with allowRemote the bind must name the one address browsers use. */
const isWildcard = (host: string): boolean => ['0.0.0.0', '::', '[::]'].includes(host.trim())

/** Why the harness may not bind there, or null. */
export function bindProblem(host: string, allowRemote: boolean): string | null {
  if (isLoopbackHost(host)) return null
  if (!allowRemote)
    return `--host ${host} would let other machines reach Rampdesk and its API keys: use a loopback address (127.0.0.1), or add --allow-remote if that is what you want`
  if (isWildcard(host))
    return `--host ${host} answers on every address under any name; with --allow-remote give the one address browsers will use (its Host header is checked)`
  return null
}

function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a)
  const y = Buffer.from(b)
  return x.length === y.length && timingSafeEqual(x, y)
}

function cookieValue(req: IncomingMessage, name: string): string | undefined {
  const raw = req.headers.cookie ?? ''
  for (const part of raw.split(';')) {
    const [k, ...v] = part.trim().split('=')
    if (k === name) return v.join('=')
  }
  return undefined
}

function send(
  res: ServerResponse,
  status: number,
  body: string,
  type = 'application/json; charset=utf-8',
  extra: Record<string, string> = {}
): void {
  res.writeHead(status, {
    'Content-Type': type,
    'Content-Length': Buffer.byteLength(body),
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    ...extra
  })
  res.end(body)
}

export async function startWebHarness(opts: WebHarnessOptions): Promise<WebHarness> {
  const host = opts.host ?? '127.0.0.1'
  const problem = bindProblem(host, opts.allowRemote ?? false)
  if (problem) throw new Error(problem)
  const token = opts.token ?? randomBytes(24).toString('base64url')
  // A DNS label: lowercase letters and digits, never guessable from another launch.
  const hostname = `rd${randomBytes(10).toString('hex')}.localhost`
  const root = resolve(opts.staticDir)
  const channelSet = new Set<string>(channelNames)
  const sseClients = new Set<ServerResponse>()
  /** Session id -> when it was opened; a Map keeps them oldest first. */
  const sessions = new Map<string, number>()
  let port = 0

  /** The hub sends a sign-in's page back to an address, never a name: 127.0.0.1 or [::1] where the harness listens. */
  const loopbackHostPort = (): string | null => (host === '127.0.0.1' || host === '::1' ? hostPort(host) : null)
  const hostPort = (h: string): string => `${h.includes(':') && !h.startsWith('[') ? `[${h}]` : h}:${port}`
  // Only the per-launch name; with allowRemote also the one address given (bindProblem refused wildcards).
  const allowedHosts = () => new Set([hostPort(hostname), ...(isLoopbackHost(host) ? [] : [hostPort(host)])])
  const ownOrigins = () => new Set([...allowedHosts()].map((h) => `http://${h}`))

  function openSession(): string {
    const id = randomBytes(32).toString('base64url')
    sessions.set(id, Date.now())
    while (sessions.size > MAX_SESSIONS) sessions.delete(sessions.keys().next().value!)
    return id
  }
  const hasSession = (req: IncomingMessage): boolean => {
    const given = cookieValue(req, SESSION_COOKIE)
    if (given === undefined) return false
    // Compared one by one in constant time: the id itself never decides how long the check takes.
    let found = false
    for (const id of sessions.keys()) if (safeEqual(given, id)) found = true
    return found
  }

  const frame = (event: string, payload: unknown) => `event: ${event}\ndata: ${JSON.stringify(payload)}\n\n`
  const unsubscribe = opts.subscribe((event, payload) => {
    for (const res of sseClients) res.write(frame(event, payload))
  })

  async function serveStatic(req: IncomingMessage, res: ServerResponse, pathname: string): Promise<void> {
    let rel: string
    try {
      rel = pathname === '/' ? 'index.html' : decodeURIComponent(pathname).replace(/^\/+/, '')
    } catch {
      return send(res, 400, '{"error":"malformed path"}')
    }
    // A NUL byte makes fs throw; it never names a file of ours.
    if (rel.includes('\0')) return send(res, 404, '{"error":"not found"}')
    const file = normalize(join(root, rel))
    if (file !== root && !file.startsWith(root + sep)) return send(res, 404, '{"error":"not found"}')
    try {
      const s = await stat(file)
      if (!s.isFile()) return send(res, 404, '{"error":"not found"}')
      const body = await readFile(file)
      res.writeHead(200, {
        'Content-Type': MIME[extname(file)] ?? 'application/octet-stream',
        'Content-Length': body.length,
        'Content-Security-Policy': CSP,
        'X-Content-Type-Options': 'nosniff',
        'X-Frame-Options': 'DENY',
        'Referrer-Policy': 'no-referrer',
        'Cache-Control': extname(file) === '.html' ? 'no-store' : 'max-age=3600'
      })
      res.end(req.method === 'HEAD' ? undefined : body)
    } catch {
      send(res, 404, '{"error":"not found"}')
    }
  }

  /** An export by its name only (ExportFileName: no separator, no other file), as an attachment. */
  async function serveExport(req: IncomingMessage, res: ServerResponse, name: string): Promise<void> {
    if (!opts.exportDir || !ExportFileName.safeParse(name).success) return send(res, 404, '{"error":"not found"}')
    try {
      const body = await readFile(join(resolve(opts.exportDir), name))
      res.writeHead(200, {
        'Content-Type': 'text/csv; charset=utf-8',
        'Content-Length': body.length,
        'Content-Disposition': `attachment; filename="${name}"`,
        'X-Content-Type-Options': 'nosniff',
        'Cache-Control': 'no-store'
      })
      res.end(req.method === 'HEAD' ? undefined : body)
    } catch {
      send(res, 404, '{"error":"not found"}')
    }
  }

  const server = createServer(async (req, res) => {
    try {
      if (opts.signIn && (req.url ?? '').startsWith(SIGN_IN_DONE) && req.headers.host === loopbackHostPort())
        return await signInDone(req, res, opts.signIn, `http://${hostPort(hostname)}`)
      if (req.method === 'GET' && (req.url ?? '').startsWith(SIGN_IN_BACK) && allowedHosts().has(req.headers.host ?? ''))
        return signInBack(res, new URL(req.url ?? '/', 'http://x').searchParams)
      // DNS rebinding: the Host header must name this loopback listener.
      if (!allowedHosts().has(req.headers.host ?? '')) return send(res, 403, '{"error":"foreign host"}')
      const url = new URL(req.url ?? '/', `http://${req.headers.host}`)

      // Exchange the launch token for a session id of its own, then drop the token from the address bar.
      const given = url.searchParams.get('token')
      if (req.method === 'GET' && url.pathname === '/' && given !== null) {
        if (!safeEqual(given, token)) return send(res, 401, '{"error":"bad token"}')
        url.searchParams.delete('token')
        return send(res, 303, '', 'text/plain', {
          Location: url.pathname + (url.search || ''),
          'Set-Cookie': `${SESSION_COOKIE}=${openSession()}; HttpOnly; SameSite=Strict; Path=/`
        })
      }

      if (!hasSession(req)) return send(res, 401, '{"error":"open the URL printed by npm run web (it carries the token)"}')

      if (url.pathname.startsWith('/rpc/')) {
        if (req.method !== 'POST') return send(res, 405, '{"error":"POST only"}', undefined, { Allow: 'POST' })
        // Cross-site requests: a browser always sends Origin on POST; it must be ours.
        const origin = req.headers.origin
        if (origin !== undefined && !ownOrigins().has(origin)) return send(res, 403, '{"error":"foreign origin"}')
        if (!(req.headers['content-type'] ?? '').startsWith('application/json')) return send(res, 415, '{"error":"JSON only"}')
        const channel = url.pathname.slice('/rpc/'.length)
        if (!channelSet.has(channel))
          return send(
            res,
            404,
            JSON.stringify({ ok: false, error: { kind: 'unknown_channel', message: `unknown channel ${channel}`, retryable: false } })
          )
        const received = performance.now()
        let raw: unknown
        try {
          const text = await readBody(req, MAX_RPC_BODY)
          raw = text.length ? JSON.parse(text) : {}
        } catch (e) {
          const status = (e as { status?: number }).status ?? 400
          return send(
            res,
            status,
            JSON.stringify({
              ok: false,
              error: { kind: 'invalid_input', message: status === 413 ? 'request too large' : 'body is not JSON', retryable: false }
            })
          )
        }
        const invoked = performance.now()
        const answer = await invokeChannel(opts.handlers, channel as ChannelName, raw)
        const answered = performance.now()
        const body = JSON.stringify(answer)
        // What the harness adds to the call, apart from the channel's own time: the renderer
        // bench reads it to tell the harness from the wire (docs/performance.md).
        return send(res, 200, body, undefined, {
          'Server-Timing': `app;dur=${(answered - invoked).toFixed(2)}, harness;dur=${(performance.now() - received).toFixed(2)}`
        })
      }

      if (url.pathname === '/events') {
        res.writeHead(200, {
          'Content-Type': 'text/event-stream',
          'Cache-Control': 'no-store',
          Connection: 'keep-alive',
          'X-Accel-Buffering': 'no'
        })
        res.write(`: rampdesk events ${eventNames.length}\n\n`)
        sseClients.add(res)
        // A window loads first and opens its stream after: what happened in between reached
        // no window. The sync states as they are now make every view that follows them (the
        // header, the tray) load again, as a reconnect to a team hub does.
        void invokeChannel(opts.handlers, 'sync:state', {}).then((env) => {
          if (env.ok && sseClients.has(res)) for (const s of env.value.states) res.write(frame('sync:state', s))
        })
        const ping = setInterval(() => res.write(': ping\n\n'), 15_000)
        ping.unref()
        req.on('close', () => {
          clearInterval(ping)
          sseClients.delete(res)
        })
        return
      }

      if (req.method !== 'GET' && req.method !== 'HEAD') return send(res, 405, '{"error":"method not allowed"}')
      if (url.pathname.startsWith('/exports/')) return await serveExport(req, res, url.pathname.slice('/exports/'.length))
      // Awaited, so that its failures reach the catch below instead of leaving the request hanging.
      return await serveStatic(req, res, url.pathname)
    } catch (e) {
      if (!res.headersSent) send(res, 500, JSON.stringify({ error: e instanceof Error ? e.message : 'internal error' }))
      else res.destroy()
    }
  })

  await new Promise<void>((ok, fail) => {
    server.once('error', fail)
    server.listen(opts.port ?? 0, host, () => ok())
  })
  port = (server.address() as AddressInfo).port
  const url = `http://${hostPort(hostname)}/`
  return {
    url,
    openUrl: `${url}?token=${token}`,
    token,
    port,
    hostname,
    listenUrl: `http://${hostPort(host)}/`,
    signInRedirectUri: loopbackHostPort() ? `http://${loopbackHostPort()}${SIGN_IN_DONE}` : null,
    remoteUrl: isLoopbackHost(host) ? null : `http://${hostPort(host)}/`,
    server,
    async close() {
      unsubscribe()
      for (const res of sseClients) res.end()
      sseClients.clear()
      server.closeAllConnections()
      await new Promise<void>((ok) => server.close(() => ok()))
    }
  }
}
