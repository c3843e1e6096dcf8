// Restarting the app on the same data folder starts a new embedded sandbox, whose orders
// reuse the last run's ids with other histories: the sandbox profile's database forgets
// the last run's orders, watches, positions and prices before syncing the new run's, so
// no order shows a timeline of two sandboxes; what does not depend on the run (the
// configuration cache) stays.
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startServicesHarness } from './harness'

let dataDir: string

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'rampdesk-sandbox-run-'))
})
afterAll(async () => {
  await rm(dataDir, { recursive: true, force: true })
})

describe('the sandbox profile across restarts on one data folder', () => {
  it("keeps each run's orders apart from the next run's", async () => {
    const first = await startServicesHarness({ dataDir, keepDataDir: true, sandbox: { orders: 60, seed: 3, autoGenerate: false } })
    let watched: number
    try {
      await first.call('config:get', {})
      await first.services.session().monitor.syncNow()
      const rows = (await first.call('orders:query', { filter: { type: 1 }, sort: 'orderId:asc', offset: 0, limit: 1000 })).rows
      expect(rows.length).toBeGreaterThan(5)
      watched = rows[0]!.orderId
      await first.call('orders:watch', { type: 1, orderId: watched, watch: true })
      expect(first.services.session().store.configCache.get('config:publicAllConfig')).toBeDefined()
    } finally {
      await first.close()
    }

    // Another run, another seed: the same ids, other orders.
    const second = await startServicesHarness({ dataDir, keepDataDir: true, sandbox: { orders: 30, seed: 9, autoGenerate: false } })
    try {
      const store = second.services.session().store
      // The configuration cache is kept; the first run's orders and watches are not, even before a sync.
      expect(store.configCache.get('config:publicAllConfig')).toBeDefined()
      expect(store.watches.has(1, watched)).toBe(false)
      await second.services.session().monitor.syncNow()
      // Every fiat's orders: the app syncs each scope the service holds orders in.
      const truth = second.services.sandbox()!.control.groundTruth({ type: 1 })
      const rows = (await second.call('orders:query', { filter: { type: 1 }, sort: 'orderId:asc', offset: 0, limit: 1000 })).rows
      expect(rows.map((r) => r.orderId)).toEqual(truth.map((o) => o.orderId).sort((a, b) => a - b))
      for (const r of rows.slice(0, 10)) {
        const got = await second.call('orders:get', { type: 1, orderId: r.orderId })
        // One sighting, this run's: no timeline from the other sandbox before it.
        expect(got!.timeline[0]!.oldStatus).toBeNull()
        expect(got!.row.createdAt).toBe(truth.find((o) => o.orderId === r.orderId)!.createdAt)
      }
    } finally {
      await second.close()
    }
  })
})
