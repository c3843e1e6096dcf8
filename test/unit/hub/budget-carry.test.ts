// A restarted hub starts from the budget its predecessor spent within the window, not
// from a full one; use older than the window is forgotten. On both stores.
import { describe, expect, it } from 'vitest'
import { RateBudget } from '../../../src/main/api/rate-budget'
import { STORE_KINDS, storeBench, unavailable } from '../../support/hub-stores'

let t = 1_800_000_000_000
const now = () => t

const used = (b: RateBudget, ep: string) => b.snapshot().endpoints.find((e) => e.endpoint === ep)!.usedInWindow

describe.each(STORE_KINDS)('BudgetCarry on %s', (kind) => {
  describe.skipIf(unavailable(kind))('', () => {
    const bench = storeBench(kind)

    it('takes again the slots the last run used within the window', async () => {
      const first = await bench.open({ now })
      const before = new RateBudget({ profileId: 'hub', now })
      const stop = first.budgetCarry.track(before)
      for (let i = 0; i < 7; i++) await before.acquire('priceTicker')
      await before.acquire('allGasFee')
      stop()
      await first.close()
      t += 20_000
      const after = new RateBudget({ profileId: 'hub', now })
      expect(await (await bench.open({ now })).budgetCarry.restore(after)).toBe(8)
      expect(used(after, 'priceTicker')).toBe(7)
      expect(used(after, 'allGasFee')).toBe(1)
      // Three slots left of ten for the rest of the window, not ten.
      await after.acquire('priceTicker', { priority: 'interactive' })
      await after.acquire('priceTicker', { priority: 'interactive' })
      await after.acquire('priceTicker', { priority: 'interactive' })
      await expect(after.acquire('priceTicker', { priority: 'interactive', maxWaitMs: 0 })).rejects.toMatchObject({ kind: 'rate_limited' })
    })

    it('dates the slots taken again when they were written, so they leave the window when the originals would', async () => {
      const first = await bench.open({ now })
      const before = new RateBudget({ profileId: 'hub', now })
      const stop = first.budgetCarry.track(before)
      for (let i = 0; i < 5; i++) await before.acquire('priceTicker')
      stop()
      await first.close()
      t += 50_000
      const after = new RateBudget({ profileId: 'hub', now })
      expect(await (await bench.open({ now })).budgetCarry.restore(after)).toBe(5)
      expect(used(after, 'priceTicker')).toBe(5)
      // 62 s after they were sent (12 s after the restore): gone, as at the service.
      t += 12_000
      expect(used(after, 'priceTicker')).toBe(0)
    })

    it('forgets use older than the window', async () => {
      const first = await bench.open({ now })
      const before = new RateBudget({ profileId: 'hub', now })
      const stop = first.budgetCarry.track(before)
      await before.acquire('priceTicker')
      stop()
      await first.close()
      t += 62_000
      const after = new RateBudget({ profileId: 'hub', now })
      expect(await (await bench.open({ now })).budgetCarry.restore(after)).toBe(0)
      expect(used(after, 'priceTicker')).toBe(0)
    })
  })
})
