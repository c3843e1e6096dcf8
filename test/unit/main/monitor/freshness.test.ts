// The freshness sweep on a real profile database: every open order asked about before its
// bound runs out, as late as that allows, at most a sweep's allowance at a time.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { Timers } from '../../../../src/main/api/rate-budget'
import { FreshnessSweeper, type FreshnessOptions } from '../../../../src/main/monitor/freshness'
import { openProfileDatabase, type ProfileDatabase } from '../../../../src/main/store/database'
import { OrdersRepo } from '../../../../src/main/store/orders-repo'
import { SyncCursorsRepo } from '../../../../src/main/store/sync-cursors-repo'
import { UnreadableOrdersRepo } from '../../../../src/main/store/unreadable-orders-repo'

const MIN = 60_000
const BOUND = 10 * MIN
const TICK = 30_000
const START = Date.parse('2026-01-01T00:00:00.000Z')

let dir: string
let db: ProfileDatabase
let clock: number
let orders: OrdersRepo

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rampdesk-fresh-'))
  db = openProfileDatabase(dir)
  clock = START
  orders = new OrdersRepo(db.sql, () => new Date(clock), new SyncCursorsRepo(db.sql), new UnreadableOrdersRepo(db.sql, '0.0.0'))
})
afterEach(() => {
  db.close()
  rmSync(dir, { recursive: true, force: true })
})

/** `n` open onramp orders whose status was confirmed by a history answer at `at`. */
function openOrders(n: number, at: number, firstId = 1): void {
  const iso = new Date(at).toISOString()
  for (let id = firstId; id < firstId + n; id++)
    db.sql.run(
      `INSERT INTO orders (type, order_id, status, status_source, coin_id, chain_id, created_at, updated_at, wallet_address,
        record_json, content_hash, first_seen_at, last_changed_at, status_confirmed_at, status_confirmed_by)
       VALUES (1, ?, 0, 'sync', 1, 1, ?, ?, ?, '{}', 'h', ?, ?, ?, 'history')`,
      id,
      iso,
      iso,
      `0x${id}`,
      iso,
      iso,
      iso
    )
}

/** A sweeper on the fake clock with the shipped share and tick (allowance 15 a sweep on a lane of 120 a minute). */
function sweeper(
  answer: (orderId: number) => number | Error = () => 0,
  store: FreshnessOptions['store'] = { orders }
): { s: FreshnessSweeper; asked: number[] } {
  const asked: number[] = []
  const timers: Timers = { setTimeout: () => 0, clearTimeout: () => undefined }
  const s = new FreshnessSweeper({
    client: {
      budget: { snapshot: () => ({ endpoints: [{ endpoint: 'orderStatus', limit: 120 }] }) },
      orderStatus: async ({ orderId }) => {
        asked.push(orderId)
        const a = answer(orderId)
        if (a instanceof Error) throw a
        return { orderStatus: a }
      }
    },
    store,
    boundMs: BOUND,
    tickMs: TICK,
    now: () => clock,
    timers
  })
  return { s, asked }
}

/** Sweeps each tick for `ms`, checking after each that no open order is past the bound. */
async function run(s: FreshnessSweeper, ms: number): Promise<number> {
  let worst = 0
  for (const end = clock + ms; clock < end;) {
    clock += TICK
    await s.sweep()
    worst = Math.max(worst, s.info().stale)
  }
  return worst
}

describe('FreshnessSweeper', () => {
  it('asks each sweep no more than its allowance, the share of the lane over the sweeps in a minute', () => {
    expect(sweeper().s.allowance()).toBe(15)
  })

  it('reaches 100 open orders confirmed together (a first sync) before their bound, though one sweep takes 15', async () => {
    openOrders(100, START)
    const { s, asked } = sweeper()
    expect(await run(s, 3 * BOUND)).toBe(0)
    // Each asked about about once per bound: no sweep asks more than its allowance, and none
    // asks an order again long before it is due (3 bounds: 3 rounds of 100, with the lead).
    expect(asked.length).toBeGreaterThanOrEqual(300)
    expect(asked.length).toBeLessThanOrEqual(400)
  })

  it('asks as late as the bound allows: a few open orders are left alone until a tick before it', async () => {
    openOrders(5, START)
    const { s, asked } = sweeper()
    await run(s, BOUND - 2 * TICK)
    expect(asked).toEqual([])
    await run(s, TICK)
    expect(asked).toHaveLength(5)
    expect(s.info().stale).toBe(0)
  })

  it('sweeps at the full share, oldest first, when the open orders outgrow it, and counts those past the bound', async () => {
    // 15 a sweep, 20 sweeps a bound: 300 orders a bound at most.
    openOrders(400, START)
    const { s, asked } = sweeper()
    clock += TICK
    await s.sweep()
    expect(asked).toHaveLength(15)
    const worst = await run(s, BOUND)
    expect(worst).toBeGreaterThan(0)
    expect(s.info().stale).toBeGreaterThan(0)
  })

  it('puts an order the service cannot tell about behind the others, and says it cannot be confirmed after three failures', async () => {
    openOrders(3, START)
    const { s, asked } = sweeper((id) => (id === 2 ? Object.assign(new Error('order 2 unknown'), { kind: 'api' }) : 0))
    await run(s, 2 * BOUND)
    expect(asked.filter((id) => id === 2).length).toBeGreaterThanOrEqual(3)
    expect(s.info().unconfirmable).toBe(1)
  })
})

