// Kept deliveries and their relay, on both stores (hub.db, and the PostgreSQL database hubs
// share): one row per content whatever its attempt counters; one relay per order and status
// inside the window; relays claimed oldest first, one per order at a time, never by two hubs;
// a claim that runs out is taken up again; a failed relay comes back when the service resends
// it or an admin retries it.
import { beforeEach, describe, expect, it } from 'vitest'
import type { KeptStore } from '../../../../src/hub/kept/kept-store'
import {
  contentKeyOf,
  KEPT_MEMORY_MS,
  SAME_STATUS_WINDOW_MS,
  type KeptDelivery,
  type RelayAttempt
} from '../../../../src/hub/kept/kept-delivery'
import Database from 'libsql'
import { join } from 'node:path'
import pg from 'pg'
import { HUB_DATABASE_FILE } from '../../../../src/hub/hub-db'
import { STORE_KINDS, storeBench, unavailable } from '../../../support/hub-stores'
import type { PgKeptStore } from '../../../../src/hub/pg/pg-kept-store'
import { unleasedRole } from '../../../../src/hub/hub-role'
import { takeLease } from '../../../../src/hub/pg/pg-lease'
import { applyKept } from '../../../../src/hub/kept/kept-applier'

const T0 = Date.now()
let seq = 0

function delivery(
  o: { orderId?: number; status?: number; trials?: number; at?: number; relay?: boolean; extra?: string } = {}
): KeptDelivery {
  const record = { orderId: o.orderId ?? 42, status: o.status ?? 5, webhookTrials: o.trials ?? 1, note: o.extra ?? 'x' }
  const body = JSON.stringify(record)
  return {
    contentKey: contentKeyOf(body),
    dedupeKey: `dedupe-${++seq}`,
    receivedAt: o.at ?? T0,
    hub: 'hub-a',
    orderType: 1,
    orderId: record.orderId,
    status: record.status,
    body: Buffer.from(body).toString('base64'),
    headers: { 'content-type': 'application/json', 'x-payload': 'p', 'x-signature': 's', 'user-agent': null },
    relay: o.relay ?? true,
    log: { headers: {}, payloadHeader: 'p', body, verified: true, dedupeKey: `dedupe-${seq}` }
  }
}

const attempt = (httpStatus: number | null): RelayAttempt => ({ at: Date.now(), hub: 'hub-a', httpStatus, answer: 'x', ms: 5 })

