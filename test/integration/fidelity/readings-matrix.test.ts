// The app's history sync (ApiClient over HTTP, signed, budgeted; HistorySync; the real
// database) against the sandbox under every reading of what the spec leaves open that
// matters to it: `since` inclusive or exclusive × ties in updatedAt by order id or by a
// hidden row order × parameter types strict (the spec's) or lenient × orders changing
// while it pages. After the churning sync and one quiet poll, the database must equal
// the sandbox's ground truth: no order missing, none stale, none extra. The sandbox is
// an independent reading of the spec (its own schemas and HMAC check), not the client's twin.
//
// Then the readings of merchantHistory the client checks at run time: since
// and the order on createdAt, pages from 0 (a missing page read as the first or as page 1,
// the second), ties ordered differently for each page size, a page size capped below the one asked for,
// offramp listings ignoring fiatType, alone and together, × churn. There the sync runs as
// a profile session runs it (readings kept per profile, probes on); then (fake) time runs
// on past the freshness bound at the shipped settings (a poll every historyPollSeconds,
// the freshness sweep on its own timer with its shipped share) while orders keep changing
// at the service: at no step is an open order unconfirmed beyond the bound, and once the
// service is quiet for a bound the database equals the truth.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { ApiClient } from '../../../src/main/api/client'
import { ParamEncodings } from '../../../src/main/api/param-encoding'
import { HistorySync } from '../../../src/main/monitor/history-sync'
import { HistoryReadings } from '../../../src/main/monitor/history-readings'
import { FreshnessSweeper } from '../../../src/main/monitor/freshness'
import type { Timers } from '../../../src/main/api/rate-budget'
import { DEFAULT_SETTINGS } from '../../../src/main/app-settings'
import { statusInfo } from '../../../src/shared/domain/status'
import type { ReadingsInput, TruthOrder } from '../../../src/sandbox'
import { openLocalStore, type LocalStore } from '../../../src/main/store/local-store'
import { CUTOVER, startSandbox, type Sandbox } from '../../../src/sandbox'

const ORDERS = 1800
// Smaller than the shipped 500 so that the sandbox's cutover run (about a hundred orders
// sharing one updatedAt at this size) is longer than a page: offset paging inside a run,
// the overlap check and its restarts are what the readings can break.
const PAGE_SIZE = 50
const SCOPES = [
  [1, 1],
  [2, 1]
] as const

let sb: Sandbox
let dir: string

beforeAll(async () => {
  // Offramp in INR and TRY, numbered apart from onramp: the ids repeat across types.
  sb = await startSandbox({ seed: 53, orders: ORDERS, autoGenerate: false, orderIds: 'perType', orderFiats: { offramp: [1, 2] } })
  dir = mkdtempSync(join(tmpdir(), 'rampdesk-matrix-'))
})
afterAll(async () => {
  await sb.close()
  rmSync(dir, { recursive: true, force: true })
})

function clientFor(store: LocalStore): ApiClient {
  return new ApiClient({
    profileId: 'matrix',
    baseUrl: sb.url,
    serviceName: sb.serviceName,
    apiKey: sb.apiKey,
    getSecret: async () => sb.apiSecret,
    encodings: new ParamEncodings({
      load: () => store.serviceFacts.all('param'),
      save: (k, v) => store.serviceFacts.put('param', k, v)
    })
  })
}

/**
 * The database against the ground truth of one scope: every order, its status and (unless
 * only orderStatus could tell a change) updatedAt; nothing else.
 */
function expectEqualToTruth(store: LocalStore, type: 1 | 2, fiatType: number, withUpdatedAt = true): void {
  const truth = sb.control.groundTruth({ type, fiatType })
  const db = store.database.sql.all<{ order_id: number; status: number; updated_at: string }>(
    'SELECT order_id, status, updated_at FROM orders WHERE type = ? AND fiat_type = ? ORDER BY order_id',
    type,
    fiatType
  )
  const row = (id: number, status: number, at: string) => (withUpdatedAt ? [id, status, at] : [id, status])
  const want = truth.map((o) => row(o.orderId, o.status, o.updatedAt)).sort((a, b) => (a[0] as number) - (b[0] as number))
  expect(db.map((r) => row(r.order_id, r.status, new Date(r.updated_at).toISOString()))).toEqual(want)
}