describe('the open orders the sweep reads', () => {
  /** One order of `type` at `status`, confirmed at `at` (null: never), gone at the service or not. */
  function put(type: 1 | 2, id: number, status: number, at: number | null, gone = false): void {
    const iso = at === null ? null : new Date(at).toISOString()
    db.sql.run(
      `INSERT INTO orders (type, order_id, status, status_source, coin_id, chain_id, created_at, updated_at, record_json, content_hash,
        first_seen_at, last_changed_at, status_confirmed_at, status_confirmed_by, gone_at)
       VALUES (?, ?, ?, 'sync', 1, 1, '2025-01-01T00:00:00.000Z', '2025-01-01T00:00:00.000Z', '{}', 'h', ?, ?, ?, 'history', ?)`,
      type,
      id,
      status,
      iso ?? '2025-01-01T00:00:00.000Z',
      iso ?? '2025-01-01T00:00:00.000Z',
      iso,
      gone ? iso : null
    )
  }

  it('are the oldest confirmations first (never confirmed before all), open and listed only, at most the limit, by index', () => {
    // Terminal orders confirmed long before every open one: an ordered walk of all orders would meet them first.
    for (let id = 1; id <= 50; id++) put(1, id, 4, START - 10 * BOUND)
    for (let id = 51; id <= 60; id++) put(2, id, 6, START - 10 * BOUND)
    put(1, 100, 0, START + 3 * MIN)
    put(1, 101, 2, null)
    put(2, 102, 4, START + MIN) // offramp 4 (crypto sold) is open; onramp 4 is not
    put(1, 103, 14, START + 2 * MIN)
    put(1, 104, 0, START - BOUND, true) // gone at the service: nothing to confirm
    put(2, 105, 3, START + 4 * MIN)
    const statements: string[] = []
    const spying = new Proxy(db.sql, {
      get: (target, key, receiver) =>
        key === 'all'
          ? (sql: string, ...params: unknown[]) => {
              statements.push(sql)
              return (target.all as (s: string, ...p: unknown[]) => unknown).call(target, sql, ...params)
            }
          : (Reflect.get(target, key, receiver) as unknown)
    })
    const repo = new OrdersRepo(spying, () => new Date(clock), new SyncCursorsRepo(db.sql), new UnreadableOrdersRepo(db.sql, '0.0.0'))
    const iso = (ms: number) => new Date(ms).toISOString()
    expect(repo.openConfirmations(10)).toEqual([null, iso(START + MIN), iso(START + 2 * MIN), iso(START + 3 * MIN), iso(START + 4 * MIN)])
    expect(repo.openConfirmations(3)).toEqual([null, iso(START + MIN), iso(START + 2 * MIN)])
    // Each type's query walks its open orders' index (migration 9), not every order of the type.
    expect(statements.length).toBeGreaterThanOrEqual(2)
    for (const sql of statements.slice(0, 2)) {
      const plan = db.sql.all<{ detail: string }>(`EXPLAIN QUERY PLAN ${sql}`, 3).map((r) => r.detail)
      expect(plan.join('; ')).toMatch(/USING (COVERING )?INDEX orders_open_[12]_by_confirmation/)
      expect(plan.join('; ')).not.toMatch(/TEMP B-TREE/)
    }
  })

  it('a sweep reads no more of them than the sweeps of one bound can ask about, and still asks its full allowance', async () => {
    openOrders(400, START)
    const limits: number[] = []
    const { s, asked } = sweeper(undefined, {
      orders: {
        unconfirmedOpen: (before, limit) => orders.unconfirmedOpen(before, limit),
        openSummary: (before, failures) => orders.openSummary(before, failures),
        applyStatus: (...a) => orders.applyStatus(...a),
        noteStatusCheck: (...a) => orders.noteStatusCheck(...a),
        openConfirmations: (limit) => {
          limits.push(limit)
          return orders.openConfirmations(limit)
        }
      }
    })
    clock += TICK
    await s.sweep()
    // 15 a sweep, 20 sweeps a bound, and the one after it.
    expect(limits).toEqual([(BOUND / TICK + 1) * 15])
    expect(asked).toHaveLength(15)
  })
})
