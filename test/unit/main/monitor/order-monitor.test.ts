// The order monitor with an injected clock and timers over a fake service and a real
// database: scheduling, events, error backoff and recovery, stop() aborting in-flight
// work and watched orders (the webhook fast path: webhook-ingest.test.ts).
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { ApiError } from '../../../../src/shared/api/errors'
import type { SyncState } from '../../../../src/shared/ipc/contract'
import type { LocalStore } from '../../../../src/main/store/local-store'
import type { OrderMonitor, OrderMonitorOptions } from '../../../../src/main/monitor/order-monitor'
import { STEADY_MS } from '../../../../src/main/monitor/watches'
import { at, onramp, settle, type FakeClock, type FakeHistory } from './fake-history'
import { MonitorWorld } from './monitor-world'

const POLL = 30_000
const WATCH = 10_000

let world: MonitorWorld
let store: LocalStore
let fake: FakeHistory
let clock: FakeClock
let monitor: OrderMonitor
let events: Array<{ event: string; payload: unknown }>

const make = (over: Partial<OrderMonitorOptions> = {}): OrderMonitor => world.monitor({ historyPollMs: POLL, watchPollMs: WATCH, ...over })
const of: MonitorWorld['of'] = (e) => world.of(e)
const stateOf = (type: 1 | 2) => monitor.states().find((s) => s.type === type && s.fiatType === 1) as SyncState

beforeEach(() => {
  world = new MonitorWorld('monitor')
  ;({ store, fake, clock, events } = world)
  for (let i = 1; i <= 1200; i++) fake.put(1, 1, onramp(i, at(i), i % 3 === 0 ? 4 : 0))
  monitor = make()
})

afterEach(async () => {
  await monitor.stop()
  world.close()
})

