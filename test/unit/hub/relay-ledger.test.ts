// What the hub has relayed: no payload twice, no order and status twice inside the window,
// and a relay that reached nobody gives its claim back. On both stores: hub.db, and the
// PostgreSQL database hubs share, where two hubs claiming the same delivery at once relay
// it once between them.
import { beforeEach, describe, expect, it } from 'vitest'
import type { RelayLedgerStore } from '../../../src/hub/hub-store'
import { relayContent, RELAYED_PAYLOAD_MEMORY_MS } from '../../../src/hub/relay-ledger'
import { STORE_KINDS, storeBench, unavailable } from '../../support/hub-stores'

const WINDOW = 5 * 60_000
const d = (payload: string, status = 5, content = `${payload}:${status}`) => ({ payload, content, orderType: 1, orderId: 42, status })

describe.each(STORE_KINDS)('RelayLedger on %s', (kind) => {
  describe.skipIf(unavailable(kind))('', () => {
    const bench = storeBench(kind)
    let t: number
    let ledger: RelayLedgerStore
    beforeEach(async () => {
      t = 1_700_000_000_000
      ledger = (await bench.open({ now: () => t, relayWindowMs: WINDOW })).relays
    })

    it('claims a delivery once; the same order and status again only after the window', async () => {
      const first = await ledger.claim(d('p1'))
      expect(first.ok).toBe(true)
      expect(await ledger.claim(d('p2'))).toEqual({ ok: false, reason: 'order 42 status 5 was already relayed 0 s ago' })
      expect((await ledger.claim(d('p3', 6))).ok).toBe(true)
      t += WINDOW
      expect((await ledger.claim(d('p4'))).ok).toBe(true)
    })

    it('never relays the same signed payload twice, for 30 days', async () => {
      expect((await ledger.claim(d('same'))).ok).toBe(true)
      t += WINDOW * 10
      expect(await ledger.claim(d('same', 7))).toMatchObject({
        ok: false,
        reason: expect.stringMatching(/^this signed payload was already relayed/)
      })
      t += RELAYED_PAYLOAD_MEMORY_MS
      expect((await ledger.claim(d('same', 7))).ok).toBe(true)
    })

    it('never relays the same content twice, for 30 days, whatever its attempt counters say', async () => {
      const a = relayContent(JSON.stringify({ orderId: 42, status: 5, webhookTrials: 1 }))
      const b = relayContent(JSON.stringify({ webhookTrials: 3, status: 5, orderId: 42 }))
      expect(a).toBe(b)
      expect((await ledger.claim(d('p1', 5, a))).ok).toBe(true)
      t += WINDOW * 10
      expect(await ledger.claim(d('p2', 5, b))).toMatchObject({
        ok: false,
        reason: expect.stringMatching(/^this delivery \(the same content\)/)
      })
    })

    it('gives the claim back when the relay reached nobody, keeps it when it was delivered', async () => {
      const a = await ledger.claim(d('a'))
      if (!a.ok) throw new Error('claim')
      await ledger.settle(a.keys, false)
      const b = await ledger.claim(d('a'))
      if (!b.ok) throw new Error('claimed again')
      await ledger.settle(b.keys, true)
      expect((await ledger.claim(d('a'))).ok).toBe(false)
    })

    it('a refused claim takes none of its keys', async () => {
      expect((await ledger.claim(d('p1', 5))).ok).toBe(true)
      // Same order and status (refused on its third key): its payload and content stay free.
      expect((await ledger.claim(d('p2', 5))).ok).toBe(false)
      t += WINDOW
      expect((await ledger.claim(d('p2', 5))).ok).toBe(true)
    })

    it('prunes what can no longer collide', async () => {
      await ledger.claim(d('x'))
      t += WINDOW + 1
      expect(await ledger.prune()).toBe(1)
      t += RELAYED_PAYLOAD_MEMORY_MS
      expect(await ledger.prune()).toBe(2)
      expect(await ledger.prune()).toBe(0)
    })

    it('two hubs claiming the same deliveries at once relay each exactly once', async () => {
      const other = (await bench.open({ now: () => t, relayWindowMs: WINDOW })).relays
      const deliveries = Array.from({ length: 40 }, (_, i) => ({ ...d(`p${i}`, i), orderId: 1000 + i }))
      const claims = await Promise.all(deliveries.flatMap((x) => [ledger.claim(x), other.claim(x)]))
      for (let i = 0; i < deliveries.length; i++) expect([claims[2 * i]!.ok, claims[2 * i + 1]!.ok].filter(Boolean)).toHaveLength(1)
    })
  })
})