describe.each(STORE_KINDS)('kept deliveries on %s', (kind) => {
  describe.skipIf(unavailable(kind))('', () => {
    const bench = storeBench(kind)
    let store: KeptStore
    beforeEach(async () => {
      store = (await bench.open()).kept
    })

    it('keeps one row per content, whatever its attempt counters say, and counts it again', async () => {
      const [a] = await store.keep([delivery({ trials: 1 })])
      expect(a!.outcome).toEqual({ relay: 'queued' })
      const [b] = await store.keep([delivery({ trials: 3 })])
      expect(b!.id).toBe(a!.id)
      expect(b!.outcome).toMatchObject({ relay: 'known', state: 'waiting' })
      expect((await store.relays(10)).counts.waiting).toBe(1)
    })

    /** Moves what is kept back in time by the store's clock (the window is the store's, not the hubs'). */
    async function age(ms: number): Promise<void> {
      if (kind === 'postgres') {
        const c = new pg.Client({ connectionString: bench.url() })
        await c.connect()
        await c.query('UPDATE kept_deliveries SET kept_at = kept_at - $1', [ms]).finally(() => c.end())
      } else {
        const db = new Database(join(bench.dir(), HUB_DATABASE_FILE))
        db.prepare('UPDATE kept_deliveries SET kept_at = kept_at - ?').run(ms)
        db.close()
      }
    }

    it('relays one content of an order and status inside the window, another after it, whatever the hubs’ clocks say', async () => {
      await store.keep([delivery({ extra: 'first' })])
      // Received "later" by a hub whose clock is ahead: still inside the store's window.
      const [again] = await store.keep([delivery({ extra: 'second', at: T0 + SAME_STATUS_WINDOW_MS + 60_000 })])
      expect(again!.outcome).toMatchObject({ relay: 'skipped' })
      await age(SAME_STATUS_WINDOW_MS + 2_000)
      const [later] = await store.keep([delivery({ extra: 'third' })])
      expect(later!.outcome).toEqual({ relay: 'queued' })
      const [other] = await store.keep([delivery({ extra: 'fourth', status: 6, at: T0 + 1_000 })])
      expect(other!.outcome).toEqual({ relay: 'queued' })
    })

    it('claims oldest first, one relay per order at a time, and not twice', async () => {
      await store.keep([delivery({ orderId: 1, status: 1 }), delivery({ orderId: 1, status: 2 }), delivery({ orderId: 2, status: 1 })])
      const first = await store.claimRelays('hub-a', 10, 30_000)
      expect(first.jobs.map((j) => [j.orderId, j.status])).toEqual([
        [1, 1],
        [2, 1]
      ])
      expect((await store.claimRelays('hub-b', 10, 30_000)).jobs).toEqual([])
      const one = first.jobs[0]!
      expect(await store.settleRelay(one.id, 'hub-a', attempt(200), { kind: 'delivered' })).toBe(true)
      // Order 1's next status is due once its first is delivered.
      expect((await store.claimRelays('hub-b', 10, 30_000)).jobs.map((j) => [j.orderId, j.status])).toEqual([[1, 2]])
    })

    it('sends the body and headers it kept, byte for byte', async () => {
      const d = delivery({ orderId: 7 })
      await store.keep([d])
      const [job] = (await store.claimRelays('hub-a', 1, 30_000)).jobs
      expect(job!.body.toString('base64')).toBe(d.body)
      expect(job!.headers).toEqual(d.headers)
    })

    it('holds an order behind a relay that waits, and takes it up again when it is due', async () => {
      await store.keep([delivery({ orderId: 3, status: 1 }), delivery({ orderId: 3, status: 2 })])
      const { now, jobs } = await store.claimRelays('hub-a', 10, 30_000)
      expect(jobs).toHaveLength(1)
      await store.settleRelay(jobs[0]!.id, 'hub-a', attempt(503), { kind: 'waiting', nextAt: now + 60_000 })
      expect((await store.claimRelays('hub-a', 10, 30_000)).jobs).toEqual([])
      await store
        .settleRelay(jobs[0]!.id, 'hub-a', attempt(503), { kind: 'waiting', nextAt: now + 60_000 })
        .then((ok) => expect(ok).toBe(false))
      expect((await store.relays(10)).rows.find((r) => r.id === jobs[0]!.id)).toMatchObject({ attempts: 1, state: { kind: 'waiting' } })
    })

    it('takes up a claim that ran out (a hub killed mid-relay), and refuses the late settle of its old holder', async () => {
      await store.keep([delivery({ orderId: 4 })])
      const a = await store.claimRelays('hub-a', 1, 1)
      await new Promise((r) => setTimeout(r, 20))
      const b = await store.claimRelays('hub-b', 1, 30_000)
      expect(b.jobs.map((j) => j.id)).toEqual(a.jobs.map((j) => j.id))
      expect(await store.settleRelay(a.jobs[0]!.id, 'hub-a', attempt(200), { kind: 'delivered' })).toBe(false)
      expect(await store.settleRelay(b.jobs[0]!.id, 'hub-b', attempt(200), { kind: 'delivered' })).toBe(true)
    })

    it('gives back the claims of a hub that starts again', async () => {
      await store.keep([delivery({ orderId: 5 })])
      expect((await store.claimRelays('hub-a', 1, 30_000)).jobs).toHaveLength(1)
      expect(await store.releaseClaims('hub-a')).toBe(1)
      expect((await store.claimRelays('hub-a', 1, 30_000)).jobs).toHaveLength(1)
    })

    it('queues a failed relay again when the service resends it, or when an admin retries it', async () => {
      await store.keep([delivery({ orderId: 6 })])
      const [job] = (await store.claimRelays('hub-a', 1, 30_000)).jobs
      await store.settleRelay(job!.id, 'hub-a', attempt(403), { kind: 'failed', why: 'the receiver refused it' })
      expect((await store.relays(10)).counts).toMatchObject({ failed: 1, waiting: 0 })
      const [resent] = await store.keep([delivery({ orderId: 6, trials: 2 })])
      expect(resent!.outcome).toEqual({ relay: 'requeued' })
      const [again] = (await store.claimRelays('hub-a', 1, 30_000)).jobs
      await store.settleRelay(again!.id, 'hub-a', attempt(403), { kind: 'failed', why: 'no' })
      expect(await store.retryRelays([again!.id + 1000])).toBe(0)
      expect(await store.retryRelays('failed')).toBe(1)
      expect((await store.claimRelays('hub-a', 1, 30_000)).jobs).toHaveLength(1)
    })

    it('does not relay again what it delivered', async () => {
      await store.keep([delivery({ orderId: 8 })])
      const [job] = (await store.claimRelays('hub-a', 1, 30_000)).jobs
      await store.settleRelay(job!.id, 'hub-a', attempt(200), { kind: 'delivered' })
      const [again] = await store.keep([delivery({ orderId: 8, trials: 5 })])
      expect(again!.outcome).toMatchObject({ relay: 'known', state: 'delivered' })
      expect((await store.claimRelays('hub-a', 1, 30_000)).jobs).toEqual([])
    })

    it('keeps for the leader to apply what it has not applied', async () => {
      const kept = await store.keep([delivery({ orderId: 9, relay: false }), delivery({ orderId: 10, relay: false })])
      expect((await store.unapplied(10)).map((u) => u.id)).toEqual(kept.map((k) => k.id))
      await store.markApplied([kept[0]!.id])
      expect((await store.unapplied(10)).map((u) => u.id)).toEqual([kept[1]!.id])
      expect((await store.relays(10)).rows).toEqual([])
    })

    it.runIf(kind === 'postgres')('marks nothing applied for a hub that no longer leads, so the leading hub applies it', async () => {
      const pgStore = store as PgKeptStore
      const [k] = await store.keep([delivery({ orderId: 13, relay: false })])
      pgStore.fenceBy({ current: () => unleasedRole('follower', 0, 'another hub took the lease') })
      expect(await store.markApplied([k!.id])).toBe(false)
      expect((await store.unapplied(10)).map((u) => u.id)).toEqual([k!.id])
      const applied: unknown[] = []
      expect(
        await applyKept(
          store,
          (w) => applied.push(w),
          () => undefined
        )
      ).toBe(0)
      expect((await store.unapplied(10)).map((u) => u.id)).toEqual([k!.id])
      // A hub that still thinks it leads under an epoch another hub has taken over: refused by the database.
      const c = new pg.Client({ connectionString: bench.url() })
      await c.connect()
      try {
        expect(await takeLease(c, 'a', 50)).toMatchObject({ taken: true, epoch: 1 })
        await new Promise((r) => setTimeout(r, 100))
        expect(await takeLease(c, 'b', 60_000)).toMatchObject({ taken: true, epoch: 2 })
      } finally {
        await c.end()
      }
      const leaderOf = (epoch: number, holder: string) => ({
        current: () => ({ role: 'leader' as const, since: 0, detail: 'test', lease: { epoch, holder } })
      })
      pgStore.fenceBy(leaderOf(1, 'a'))
      expect(await store.markApplied([k!.id])).toBe(false)
      expect((await store.unapplied(10)).map((u) => u.id)).toEqual([k!.id])
      pgStore.fenceBy(leaderOf(2, 'b'))
      expect(await store.markApplied([k!.id])).toBe(true)
      expect(await store.unapplied(10)).toEqual([])
    })

    it('two hubs claiming at once send each relay exactly once', async () => {
      const other = (await bench.open()).kept
      await store.keep(Array.from({ length: 40 }, (_, i) => delivery({ orderId: 1000 + i })))
      const claimed: number[] = []
      for (let round = 0; round < 10; round++) {
        const [a, b] = await Promise.all([store.claimRelays('hub-a', 3, 30_000), other.claimRelays('hub-b', 3, 30_000)])
        claimed.push(...a.jobs.map((j) => j.id), ...b.jobs.map((j) => j.id))
      }
      expect(claimed).toHaveLength(40)
      expect(new Set(claimed).size).toBe(40)
    })

    it('forgets finished deliveries after their memory', async () => {
      const [old] = await store.keep([delivery({ orderId: 11, relay: false, at: Date.now() - KEPT_MEMORY_MS - 60_000 })])
      await store.keep([delivery({ orderId: 12, relay: false })])
      expect(await store.prune()).toBe(0) // not applied yet
      await store.markApplied((await store.unapplied(10)).map((u) => u.id))
      expect(await store.prune()).toBe(1)
      expect((await store.unapplied(10)).map((u) => u.id)).not.toContain(old!.id)
    })
  })
})