describe('OrderMonitor', () => {
  it('syncs every (type, fiat) at start, quietly the first time, with progress, then once per interval', async () => {
    monitor.start()
    await clock.advance(0)
    expect(fake.callsFor(1, 1)).toHaveLength(3)
    expect(fake.callsFor(2, 1)).toHaveLength(1)
    expect(of('order:created')).toHaveLength(0)
    const progress = of('sync:state')
      .filter((s) => s.type === 1 && s.progress)
      .map((s) => s.progress)
    expect(progress).toContainEqual({ pages: 3, orders: 1200 })
    const s = stateOf(1)
    expect(s).toMatchObject({
      running: false,
      progress: null,
      lastError: null,
      lastSuccessAt: clock.t,
      nextRunAt: clock.t + POLL,
      cursor: at(1200),
      lagMs: 0
    })

    // Nothing changed: exactly one request per scope per interval.
    fake.calls.length = 0
    await clock.advance(POLL)
    expect(fake.calls.map((c) => [c.type, c.fiatType])).toEqual([
      [1, 1],
      [2, 1]
    ])
    await clock.advance(POLL * 3)
    expect(fake.calls).toHaveLength(8)
  })

  it('emits created, changed (old, new) and terminal events after the first sync', async () => {
    monitor.start()
    await clock.advance(0)
    fake.put(1, 1, onramp(5000, at(5000)))
    fake.change(1, 1, 1, 2, at(5001))
    fake.change(1, 1, 2, 4, at(5002))
    await clock.advance(POLL)
    expect(of('order:created')).toEqual([{ type: 1, orderId: 5000 }])
    expect(of('order:changed').map((c) => [c.row.orderId, c.oldStatus, c.newStatus, c.terminal])).toEqual([
      [1, 0, 2, false],
      [2, 0, 4, true]
    ])
    expect(of('order:terminal').map((t) => [t.row.orderId, t.status, t.tone, t.source])).toEqual([[2, 4, 'success', 'sync']])
  })

  it("changes a scope's writeMark only when its sync writes orders, and never repeats one after a restart", async () => {
    monitor.start()
    await clock.advance(0)
    const afterFirst = stateOf(1).writeMark
    const offramp = stateOf(2).writeMark
    expect(afterFirst).toMatch(/^[0-9a-f]{8}:[1-9]\d*$/)

    // A poll that finds nothing new: the same mark, in every state it sends.
    events.length = 0
    await clock.advance(POLL)
    expect(of('sync:state').filter((s) => s.type === 1).length).toBeGreaterThan(0)
    expect(
      new Set(
        of('sync:state')
          .filter((s) => s.type === 1)
          .map((s) => s.writeMark)
      )
    ).toEqual(new Set([afterFirst]))

    // A status changed on the service: a new mark for that scope alone.
    fake.change(1, 1, 1, 2, at(5001))
    await clock.advance(POLL)
    expect(stateOf(1).writeMark).not.toBe(afterFirst)
    expect(stateOf(2).writeMark).toBe(offramp)

    // A new start of the service names other marks, even for a scope that wrote nothing since.
    await monitor.stop()
    monitor = make()
    monitor.start()
    await clock.advance(0)
    expect(stateOf(2).writeMark).not.toBe(offramp)
  })

  it('records a failing sync, keeps the last state and committed pages, retries with backoff, then recovers', async () => {
    fake.failAt(2)
    monitor.start()
    await clock.advance(0)
    const failed = stateOf(1)
    expect(failed.lastError).toMatchObject({ kind: 'network', retryable: true })
    expect(failed.lastSuccessAt).toBeNull()
    expect(failed.cursor).toBe(at(500))
    expect(store.orders.count(1)).toBe(500)
    expect(failed.nextRunAt).toBe(clock.t + 5_000)
    expect(JSON.parse(store.syncCursors.get(1, 1).lastError!)).toMatchObject({ kind: 'network' })

    // Second failure doubles the wait.
    fake.failAt(1)
    await clock.advance(5_000)
    expect(stateOf(1).nextRunAt).toBe(clock.t + 10_000)
    expect(store.orders.count(1)).toBe(500)

    await clock.advance(10_000)
    const ok = stateOf(1)
    expect(ok.lastError).toBeNull()
    expect(ok.lastSuccessAt).toBe(clock.t)
    expect(ok.nextRunAt).toBe(clock.t + POLL)
    expect(store.orders.count(1)).toBe(1200)
    expect(store.syncCursors.get(1, 1).lastError).toBeNull()
  })

  it('waits for the budget when the failure was rate limiting', async () => {
    fake.failAt(
      1,
      new ApiError({
        kind: 'rate_limited',
        origin: 'service',
        endpoint: 'merchantHistory',
        nextSlotAt: clock.t + 45_000,
        message: 'slow down'
      })
    )
    monitor.start()
    await clock.advance(0)
    expect(stateOf(1).nextRunAt).toBe(clock.t + 45_000)
  })

  it('stop() aborts requests in flight and waits for them; nothing runs afterwards', async () => {
    let release!: () => void
    const hanging = new Promise<void>((r) => (release = r))
    const slow = Object.create(fake) as FakeHistory
    slow.historyPage = async (req, opts = {}) => {
      await new Promise<void>((resolve, reject) => {
        void hanging.then(resolve)
        opts.signal?.addEventListener('abort', () => reject(new ApiError({ kind: 'aborted', message: 'aborted' })), { once: true })
      })
      return fake.historyPage(req, opts)
    }
    monitor = make({ client: slow })
    monitor.start()
    await clock.advance(0)
    expect(stateOf(1).running).toBe(true)
    await monitor.stop()
    const s = stateOf(1)
    expect(s.running).toBe(false)
    expect(s.lastError).toBeNull()
    expect(clock.pending()).toEqual([])
    release()
    await clock.advance(POLL * 2)
    expect(fake.calls).toHaveLength(0)
  })

  it('reads the recent window again every hour (reconcile), over the window Settings gives', async () => {
    // Orders changed in the last hours: a 24 h window starts before the poll's look-back would.
    const base = clock.t - 3 * 3_600_000
    for (let i = 1; i <= 40; i++) fake.put(1, 1, onramp(10_000 + i, at(i * 60, base)))
    monitor = make({ reconcileEveryMs: 3_600_000, reconcileWindowMs: 24 * 3_600_000 })
    monitor.start()
    await clock.advance(0)
    const reconcileSince = () =>
      fake
        .callsFor(1, 1)
        .map((c) => c.since)
        .at(-1)
    // The first sync read everything: it counts as a reconcile. Polls follow; after an hour, a reconcile.
    expect(stateOf(1).lastReconcileAt).toBe(clock.t)
    fake.calls.length = 0
    await clock.advance(3_600_000)
    expect(reconcileSince()).toBe(new Date(clock.t - 24 * 3_600_000 - 1).toISOString())
    expect(stateOf(1).lastReconcileAt).toBe(clock.t)
    // Settings change the window (reconcileHours): the next reconcile reads the new one.
    monitor.configure({ reconcileWindowMs: 2 * 3_600_000 })
    await clock.advance(3_600_000)
    const since = reconcileSince()!
    // Two hours back is after the cursor's look-back, so the pass starts at whichever is earlier.
    expect(Date.parse(since)).toBeLessThanOrEqual(clock.t - 2 * 3_600_000)
    expect(since).not.toBe(new Date(clock.t - 24 * 3_600_000 - 1).toISOString())
  })

  it('syncNow() runs every scope at once and resolves with the states', async () => {
    const states = await monitor.syncNow()
    expect(states.map((s) => [s.type, s.fiatType, s.running, s.cursor])).toEqual([
      [1, 1, false, at(1200)],
      [2, 1, false, null]
    ])
    expect(store.orders.count(1)).toBe(1200)
  })

  it('syncNow() (and resyncAll, auditNow) asks the client to probe a service it could not reach at once, before the runs start', async () => {
    const order: string[] = []
    const inner = fake.merchantHistory
    fake.merchantHistory = async (req, opts) => {
      order.push('history')
      return inner(req, opts)
    }
    Object.assign(fake, { probeNow: () => void order.push('probeNow') })
    await monitor.syncNow()
    expect(order[0]).toBe('probeNow')
    expect(order.filter((o) => o === 'probeNow')).toHaveLength(1)
    // So do the operator's other runs: everything read again, and every scope's check.
    await monitor.resyncAll()
    await monitor.auditNow()
    expect(order.filter((o) => o === 'probeNow')).toHaveLength(3)
  })

  it('syncNow() joins a run in progress and, when that run fails, runs the scope again at once', async () => {
    // The first run is on the wire when the operator presses "Try again now"; the service
    // drops it, and is back by then.
    const inner = fake.merchantHistory
    let release!: () => void
    const gate = new Promise<void>((r) => (release = r))
    let first = true
    fake.merchantHistory = async (req, opts) => {
      if (req.type === 1 && first) {
        first = false
        await gate
        throw new ApiError({ kind: 'network', endpoint: 'merchantHistory', message: 'connection reset' })
      }
      return inner(req, opts)
    }
    monitor.start()
    await clock.advance(0)
    expect(stateOf(1).running).toBe(true)
    const now = monitor.syncNow()
    release()
    const states = await now
    const onramp1 = states.find((s) => s.type === 1 && s.fiatType === 1)!
    // Not the failed run's error with a retry 5 s on: the scope ran again and succeeded.
    expect(onramp1).toMatchObject({ lastError: null, lastSuccessAt: clock.t, running: false })
    expect(store.orders.count(1)).toBe(1200)
  })

  /** Starts the first interval's run of onramp, which reads its listing and then waits on the wire until released. */
  async function pollHeldOnTheWire(): Promise<() => void> {
    monitor.start()
    await clock.advance(0)
    const inner = fake.merchantHistory
    let release!: () => void
    const gate = new Promise<void>((r) => (release = r))
    let held = true
    fake.merchantHistory = async (req, opts) => {
      const page = await inner(req, opts)
      if (req.type === 1 && held) {
        held = false
        await gate
      }
      return page
    }
    await clock.advance(POLL)
    expect(stateOf(1).running).toBe(true)
    return release
  }

  it('syncNow() joins a run in progress that read its listing too early and runs the scope again after it', async () => {
    const release = await pollHeldOnTheWire()
    // The order is made after the run in progress read its page: only a new run sees it.
    fake.put(1, 1, onramp(5000, at(5000)))
    const now = monitor.syncNow()
    release()
    await now
    expect(store.orders.get(1, 5000)?.orderId).toBe(5000)
  })

  it('a webhook about an order not held, while its scope runs, syncs the scope again once that run ends', async () => {
    const release = await pollHeldOnTheWire()
    fake.put(1, 1, onramp(5000, at(5000)))
    expect(monitor.ingestWebhook(1, onramp(5000, at(5000)))).toBe('unknown')
    release()
    await clock.advance(0)
    expect(store.orders.get(1, 5000)?.orderId).toBe(5000)
    // Then back to its interval: one run more, not a loop.
    fake.calls.length = 0
    await clock.advance(POLL - 1)
    expect(fake.callsFor(1, 1)).toHaveLength(0)
    await clock.advance(1)
    expect(fake.callsFor(1, 1)).toHaveLength(1)
  })

  it('configure() adds and removes fiat scopes and changes the interval', async () => {
    fake.put(1, 2, onramp(9000, at(1), 0, 2))
    monitor.start()
    await clock.advance(0)
    monitor.configure({ fiatTypes: [1, 2], historyPollMs: 60_000 })
    await clock.advance(0)
    // Offramp only where it exists: INR (fiat 1) by default.
    expect(
      monitor
        .states()
        .map((s) => `${s.type}:${s.fiatType}`)
        .sort()
    ).toEqual(['1:1', '1:2', '2:1'])
    expect(store.orders.get(1, 9000)?.fiatType).toBe(2)
    fake.calls.length = 0
    await clock.advance(60_000)
    expect(fake.calls).toHaveLength(3)
    monitor.configure({ fiatTypes: [2] })
    expect(
      monitor
        .states()
        .map((s) => `${s.type}:${s.fiatType}`)
        .sort()
    ).toEqual(['1:2'])
  })

  it('syncs offramp for the fiat types offrampFiatTypes names (INR alone by default), onramp for every one', async () => {
    await monitor.stop()
    const scopes = (m: OrderMonitor) =>
      m
        .states()
        .map((s) => `${s.type}:${s.fiatType}`)
        .sort()
    monitor = make({ fiatTypes: [1, 2, 3] })
    expect(scopes(monitor)).toEqual(['1:1', '1:2', '1:3', '2:1'])
    await monitor.syncNow()
    expect(fake.calls.filter((c) => c.type === 2).map((c) => c.fiatType)).toEqual([1])
    await monitor.stop()
    monitor = make({ fiatTypes: [1, 2, 3], offrampFiatTypes: [2] })
    expect(scopes(monitor)).toEqual(['1:1', '1:2', '1:3', '2:2'])
    await monitor.stop()
    monitor = make({ fiatTypes: [1, 2, 3], offrampFiatTypes: 'all' })
    expect(scopes(monitor)).toEqual(['1:1', '1:2', '1:3', '2:1', '2:2', '2:3'])
  })

  it('runs at most maxConcurrentScopes scopes at once (one by default) and still syncs every one', async () => {
    await monitor.stop()
    for (const f of [2, 3, 4, 5, 6]) for (let i = 1; i <= 700; i++) fake.put(1, f, onramp(f * 10_000 + i, at(i), 0, f))
    const inner = fake.merchantHistory
    let inFlight = 0
    let most = 0
    fake.merchantHistory = async (req, opts) => {
      inFlight++
      most = Math.max(most, inFlight)
      try {
        // Long enough for every scope that may start to have started.
        for (let i = 0; i < 20; i++) await Promise.resolve()
        return await inner(req, opts)
      } finally {
        inFlight--
      }
    }
    const fiats = [1, 2, 3, 4, 5, 6]
    // One at a time by default.
    monitor = make({ fiatTypes: fiats, offrampFiatTypes: 'all' })
    await monitor.syncNow()
    expect(most).toBe(1)
    expect(store.orders.count(1)).toBe(1200 + 5 * 700)
    await monitor.stop()
    most = 0
    monitor = make({ fiatTypes: fiats, offrampFiatTypes: 'all', maxConcurrentScopes: 2 })
    const states = await monitor.syncNow()
    expect(most).toBe(2)
    expect(states.every((s) => s.lastError === null && s.lastSuccessAt !== null)).toBe(true)
    expect(store.orders.count(1)).toBe(1200 + 5 * 700)
    for (const f of fiats) expect(fake.truth(1, f).every((r) => store.orders.get(1, r.orderId)?.fiatType === f)).toBe(true)

    // The limit is what bounds it: with room for all twelve, they all run at once.
    await monitor.stop()
    most = 0
    monitor = make({ fiatTypes: fiats, offrampFiatTypes: 'all', maxConcurrentScopes: 12 })
    await monitor.syncNow()
    expect(most).toBe(12)
  })

  it('stop() ends the wait of scopes queued for a slot', async () => {
    await monitor.stop()
    monitor = make({ fiatTypes: [1, 2, 3, 4], maxConcurrentScopes: 1 })
    const run = monitor.syncNow()
    await monitor.stop()
    const states = await run
    // Aborted, not failed: no error recorded, and no scope went on after the stop.
    expect(states.every((s) => s.lastError === null)).toBe(true)
    const calls = fake.calls.length
    await clock.advance(POLL * 2)
    expect(fake.calls.length).toBe(calls)
  })

  describe('watches', () => {
    it('polls a pinned order in the background, faster after a change, backing off while quiet, and stops when terminal', async () => {
      // History sync out of the way: here only the watch may notice changes.
      monitor = make({ historyPollMs: 3_600_000 })
      monitor.start()
      await clock.advance(0)
      monitor.watch(1, 1)
      await clock.advance(0)
      expect(fake.statusCalls).toEqual([{ type: 1, orderId: 1, priority: 'background' }])
      expect(store.watches.get(1, 1)).toBeDefined()

      // Just pinned: the operator's interval holds for STEADY_MS, whatever the quiet.
      const intervals: number[] = []
      const pinnedAt = clock.t
      while (clock.t < pinnedAt + STEADY_MS) {
        const next = monitor.watchSchedule()[0]!
        intervals.push(next.nextPollAt! - clock.t)
        await clock.advance(next.nextPollAt! - clock.t)
      }
      expect(intervals.length).toBeGreaterThan(2)
      expect(new Set(intervals)).toEqual(new Set([WATCH]))
      // Then quiet: the interval grows by half each time (pollMs, 1.5x, 2.25x...).
      const quiet: number[] = []
      for (let i = 0; i < 3; i++) {
        const next = monitor.watchSchedule()[0]!
        await clock.advance(next.nextPollAt! - clock.t)
        quiet.push(monitor.watchSchedule()[0]!.nextPollAt! - clock.t)
      }
      expect(quiet[1]).toBeGreaterThan(quiet[0]!)
      expect(quiet[2]).toBeGreaterThan(quiet[1]!)

      // A change: seen by the poll, emitted with source watch, next poll at the fast pace.
      fake.change(1, 1, 1, 2, at(8000))
      const before = fake.statusCalls.length
      await clock.advance(monitor.watchSchedule()[0]!.nextPollAt! - clock.t)
      expect(fake.statusCalls.length).toBe(before + 1)
      expect(of('order:changed').at(-1)).toMatchObject({ oldStatus: 0, newStatus: 2 })
      expect(of('order:changed').at(-1)!.row.watched).toBe(true)
      expect(monitor.watchSchedule()[0]!.intervalMs).toBe(WATCH / 2)

      // Terminal: stays pinned, no more polls.
      fake.change(1, 1, 1, 4, at(8001))
      await clock.advance(monitor.watchSchedule()[0]!.nextPollAt! - clock.t)
      expect(of('order:terminal').at(-1)).toMatchObject({ status: 4, source: 'watch' })
      expect(monitor.watchSchedule()).toEqual([])
      const calls = fake.statusCalls.length
      await clock.advance(WATCH * 100)
      expect(fake.statusCalls.length).toBe(calls)
      expect(store.watches.has(1, 1)).toBe(true)
    })

    it('never polls a pinned order that is already terminal', async () => {
      await monitor.syncNow()
      monitor.start()
      monitor.watch(1, 3) // status 4: terminal
      await clock.advance(WATCH * 10)
      expect(fake.statusCalls).toHaveLength(0)
    })

    it('spaces many watches so together they stay within the budget share', async () => {
      await monitor.syncNow()
      monitor.start()
      const ids = Array.from({ length: 200 }, (_, i) => i + 1).filter((i) => i % 3 !== 0)
      for (const id of ids) monitor.watch(1, id)
      await clock.advance(10 * 60_000)
      // Default limit 120/min, 2 reserved, half for watches: at most 59 a minute (+ the first round).
      expect(fake.statusCalls.length).toBeLessThanOrEqual(ids.length + 59 * 10)
      expect(fake.statusCalls.length).toBeGreaterThan(ids.length)
    })

    it('backs off to the longest interval for an order the service says no longer exists (417)', async () => {
      monitor = make({ historyPollMs: 3_600_000 })
      monitor.start()
      await clock.advance(0)
      monitor.watch(1, 987654)
      await clock.advance(0)
      expect(fake.statusCalls).toHaveLength(1)
      const w = monitor.watchSchedule()[0]!
      expect(w.lastError).toMatchObject({ kind: 'api', code: 417 })
      expect(w.intervalMs).toBe(WATCH * 8)
      expect(w.nextPollAt! - clock.t).toBe(WATCH * 8)
    })

    it('stop() aborts a poll in flight', async () => {
      await monitor.syncNow()
      fake.holdStatus = true
      monitor.start()
      monitor.watch(1, 1)
      await clock.advance(0)
      expect(fake.statusCalls).toHaveLength(1)
      await monitor.stop()
      await settle()
      expect(store.watches.get(1, 1)!.lastCheckedAt).toBeNull()
    })
  })
})
