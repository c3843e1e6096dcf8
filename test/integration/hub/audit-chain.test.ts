// The audit log's hash chain on both stores: an untouched log verifies; an edited, a removed
// and a reordered entry are each found and named, as is an entry edited with its hash
// recomputed and an entry removed from the end; a pruned log still verifies from its
// anchor; secrets never reach an entry.
import { describe, expect, it } from 'vitest'
import { entryHash, GENESIS_HASH } from '../../../src/hub/audit-chain'
import { storeSource } from '../../../src/hub/audit-command'
import { verifyChain } from '../../../src/hub/audit-verify'
import type { HubStore } from '../../../src/hub/hub-store'
import type { PgHubStore } from '../../../src/hub/pg/pg-hub-store'
import type { SqliteHubStore } from '../../../src/hub/sqlite-hub-store'
import { STORE_KINDS, storeBench, unavailable } from '../../support/hub-stores'

/** Runs SQL on the store's own tables, as someone with access to the database would. */
async function tamper(store: HubStore, sql: string): Promise<void> {
  if (store.kind === 'sqlite') (store as SqliteHubStore).sql.exec(sql)
  else await (store as PgHubStore).pool.query(sql)
}

async function flushed(store: HubStore): Promise<void> {
  if (store.kind === 'postgres') await (store as PgHubStore).audit.flush()
}

const verify = async (store: HubStore) => verifyChain(await storeSource(store.audit))

describe.each(STORE_KINDS)('the audit chain on %s', (kind) => {
  describe.skipIf(unavailable(kind))('', () => {
    const bench = storeBench(kind)
    let clock = 1_800_000_000_000
    const now = () => (clock += 1000)

    async function logOf(n: number): Promise<HubStore> {
      const store = await bench.open({ now })
      for (let i = 1; i <= n; i++) store.audit.append(i % 2 ? 'ada' : 'bo', 'team:addOperator', { name: `op${i}`, role: 'viewer' })
      await flushed(store)
      return store
    }

    it('verifies an untouched log, from the zero hash to the head the store recorded', async () => {
      const store = await logOf(6)
      const r = await verify(store)
      expect(r).toMatchObject({ ok: true, entries: 6, first: 1, head: { seq: 6 } })
      const page = await store.audit.page(0, 10)
      expect(page.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6])
      expect(page[0]!.prev_hash).toBe(GENESIS_HASH)
      for (let i = 1; i < page.length; i++) expect(page[i]!.prev_hash).toBe(page[i - 1]!.hash)
      for (const e of page) expect(entryHash(e)).toBe(e.hash)
      expect(r.ok && r.head.hash).toBe(page[5]!.hash)
    })

    it('finds an edited entry', async () => {
      const store = await logOf(6)
      await tamper(store, `UPDATE audit SET detail_json = '{"name":"mallory","role":"admin"}' WHERE seq = 3`)
      expect(await verify(store)).toMatchObject({ ok: false, kind: 'edited', at: 'seq 3', message: 'the entry no longer matches its hash' })
    })

    it('finds an entry edited with its hash recomputed: the next one still chains to the original', async () => {
      const store = await logOf(6)
      const [e3] = await store.audit.page(2, 1)
      const forged = entryHash({ ...e3!, actor: 'mallory' })
      await tamper(store, `UPDATE audit SET operator = 'mallory', hash = '${forged}' WHERE seq = 3`)
      expect(await verify(store)).toMatchObject({
        ok: false,
        kind: 'edited',
        at: 'seq 3',
        message: expect.stringContaining('seq 4 still chains to the original')
      })
    })

    it('finds a removed entry', async () => {
      const store = await logOf(6)
      await tamper(store, 'DELETE FROM audit WHERE seq = 3')
      expect(await verify(store)).toMatchObject({
        ok: false,
        kind: 'removed',
        at: 'seq 3',
        message: 'seq 3 is missing: seq 4 follows seq 2'
      })
    })

    it('finds entries removed from the end, by the head the store recorded', async () => {
      const store = await logOf(10)
      await tamper(store, 'DELETE FROM audit WHERE seq >= 9')
      expect(await verify(store)).toMatchObject({
        ok: false,
        kind: 'removed',
        at: 'seq 9',
        message: "seq 9-10 are missing: the log's head is seq 10, its last entry seq 8"
      })
    })

    it('finds reordered entries (two swapped)', async () => {
      const store = await logOf(6)
      await tamper(store, 'UPDATE audit SET seq = -1 WHERE seq = 3')
      await tamper(store, 'UPDATE audit SET seq = 3 WHERE seq = 4')
      await tamper(store, 'UPDATE audit SET seq = 4 WHERE seq = -1')
      expect(await verify(store)).toMatchObject({
        ok: false,
        kind: 'reordered',
        at: 'seq 3',
        message: 'the entry chained after seq 2 is at seq 4, not at seq 3'
      })
    })

    it('verifies a pruned log from its anchor, and finds the oldest entries removed past it', async () => {
      const store = await logOf(8)
      expect(await store.audit.prune(1e12, 5)).toBe(3)
      expect(await store.audit.bounds()).toMatchObject({ start: { seq: 3 }, head: { seq: 8 } })
      expect(await verify(store)).toMatchObject({ ok: true, entries: 5, first: 4 })
      store.audit.append('ada', 'after prune')
      await flushed(store)
      expect(await verify(store)).toMatchObject({ ok: true, entries: 6, head: { seq: 9 } })
      await tamper(store, 'DELETE FROM audit WHERE seq = 4')
      expect(await verify(store)).toMatchObject({
        ok: false,
        kind: 'removed',
        at: 'seq 4',
        message: 'seq 4 is missing: seq 5 follows seq 3'
      })
    })

    it('keeps tokens, the API secret and URL credentials out of every entry', async () => {
      const store = await bench.open({ now })
      const secret = 'sk_live_9f8e7d6c5b4a39281706f5e4d3c2b1a0'
      store.audit.append('ada', 'settings:webhookUrl', {
        input: { url: 'https://relay:hunter2pass@hooks.example.com/in', token: 'rdk_abcdef123456', apiSecret: secret }
      })
      await flushed(store)
      const [e] = await store.audit.page(0, 1)
      const text = JSON.stringify(e)
      for (const s of ['hunter2pass', 'relay:', 'rdk_abcdef123456', secret]) expect(text).not.toContain(s)
      expect(await verify(store)).toMatchObject({ ok: true, entries: 1 })
    })
  })
})
