// A desktop restarted soon after heavy use starts from the request budget its last run
// spent within the minute (the service still counts those requests), kept in the
// profile's own database; the sandbox profile, whose simulator starts afresh with the app,
// and a restart after the window start from a full budget.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { DEFAULT_SETTINGS } from '../../../src/main/app-settings'
import { ProfileSession, type SessionOptions } from '../../../src/main/profile-session'
import type { Profile } from '../../../src/shared/ipc/contract'
import { silentLog } from '../../../src/main/logging/logger'
import { openLocalStore } from '../../../src/main/store/local-store'
import { gramsReady } from '../../../src/main/store/order-grams'
import { undoGramsMigration } from './store/grams-upgrade'
import { onramp } from './store/order-fixtures'

let dir: string
let t = 1_800_000_000_000

const profile: Profile = { id: 'p1', name: 'Live', kind: 'live', baseUrl: 'http://127.0.0.1:9', serviceName: 'service', apiKey: 'key-1' }

const open = (o: Partial<SessionOptions> = {}) =>
  ProfileSession.open({
    profile,
    dir,
    settings: structuredClone(DEFAULT_SETTINGS),
    getSecret: async () => 'secret',
    now: () => t,
    emit: () => {},
    ...o
  })

const used = (s: ProfileSession, ep: string) => s.client.budget.snapshot().endpoints.find((e) => e.endpoint === ep)?.usedInWindow ?? 0

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rampdesk-session-'))
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))

describe('ProfileSession: the request budget across a restart', () => {
  it('a restart within the minute takes again the slots the last run spent', async () => {
    const first = await open()
    for (let i = 0; i < 6; i++) await first.client.budget.acquire('priceTicker')
    await first.client.budget.acquire('merchantHistory')
    await first.close()
    t += 10_000
    const second = await open()
    try {
      expect(used(second, 'priceTicker')).toBe(6)
      expect(used(second, 'merchantHistory')).toBe(1)
    } finally {
      await second.close()
    }
  })

  it('a restart after the window starts from a full budget', async () => {
    const first = await open()
    for (let i = 0; i < 6; i++) await first.client.budget.acquire('priceTicker')
    await first.close()
    t += 61_001
    const second = await open()
    try {
      expect(used(second, 'priceTicker')).toBe(0)
    } finally {
      await second.close()
    }
  })

  it('neither the sandbox profile nor a hub (carryBudget: false) carries it in the profile database', async () => {
    for (const o of [{ sandboxRun: 'run-1' }, { carryBudget: false }]) {
      const first = await open(o)
      for (let i = 0; i < 6; i++) await first.client.budget.acquire('priceTicker')
      await first.close()
      const second = await open(o)
      try {
        expect(used(second, 'priceTicker')).toBe(0)
      } finally {
        await second.close()
      }
    }
  })
})

describe("ProfileSession: the search's gram index", () => {
  it('a started session adds the orders a profile held before the index to it, and logs when done', async () => {
    const store = openLocalStore(dir)
    store.orders.applyHistoryPage({
      type: 1,
      fiatType: 1,
      records: Array.from({ length: 30 }, (_, i) => onramp({ orderId: i + 1, merchantRecognitionId: `MR-REF-${i + 1}` })) as never
    })
    store.close()
    undoGramsMigration(dir)
    const lines: string[] = []
    const log = { ...silentLog, info: (msg: string) => void lines.push(msg), child: () => log }
    const s = await open({ log })
    try {
      expect(gramsReady(s.store.database.sql)).toBe(false)
      await s.start({ monitor: false })
      await s.gramFiller.settled()
      expect(gramsReady(s.store.database.sql)).toBe(true)
      expect(s.store.database.sql.value('SELECT COUNT(*) FROM orders_grams_1')).toBe(30)
      expect(lines).toContainEqual(expect.stringMatching(/^search index: the 30 orders held before it were added in \d+ s$/))
    } finally {
      await s.close()
    }
    expect(s.gramFiller.current.kind).toBe('filled')
  })
})
