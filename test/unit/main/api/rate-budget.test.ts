import fc from 'fast-check'
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest'
import { RateBudget, type BudgetSnapshot, type LearnedLimit, type LimitStore, type Priority } from '../../../../src/main/api/rate-budget'
import { ApiError } from '../../../../src/shared/api/errors'

const WINDOW = 61_000
const LIMIT = 10 // allGasFee, spec section 8

beforeEach(() => {
  vi.useFakeTimers({ now: Date.UTC(2026, 0, 1) })
})
afterEach(() => {
  vi.useRealTimers()
})

const entry = (b: RateBudget, endpoint: string) => b.snapshot().endpoints.find((e) => e.endpoint === endpoint)!

/** Takes n slots at once. */
async function fill(b: RateBudget, n: number, priority: Priority = 'interactive') {
  for (let i = 0; i < n; i++) await b.acquire('allGasFee', { priority })
}

describe('RateBudget', () => {
  test('property: never more than limit grants in any window, whatever the arrivals', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            // Bursts at window edges as well as scattered arrivals.
            at: fc.oneof(fc.integer({ min: 0, max: 150_000 }), fc.constantFrom(0, 59_999, 60_000, 61_000, 120_999)),
            priority: fc.constantFrom<Priority>('interactive', 'background')
          }),
          { minLength: 15, maxLength: 80 }
        ),
        async (arrivals) => {
          const b = new RateBudget({ profileId: 'p' })
          const start = Date.now()
          const grants: number[] = []
          const failures: unknown[] = []
          for (const a of [...arrivals].sort((x, y) => x.at - y.at)) {
            await vi.advanceTimersByTimeAsync(a.at - (Date.now() - start))
            void b.acquire('allGasFee', { priority: a.priority }).then(
              () => grants.push(Date.now()),
              (e: unknown) => failures.push(e)
            )
          }
          await vi.advanceTimersByTimeAsync(30 * 60_000)
          expect(grants.length + failures.length).toBe(arrivals.length)
          for (const e of failures) expect(e).toMatchObject({ kind: 'rate_limited', origin: 'budget' })
          // Background callers always get through eventually.
          expect(grants.length).toBeGreaterThanOrEqual(arrivals.filter((a) => a.priority === 'background').length)
          for (let i = 0; i + LIMIT < grants.length; i++) expect(grants[i + LIMIT]! - grants[i]!).toBeGreaterThanOrEqual(WINDOW)
        }
      ),
      { numRuns: 40 }
    )
  })

  test('background callers leave the reserved slots to interactive ones', async () => {
    const b = new RateBudget({ profileId: 'p' })
    await fill(b, 8, 'background')
    let bgDone = false
    void b.acquire('allGasFee', { priority: 'background' }).then(() => (bgDone = true))
    await vi.advanceTimersByTimeAsync(0)
    expect(bgDone).toBe(false)
    await expect(b.acquire('allGasFee', { priority: 'interactive' })).resolves.toBeUndefined()
    await expect(b.acquire('allGasFee', { priority: 'interactive' })).resolves.toBeUndefined()
    expect(entry(b, 'allGasFee')).toMatchObject({ usedInWindow: 10, queued: 1 })
  })

  test('low callers (probes, audits, repairs) go behind every background one and leave it a slot', async () => {
    const b = new RateBudget({ profileId: 'p' })
    await fill(b, 7, 'background')
    const order: string[] = []
    // One background slot is left (10 less 2 reserved, less 7): low may not take it.
    const low = b.acquire('allGasFee', { priority: 'low' }).then(() => order.push('low'))
    await vi.advanceTimersByTimeAsync(0)
    expect(order).toEqual([])
    const bg = b.acquire('allGasFee', { priority: 'background' }).then(() => order.push('bg'))
    await vi.advanceTimersByTimeAsync(0)
    expect(order).toEqual(['bg'])
    // When the window moves on, a background caller that came later still goes first.
    const bg2 = b.acquire('allGasFee', { priority: 'background' }).then(() => order.push('bg2'))
    await vi.advanceTimersByTimeAsync(WINDOW)
    await Promise.all([low, bg, bg2])
    expect(order).toEqual(['bg', 'bg2', 'low'])
  })

  /** Keeps `n` background callers waiting (each replaced when it gets its slot), as polls of many scopes do; returns the stop. */
  function busyPolls(b: RateBudget, n: number): () => void {
    let on = true
    const one = (): void => void b.acquire('allGasFee', { priority: 'background' }).then(() => on && one())
    for (let i = 0; i < n; i++) one()
    return () => (on = false)
  }

  test('a low caller is never starved: after two windows of waiting it takes its turn among the polls, even with one background slot', async () => {
    for (const reservedInteractive of [2, 9]) {
      const b = new RateBudget({ profileId: 'p', reservedInteractive })
      const stop = busyPolls(b, 12)
      await vi.advanceTimersByTimeAsync(WINDOW)
      let doneAt: number | null = null
      const from = Date.now()
      void b.acquire('allGasFee', { priority: 'low' }).then(() => (doneAt = Date.now()))
      // Young, it waits behind every poll.
      await vi.advanceTimersByTimeAsync(WINDOW)
      expect(doneAt, `reserved ${reservedInteractive}`).toBeNull()
      await vi.advanceTimersByTimeAsync(3 * WINDOW)
      expect(doneAt, `reserved ${reservedInteractive}`).not.toBeNull()
      expect(doneAt! - from).toBeLessThanOrEqual(3 * WINDOW)
      stop()
      await vi.advanceTimersByTimeAsync(10 * WINDOW)
    }
  })

  test("an operator's request overtakes queued background requests", async () => {
    const b = new RateBudget({ profileId: 'p' })
    await fill(b, LIMIT)
    const order: string[] = []
    const bg = [1, 2, 3].map((i) => b.acquire('allGasFee', { priority: 'background' }).then(() => order.push(`bg${i}`)))
    await vi.advanceTimersByTimeAsync(1_000)
    const op = b.acquire('allGasFee', { priority: 'interactive', maxWaitMs: WINDOW }).then(() => order.push('operator'))
    expect(entry(b, 'allGasFee').queued).toBe(4)
    await vi.advanceTimersByTimeAsync(WINDOW)
    await Promise.all([op, ...bg])
    expect(order[0]).toBe('operator')
    expect(order.slice(1)).toEqual(['bg1', 'bg2', 'bg3'])
  })

  test('an interactive caller that cannot get a slot in time gets "budget exhausted, next slot at T" and nothing is taken', async () => {
    const b = new RateBudget({ profileId: 'p' })
    const first = Date.now()
    await fill(b, LIMIT)
    await vi.advanceTimersByTimeAsync(5_000)
    const err = await b.acquire('allGasFee', { priority: 'interactive' }).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(ApiError)
    const nextSlotAt = first + WINDOW
    expect(err).toMatchObject({ kind: 'rate_limited', origin: 'budget', endpoint: 'allGasFee', nextSlotAt, retryable: true })
    expect((err as ApiError).message).toBe(`budget exhausted for allGasFee, next slot at ${new Date(nextSlotAt).toISOString()}`)
    expect(entry(b, 'allGasFee')).toMatchObject({ usedInWindow: LIMIT, queued: 0, nextSlotAt })
  })

  test('an interactive caller waits when the next slot opens within its maxWaitMs', async () => {
    const b = new RateBudget({ profileId: 'p' })
    const first = Date.now()
    await fill(b, LIMIT)
    await vi.advanceTimersByTimeAsync(WINDOW - 500)
    let granted = 0
    const p = b.acquire('allGasFee', { priority: 'interactive' }).then(() => (granted = Date.now()))
    await vi.advanceTimersByTimeAsync(1_000)
    await p
    expect(granted).toBe(first + WINDOW)
  })

  test('an interactive caller queued behind others gives up after maxWaitMs', async () => {
    const b = new RateBudget({ profileId: 'p' })
    await fill(b, 1)
    await vi.advanceTimersByTimeAsync(10_000)
    await fill(b, LIMIT - 1)
    await vi.advanceTimersByTimeAsync(WINDOW - 10_000 - 800)
    const ahead = b.acquire('allGasFee', { priority: 'interactive', maxWaitMs: 10_000 })
    const late = b.acquire('allGasFee', { priority: 'interactive', maxWaitMs: 1_000 }).catch((e: unknown) => e)
    await vi.advanceTimersByTimeAsync(1_000)
    await ahead
    expect(await late).toMatchObject({ kind: 'rate_limited', origin: 'budget' })
    expect(entry(b, 'allGasFee')).toMatchObject({ usedInWindow: LIMIT, queued: 0 })
  })

  test('an AbortSignal cancels a waiting acquire', async () => {
    const b = new RateBudget({ profileId: 'p' })
    await fill(b, LIMIT)
    const ac = new AbortController()
    const p = b.acquire('allGasFee', { priority: 'background', signal: ac.signal }).catch((e: unknown) => e)
    expect(entry(b, 'allGasFee').queued).toBe(1)
    ac.abort()
    expect(await p).toMatchObject({ kind: 'aborted' })
    expect(entry(b, 'allGasFee').queued).toBe(0)
    await vi.advanceTimersByTimeAsync(WINDOW)
    expect(entry(b, 'allGasFee').usedInWindow).toBe(0)
  })

  test('a 429 blocks the endpoint, tightens its limit, and each clean window earns back a quarter and forgives a strike', async () => {
    const b = new RateBudget({ profileId: 'p' })
    const t0 = Date.now()
    expect(b.penalize('allGasFee')).toBe(t0 + 15_000)
    expect(entry(b, 'allGasFee')).toMatchObject({ limit: 8, blockedUntil: t0 + 15_000 })
    expect(await b.acquire('allGasFee', { priority: 'interactive' }).catch((e: unknown) => e)).toMatchObject({
      kind: 'rate_limited',
      nextSlotAt: t0 + 15_000
    })
    let at = 0
    const p = b.acquire('allGasFee').then(() => (at = Date.now()))
    await vi.advanceTimersByTimeAsync(15_000)
    await p
    expect(at).toBe(t0 + 15_000)

    // A second 429 doubles the block and tightens again.
    expect(b.penalize('allGasFee')).toBe(t0 + 45_000)
    expect(entry(b, 'allGasFee').limit).toBe(6)
    await vi.advanceTimersByTimeAsync(30_000 + WINDOW)
    expect(entry(b, 'allGasFee')).toMatchObject({ limit: 8, blockedUntil: null })
    await vi.advanceTimersByTimeAsync(WINDOW)
    expect(entry(b, 'allGasFee').limit).toBe(10)
    // Recovered fully: the next 429 starts from the shortest block again.
    expect(b.penalize('allGasFee')).toBe(Date.now() + 15_000)
  })

  test('strikes are forgiven one per clean window: a storm long past starts again from the shortest block', async () => {
    const b = new RateBudget({ profileId: 'p', defaultLimitPerMinute: 120 })
    for (let i = 0; i < 8; i++) b.penalize('merchantHistory')
    const t = Date.now()
    // Capped at two minutes however many strikes.
    expect(entry(b, 'merchantHistory').blockedUntil).toBe(t + 120_000)
    await vi.advanceTimersByTimeAsync(120_000 + 9 * WINDOW)
    expect(entry(b, 'merchantHistory').limit).toBe(120)
    expect(b.penalize('merchantHistory')).toBe(Date.now() + 15_000)
  })

  test('a tightened limit of 1 still lets background callers through', async () => {
    const b = new RateBudget({ profileId: 'p', penaltyMs: 1 })
    for (let i = 0; i < 12; i++) b.penalize('allGasFee')
    expect(entry(b, 'allGasFee').limit).toBe(1)
    await vi.advanceTimersByTimeAsync(5 * 60_000)
    await expect(b.acquire('allGasFee', { priority: 'background', maxWaitMs: 0 })).resolves.toBeUndefined()
  })

  test('snapshot covers every endpoint and listeners hear about changes, including slots leaving the window', async () => {
    const b = new RateBudget({ profileId: 'p1', defaultLimitPerMinute: 100 })
    const seen: BudgetSnapshot[] = []
    const off = b.onChange((s) => seen.push(s))
    await b.acquire('allGasFee')
    const now = Date.now()
    expect(b.snapshot().profileId).toBe('p1')
    expect(b.snapshot().endpoints).toHaveLength(16)
    expect(entry(b, 'allGasFee')).toEqual({
      endpoint: 'allGasFee',
      limit: 10,
      limitSource: 'documented',
      usedInWindow: 1,
      queued: 0,
      nextSlotAt: now,
      blockedUntil: null
    })
    expect(entry(b, 'merchantHistory').limit).toBe(100)
    expect(seen.at(-1)?.endpoints.find((e) => e.endpoint === 'allGasFee')?.usedInWindow).toBe(1)
    await vi.advanceTimersByTimeAsync(WINDOW)
    expect(seen.at(-1)?.endpoints.find((e) => e.endpoint === 'allGasFee')?.usedInWindow).toBe(0)
    off()
    const count = seen.length
    await b.acquire('allGasFee')
    expect(seen.length).toBe(count)
  })
})

