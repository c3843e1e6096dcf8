// The order monitor against the real sandbox over loopback with the real ApiClient and a
// real profile database: 100,000 orders synced at exactly the floor request count
// (thousands sharing the cutover instant included), the database equal to the sandbox's
// ground truth, status changes made through the control API detected and emitted, and a
// pinned order polled through orderStatus.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ApiClient } from '../../../src/main/api/client'
import { RateBudget } from '../../../src/main/api/rate-budget'
import { OrderMonitor, type MonitorEvents } from '../../../src/main/monitor/order-monitor'
import { openLocalStore, type LocalStore } from '../../../src/main/store/local-store'
import { startSandbox, CUTOVER, type Sandbox, type TruthOrder } from '../../../src/sandbox'
import { OfframpOrder, OnrampOrder } from '../../../src/shared/api/schemas'
import { statusInfo } from '../../../src/shared/domain/status'

const ORDERS = 100_000
const PAGE = 500
const CUTOVER_ISO = new Date(CUTOVER).toISOString()

let sandbox: Sandbox
let dir: string
let store: LocalStore
let client: ApiClient
let monitor: OrderMonitor
let fiatTypes: number[]
const events: Array<{ event: keyof MonitorEvents; payload: unknown }> = []
let answered = 0

const of = <E extends keyof MonitorEvents>(e: E) => events.filter((x) => x.event === e).map((x) => x.payload as MonitorEvents[E])

/** Waits for a condition with a generous bound; the bound is a failure, never a measurement. */
async function until(cond: () => boolean, what: string, ms = 20_000): Promise<void> {
  const end = Date.now() + ms
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 20))
  }
}

function scopesOf(truth: TruthOrder[]): Map<string, { type: 1 | 2; fiatType: number; n: number; atCutover: number }> {
  const m = new Map<string, { type: 1 | 2; fiatType: number; n: number; atCutover: number }>()
  for (const o of truth) {
    const k = `${o.type}:${o.fiatType}`
    const e = m.get(k) ?? { type: o.type, fiatType: o.fiatType, n: 0, atCutover: 0 }
    e.n++
    if (o.updatedAt === CUTOVER_ISO) e.atCutover++
    m.set(k, e)
  }
  return m
}

function expectStoreEqualsTruth(truth: TruthOrder[]): void {
  expect(store.orders.count()).toBe(truth.length)
  for (const o of truth) {
    const row = store.orders.get(o.type, o.orderId)
    if (!row) throw new Error(`order ${o.type}:${o.orderId} missing from the database`)
    const expected = (o.type === 1 ? OnrampOrder : OfframpOrder).parse(o.record)
    if (row.status !== o.status || row.updatedAt !== o.updatedAt)
      throw new Error(`order ${o.orderId}: stored ${row.status}@${row.updatedAt}, truth ${o.status}@${o.updatedAt}`)
    expect(row.record).toEqual(expected)
  }
}

beforeAll(async () => {
  sandbox = await startSandbox({ orders: ORDERS, autoGenerate: false, seed: 7 })
  dir = mkdtempSync(join(tmpdir(), 'rampdesk-monitor-it-'))
  store = openLocalStore(dir)
  client = new ApiClient({
    profileId: 'it',
    baseUrl: sandbox.url,
    serviceName: sandbox.serviceName,
    apiKey: sandbox.apiKey,
    getSecret: async () => sandbox.apiSecret,
    // merchantHistory has no documented limit; the default 120/min would only slow the test.
    budget: new RateBudget({ profileId: 'it', defaultLimitPerMinute: 100_000 })
  })
  // What the sandbox answered: an attempt that never reached it (a keep-alive socket the
  // server had just closed, retried by the client) is a transport matter, not the sync's cost.
  client.onRequest((e) => {
    if (e.endpoint === 'merchantHistory' && e.httpStatus !== undefined) answered++
  })
  fiatTypes = [...new Set(sandbox.control.groundTruth().map((o) => o.fiatType))].sort((a, b) => a - b)
  monitor = new OrderMonitor({
    client,
    store,
    fiatTypes,
    historyPollMs: 3_600_000,
    watchPollMs: 200,
    onEvent: (event, payload) => events.push({ event, payload })
  })
  monitor.on('order:terminal', (p) => events.push({ event: 'order:terminal', payload: p }))
}, 120_000)

afterAll(async () => {
  await monitor?.stop()
  await client?.close()
  store?.close()
  await sandbox?.close()
  if (dir) rmSync(dir, { recursive: true, force: true })
})