const combos = (['inclusive', 'exclusive'] as const).flatMap((since) =>
  (['orderId', 'hidden'] as const).flatMap((tieOrder) =>
    (['strict', 'lenient'] as const).flatMap((paramTypes) => ([0, 4] as const).map((churn) => ({ since, tieOrder, paramTypes, churn })))
  )
)

describe('history sync under every reading of the spec', () => {
  it('the sandbox holds a run of equal updatedAt longer than a page (the cutover), so paging inside a run is exercised', () => {
    const atCutover = sb.control.groundTruth({ type: 1, fiatType: 1 }).filter((o) => Date.parse(o.updatedAt) === CUTOVER)
    expect(atCutover.length).toBeGreaterThan(PAGE_SIZE * 1.5)
  })

  it.each(combos)('since $since, ties by $tieOrder, $paramTypes types, churn $churn per page: database equals the truth', async (r) => {
    sb.control.setReadings({ since: r.since, tieOrder: r.tieOrder, paramTypes: r.paramTypes, churnPerHistoryRequest: r.churn })
    const store = openLocalStore(join(dir, `${r.since}-${r.tieOrder}-${r.paramTypes}-${r.churn}`))
    try {
      const client = clientFor(store)
      const sync = new HistorySync({ client, store, pageSize: PAGE_SIZE })
      for (const [type, fiat] of SCOPES) await sync.run(type, fiat)
      // A second churning poll, then the service goes quiet and one more poll catches up.
      for (const [type, fiat] of SCOPES) await sync.run(type, fiat)
      sb.control.setReadings({ churnPerHistoryRequest: 0 })
      for (const [type, fiat] of SCOPES) await sync.run(type, fiat)
      for (const [type, fiat] of SCOPES) expectEqualToTruth(store, type, fiat)
      // Spec types throughout: a strict service never had to refuse one.
      expect(store.serviceFacts.all<{ encoding: string }>('param')['merchantHistory.fiatType']?.encoding ?? 'string').toBe('string')
    } finally {
      store.close()
    }
  })
})

/** The readings the client checks at run time, alone and together, each read differently from the spec's likeliest reading. */
const NEW_READINGS: { name: string; readings: ReadingsInput }[] = [
  { name: 'since on createdAt', readings: { historySince: 'createdAt' } },
  { name: 'order on createdAt', readings: { historyOrder: 'createdAt' } },
  { name: 'since and order on createdAt', readings: { historySince: 'createdAt', historyOrder: 'createdAt' } },
  { name: 'pages from 0', readings: { firstPage: 0 } },
  { name: 'pages from 0, a missing page read as page 1', readings: { firstPage: 0, missingPage: 'one' } },
  { name: 'ties ordered per page size (SQL LIMIT, no tie-breaker)', readings: { tieOrder: 'limit' } },
  { name: 'pages capped at 30', readings: { pageSizeCap: 30 } },
  { name: 'offramp ignoring fiatType', readings: { offrampFiat: 'ignore' } },
  { name: 'order ignored: newest first', readings: { historyDirection: 'DESC' } },
  { name: 'an empty page refused 404', readings: { emptyHistory: '404' } },
  {
    name: 'newest first, empty as 404, pages from 0, since on createdAt',
    readings: { historyDirection: 'DESC', emptyHistory: '404', firstPage: 0, historySince: 'createdAt' }
  },
  {
    name: 'pages from 0 and capped, since exclusive, hidden ties, order on createdAt',
    readings: { firstPage: 0, pageSizeCap: 30, since: 'exclusive', tieOrder: 'hidden', historyOrder: 'createdAt' }
  },
  {
    name: 'pages from 0 with a missing page read as page 1, capped at 30, since exclusive, hidden ties',
    readings: { firstPage: 0, missingPage: 'one', pageSizeCap: 30, since: 'exclusive', tieOrder: 'hidden' }
  }
]
const newCombos = NEW_READINGS.flatMap((r) => ([0, 4] as const).map((churn) => ({ ...r, churn })))
const RESET: ReadingsInput = {
  since: 'inclusive',
  tieOrder: 'orderId',
  paramTypes: 'lenient',
  historySince: 'updatedAt',
  historyOrder: 'updatedAt',
  firstPage: 1,
  missingPage: 'first',
  pageSizeCap: null,
  offrampFiat: 'filter',
  historyDirection: 'honoured',
  emptyHistory: 'empty'
}

