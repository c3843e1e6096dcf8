// The second line of the history benchmark: does a client lose orders when the history
// moves under it while it pages? For each reading of `since` (inclusive, exclusive) and
// of the tie order (orderId, hidden), each client gets a sandbox of its own, identical at
// the start (same seed): 10,000 historical orders (the spec's 4.4 cutover instant alone
// holds a run of about 500 onramp INR records), plus runs of open onramp INR orders that
// share one updatedAt (four of 200 and one of 600, created back to back, so page
// boundaries fall inside them), and churn while paging (before every merchantHistory
// answer, 5 open orders advance one step at one instant). The client syncs from an empty
// database (its "first sync", the cutover from nothing to incremental polling), then
// churn stops and it polls until a poll completes (once for a client
// whose runs never report failure). Its database is then compared with the sandbox's
// ground truth for the scopes it syncs (onramp and offramp INR, the settings' default).
// Clients: ours (OrderMonitor, the app's history sync) and the since-cursor baseline
// (lib/since-cursor-sync.ts). Both run in this process over loopback, one at a time.
import { mkdtemp } from 'node:fs/promises'
import { join } from 'node:path'
import { RateBudget } from '../src/main/api/rate-budget'
import { OrderMonitor } from '../src/main/monitor/order-monitor'
import { openLocalStore, type LocalStore } from '../src/main/store/local-store'
import type { OrderType } from '../src/shared/ipc/contract'
import { startSandbox, type Sandbox } from '../src/sandbox'
import { SinceCursorSync } from './lib/since-cursor-sync'
import { benchList, benchSize } from './lib/smoke'
import { diffAgainstTruth, type OrderFact, type TruthDiff } from './lib/truth-diff'
import type { BenchContext, BenchLine } from './lib/types'
import { sandboxClient } from './lib/sandbox-client'

const ORDERS = benchSize('BENCH_CUTOVER_ORDERS', 10_000, 300)
const CHURN = 5
/** Polls after churn stops, until one completes (the app retries a failed run after 5 s, doubling). */
const MAX_CLEAN_POLLS = 5
/** Runs of equal updatedAt; one longer than a page of 500 at every size. */
const TIE_RUNS = benchList([200, 200, 600, 200, 200], [100, 600])
const FIAT_TYPES = [1]
const SCOPES: Array<{ type: OrderType; fiatType: number }> = [
  { type: 1, fiatType: 1 },
  { type: 2, fiatType: 1 }
]
const ALL_READINGS = [
  { since: 'inclusive', tieOrder: 'orderId' },
  { since: 'inclusive', tieOrder: 'hidden' },
  { since: 'exclusive', tieOrder: 'orderId' },
  { since: 'exclusive', tieOrder: 'hidden' }
] as const
/** Every reading; at the smoke size two, which between them take each value of each. */
const READINGS = benchList(ALL_READINGS, [ALL_READINGS[0], ALL_READINGS[3]])

type ClientName = 'ours' | 'sinceCursor'

interface RunResult {
  requests: number
  firstSyncRequests: number
  /** Polls run in all: the one under churn, then those without churn until one completed. */
  polls: number
  /** What runs that did not complete reported. */
  errors: string[]
  diff: TruthDiff
}

/** A sandbox with the tie runs in place and churn switched on; its clock can be held still while the runs are created. */
async function cutoverSandbox(readings: (typeof READINGS)[number]): Promise<Sandbox> {
  let held: number | null = null
  const sb = await startSandbox({ orders: ORDERS, seed: 11, autoGenerate: false, now: () => held ?? Date.now(), readings })
  // Back to back, a second apart, ten minutes ago: consecutive runs of equal updatedAt.
  const from = Date.now() - 10 * 60_000
  TIE_RUNS.forEach((n, i) => {
    held = from + i * 1_000
    for (let k = 0; k < n; k++) sb.control.createOrder({ type: 1, fiatType: 1 })
  })
  held = null
  sb.control.setReadings({ churnPerHistoryRequest: CHURN })
  return sb
}

function localFacts(store: LocalStore): OrderFact[] {
  const out: OrderFact[] = []
  for (const s of SCOPES) {
    for (let offset = 0; ; offset += 1_000) {
      const { rows } = store.orders.query({ type: s.type, fiatType: s.fiatType, limit: 1_000, offset })
      for (const r of rows) out.push({ type: r.type, orderId: r.orderId, status: r.status, updatedAt: r.updatedAt })
      if (rows.length < 1_000) break
    }
  }
  return out
}

function truthFacts(sb: Sandbox): OrderFact[] {
  return SCOPES.flatMap((s) =>
    sb.control
      .groundTruth({ type: s.type as 1 | 2, fiatType: s.fiatType })
      .map((o) => ({ type: o.type, orderId: o.orderId, status: o.status, updatedAt: o.updatedAt }))
  )
}

