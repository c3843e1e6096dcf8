// A reverse proxy in front of the hub, in a process of its own, as docs/hub.md deploys one
// (nginx with `proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for`): it listens on
// 127.0.0.1, connects to the hub from one address of its own (FROM, kept alive and reused
// for every client), appends the address each client connected from to X-Forwarded-For, and
// streams the answer back (an event stream too). Prints "proxy listening on URL".
// Usage: node --import tsx forwarding-proxy.ts HUB_URL FROM
import { Agent, createServer, request } from 'node:http'
import type { AddressInfo } from 'node:net'

const [target, from] = process.argv.slice(2)
const hub = new URL(target!)
const agent = new Agent({ keepAlive: true, maxSockets: 2_048, localAddress: from })

const server = createServer((req, res) => {
  const peer = (req.socket.remoteAddress ?? '').replace(/^::ffff:/, '')
  const prior = req.headers['x-forwarded-for']
  const headers = { ...req.headers, 'x-forwarded-for': prior ? `${String(prior)}, ${peer}` : peer, host: hub.host }
  delete headers.connection
  const up = request({ host: hub.hostname, port: Number(hub.port), method: req.method, path: req.url, headers, agent }, (answer) => {
    const out = { ...answer.headers }
    // The proxy keeps its own connection to the client whatever the hub does with its own.
    delete out.connection
    res.writeHead(answer.statusCode ?? 502, out)
    res.flushHeaders()
    answer.pipe(res)
  })
  up.on('error', () => {
    if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' })
    res.end('bad gateway')
  })
  res.on('close', () => up.destroy())
  req.pipe(up)
})
server.keepAliveTimeout = 60_000
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`proxy listening on http://127.0.0.1:${(server.address() as AddressInfo).port}\n`)
})
