// Faults: the whole main side (createServices on the sandbox profile, real ApiClient over
// loopback, real profile database, real order monitor) against the embedded sandbox
// while it misbehaves: 5xx bursts, timeouts, connection resets, truncated and malformed
// bodies, a 429 storm, the app's clock 5 minutes ahead and behind, and the service down
// for a minute. Throughout, the UI handlers keep answering from the database and the
// sync state reports the trouble (last error, next retry); afterwards the monitor has
// recovered on its own timers (no sync:now is ever called) and the database equals the
// sandbox's ground truth: every order, every record, every status transition once.
//
// Time compression: vitest fake timers (setTimeout/setInterval/Date) with
// shouldAdvanceTime, installed before anything is created, so the monitor's retry
// backoff (5 s doubling), its 30 s poll, the rate budget's 429 penalties, undici's 15 s
// headers timeout, the sandbox's injected latency and both clocks all run on one fake
// clock that also follows real time. The test moves it forward in 1 s steps (200 ms while
// a request is out) with a real pause after each, and not at all while an HTTP request of the app is in flight
// (undici's diagnostics channels say when), unless that request has been out for 250 ms
// of real time (it is then held by an injected latency, which is what the jump is for):
// a loaded machine never turns a slow loopback answer into a fake timeout. A fake minute
// costs about 1.5 s of real time. "Down for a minute" is 60 s on that clock.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as realSleep } from 'node:timers/promises'
import { subscribe } from 'node:diagnostics_channel'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import type { Sandbox, TruthOrder } from '../../src/sandbox'
import type { Services } from '../../src/main/services'
import type { EventName, SyncState } from '../../src/shared/ipc/contract'
import { statusInfo } from '../../src/shared/domain/status'
import { diffAgainstTruth, expectLossless, lossesOf, recordScenario, scopesHeld } from './support'

vi.useFakeTimers({
  toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'],
  shouldAdvanceTime: true,
  advanceTimeDelta: 10
})

const { createServices } = await import('../../src/main/services')

/** Every scope the sandbox holds orders in, once it has started (the app syncs them all). */
let SCOPES: { type: 1 | 2; fiatType: number }[] = []
const STEP_MS = 200

let dir: string
let services: Services
let sb: Sandbox
/** How far the app's clock runs ahead of the service's (the sandbox clock stays continuous). */
let appSkewMs = 0
const events: Array<{ event: EventName; payload: unknown }> = []
/** Orders this test moves along their paths, one step per round. */
const pool: number[] = []
/** Statuses entered and left while no sync could run (the API shows only the current status). */
const unobservable = new Map<number, Set<number>>()

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'rampdesk-rel-faults-'))
  services = await createServices({
    dataDir: join(dir, 'data'),
    exportDir: join(dir, 'exports'),
    version: '0.0.0-reliability',
    shellKind: 'web',
    // Orders in INR only: the faults are what is tested here, on the two scopes they were
    // sized for; the other fiats are empty scopes the app probes now and then.
    sandbox: { seed: 41, orders: 300, autoGenerate: false, now: () => Date.now() - appSkewMs, orderFiats: { onramp: [1], offramp: [1] } }
  })
  services.subscribe((event, payload) => events.push({ event, payload }))
  await services.start()
  sb = services.sandbox()!
  SCOPES = scopesHeld(sb.control.groundTruth())
  // Every scope found by its probe and synced once.
  await passUntil(
    async () => {
      const st = await states()
      return st.length >= SCOPES.length && st.every((s) => s.lastSuccessAt !== null && !s.running)
    },
    'the first sync',
    120_000
  )
  // Orders to move around: new ones (seen from status 0), plus one watched by the watch poller.
  for (let i = 0; i < 6; i++) pool.push(sb.control.createOrder({ type: 1, fiatType: 1, path: 'completed', hold: true }).orderId)
  for (let i = 0; i < 4; i++) pool.push(sb.control.createOrder({ type: 2, path: 'completed (payout)', hold: true }).orderId)
  await settle('the pool orders')
  const watched = pool[0]!
  expect((await services.handlers['orders:watch']({ type: 1, orderId: watched, watch: true })).ok).toBe(true)
}, 180_000)

afterAll(async () => {
  await services?.close()
  vi.useRealTimers()
  rmSync(dir, { recursive: true, force: true })
})

async function states(): Promise<SyncState[]> {
  return (await services.handlers['sync:state']({})).states
}

/** HTTP requests of this process in flight, with the real time each left. */
const inFlight = new Map<object, number>()
subscribe('undici:request:create', (m) => void inFlight.set((m as { request: object }).request, performance.now()))
for (const name of ['undici:request:trailers', 'undici:request:error'])
  subscribe(name, (m) => void inFlight.delete((m as { request: object }).request))