async function runClient(name: ClientName, readings: (typeof READINGS)[number], tmp: string): Promise<RunResult> {
  const sb = await cutoverSandbox(readings)
  const store = openLocalStore(await mkdtemp(join(tmp, `cutover-${name}-`)))
  const client = sandboxClient(sb, {
    profileId: 'bench',
    // The sandbox enforces no merchantHistory limit here: the point is what is read, not pacing.
    budget: new RateBudget({ profileId: 'bench', defaultLimitPerMinute: 1_000_000 })
  })
  const monitor =
    name === 'ours' ? new OrderMonitor({ client, store, fiatTypes: FIAT_TYPES, historyPollMs: 3_600_000, watchPollMs: 3_600_000 }) : null
  const baseline = name === 'sinceCursor' ? new SinceCursorSync(client, store, FIAT_TYPES) : null
  /** One poll; the error a run reported (ours: a long run kept changing under it), else null. */
  const poll = async (): Promise<string | null> => {
    if (baseline) return baseline.poll().then(() => null)
    const err = (await monitor!.syncNow()).find((s) => s.lastError)
    return err ? `${err.type}:${err.fiatType}: ${err.lastError?.message}` : null
  }
  try {
    const errors: string[] = []
    let polls = 0
    const note = (e: string | null) => {
      polls++
      if (e !== null) errors.push(e)
    }
    note(await poll())
    const firstSyncRequests = client.stats().merchantHistory
    sb.control.setReadings({ churnPerHistoryRequest: 0 })
    // Churn has stopped: poll as the app would after a failed run, until one completes.
    for (let i = 0; i < MAX_CLEAN_POLLS; i++) {
      const e = await poll()
      note(e)
      if (e === null) break
    }
    return {
      requests: client.stats().merchantHistory,
      firstSyncRequests,
      polls,
      errors,
      diff: diffAgainstTruth(truthFacts(sb), localFacts(store))
    }
  } finally {
    await monitor?.stop()
    await client.close()
    store.close()
    await sb.close()
  }
}

export async function historyCutoverBench(ctx: BenchContext): Promise<BenchLine> {
  const rows: Array<{ since: string; tieOrder: string; ours: RunResult; sinceCursor: RunResult }> = []
  for (const r of READINGS) {
    ctx.log(`history-cutover: since ${r.since}, ties by ${r.tieOrder}: ours, then the since-cursor client`)
    const ours = await runClient('ours', r, ctx.tmp)
    const sinceCursor = await runClient('sinceCursor', r, ctx.tmp)
    rows.push({ since: r.since, tieOrder: r.tieOrder, ours, sinceCursor })
  }
  const lost = (x: RunResult) => x.diff.missing + x.diff.stale + x.diff.extra
  const figure = (x: RunResult) => ({
    requests: x.requests,
    firstSyncRequests: x.firstSyncRequests,
    polls: x.polls,
    ...(x.errors.length ? { incompleteRuns: x.errors } : {}),
    orders: x.diff.truth,
    missing: x.diff.missing,
    stale: x.diff.stale,
    extra: x.diff.extra,
    ...(lost(x) > 0 ? { missingIds: x.diff.missingIds, staleIds: x.diff.staleIds } : {})
  })
  return {
    bench: 'history-cutover',
    what: `${ORDERS} historical orders (seed 11) plus runs of ${TIE_RUNS.join(', ')} open onramp INR orders each at one updatedAt, a second apart; churn ${CHURN} orders per merchantHistory answer while the client syncs from an empty database, then churn off and polls until one completes; database vs the sandbox's ground truth for onramp and offramp INR (fiatTypes [1], the shipped setting); each client on a sandbox of its own from the same seed; merchantHistory unlimited at the sandbox and in the budget`,
    readings: rows.map((r) => ({ since: r.since, tieOrder: r.tieOrder, ours: figure(r.ours) })),
    oursLostNothing: rows.every((r) => lost(r.ours) === 0),
    baseline: {
      sinceCursor: {
        what: 'since-cursor client (bench/lib/since-cursor-sync.ts): since = last committed updatedAt (read as inclusive), pages committed one by one, keyset by the last updatedAt of a full page, offset inside a run longer than a page with positions trusted; no look-back, overlap check or reconcile',
        readings: rows.map((r) => ({ since: r.since, tieOrder: r.tieOrder, ...figure(r.sinceCursor) })),
        lostSomewhere: rows.some((r) => lost(r.sinceCursor) > 0)
      },
      target: { oursMissing: 0, oursStale: 0, oursExtra: 0 }
    },
    met: { oursLostNothing: rows.every((r) => lost(r.ours) === 0) }
  }
}
