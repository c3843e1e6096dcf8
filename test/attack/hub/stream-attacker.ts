// One operator's 8 event streams against the hub, in a process of their own: each reconnects
// as soon as it ends (or is refused, after 20 ms), naming LAST_ID as its Last-Event-ID, and
// either reads what comes (until a resync, or until it has caught up with CAUGHT_UP_AT, then
// asks again) or reads nothing. Prints what it saw as JSON when DURATION_MS is over.
// Usage: node --import tsx stream-attacker.ts URL TOKEN LAST_ID read|unread DURATION_MS [CAUGHT_UP_AT]
import { request } from 'undici'

const [url, token, lastId, mode, durationArg, caughtUpArg] = process.argv.slice(2)
const until = performance.now() + Number(durationArg)
const caughtUpAt = caughtUpArg === undefined || caughtUpArg === 'Infinity' ? Infinity : Number(caughtUpArg)
const seen = { opened: 0, refused: 0, resync: 0, bytes: 0, replayed: 0 }
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms))

async function loop(): Promise<void> {
  while (performance.now() < until) {
    try {
      const r = await request(`${url}/events`, { headers: { authorization: `Bearer ${token}`, 'last-event-id': lastId! } })
      if (r.statusCode !== 200) {
        seen.refused++
        await r.body.dump()
        await sleep(20)
        continue
      }
      seen.opened++
      if (mode !== 'read') {
        // Holds the stream without reading it until the end of the attack.
        await sleep(Math.max(0, until - performance.now()))
        r.body.destroy()
        continue
      }
      const cut = setTimeout(() => r.body.destroy(), Math.max(0, until - performance.now()))
      let newest = 0
      for await (const c of r.body) {
        const text = (c as Buffer).toString('utf8')
        seen.bytes += text.length
        if (text.includes('event: resync')) {
          seen.resync++
          break
        }
        for (const m of text.matchAll(/^id: (\d+)$/gm)) {
          seen.replayed++
          newest = Math.max(newest, Number(m[1]))
        }
        if (newest >= caughtUpAt) break
      }
      clearTimeout(cut)
      r.body.destroy()
    } catch {
      await sleep(20)
    }
  }
}

await Promise.all(Array.from({ length: 8 }, loop))
process.stdout.write(JSON.stringify(seen))
process.exit(0)
