// A hub on its own data directory keeps every delivery it answers 2xx: with hub.db locked by
// another process (the command line holding a write), a verified delivery is still answered
// 200 within the service's 5 s, kept in the spool, and reaches hub.db and the receiver once
// the lock is gone. With the spool full as well, the delivery is answered 503 (the service
// sends it again) and its signed payload is not spent: the same request passes once the hub
// can keep it.
import Database from 'libsql'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { request } from 'undici'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { HUB_DATABASE_FILE } from '../../../src/hub/hub-db'
import { signedWebhook } from '../../support/webhook-senders'
import { startHubFixture, waitUntil, type HubFixture } from './support'

let f: HubFixture
let receiver: Server
const received: string[] = []

beforeAll(async () => {
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      received.push(Buffer.concat(chunks).toString('utf8'))
      res.writeHead(200).end('ok')
    })
  })
  await new Promise<void>((ok) => receiver.listen(0, '127.0.0.1', ok))
  f = await startHubFixture({
    hub: { forwardTo: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`, spoolMaxBytes: 12_000 }
  })
})
afterAll(async () => {
  await f?.close()
  await new Promise<void>((ok) => receiver?.close(() => ok()))
})

function delivery(orderId: number) {
  const record = { ...f.sandbox.control.order(orderId, 1)!.record, webhookTrials: 1 }
  return signedWebhook(record, {
    secret: f.sandbox.apiSecret,
    timestamp: f.sandbox.control.serverNow(),
    serviceName: f.sandbox.serviceName
  })
}

async function post(d: ReturnType<typeof delivery>): Promise<{ status: number; ms: number; retryAfter: string | undefined }> {
  const started = performance.now()
  const r = await request(`${f.url}/webhook`, { method: 'POST', headers: d.headers, body: d.body, reset: true })
  await r.body.dump()
  return { status: r.statusCode, ms: performance.now() - started, retryAfter: r.headers['retry-after'] as string | undefined }
}

/** Another process's write transaction on hub.db, held until released. */
function lockHubDb(): () => void {
  const other = new Database(join(f.dataDir, HUB_DATABASE_FILE))
  other.exec('BEGIN IMMEDIATE')
  return () => {
    other.exec('ROLLBACK')
    other.close()
  }
}

const keptRows = (orderId: number) =>
  new Database(join(f.dataDir, HUB_DATABASE_FILE), { readonly: true })
    .prepare('SELECT COUNT(*) AS n FROM kept_deliveries WHERE order_id = ?')
    .get(orderId) as {
    n: number
  }

describe('a hub on its own data directory', () => {
  it('answers 200 and spools while hub.db is locked, then keeps and relays each delivery once the lock is gone', async () => {
    const ids = [1, 2].map(() => f.sandbox.control.createOrder({ type: 1, fiatType: 1, hold: true }).orderId)
    const release = lockHubDb()
    let answers: Array<{ status: number; ms: number }>
    try {
      answers = [await post(delivery(ids[0]!)), await post(delivery(ids[1]!))]
      expect(f.hub.spooled().entries).toBe(2)
    } finally {
      release()
    }
    expect(answers.map((a) => a.status)).toEqual([200, 200])
    expect(Math.max(...answers.map((a) => a.ms))).toBeLessThan(5_000)
    await waitUntil(() => f.hub.spooled().entries === 0, 10_000, 'the spool handed to hub.db')
    expect(ids.map((id) => keptRows(id).n)).toEqual([1, 1])
    await waitUntil(() => ids.every((id) => received.some((b) => b.includes(`"orderId":${id}`))), 10_000, 'both relayed')
    expect(f.logs.some((l) => /ERROR webhook deliveries go to the spool .*: the store /.test(l))).toBe(true)
    expect(f.logs.some((l) => /INFO 2 webhook deliveries kept in the spool went to the store/.test(l))).toBe(true)
  })

  it('answers 503 when neither hub.db nor the spool can keep a delivery, and takes the same request once it can', async () => {
    const ds = Array.from({ length: 8 }, () => delivery(f.sandbox.control.createOrder({ type: 1, fiatType: 1, hold: true }).orderId))
    // hub.db locked, and the spool (12,000 bytes) fills up: a few are spooled, then one is refused.
    const release = lockHubDb()
    const answers: Array<Awaited<ReturnType<typeof post>>> = []
    try {
      for (const d of ds) {
        answers.push(await post(d))
        if (answers.at(-1)!.status !== 200) break
      }
    } finally {
      release()
    }
    const refused = answers.at(-1)!
    const d = ds[answers.length - 1]!
    const id = (JSON.parse(d.body) as { orderId: number }).orderId
    expect(answers.filter((a) => a.status === 200).length).toBeGreaterThan(0)
    expect(refused.status).toBe(503)
    expect(refused.retryAfter).toBe('5')
    expect(
      f.logs.some((l) => new RegExp(`webhook: order ${id} status -?\\d+ was answered 503 \\(the service sends it again\\)`).test(l))
    ).toBe(true)
    await waitUntil(() => f.hub.spooled().entries === 0, 10_000, 'the spool handed to hub.db')
    // The very same request again: not a replay, since it was never accepted.
    expect((await post(d)).status).toBe(200)
    expect(keptRows(id).n).toBe(1)
  })
})
