// A stranger's process for the memory attack: opens N connections to the hub from several
// loopback addresses, writes a request line and ~1 MB of headers on each without ever ending
// them, prints "sent <n> <open>" once every write is done, and holds the connections until it
// is killed. A process of its own, so that its writing does not slow the test's own probes.
// Usage: node --import tsx stall-client.ts URL COUNT ADDRESSES PATH[,PATH...]
import { connect, type Socket } from 'node:net'

const [url, countArg, addressesArg, pathsArg] = process.argv.slice(2)
const u = new URL(url!)
const count = Number(countArg)
const addresses = Number(addressesArg)
const paths = pathsArg!.split(',')
const line = `X-Pad: ${'a'.repeat(8 * 1024 - 10)}\r\n`
const sockets: Socket[] = []

async function one(i: number): Promise<void> {
  const s = await new Promise<Socket | null>((ok) => {
    const c = connect({ host: u.hostname, port: Number(u.port), localAddress: `127.0.2.${(i % addresses) + 1}` }, () => ok(c))
    c.once('error', () => ok(null))
  })
  if (!s) return
  sockets.push(s)
  s.on('error', () => undefined)
  s.on('data', () => undefined)
  s.write(`POST ${paths[i % paths.length]} HTTP/1.1\r\nHost: hub\r\n`)
  for (let k = 0; k < 128 && !s.destroyed; k++) {
    if (!s.write(line)) await new Promise((r) => (s.once('drain', r), s.once('close', r)))
  }
}

await Promise.all(Array.from({ length: count }, (_, i) => one(i)))
process.stdout.write(`sent ${sockets.length} ${sockets.filter((s) => !s.destroyed).length}\n`)
setInterval(() => undefined, 60_000)