const STUCK_MS = 250

/** With nothing on the wire, larger steps are as safe and cheaper. */
const IDLE_STEP_MS = 1_000

/** Moves the fake clock forward by at least ms, in steps, letting real I/O run between steps. */
async function pass(ms: number): Promise<void> {
  for (let done = 0; done < ms;) {
    const now = performance.now()
    for (const [req, at] of inFlight) if (now - at > 60_000) inFlight.delete(req)
    const oldest = Math.min(...inFlight.values())
    if (inFlight.size > 0 && now - oldest < STUCK_MS) {
      // A request is on its way: real time only, so a busy machine cannot fake a timeout.
      await realSleep(2)
      continue
    }
    const step = inFlight.size === 0 ? IDLE_STEP_MS : STEP_MS
    await vi.advanceTimersByTimeAsync(step)
    done += step
    await realSleep(2)
  }
}

/** Moves the fake clock until cond holds, probing every fake second; fails after maxFakeMs of fake time (a hang, not a measurement). */
async function passUntil(
  cond: () => Promise<boolean> | boolean,
  what: string,
  maxFakeMs: number,
  probe?: () => Promise<void>
): Promise<number> {
  const start = Date.now()
  let probed = start
  while (!(await cond())) {
    if (Date.now() - start > maxFakeMs) throw new Error(`not reached within ${maxFakeMs / 1000} s of (fake) time: ${what}`)
    await pass(STEP_MS)
    if (probe && Date.now() - probed >= 1_000) {
      probed = Date.now()
      await probe()
    }
  }
  return Date.now() - start
}

/** True once every scope has STARTED a sync after the mark and finished it without error. */
function recoveredSince(mark: number): boolean {
  return SCOPES.every((scope) => {
    let started = false
    for (const e of events.slice(mark)) {
      if (e.event !== 'sync:state') continue
      const s = e.payload as SyncState
      if (s.type !== scope.type || s.fiatType !== scope.fiatType) continue
      if (s.running) started = true
      else if (started && s.lastError === null) return true
    }
    return false
  })
}

/** Waits (on the fake clock, nothing triggered by hand) until every scope synced cleanly after now. */
async function settle(what: string, maxFakeMs = 10 * 60_000, onStep?: () => Promise<void>): Promise<number> {
  const mark = events.length
  return passUntil(() => recoveredSince(mark), `recovery after ${what}`, maxFakeMs, onStep)
}

function truth(): TruthOrder[] {
  return sb.control.groundTruth().filter((o) => SCOPES.some((s) => s.type === o.type && s.fiatType === o.fiatType))
}

/** One step along the path for every pool order not yet terminal; new pool orders when few are left. */
function advanceRound(): { advanced: number; created: number } {
  let advanced = 0
  let created = 0
  for (const id of pool) {
    const o = sb.control.order(id)!
    if (statusInfo(o.type, o.status).terminal) continue
    sb.control.advanceOrder(id)
    advanced++
  }
  if (advanced < 4) {
    for (let i = 0; i < 3; i++) pool.push(sb.control.createOrder({ type: 1, fiatType: 1, path: 'completed (legacy)', hold: true }).orderId)
    pool.push(sb.control.createOrder({ type: 2, path: 'completed', hold: true }).orderId)
    created = 4
  }
  return { advanced, created }
}

interface Probe {
  calls: number
  degradedSeen: boolean
  nextRetrySeen: boolean
  errorKinds: Set<string>
}

/** The UI's handlers, asked while the service misbehaves: each must answer from the database. */
async function probeHandlers(p: Probe): Promise<void> {
  const h = services.handlers
  const bound = <T>(what: string, v: Promise<T>): Promise<T> =>
    Promise.race([v, realSleep(10_000).then(() => Promise.reject(new Error(`${what} did not answer within 10 s (real)`)))])
  const store = services.session().store
  const dbCount = store.orders.count(1)
  const q = await bound('orders:query', h['orders:query']({ filter: { type: 1 }, sort: 'updatedAt:desc', offset: 0, limit: 50 }))
  expect(q.total).toBe(dbCount)
  expect(q.rows.length).toBe(Math.min(50, dbCount))
  const first = q.rows[0]!
  const one = await bound('orders:get', h['orders:get']({ type: 1, orderId: first.orderId }))
  expect(one?.row.orderId).toBe(first.orderId)
  await bound('orders:watched', h['orders:watched']({}))
  await bound('budget:get', h['budget:get']({}))
  await bound('config:get', h['config:get']({}))
  await bound('app:info', h['app:info']({}))
  const st = await bound('sync:state', h['sync:state']({}))
  p.calls += 7
  const now = Date.now()
  for (const s of st.states) {
    if (s.lastError) {
      p.degradedSeen = true
      p.errorKinds.add(s.lastError.kind)
      if (!s.running && s.nextRunAt !== null && s.nextRunAt > now) p.nextRetrySeen = true
    }
  }
}