/** The timers a FreshnessSweeper arms, fired when the (fake) clock has passed them. */
class ManualTimers implements Timers {
  private pending = new Map<number, { at: number; fn: () => void }>()
  private next = 0
  setTimeout(fn: () => void, ms: number): unknown {
    this.pending.set(++this.next, { at: Date.now() + ms, fn })
    return this.next
  }
  clearTimeout(handle: unknown): void {
    this.pending.delete(handle as number)
  }
  /** Fires every timer due, waits for the work it started (`settled`) and for the re-arming after it. */
  async fireDue(settled: () => Promise<void>): Promise<void> {
    const due = [...this.pending].filter(([, t]) => t.at <= Date.now())
    if (due.length === 0) return
    for (const [id, t] of due) {
      this.pending.delete(id)
      t.fn()
    }
    await settled()
    await new Promise((r) => setImmediate(r))
  }
}

describe('history sync under the readings of merchantHistory it checks at run time', () => {
  it.each(newCombos)(
    '$name, churn $churn per page: database equals the truth, no open order unconfirmed',
    async (r) => {
      sb.control.setReadings({ ...RESET, ...r.readings, churnPerHistoryRequest: 0 })
      // Open orders created well before the newest one: a poll reading from the newest
      // creation does not list them again, so only orderStatus can see churn move them.
      sb.control.setClockOffset(-20 * 60_000)
      // Churn while paging passes them by (churn: false): otherwise it moves every one of
      // them, the polls list them again, and the sweep would guard nothing under churn.
      for (let i = 0; i < 6; i++) sb.control.createOrder({ type: 1, fiatType: 1, path: 'completed', hold: true, churn: false })
      for (let i = 0; i < 3; i++)
        sb.control.createOrder({ type: 2, fiatType: 2, coinCode: 'usdt', network: 'bep20', path: 'completed', hold: true, churn: false })
      sb.control.setClockOffset(0)
      sb.control.createOrder({ type: 1, fiatType: 1, hold: true })
      sb.control.setReadings({ churnPerHistoryRequest: r.churn })
      const store = openLocalStore(join(dir, `new-${r.name.replace(/\W+/g, '-')}-${r.churn}`))
      try {
        const client = clientFor(store)
        const readings = new HistoryReadings({
          load: () => store.serviceFacts.all('history'),
          save: (k, v) => store.serviceFacts.put('history', k, v)
        })
        const sync = new HistorySync({ client, store, pageSize: PAGE_SIZE, readings, probes: true })
        const ignored = r.readings.offrampFiat === 'ignore'
        const scopes = ignored
          ? ([
              [1, 1],
              [2, 1]
            ] as const)
          : ([
              [1, 1],
              [2, 1],
              [2, 2]
            ] as const)
        for (const [type, fiat] of scopes) await sync.run(type, fiat)
        for (const [type, fiat] of scopes) await sync.run(type, fiat)

        // Then time passes as in a session at the shipped settings: every scope polled each
        // historyPollSeconds, the freshness sweep on its own timer with the share and tick it
        // ships with (as OrderMonitor builds it), while orders go on changing at the service,
        // well past the bound. At every step no open order may be unconfirmed beyond it.
        const bound = DEFAULT_SETTINGS.freshnessMinutes * 60_000
        const pollMs = DEFAULT_SETTINGS.historyPollSeconds * 1000
        vi.useFakeTimers({ toFake: ['Date'], shouldAdvanceTime: true })
        const timers = new ManualTimers()
        const stop = new AbortController()
        let asked = 0
        const sweeper = new FreshnessSweeper({ client, store, boundMs: bound, timers, onRequest: () => asked++ })
        sweeper.start(stop.signal)
        // The open orders made before stay as they are (only the sweep can confirm those no
        // poll lists again); orders arriving now move along, so polls have changes to read.
        const arrivals = new Set<string>()
        // Read order by order: the whole ground truth of every step renders all 1,800 records
        // twice and was most of this test's time.
        const moving = () =>
          [...arrivals]
            .map((id) => sb.control.order(Number(id), 1))
            .filter((o): o is TruthOrder => o !== undefined && !statusInfo(1, o.status).terminal)
        const pass = async (ms: number, changing: boolean): Promise<void> => {
          const end = Date.now() + ms
          for (let step = 0; Date.now() < end; step++) {
            vi.setSystemTime(Date.now() + pollMs)
            if (changing) {
              // Now and then a new order arrives, and one that arrived moves a step each poll.
              if (step % 4 === 0) arrivals.add(`${sb.control.createOrder({ type: 1, fiatType: 1, hold: true }).orderId}`)
              const now = moving()
              const o = now[step % Math.max(1, now.length)]
              if (o) sb.control.advanceOrder(o.orderId, undefined, 1)
            }
            for (const [type, fiat] of scopes) await sync.run(type, fiat)
            await timers.fireDue(() => sweeper.sweep())
            const late = store.orders.openSummary(new Date(Date.now() - bound).toISOString())
            expect(late.unconfirmed, `open orders unconfirmed for more than ${bound / 60_000} min, ${step + 1} polls in`).toBe(0)
          }
        }
        try {
          await pass(bound + 6 * pollMs, true)
          // The service goes quiet; a bound later every change has been confirmed by some source.
          sb.control.setReadings({ churnPerHistoryRequest: 0 })
          await pass(bound + 2 * pollMs, false)
        } finally {
          stop.abort()
          await sweeper.stop()
          vi.useRealTimers()
        }
        // The open orders made before the sync stay open and unlisted by any poll, churn or
        // not: only the sweep confirms them, so it must have asked. Not where `since` is
        // on createdAt and the order on updatedAt: a poll then reads newest first by the last
        // change with no `since` and stops past the look-back, and this small listing fits
        // its first page, old orders included, so the polls confirm them.
        const pollsListAll = r.readings.historySince === 'createdAt' && r.readings.historyOrder === undefined
        if (!pollsListAll) expect(asked).toBeGreaterThan(0)

        // Only orderStatus tells an older order's change to a service whose since is on createdAt: statuses then, not times.
        const times = r.readings.historySince !== 'createdAt'
        for (const [type, fiat] of [
          [1, 1],
          [2, 1],
          [2, 2]
        ] as const)
          expectEqualToTruth(store, type, fiat, times)
        // What the service does was found, not assumed.
        const found = readings.state()
        if (r.readings.firstPage === 0) expect(found.firstPage).toMatchObject({ value: 0, state: 'checked' })
        if (r.readings.pageSizeCap) expect(found.pageSize).toMatchObject({ value: 30, state: 'checked' })
        if (r.readings.historySince) expect(found.sinceField.value).toBe('createdAt')
        if (r.readings.historyOrder) expect(found.orderField).toMatchObject({ value: 'createdAt', state: 'checked' })
        if (r.readings.historyDirection) expect(found.direction).toMatchObject({ value: 'DESC', state: 'checked' })
        expect(found.fiatFilter[2].value).toBe(ignored ? 'ignore' : 'filter')
      } finally {
        store.close()
      }
    },
    90_000
  )
})
