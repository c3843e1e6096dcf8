// The relay worker on a real store (hub.db): every kept delivery sent once, one order's in the
// order they were kept; a receiver that is down tried again until it takes it; a refusal final
// at once; a claim that ran out while the hub was held up not sent on; an attempt the store
// could not record kept until it can, and nothing sent twice meanwhile.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { openSqliteHubStore, type SqliteHubStore } from '../../../../src/hub/sqlite-hub-store'
import { startRelayWorker, type RelayWorker } from '../../../../src/hub/kept/relay-worker'
import { contentKeyOf, RELAY_CLAIM_MS, type KeptDelivery, type RelayJob } from '../../../../src/hub/kept/kept-delivery'
import type { KeptStore } from '../../../../src/hub/kept/kept-store'
import type { RelaySender } from '../../../../src/hub/webhook-relay'
import type { HubLog } from '../../../../src/hub/hub-log'
import { until } from '../../../support/until'
import { STORE_KINDS, storeBench, unavailable } from '../../../support/hub-stores'

let dir: string
let hubStore: SqliteHubStore
let worker: RelayWorker | null
const lines: string[] = []
const log: HubLog = {
  info: (m) => void lines.push(`INFO ${m}`),
  warn: (m) => void lines.push(`WARN ${m}`),
  error: (m) => void lines.push(`ERROR ${m}`)
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rampdesk-relay-worker-'))
  hubStore = openSqliteHubStore(dir)
  lines.length = 0
  worker = null
})
afterEach(async () => {
  await worker?.close()
  await hubStore.close()
  rmSync(dir, { recursive: true, force: true })
})

let seq = 0
function delivery(orderId: number, status: number): KeptDelivery {
  const body = JSON.stringify({ orderId, status, n: ++seq })
  return {
    contentKey: contentKeyOf(body),
    dedupeKey: `d${seq}`,
    receivedAt: Date.now(),
    hub: 'h',
    orderType: 1,
    orderId,
    status,
    body: Buffer.from(body).toString('base64'),
    headers: { 'content-type': 'application/json', 'x-payload': 'p', 'x-signature': 's', 'user-agent': null },
    relay: true,
    log: { headers: {}, payloadHeader: 'p', body, verified: true }
  }
}

/** A receiver that answers what `answer` says, after `ms`, and keeps what it was sent. */
function fakeSender(answer: (job: RelayJob) => number | null = () => 200, ms = 5) {
  const sent: Array<{ orderId: number | null; status: number | null; at: number }> = []
  const sender: RelaySender = {
    target: 'http://merchant.example/hook',
    async send(job) {
      await new Promise((r) => setTimeout(r, ms))
      sent.push({ orderId: job.orderId, status: job.status, at: Date.now() })
      const status = answer(job)
      return status === null
        ? { httpStatus: null, answer: 'connect ECONNREFUSED' }
        : { httpStatus: status, answer: status === 200 ? 'ok' : 'down' }
    },
    close: () => undefined
  }
  return { sender, sent }
}

const start = async (store: KeptStore, sender: RelaySender, monotonic?: () => number) =>
  (worker = await startRelayWorker({ store, sender, hub: 'hub-a', log, pollMs: 20, monotonic }))