interface FaultStep {
  name: string
  injected: string[]
  inject(): void
  /** Fake time to hold the fault for before lifting it (faults with `remaining` lift themselves). */
  holdMs?: number
  lift?(): void
  /** The fault necessarily outlasts the client's own retries, so the sync state must show it. */
  degrades: boolean
  /** Move orders twice while the fault holds (their middle status cannot be seen by anyone). */
  doubleAdvance?: boolean
  /** Bound on the fake time to recover (a hang, not a measurement). Default 15 min. */
  maxRecoveryMs?: number
}

// Faults on merchantHistory hold for a stretch of (fake) time rather than a number of
// requests: the app spends that endpoint on nine scopes' polls, on probing the empty ones
// and on audits, so a count would be spent on whichever asked first.
const lifted = () => sb.control.clearFaults()
const steps: FaultStep[] = [
  {
    name: '5xx burst (500)',
    injected: ['merchantHistory answers HTTP 500 for 40 s of (fake) time'],
    inject: () => sb.control.setFault('merchantHistory', { errorRate: 1, errorStatus: 500 }),
    holdMs: 40_000,
    lift: lifted,
    degrades: true
  },
  {
    name: '5xx burst (503 maintenance, every endpoint)',
    injected: ['every endpoint answers HTTP 503 for 40 s of (fake) time'],
    inject: () => sb.control.setFault('*', { errorRate: 1, errorStatus: 503 }),
    holdMs: 40_000,
    lift: lifted,
    degrades: true
  },
  {
    name: 'timeouts',
    // Longer than a run's four attempts at 15 s each, so one gives up while it holds.
    injected: ['merchantHistory answers after 20 s (client headers timeout 15 s), for 120 s of (fake) time'],
    inject: () => sb.control.setFault('merchantHistory', { latencyMs: 20_000 }),
    holdMs: 120_000,
    lift: lifted,
    degrades: true
  },
  {
    name: 'connection resets',
    injected: ['merchantHistory connections closed without an answer, for 40 s of (fake) time'],
    inject: () => sb.control.setFault('merchantHistory', { dropRate: 1 }),
    holdMs: 40_000,
    lift: lifted,
    degrades: true
  },
  {
    name: 'truncated bodies',
    injected: ['merchantHistory bodies cut off mid-way (Content-Length promises more), for 40 s of (fake) time'],
    inject: () => sb.control.setFault('merchantHistory', { truncateRate: 1 }),
    holdMs: 40_000,
    lift: lifted,
    degrades: true
  },
  {
    name: 'malformed bodies',
    injected: ['merchantHistory answers 200 with a body that is not JSON, for 40 s of (fake) time'],
    inject: () => sb.control.setFault('merchantHistory', { malformedJsonRate: 1 }),
    holdMs: 40_000,
    lift: lifted,
    degrades: true
  },
  {
    name: 'clock skew +5 min',
    injected: ["the app's clock jumps 5 minutes ahead of the service's (signed timestamps 'Ahead of Time')"],
    inject: () => skewApp(5 * 60_000),
    degrades: false
  },
  {
    name: 'clock skew -5 min',
    injected: ["the app's clock jumps to 5 minutes behind the service's (signed timestamps older than the service's 60 s window)"],
    inject: () => skewApp(-5 * 60_000),
    // Degraded or not depends on how soon the client trusts a far-off Date header: reported, not required.
    degrades: false
  },
  {
    name: 'clock restored',
    injected: ["the app's clock set right again"],
    inject: () => skewApp(0),
    degrades: false
  },
  {
    name: '429 storm',
    // Longer than a run's four attempts with the lane's penalty doubling from 15 s, so one gives up while it holds.
    injected: ['merchantHistory answers 429 Too Many Requests for 8 min of (fake) time'],
    inject: () => sb.control.setFault('merchantHistory', { rateLimitStorm: true }),
    holdMs: 480_000,
    lift: lifted,
    degrades: true,
    maxRecoveryMs: 40 * 60_000
  },
  {
    // Ten minutes: after the 429 storm the lane may have learned a limit of three a minute,
    // one of them for polling, and the probes and audits that wait two windows take their
    // turn before the polls (they never starve), so a run's four attempts can take eight
    // budget windows before the run gives up and says so.
    name: 'service down for ten minutes',
    injected: ['every endpoint drops every connection for 10 min of (fake) time', 'orders moved twice meanwhile'],
    inject: () => sb.control.setFault('*', { dropRate: 1 }),
    holdMs: 600_000,
    lift: lifted,
    degrades: true,
    doubleAdvance: true
  }
]

