// Pruning the delivery log on a real profile database: by age, by count, in batches with
// the event loop served between them, the retention read afresh at every run.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { openLocalStore, type LocalStore } from '../../../../src/main/store/local-store'
import { DeliveryLogPruner, type Retention } from '../../../../src/main/webhooks/delivery-log-pruner'

const DAY = 86_400_000
const NOW = Date.parse('2025-03-01T00:00:00.000Z')

let dir: string
let store: LocalStore
let retention: Retention

function fill(count: number, daysAgo: (i: number) => number): void {
  store.database.sql.transaction(() => {
    for (let i = 0; i < count; i++) {
      store.webhookDeliveries.insert({
        receivedAt: new Date(NOW - daysAgo(i) * DAY).toISOString(),
        headers: {},
        payloadHeader: null,
        body: `{"n":${i}}`,
        verified: false,
        reason: 'signature does not match'
      })
    }
  })
}

const pruner = (batch = 50) => new DeliveryLogPruner({ repo: store.webhookDeliveries, retention: () => retention, now: () => NOW, batch })

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rampdesk-prune-'))
  store = openLocalStore(dir)
  retention = { keepDays: 30, keepDeliveries: 10_000 }
})
afterEach(() => {
  store.close()
  rmSync(dir, { recursive: true, force: true })
})

describe('DeliveryLogPruner', () => {
  it('deletes deliveries older than keepDays and keeps the rest', async () => {
    fill(300, (i) => (i < 120 ? 40 : 5))
    expect(await pruner().runNow()).toEqual({ byAge: 120, byCount: 0 })
    expect(store.webhookDeliveries.count()).toBe(180)
  })

  it('keeps at most keepDeliveries, the newest', async () => {
    retention = { keepDays: 30, keepDeliveries: 100 }
    fill(260, () => 1)
    expect(await pruner().runNow()).toEqual({ byAge: 0, byCount: 160 })
    const ids = store.webhookDeliveries.list({ limit: 500 }).rows.map((r) => r.body)
    expect(ids).toHaveLength(100)
    expect(ids[0]).toBe('{"n":259}')
    expect(ids.at(-1)).toBe('{"n":160}')
  })

  it('gives the event loop a turn between batches', async () => {
    retention = { keepDays: 1, keepDeliveries: 10_000 }
    fill(230, () => 10)
    const seen: number[] = []
    const run = pruner(50).runNow()
    // Queued now: runs at the first yield, between two batches.
    setImmediate(() => seen.push(store.webhookDeliveries.count()))
    expect(await run).toEqual({ byAge: 230, byCount: 0 })
    expect(seen).toHaveLength(1)
    expect(seen[0]).toBeGreaterThan(0)
    expect(seen[0]).toBeLessThan(230)
  })

  it('reads the retention at each run, and a second call during a run shares it', async () => {
    fill(50, (i) => i)
    const p = pruner(10)
    const [a, b] = await Promise.all([p.runNow(), p.runNow()])
    expect(a).toBe(b)
    expect(store.webhookDeliveries.count()).toBe(31)
    retention = { keepDays: 10, keepDeliveries: 10_000 }
    expect(await p.runNow()).toEqual({ byAge: 20, byCount: 0 })
  })

  it('stops between batches when stopped', async () => {
    retention = { keepDays: 1, keepDeliveries: 10_000 }
    fill(200, () => 10)
    const p = pruner(20)
    const run = p.runNow()
    await p.stop()
    const r = await run
    expect(r.byAge).toBeLessThan(200)
    expect(store.webhookDeliveries.count()).toBe(200 - r.byAge)
  })
})
