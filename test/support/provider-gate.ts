// A gate in front of the test's OpenID provider, on a port of its own that the provider calls
// its issuer, so everything the hub and the browser send the provider passes through it, and
// the test decides what the provider does:
//   pass     forwards every request;
//   down     nothing listening on the port (connection refused);
//   silent   accepts and never answers;
//   slow     answers, but only after `delayMs`;
//   garbage  answers 200 with an HTML page, not OpenID;
//   trouble  answers 503 {"error":"temporarily_unavailable"}, as a provider in maintenance does.
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'

export type GateMode =
  { kind: 'pass' } | { kind: 'down' } | { kind: 'silent' } | { kind: 'slow'; delayMs: number } | { kind: 'garbage' } | { kind: 'trouble' }

export interface ProviderGate {
  url: string
  /** Where it forwards to (set once the provider listens). */
  target: string
  set(mode: GateMode): Promise<void>
  close(): Promise<void>
}

export async function startProviderGate(): Promise<ProviderGate> {
  let mode: GateMode = { kind: 'pass' }
  let target = ''
  const sockets = new Set<Socket>()
  const forward = (req: IncomingMessage, res: ServerResponse) => {
    const t = new URL(target)
    const up = request({ host: t.hostname, port: Number(t.port), method: req.method, path: req.url, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers)
      answer.pipe(res)
    })
    up.on('error', () => res.destroy())
    req.pipe(up)
  }
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const m = mode
    if (m.kind === 'silent') return req.resume()
    if (m.kind === 'garbage') {
      req.resume()
      res.writeHead(200, { 'content-type': 'text/html' })
      return res.end('<html><body>502 Bad Gateway (nginx)</body></html>')
    }
    if (m.kind === 'trouble') {
      req.resume()
      res.writeHead(503, { 'content-type': 'application/json' })
      return res.end(JSON.stringify({ error: 'temporarily_unavailable', error_description: 'down for maintenance' }))
    }
    if (m.kind === 'slow') return void setTimeout(() => (res.destroyed ? undefined : forward(req, res)), m.delayMs)
    forward(req, res)
  }
  let server: Server | null = null
  let port = 0
  const listen = () =>
    new Promise<void>((ok, fail) => {
      const s = createServer(handle)
      s.on('connection', (c) => {
        sockets.add(c)
        c.once('close', () => sockets.delete(c))
      })
      s.once('error', fail)
      s.listen(port, '127.0.0.1', () => {
        port = (s.address() as AddressInfo).port
        server = s
        ok()
      })
    })
  const shut = async () => {
    const s = server
    server = null
    for (const c of sockets) c.destroy()
    if (s) await new Promise<void>((ok) => s.close(() => ok()))
  }
  await listen()
  return {
    url: `http://127.0.0.1:${port}`,
    get target() {
      return target
    },
    set target(t: string) {
      target = t
    },
    async set(next) {
      // Requests held by a silent or slow gate are cut when the mode changes.
      if (mode.kind === 'silent' || mode.kind === 'slow') for (const c of sockets) c.destroy()
      mode = next
      if (next.kind === 'down') await shut()
      else if (!server) await listen()
    },
    close: shut
  }
}