describe('OrderMonitor against the sandbox', () => {
  it('syncs 100,000 orders at about N/499 requests per (type, fiat), crossing the cutover, equal to the ground truth', async () => {
    const truth = sandbox.control.groundTruth()
    expect(truth).toHaveLength(ORDERS)
    const scopes = scopesOf(truth)
    // The cutover instant really is crossed: some scope has more orders at it than fit a page.
    expect(Math.max(...[...scopes.values()].map((s) => s.atCutover))).toBeGreaterThan(PAGE * 2)
    // Every (type, fiat) the monitor syncs: onramp for every fiat in use, offramp for INR
    // only (the sandbox sells offramp in INR alone, so the store still equals the truth).
    // An empty scope the monitor does sync costs one request.
    expect(monitor.states().map((s) => `${s.type}:${s.fiatType}`)).toEqual([...fiatTypes.map((f) => `1:${f}`), '2:1'])
    const floor = monitor
      .states()
      .map((s) => scopes.get(`${s.type}:${s.fiatType}`)?.n ?? 0)
      .reduce((sum, n) => sum + Math.max(1, Math.ceil(n / PAGE) + (n > 0 && n % PAGE === 0 ? 1 : 0)), 0)

    const before = answered
    const states = await monitor.syncNow()
    expect(states.every((s) => s.lastError === null && s.lastSuccessAt !== null)).toBe(true)
    // Each page after the first of a listing re-reads the records at the newest instant of
    // the one before (keyset paging from just before it: usually one record), and pages
    // inside the cutover run overlap by one to check nothing moved: about N/499, never
    // more than 2% over the bare floor of ceil(N/500).
    const used = answered - before
    expect(used).toBeGreaterThanOrEqual(floor)
    expect(used).toBeLessThanOrEqual(Math.ceil(floor * 1.02) + monitor.states().length)
    expectStoreEqualsTruth(truth)
    // Progress was reported along the way, and the first sync did not emit 100,000 created events.
    expect(of('sync:state').some((s) => s.running && s.progress !== null && s.progress.pages > 1)).toBe(true)
    expect(of('order:created')).toHaveLength(0)
    const big = monitor.states().find((s) => s.type === 1 && s.fiatType === 1)!
    expect(big.cursor).toBe(
      truth
        .filter((o) => o.type === 1 && o.fiatType === 1)
        .map((o) => o.updatedAt)
        .sort()
        .at(-1)
    )
  }, 300_000)

  it('costs exactly one request per (type, fiat) synced when nothing changed', async () => {
    const before = answered
    await monitor.syncNow()
    expect(answered - before).toBe(fiatTypes.length + 1)
  }, 60_000)

  it('detects orders created and advanced through the control API and emits (old, new)', async () => {
    const a = sandbox.control.createOrder({ type: 1, fiatType: 1, hold: true })
    const b = sandbox.control.createOrder({ type: 2, fiatType: 1, hold: true })
    events.length = 0
    await monitor.syncNow()
    expect(
      of('order:created')
        .map((r) => `${r.type}:${r.orderId}`)
        .sort()
    ).toEqual([`1:${a.orderId}`, `2:${b.orderId}`].sort())

    const a1 = sandbox.control.advanceOrder(a.orderId)
    const b1 = sandbox.control.advanceOrder(b.orderId)
    events.length = 0
    await monitor.syncNow()
    const changed = of('order:changed').map((c) => [c.row.type, c.row.orderId, c.oldStatus, c.newStatus])
    expect(changed).toContainEqual([1, a.orderId, a.status, a1.status])
    expect(changed).toContainEqual([2, b.orderId, b.status, b1.status])

    // On to the end of the path: the terminal event fires once, with its tone.
    let last = a1
    while (!statusInfo(1, last.status).terminal) last = sandbox.control.advanceOrder(a.orderId)
    events.length = 0
    await monitor.syncNow()
    expect(of('order:terminal').map((t) => [t.row.orderId, t.status, t.source])).toEqual([[a.orderId, last.status, 'sync']])
    expect(store.orders.timeline(1, a.orderId).map((e) => e.newStatus)).toEqual(expect.arrayContaining([a.status, a1.status, last.status]))
    for (const o of [sandbox.control.order(a.orderId)!, sandbox.control.order(b.orderId)!]) {
      expect(store.orders.get(o.type, o.orderId)!.record).toEqual((o.type === 1 ? OnrampOrder : OfframpOrder).parse(o.record))
    }
    expect(store.orders.count()).toBe(ORDERS + 2)
  }, 120_000)

  it('polls a pinned order through orderStatus and reports its changes until it is terminal', async () => {
    const o = sandbox.control.createOrder({ type: 1, fiatType: 1, hold: true })
    await monitor.syncNow()
    monitor.start()
    events.length = 0
    const statusCalls = () => client.stats().orderStatus
    const before = statusCalls()
    monitor.watch(1, o.orderId)
    await until(() => statusCalls() > before, 'the first orderStatus poll')

    const next = sandbox.control.advanceOrder(o.orderId)
    await until(
      () => of('order:changed').some((c) => c.row.orderId === o.orderId && c.newStatus === next.status),
      'the watch to see the change'
    )
    const change = of('order:changed').find((c) => c.row.orderId === o.orderId)!
    expect([change.oldStatus, change.newStatus, change.row.watched]).toEqual([o.status, next.status, true])
    expect(store.orders.get(1, o.orderId)!.statusSource).toBe('watch')

    let last = next
    while (!statusInfo(1, last.status).terminal) last = sandbox.control.advanceOrder(o.orderId)
    await until(() => of('order:terminal').some((t) => t.row.orderId === o.orderId), 'the watch to see the terminal status')
    expect(monitor.watchSchedule().some((w) => w.orderId === o.orderId)).toBe(false)
    expect(store.watches.has(1, o.orderId)).toBe(true)
    await monitor.stop()
  }, 120_000)
})
