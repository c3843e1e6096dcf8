// One profile's first hours on a discrete-event clock, at the settings the app ships:
// the ApiClient with a RateBudget as a profile session makes it (nothing set: the default
// per-minute limit for endpoints the spec gives none), the ConfigCache, and the
// OrderMonitor with the options src/main/profile-session.ts gives it (discovery over the
// config's fiats, probes, the audit every AUDIT_EVERY_MS, the freshness bound, the
// settings' schedule), against a sandbox that holds the client to the same limits on
// merchantHistory and orderStatus. What the operator would read is taken from the proof
// line (src/shared/domain/proof.ts) at every coverage and sync change.
import type { RequestEvent } from '../../src/main/api/client'
import { SkewClock } from '../../src/main/api/clock'
import { DEFAULT_LIMIT_PER_MINUTE, RateBudget, type LearnedLimit } from '../../src/main/api/rate-budget'
import { Transport } from '../../src/main/api/transport'
import { DEFAULT_SETTINGS } from '../../src/main/app-settings'
import { ConfigCache } from '../../src/main/config/config-cache'
import { HistoryReadings } from '../../src/main/monitor/history-readings'
import { AUDIT_EVERY_MS, monitorSchedule, OrderMonitor } from '../../src/main/monitor/order-monitor'
import { fiatIdsNamedBy } from '../../src/main/monitor/scope-discovery'
import { openLocalStore } from '../../src/main/store/local-store'
import { startSandbox } from '../../src/sandbox'
import { mulberry32 } from '../../src/sandbox/rng'
import { fiatScope } from '../../src/shared/domain/fiat-scope'
import { proofStates } from '../../src/shared/domain/proof'
import type { OrderType } from '../../src/shared/ipc/contract'
import { VirtualClock } from './virtual-clock'
import { sandboxClient } from './sandbox-client'

const MIN = 60_000
/** Given up this long (simulated) after the first sync without a proof: reported as null. */
const GIVE_UP_AFTER_MS = 3 * 60 * MIN

export interface FirstCheck {
  scope: string
  orders: number
  /** Simulated seconds from the start: the scope's first sync done, its first audit done. */
  syncedAtS: number | null
  checkedAtS: number | null
  state: string
}

export interface ShippedRun {
  settings: string
  limitPerMinute: number
  firstSyncMs: number
  completeMs: number | null
  completeAfterFirstSyncMs: number | null
  /** Scopes the monitor synced (type:fiat), with their orders. */
  scopes: Record<string, number>
  firstChecks: FirstCheck[]
  /** Requests sent per endpoint until the proof (or the give-up). */
  requests: Record<string, number>
  /** The most requests sent in any 60 s (simulated), per endpoint. */
  maxPerMinute: Record<string, number>
  r429: number
  /** At the proof, the database held every order of every scope of the sandbox. */
  truthHeldWhenComplete: boolean | null
  realMs: number
}

/** The most of sorted instants inside any window of `windowMs`. */
export function maxInWindow(sorted: readonly number[], windowMs: number): number {
  let best = 0
  for (let lo = 0, hi = 0; hi < sorted.length; hi++) {
    while (sorted[hi]! - sorted[lo]! >= windowMs) lo++
    best = Math.max(best, hi - lo + 1)
  }
  return best
}

const simS = (ms: number): number => Math.round(ms / 100) / 10

