// BudgetCarry.track writes the budget's use to the profile database at most once a second
// (the latest state), and the state not written yet when tracking stops (the session closes).
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, expect, it, vi } from 'vitest'
import { BudgetCarry, CARRY_WRITE_MS, type CarryRow, type CarryTable } from '../../../../src/main/api/budget-carry'
import { sqliteCarryTable } from '../../../../src/main/store/budget-carry-table'
import { RateBudget } from '../../../../src/main/api/rate-budget'
import { openProfileDatabase, type ProfileDatabase } from '../../../../src/main/store/database'

let dir: string
let db: ProfileDatabase
let table: CarryTable
let writes: { rows: readonly CarryRow[]; at: number }[]

beforeEach(() => {
  vi.useFakeTimers({ now: Date.UTC(2026, 0, 1) })
  dir = mkdtempSync(join(tmpdir(), 'rampdesk-carry-'))
  db = openProfileDatabase(dir)
  const real = sqliteCarryTable(db.sql)
  writes = []
  // The real table, its writes counted.
  table = {
    read: real.read,
    write: (rows, at) => {
      writes.push({ rows, at })
      real.write(rows, at)
    }
  }
})

afterEach(() => {
  vi.useRealTimers()
  db.close()
  rmSync(dir, { recursive: true, force: true })
})

const used = (b: RateBudget, ep: string) => b.snapshot().endpoints.find((e) => e.endpoint === ep)?.usedInWindow ?? 0

it('writes 100 changes in a second once, the latest state', async () => {
  const budget = new RateBudget({ profileId: 'p' })
  let changes = 0
  budget.onChange(() => changes++)
  const stop = new BudgetCarry(table).track(budget)
  for (let i = 0; i < 100; i++) {
    await budget.acquire('merchantHistory')
    vi.advanceTimersByTime(9)
  }
  expect(changes).toBeGreaterThanOrEqual(100)
  expect(writes).toHaveLength(0)
  vi.advanceTimersByTime(CARRY_WRITE_MS)
  expect(writes).toHaveLength(1)
  expect(writes[0]!.rows).toEqual([{ endpoint: 'merchantHistory', used: 100 }])
  // Nothing changed since: stopping writes nothing more.
  stop()
  expect(writes).toHaveLength(1)
})

it('writes the state not written yet when tracking stops (the session closes), read back by the next run', async () => {
  const budget = new RateBudget({ profileId: 'p' })
  const stop = new BudgetCarry(table).track(budget)
  for (let i = 0; i < 3; i++) await budget.acquire('priceTicker')
  vi.advanceTimersByTime(CARRY_WRITE_MS)
  expect(writes).toHaveLength(1)
  for (let i = 0; i < 4; i++) await budget.acquire('priceTicker')
  stop()
  expect(writes).toHaveLength(2)
  // No timer left to write after the close.
  vi.advanceTimersByTime(10 * CARRY_WRITE_MS)
  expect(writes).toHaveLength(2)
  const next = new RateBudget({ profileId: 'p' })
  expect(await new BudgetCarry(table).restore(next)).toBe(7)
  expect(used(next, 'priceTicker')).toBe(7)
})
