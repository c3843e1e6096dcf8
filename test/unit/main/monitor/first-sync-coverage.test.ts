// A first sync tells the orders it holds as its pages arrive (coverage:changed), so the
// orders view's first-sync banner counts what is already here rather than "No orders
// synced yet" above rows. A fake service whose answers take time, a real database.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { Coverage } from '../../../../src/shared/ipc/contract'
import { openLocalStore, type LocalStore } from '../../../../src/main/store/local-store'
import { OrderMonitor } from '../../../../src/main/monitor/order-monitor'
import { at, FakeClock, FakeHistory, onramp } from './fake-history'

let dir: string
let store: LocalStore
let fake: FakeHistory
let clock: FakeClock
let monitor: OrderMonitor | undefined

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rampdesk-first-sync-'))
  clock = new FakeClock()
  store = openLocalStore(dir, { now: () => new Date(clock.now()) })
  fake = new FakeHistory()
  monitor = undefined
})

afterEach(async () => {
  await monitor?.stop()
  store.close()
  rmSync(dir, { recursive: true, force: true })
})

describe('the first sync', () => {
  it('tells the orders it holds as its pages arrive, so the first-sync banner counts what is here', async () => {
    // 500 orders, ten pages of 50; each answer takes 1.5 s of the monitor's clock.
    for (let i = 1; i <= 500; i++) fake.put(1, 1, onramp(i, at(10 * i), 4, 1))
    fake.beforeAnswer = () => clock.jump(1500)
    const covers: Coverage[] = []
    monitor = new OrderMonitor({
      client: fake,
      store,
      fiatTypes: [1],
      historyPollMs: 30_000,
      watchPollMs: 15_000,
      pageSize: 50,
      now: clock.now,
      timers: clock.timers,
      onEvent: (event, payload) => {
        if (event === 'coverage:changed') covers.push(payload as Coverage)
      }
    })
    monitor.start()
    for (let i = 0; i < 40 && !monitor.states().every((s) => s.lastSuccessAt !== null); i++) await clock.advance(500)
    expect(monitor.states().every((s) => s.lastSuccessAt !== null)).toBe(true)
    const held = [...new Set(covers.map((c) => c.scopes.find((s) => s.type === 1 && s.fiatType === 1)?.orders ?? 0))]
    // Told as the pages came, not only once the readings were learned or the sync ended.
    expect(held.filter((n) => n > 0 && n < 500).length, `orders held as told: ${held.join(', ')}`).toBeGreaterThanOrEqual(6)
    expect(held.at(-1)).toBe(500)
  })
})