describe('the relay worker', () => {
  it('sends every kept delivery once, each order’s in the order they were kept', async () => {
    const store = hubStore.kept
    await store.keep([delivery(1, 1), delivery(2, 1), delivery(1, 2), delivery(2, 2), delivery(1, 3)])
    const { sender, sent } = fakeSender(() => 200, 30)
    await start(store, sender)
    await until(() => sent.length === 5, 'five sends', 10_000)
    await new Promise((r) => setTimeout(r, 200))
    expect(sent).toHaveLength(5)
    for (const id of [1, 2]) {
      const mine = sent.filter((x) => x.orderId === id)
      expect(mine.map((x) => x.status)).toEqual(id === 1 ? [1, 2, 3] : [1, 2])
    }
    expect((await store.relays(10)).rows.every((r) => r.state.kind === 'delivered')).toBe(true)
  })

  it('tries a receiver that is down again until it takes the delivery, each attempt recorded', async () => {
    const store = hubStore.kept
    await store.keep([delivery(3, 5)])
    let down = true
    const { sender, sent } = fakeSender(() => (down ? 503 : 200))
    await start(store, sender)
    await until(() => sent.length >= 2, 'a second attempt after a second', 10_000)
    down = false
    await until(async () => (await store.relays(1)).rows[0]?.state.kind === 'delivered', 'delivered', 10_000)
    const [row] = (await store.relays(1)).rows
    expect(row!.attempts).toBe(sent.length)
    expect(sent[1]!.at - sent[0]!.at).toBeGreaterThanOrEqual(900)
    expect(
      lines.some((l) => /^WARN webhook relay of order 3 status 5 .*HTTP 503: "down" \(attempt 1\); trying again in 1 s$/.test(l))
    ).toBe(true)
  })

  it('stops at a refusal, saying an admin can send it again', async () => {
    const store = hubStore.kept
    await store.keep([delivery(4, 5)])
    const { sender, sent } = fakeSender(() => 403)
    await start(store, sender)
    await until(async () => (await store.relays(1)).counts.failed === 1, 'failed', 10_000)
    await new Promise((r) => setTimeout(r, 200))
    expect(sent).toHaveLength(1)
    expect(lines.some((l) => /^ERROR .*not relayed after 1 attempt \(the receiver refused it\); an admin can send it again/.test(l))).toBe(
      true
    )
  })

  it('does not send a relay whose claim ran out while the hub was held up', async () => {
    const store = hubStore.kept
    await store.keep([delivery(5, 5)])
    // The clock jumps past the claim between the claim and the send, as a paused process finds it.
    let t = 0
    let calls = 0
    const monotonic = () => (calls++ === 1 ? (t += RELAY_CLAIM_MS) : t)
    const { sender, sent } = fakeSender()
    await start(store, sender, monotonic)
    await until(() => lines.some((l) => l.includes('not sent, its claim ran out')), 'the relay left', 10_000)
    expect(sent).toHaveLength(0)
  })

  it('keeps an attempt the store could not record until it can, and sends nothing twice meanwhile', async () => {
    const real = hubStore.kept
    await real.keep([delivery(6, 5)])
    // The store goes away just as the delivery is sent, and answers again after three tries to record it.
    let down = false
    let refused = 0
    const refuse = () => {
      if (++refused >= 3) down = false
      return Promise.reject(new Error('connect ECONNREFUSED'))
    }
    const store: KeptStore = Object.assign(Object.create(real) as KeptStore, {
      settleRelay: (...a: Parameters<KeptStore['settleRelay']>) => (down ? refuse() : real.settleRelay(...a)),
      claimRelays: (...a: Parameters<KeptStore['claimRelays']>) => (down ? refuse() : real.claimRelays(...a))
    })
    const { sender, sent } = fakeSender(() => {
      down = true
      return 200
    })
    await start(store, sender)
    await until(async () => (await real.relays(1)).rows[0]?.state.kind === 'delivered', 'recorded once the store answers', 15_000)
    expect(sent).toHaveLength(1)
    expect(
      lines.some((l) =>
        /^ERROR could not record the relay of order 6 status 5: connect ECONNREFUSED; recorded when the store answers$/.test(l)
      )
    ).toBe(true)
  })
})

// On both stores, with the hub's own clocks: the time of a next attempt is the store's clock
// plus a monotonic interval (performance.now, with fractions of a millisecond), and the
// store must take it; PostgreSQL keeps it in a bigint column.
describe.each(STORE_KINDS)('the relay worker on %s, with real clocks', (kind) => {
  describe.skipIf(unavailable(kind))('', () => {
    const bench = storeBench(kind)
    it('records each failed attempt and sends again until the receiver takes it', async () => {
      const store = (await bench.open()).kept
      await store.keep([delivery(7, 1)])
      let failures = 2
      const { sender, sent } = fakeSender(() => (failures-- > 0 ? null : 200))
      worker = await startRelayWorker({ store, sender, hub: 'hub-a', log, pollMs: 20 })
      await until(async () => (await store.relays(1)).rows[0]?.state.kind === 'delivered', 'delivered after two failures', 15_000)
      expect(sent).toHaveLength(3)
      expect((await store.relays(1)).rows[0]!.attempts).toBe(3)
      expect(lines.filter((l) => l.startsWith('ERROR'))).toEqual([])
    })
  })
})
