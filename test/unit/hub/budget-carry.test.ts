// A restarted hub starts from the budget its predecessor spent within the window, not
// from a full one; use older than the window is forgotten.
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { BudgetCarry } from '../../../src/hub/budget-carry'
import { openHubDatabase } from '../../../src/hub/hub-db'
import { RateBudget } from '../../../src/main/api/rate-budget'
import type { Sql } from '../../../src/main/store/database'

let dir: string
let sql: Sql
let t = 1_800_000_000_000
const now = () => t

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rampdesk-carry-'))
  sql = openHubDatabase(dir)
})
afterEach(async () => {
  sql.close()
  await rm(dir, { recursive: true, force: true })
})

const used = (b: RateBudget, ep: string) => b.snapshot().endpoints.find((e) => e.endpoint === ep)!.usedInWindow

describe('BudgetCarry', () => {
  it('takes again the slots the last run used within the window', async () => {
    const before = new RateBudget({ profileId: 'hub', now })
    const stop = new BudgetCarry(sql, now).track(before)
    for (let i = 0; i < 7; i++) await before.acquire('priceTicker')
    await before.acquire('allGasFee')
    stop()
    t += 20_000
    const after = new RateBudget({ profileId: 'hub', now })
    expect(await new BudgetCarry(sql, now).restore(after)).toBe(8)
    expect(used(after, 'priceTicker')).toBe(7)
    expect(used(after, 'allGasFee')).toBe(1)
    // Three slots left of ten for the rest of the window, not ten.
    await after.acquire('priceTicker', { priority: 'interactive' })
    await after.acquire('priceTicker', { priority: 'interactive' })
    await after.acquire('priceTicker', { priority: 'interactive' })
    await expect(after.acquire('priceTicker', { priority: 'interactive', maxWaitMs: 0 })).rejects.toMatchObject({ kind: 'rate_limited' })
  })

  it('forgets use older than the window', async () => {
    const before = new RateBudget({ profileId: 'hub', now })
    const stop = new BudgetCarry(sql, now).track(before)
    await before.acquire('priceTicker')
    stop()
    t += 62_000
    const after = new RateBudget({ profileId: 'hub', now })
    expect(await new BudgetCarry(sql, now).restore(after)).toBe(0)
    expect(used(after, 'priceTicker')).toBe(0)
  })
})
