// One message per alert until it clears, on hub.db with a fixed clock: an alert standing over
// many looks is queued once per hook; its clearing queues one 'cleared' to the hooks told of
// it; raised again it is a new episode and queued again; a hub started again on the same
// store (a new store object) queues nothing for what still stands; a hook added later hears
// of what stands; claims take messages in order and back off after a failure.
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { reconcileAlerts } from '../../../../src/hub/alert-hooks/alert-hooks'
import { hookNextAfter } from '../../../../src/hub/alert-hooks/hook-store'
import { openSqliteHubStore, type SqliteHubStore } from '../../../../src/hub/sqlite-hub-store'
import type { Alert } from '../../../../src/shared/ipc/contract'

const T0 = Date.UTC(2026, 10, 27, 9, 0)
const alert = (orderId: number): Alert => ({
  kind: 'stalled',
  id: `stalled:2:${orderId}`,
  order: { type: 2, orderId },
  status: 3,
  since: T0,
  thresholdMinutes: 30,
  text: 'Stalled 42 min in Held for review',
  tell: 'x'
})

let dir: string
let store: SqliteHubStore
let now = T0
const ctx = () => ({ store: store.alertHooks, now: () => now, coinOf: () => 'USDT' })
const messages = async () => (await store.alertHooks.messages(100)).reverse().map((m) => `${m.hookId} ${m.event} ${m.alertId}`)

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rampdesk-hooks-'))
  store = openSqliteHubStore(dir, { now: () => now })
  now = T0
})
afterEach(async () => {
  await store.close()
  await rm(dir, { recursive: true, force: true })
})

describe('alert hook dedupe', () => {
  it('queues an alert once until it clears, once more when raised again, and nothing again after a restart', async () => {
    const hooks = store.alertHooks
    const h = await hooks.addHook({ url: 'http://127.0.0.1:1/in', format: 'slack', secret: null, createdAt: T0, createdBy: 'test' })
    expect(await reconcileAlerts(ctx(), [alert(1)])).toBe(1)
    for (let i = 0; i < 3; i++) {
      now += 15_000
      expect(await reconcileAlerts(ctx(), [alert(1)])).toBe(0)
    }
    expect(await messages()).toEqual([`${h.id} raised stalled:2:1`])
    // Another hub that saw it at the same moment opens no second episode and queues no second message.
    expect(await hooks.raise('stalled:2:1', JSON.stringify(alert(1)), now)).toBeNull()
    expect(await hooks.enqueue({ hookId: h.id, alertId: 'stalled:2:1', episode: 1, event: 'raised', body: '{}', at: now })).toBeNull()

    expect(await reconcileAlerts(ctx(), [])).toBe(1)
    expect(await reconcileAlerts(ctx(), [])).toBe(0)
    expect(await reconcileAlerts(ctx(), [alert(1)])).toBe(1)
    expect(await messages()).toEqual([`${h.id} raised stalled:2:1`, `${h.id} cleared stalled:2:1`, `${h.id} raised stalled:2:1`])

    // A hub started again on the same store: what stands was sent.
    await store.close()
    store = openSqliteHubStore(dir, { now: () => now })
    expect(await reconcileAlerts(ctx(), [alert(1)])).toBe(0)

    // A hook added later hears of what stands, and of nothing the first was told before.
    const late = await store.alertHooks.addHook({
      url: 'http://127.0.0.1:2/in',
      format: 'json',
      secret: 's',
      createdAt: now,
      createdBy: 'test'
    })
    expect(await reconcileAlerts(ctx(), [alert(1)])).toBe(1)
    expect((await messages()).slice(3)).toEqual([`${late.id} raised stalled:2:1`])
    // Its clearing reaches both.
    expect(await reconcileAlerts(ctx(), [])).toBe(2)
  })

  it("claims one hook and alert's messages in order, and a failed one again only after its back-off", async () => {
    const hooks = store.alertHooks
    await hooks.addHook({ url: 'http://127.0.0.1:1/in', format: 'slack', secret: null, createdAt: T0, createdBy: 'test' })
    await reconcileAlerts(ctx(), [alert(1)])
    await reconcileAlerts(ctx(), [])
    // The 'cleared' waits while its 'raised' is not sent.
    const [first, ...rest] = await hooks.claim('hub-a', 10, now)
    expect(first!.event).toBe('raised')
    expect(rest).toEqual([])
    // A claim held is not taken by another hub.
    expect(await hooks.claim('hub-b', 10, now)).toEqual([])
    const attempt = { at: now, hub: 'hub-a', httpStatus: 500, answer: 'down', ms: 3 }
    await hooks.settle(first!, attempt, hookNextAfter(first!, attempt, now))
    expect(await hooks.claim('hub-a', 10, now + 999)).toEqual([])
    const [again] = await hooks.claim('hub-a', 10, now + 1_000)
    expect(again).toMatchObject({ id: first!.id, attempts: 1 })
    const ok = { ...attempt, at: now + 1_000, httpStatus: 200, answer: 'ok' }
    await hooks.settle(again!, ok, hookNextAfter(again!, ok, now + 1_000))
    expect((await hooks.claim('hub-a', 10, now + 1_000)).map((j) => j.event)).toEqual(['cleared'])
    expect((await hooks.attempts(first!.id)).map((a) => a.httpStatus)).toEqual([500, 200])
  })
})