export async function runShippedMonitor(o: { orders: number; seed: number; dbDir: string; log: (m: string) => void }): Promise<ShippedRun> {
  const start = Math.floor(Date.now() / MIN) * MIN
  const clock = new VirtualClock(start)
  const rng = mulberry32(o.seed)
  const sb = await startSandbox({
    orders: o.orders,
    seed: o.seed,
    autoGenerate: false,
    now: clock.now,
    readings: { limiter: 'sliding', unknownLimits: { merchantHistory: DEFAULT_LIMIT_PER_MINUTE, orderStatus: DEFAULT_LIMIT_PER_MINUTE } }
  })
  // The sandbox is still: what it holds per scope is what a proof must find here.
  const truth = new Map<string, number>()
  for (const x of sb.control.groundTruth()) truth.set(`${x.type}:${x.fiatType}`, (truth.get(`${x.type}:${x.fiatType}`) ?? 0) + 1)
  const store = openLocalStore(o.dbDir)
  const facts = store.serviceFacts
  const budget = new RateBudget({
    profileId: 'bench',
    now: clock.now,
    timers: clock.timers,
    limits: { load: () => facts.all<LearnedLimit>('limit'), save: (k, v) => facts.put('limit', k, v) }
  })
  const net = clock.track(new Transport())
  const client = sandboxClient(sb, {
    profileId: 'bench',
    budget,
    clock: new SkewClock({ now: clock.now }),
    transport: {
      request: async (req) => {
        await clock.sleep(20 + rng() * 280)
        return net.request(req)
      },
      close: () => net.close()
    },
    retry: { sleep: clock.sleep, random: rng }
  })
  const sent = new Map<string, number[]>()
  let r429 = 0
  client.onRequest((e: RequestEvent) => {
    if (e.httpStatus === undefined) return
    const at = sent.get(e.endpoint) ?? []
    at.push(clock.now())
    sent.set(e.endpoint, at)
    if (e.httpStatus === 429) r429++
  })
  let monitor: OrderMonitor | null = null
  const config = new ConfigCache({
    client,
    now: clock.now,
    store: store.configCache.forConfigCache(),
    onUpdate: () => monitor?.configChanged(),
    coinLimitFiats: () => [...DEFAULT_SETTINGS.fiatTypes, DEFAULT_SETTINGS.tickerFiat]
  })
  monitor = new OrderMonitor({
    client,
    store,
    ...monitorSchedule(DEFAULT_SETTINGS),
    discover: { fiats: () => fiatIdsNamedBy(config.snapshot()) },
    auditEveryMs: AUDIT_EVERY_MS,
    readings: new HistoryReadings({ load: () => facts.all('history'), save: (k, v) => facts.put('history', k, v) }, clock.now),
    probes: true,
    now: clock.now,
    serviceNow: () => client.clock.now(),
    timers: clock.timers
  })
  const m = monitor

  let firstSyncAt: number | null = null
  let completeAt: number | null = null
  let truthHeld: boolean | null = null
  const synced = new Map<string, number>()
  const checked = new Map<string, { at: number; state: string }>()
  const here = (k: string): number => {
    const [type, fiat] = k.split(':').map(Number) as [OrderType, number]
    return store.orders.countScope(type, fiatScope(fiat), { unreadable: true, fromRows: true })
  }
  const held = (): boolean => [...truth].every(([k, n]) => here(k) === n)
  const missing = (): string =>
    [...truth]
      .filter(([k, n]) => here(k) !== n)
      .map(([k, n]) => `${k}: ${here(k)} of ${n}`)
      .join(', ')
  const look = () => {
    if (completeAt !== null) return
    const now = clock.now()
    const states = m.states()
    const coverage = m.coverage()
    for (const s of states)
      if (s.lastSuccessAt !== null && !synced.has(`${s.type}:${s.fiatType}`)) synced.set(`${s.type}:${s.fiatType}`, s.lastSuccessAt)
    for (const s of coverage.scopes)
      if (s.audit.checkedAt !== null && !checked.has(`${s.type}:${s.fiatType}`))
        checked.set(`${s.type}:${s.fiatType}`, { at: s.audit.checkedAt, state: s.audit.state })
    const probing = coverage.scopes.some((s) => s.probe === 'unprobed' || s.probe === 'probing')
    if (firstSyncAt === null && states.length > 0 && !probing && states.every((s) => s.lastSuccessAt !== null)) {
      firstSyncAt = now
      o.log(`first sync done at ${simS(now - start)} s simulated`)
    }
    if (firstSyncAt !== null && proofStates({ coverage, sync: states, type: null, now })[0]?.kind === 'complete') {
      completeAt = now
      truthHeld = held()
      if (!truthHeld) failure = new Error(`the proof read complete while the database lacked orders the sandbox holds (${missing()})`)
    }
  }
  // Thrown in an event listener, an error would unwind the monitor's timer, not this run: kept and thrown below.
  let failure: unknown = null
  const watch = () => {
    try {
      look()
    } catch (e) {
      failure ??= e
    }
  }
  m.on('sync:state', watch)
  m.on('coverage:changed', watch)

  const realStart = performance.now()
  try {
    // As a session starts: the config (its fiats are what discovery probes), then the monitor.
    clock.schedule(() => {
      void config.get().catch(() => undefined)
      m.start()
    }, 0)
    let last = 0
    for (;;) {
      await clock.runUntil(clock.now() + 5_000)
      if (failure) throw failure
      if (completeAt !== null) break
      if (firstSyncAt !== null && clock.now() - firstSyncAt > GIVE_UP_AFTER_MS) break
      if (firstSyncAt === null && clock.now() - start > 24 * 60 * MIN) throw new Error('the first sync did not end in a simulated day')
      if (clock.now() - last >= 5 * MIN) {
        last = clock.now()
        o.log(`${simS(clock.now() - start)} s simulated, ${Math.round((performance.now() - realStart) / 1000)} s real`)
      }
    }
    const fs = firstSyncAt ?? start
    const requests = Object.fromEntries([...sent].map(([k, v]) => [k, v.length]))
    const maxPerMinute = Object.fromEntries([...sent].map(([k, v]) => [k, maxInWindow(v, MIN)]))
    const firstChecks: FirstCheck[] = [...synced].map(([k, at]) => {
      const c = checked.get(k)
      return {
        scope: k,
        orders: truth.get(k) ?? 0,
        syncedAtS: simS(at - start),
        checkedAtS: c ? simS(c.at - start) : null,
        state: c?.state ?? 'unchecked'
      }
    })
    return {
      settings: `history every ${DEFAULT_SETTINGS.historyPollSeconds} s, every scope the service holds orders in found by probing, the audit every ${AUDIT_EVERY_MS / MIN} min, open orders confirmed within ${DEFAULT_SETTINGS.freshnessMinutes} min`,
      limitPerMinute: DEFAULT_LIMIT_PER_MINUTE,
      firstSyncMs: Math.round(fs - start),
      completeMs: completeAt === null ? null : Math.round(completeAt - start),
      completeAfterFirstSyncMs: completeAt === null ? null : Math.round(completeAt - fs),
      scopes: Object.fromEntries([...synced.keys()].map((k) => [k, truth.get(k) ?? 0])),
      firstChecks,
      requests,
      maxPerMinute,
      r429,
      truthHeldWhenComplete: truthHeld,
      realMs: Math.round(performance.now() - realStart)
    }
  } finally {
    // Stopping waits for runs in flight, which move on the virtual clock: it runs meanwhile.
    await clock.finish(Promise.allSettled([config.close(), m.stop()]), "the monitor's stop()")
    await client.close()
    store.close()
    await sb.close()
  }
}