/** Shifts only the app's clock: Date moves, the sandbox's clock (Date.now() - appSkewMs) does not. */
function skewApp(skewMs: number): void {
  const serverNow = Date.now() - appSkewMs
  appSkewMs = skewMs
  vi.setSystemTime(serverNow + skewMs)
}

describe('faults: the app keeps serving, reports, recovers, and loses nothing', () => {
  it.each(steps.map((s) => [s.name, s] as const))(
    '%s',
    async (_name, step) => {
      const before = advanceRound()
      const probe: Probe = { calls: 0, degradedSeen: false, nextRetrySeen: false, errorKinds: new Set() }
      const mark = events.length
      step.inject()
      if (step.holdMs !== undefined) {
        let doubled = false
        let held = 0
        while (held < step.holdMs) {
          await pass(1_000)
          held += 1_000
          await probeHandlers(probe)
          if (step.doubleAdvance && !doubled && held >= step.holdMs / 2) {
            // A second step while nothing can sync: the status in between is never visible.
            for (const id of pool) {
              const o = sb.control.order(id)!
              if (statusInfo(o.type, o.status).terminal) continue
              const middle = o.status
              sb.control.advanceOrder(id)
              const set = unobservable.get(id) ?? new Set<number>()
              set.add(middle)
              unobservable.set(id, set)
            }
            doubled = true
          }
        }
        step.lift?.()
      }
      // Recovery on the app's own timers; the handlers are probed at every fake second.
      const recoveryMs = await passUntil(
        () => recoveredSince(mark),
        `recovery after ${step.name}`,
        step.maxRecoveryMs ?? 15 * 60_000,
        () => probeHandlers(probe)
      )
      await probeHandlers(probe)
      const stateEvents = events
        .slice(mark)
        .filter((e) => e.event === 'sync:state')
        .map((e) => e.payload as SyncState)
      const reportedErrors = stateEvents.filter((s) => s.lastError !== null)
      // A run says it is running from its first event on (not only after its first page).
      expect(stateEvents.filter((s) => !s.running && s.progress !== null)).toEqual([])
      if (step.degrades) {
        expect(reportedErrors.length, 'sync:state events carried the last error').toBeGreaterThan(0)
        expect(probe.degradedSeen, 'sync:state answered with the last error').toBe(true)
        expect(probe.nextRetrySeen, 'sync:state answered with the next retry time').toBe(true)
      }
      expect(sb.control.faults()).toEqual({})
      // Recovered: the last state of every scope is clean.
      for (const s of await states()) expect(s.lastError).toBeNull()

      const diff = diffAgainstTruth(services.session().store, truth(), SCOPES, unobservable)
      recordScenario({
        scenario: `faults: ${step.name}`,
        injected: step.injected,
        checked: [
          `${probe.calls} handler calls answered from the database during the fault (orders:query, orders:get, orders:watched, budget:get, config:get, app:info, sync:state)`,
          step.degrades
            ? `degraded state reported: last error (${[...probe.errorKinds].join(', ') || 'none seen'}), next retry time`
            : `degraded state not needed (the client absorbed it)${reportedErrors.length ? `; reported anyway: ${[...new Set(reportedErrors.map((s) => s.lastError!.kind))].join(', ')}` : ''}`,
          `recovered on its own timers (no sync:now), ${Math.round(recoveryMs / 1000)} s of (fake) time after the fault${step.holdMs ? ' was lifted' : ' was set'}`,
          `database = ground truth: ${diff.orders} orders, ${diff.transitions} transitions (${before.advanced} moved, ${before.created} created in this step)`
        ],
        lost: lossesOf(diff)
      })
      expectLossless(diff)
    },
    240_000
  )

  it('emitted one order:changed per recorded transition of the moved orders', () => {
    const store = services.session().store
    for (const id of pool) {
      const type = sb.control.order(id)!.type
      const changes = events
        .filter((e) => e.event === 'order:changed')
        .map((e) => e.payload as { row: { type: number; orderId: number }; newStatus: number })
        .filter((p) => p.row.type === type && p.row.orderId === id)
        .map((p) => p.newStatus)
      const timeline = store.orders
        .timeline(type, id)
        .slice(1)
        .map((e) => e.newStatus)
      expect(changes, `order ${id}`).toEqual(timeline)
    }
  })
})