describe('RateBudget: limits the spec does not show', () => {
  const memory = () => {
    const data: Partial<Record<string, LearnedLimit>> = {}
    return { data, load: () => ({ ...data }), save: (e: string, v: LearnedLimit) => void (data[e] = v) } as LimitStore & {
      data: typeof data
    }
  }
  const take = async (b: RateBudget, n: number) => {
    for (let i = 0; i < n; i++) await b.acquire('merchantHistory', { priority: 'background' })
  }

  test('the first 429 teaches the limit (the answers before it), blocks one window, and is kept', async () => {
    const store = memory()
    const b = new RateBudget({ profileId: 'p', limits: store })
    expect(entry(b, 'merchantHistory')).toMatchObject({ limit: 120, limitSource: 'default' })
    await take(b, 11)
    const t = Date.now()
    expect(b.penalize('merchantHistory')).toBe(t + WINDOW)
    expect(entry(b, 'merchantHistory')).toMatchObject({ limit: 10, limitSource: 'learned', blockedUntil: t + WINDOW })
    expect(store.data.merchantHistory).toMatchObject({ limit: 10, learnedAt: t, raisedAt: null })

    // After the block, ten go and the eleventh waits for the window.
    await vi.advanceTimersByTimeAsync(WINDOW)
    await take(b, 8) // background keeps two slots for the operator
    await expect(b.acquire('merchantHistory', { priority: 'background', maxWaitMs: 0 })).rejects.toMatchObject({
      kind: 'rate_limited',
      origin: 'budget'
    })

    // A restart starts from what was learned.
    const again = new RateBudget({ profileId: 'p', limits: store })
    expect(entry(again, 'merchantHistory')).toMatchObject({ limit: 10, limitSource: 'learned' })
  })

  test('a 429 with fewer than two answers before it teaches nothing (another client on the key, a storm)', async () => {
    const store = memory()
    const b = new RateBudget({ profileId: 'p', limits: store })
    await take(b, 1)
    b.penalize('merchantHistory')
    expect(entry(b, 'merchantHistory')).toMatchObject({ limit: 120, limitSource: 'default' })
    expect(store.data.merchantHistory).toBeUndefined()
  })

  test('a storm after a few answers teaches the floor of 10, not the few; a second 429 below it confirms a lower limit', async () => {
    const b = new RateBudget({ profileId: 'p' })
    await take(b, 4)
    b.penalize('merchantHistory')
    expect(entry(b, 'merchantHistory')).toMatchObject({ limit: 10, limitSource: 'learned' })
    await vi.advanceTimersByTimeAsync(WINDOW)
    await take(b, 4)
    b.penalize('merchantHistory')
    expect(entry(b, 'merchantHistory').limit).toBe(3)
  })

  test('after a block, only answers since it count: a fixed-window service is learned by the second 429', async () => {
    const b = new RateBudget({ profileId: 'p' })
    // The service allowed 10 at the end of its minute and 10 more at the start of the next.
    await take(b, 21)
    b.penalize('merchantHistory')
    expect(entry(b, 'merchantHistory').limit).toBe(20)
    await vi.advanceTimersByTimeAsync(WINDOW)
    await take(b, 11)
    b.penalize('merchantHistory')
    expect(entry(b, 'merchantHistory').limit).toBe(10)
  })

  test('a learned limit is raised by one after a busy probe interval; a 429 right after a raise takes it back and probes slower', async () => {
    const store = memory()
    const b = new RateBudget({ profileId: 'p', limits: store, probeIntervalMs: 10 * 60_000, reservedInteractive: 0 })
    await take(b, 6)
    b.penalize('merchantHistory')
    // A first lesson goes no lower than 10; the second 429 after five answers confirms 5.
    expect(entry(b, 'merchantHistory').limit).toBe(10)
    await vi.advanceTimersByTimeAsync(WINDOW)
    await take(b, 6)
    b.penalize('merchantHistory')
    expect(entry(b, 'merchantHistory').limit).toBe(5)
    await vi.advanceTimersByTimeAsync(WINDOW)
    // Quiet for the interval: nothing to learn from, no raise.
    await vi.advanceTimersByTimeAsync(10 * 60_000)
    expect(entry(b, 'merchantHistory').limit).toBe(5)
    // Busy: a caller finds the limit reached after the interval: the limit goes up by one
    // and lets it through at once.
    await take(b, 5)
    await b.acquire('merchantHistory', { priority: 'background' })
    expect(entry(b, 'merchantHistory').limit).toBe(6)
    expect(store.data.merchantHistory).toMatchObject({ limit: 6, raisedAt: Date.now() })
    // The service refuses the sixth: the raise was one too many.
    b.penalize('merchantHistory')
    expect(entry(b, 'merchantHistory').limit).toBe(5)
    expect(store.data.merchantHistory?.probeIntervalMs).toBe(20 * 60_000)
  })

  test('documented endpoints never learn: a 429 tightens them for a while as before', () => {
    const store = memory()
    const b = new RateBudget({ profileId: 'p', limits: store })
    b.penalize('priceTicker')
    expect(entry(b, 'priceTicker')).toMatchObject({ limit: 8, limitSource: 'documented' })
    expect(store.data.priceTicker).toBeUndefined()
  })
})
