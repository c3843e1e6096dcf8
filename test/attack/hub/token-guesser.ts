// A stranger's process guessing operator tokens: COUNT requests to POST /rpc/app:info, each
// with a fresh random token (or, with PREFIX, tokens that all begin with it), CONCURRENCY at
// a time, each from one of the loopback addresses given (comma-separated, round robin). Prints
// one JSON line when done: how many answers of each status, and how long it took. With
// SPOOF_FORWARDED_FOR=1 in its environment, each request claims another X-Forwarded-For.
// Usage: node --import tsx token-guesser.ts URL COUNT CONCURRENCY FROM[,FROM…] [PREFIX]
import { randomBytes } from 'node:crypto'
import { Agent, request } from 'undici'

const [url, countArg, concurrencyArg, fromArg, prefix] = process.argv.slice(2)
const count = Number(countArg)
const spoof = process.env.SPOOF_FORWARDED_FOR === '1'
const agents = fromArg!.split(',').map((localAddress) => new Agent({ localAddress, pipelining: 0 }))
const byStatus: Record<string, number> = {}
const retryAfter: number[] = []
let next = 0
const started = performance.now()

async function worker(): Promise<void> {
  while (next < count) {
    const i = next++
    const token = prefix ? `${prefix}${randomBytes(24).toString('base64url')}` : `rdh_${randomBytes(32).toString('base64url')}`
    try {
      const r = await request(`${url}/rpc/app:info`, {
        method: 'POST',
        dispatcher: agents[i % agents.length],
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          ...(spoof ? { 'x-forwarded-for': `198.51.100.${i % 250}, 203.0.113.${(i * 7) % 250}` } : {})
        },
        body: '{}'
      })
      await r.body.dump()
      byStatus[r.statusCode] = (byStatus[r.statusCode] ?? 0) + 1
      if (r.statusCode === 429) retryAfter.push(Number(r.headers['retry-after']))
    } catch {
      byStatus.error = (byStatus.error ?? 0) + 1
    }
  }
}

await Promise.all(Array.from({ length: Number(concurrencyArg) }, () => worker()))
process.stdout.write(
  JSON.stringify({
    byStatus,
    ms: Math.round(performance.now() - started),
    maxRetryAfter: retryAfter.length ? Math.max(...retryAfter) : 0
  }) + '\n'
)
await Promise.all(agents.map((a) => a.close()))
