// "Since you were here" in the window, through the real contract (contractBridge): the first
// look on a profile only starts counting; a summary with something to say is shown and one
// with nothing is not (and moves the last look); an absence under 2 min is none; dismissing
// marks the summary's moment seen; while the operator is here the last look follows every
// 30 s; going away (the window hidden, or 5 min without input) keeps the last look at the
// moment the operator left, but not while a summary is still unread; the next input after
// idle, or the window shown again, asks again.
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { contractBridge } from '../../../support/contract-bridge'
import type { ActivitySummary } from '../../../../src/shared/ipc/contract'
import type * as SinceModule from '../../../../src/renderer/src/lib/since.svelte'

const T0 = Date.UTC(2026, 10, 27, 9, 0)
let lastLooked: number | null = null
let answer: ActivitySummary
let failSince = false
const seen: Array<number | undefined> = []
const asked: number[] = []
const main = contractBridge({
  'activity:lastLooked': async () => ({ at: lastLooked }),
  'activity:seen': async ({ at }) => {
    seen.push(at)
    lastLooked = Math.max(lastLooked ?? 0, at ?? Date.now())
    return { at: lastLooked }
  },
  'activity:since': async ({ since }) => {
    if (failSince) throw Object.assign(new Error('The team hub does not answer'), { kind: 'network', retryable: true })
    asked.push(since)
    return answer
  }
})
const some = (at: number): ActivitySummary => ({
  since: lastLooked ?? 0,
  at,
  groups: [{ kind: 'failed', count: 1, text: '1 order failed' }],
  items: [{ kind: 'failed', order: { type: 2, orderId: 7 }, at, text: 'Order 7 (offramp) failed: Timed out' }],
  more: 0
})
const nothing = (at: number): ActivitySummary => ({ since: lastLooked ?? 0, at, groups: [], items: [], more: 0 })

const listeners = new Map<string, () => void>()
const doc = {
  visibilityState: 'visible',
  addEventListener: (t: string, f: () => void) => listeners.set(t, f),
  removeEventListener: () => undefined
}
let mod: typeof SinceModule
const settle = async () => {
  for (let i = 0; i < 5; i++) await vi.advanceTimersByTimeAsync(0)
}

beforeAll(async () => {
  vi.useFakeTimers({ now: T0 })
  vi.stubGlobal('window', {
    rampdesk: main.bridge,
    addEventListener: (t: string, f: () => void) => listeners.set(t, f),
    removeEventListener: () => undefined
  })
  vi.stubGlobal('document', doc)
  mod = await import('../../../../src/renderer/src/lib/since.svelte')
})
afterAll(() => {
  vi.useRealTimers()
  vi.unstubAllGlobals()
})
beforeEach(() => {
  seen.length = 0
  asked.length = 0
})

describe('since you were here', () => {
  it('only starts counting at the first look on a profile', async () => {
    lastLooked = null
    await mod.since.switched()
    expect(mod.since.state).toEqual({ kind: 'quiet' })
    expect(seen).toEqual([undefined])
    expect(asked).toEqual([])
  })

  it('shows a summary with something to say until dismissed, then marks its moment seen', async () => {
    lastLooked = T0 - 10 * 60_000
    answer = some(T0)
    await mod.since.look()
    expect(asked).toEqual([T0 - 10 * 60_000])
    expect(mod.since.state).toEqual({ kind: 'shown', summary: answer })
    expect(seen).toEqual([])
    await mod.since.dismiss()
    expect(mod.since.state).toEqual({ kind: 'quiet' })
    expect(seen).toEqual([T0])
  })

  it('shows nothing after an absence under 2 min, and keeps the last look', async () => {
    lastLooked = Date.now() - mod.MIN_AWAY_MS + 1_000
    answer = some(Date.now())
    await mod.since.look()
    expect(mod.since.state).toEqual({ kind: 'quiet' })
    expect(asked).toEqual([])
    expect(seen).toEqual([])
  })

  it('shows nothing when there is nothing to say, and moves the last look to the answer’s moment', async () => {
    lastLooked = T0 - 10 * 60_000
    answer = nothing(T0 + 5_000)
    await mod.since.look()
    expect(mod.since.state).toEqual({ kind: 'quiet' })
    expect(seen).toEqual([T0 + 5_000])
  })

  it('keeps the moment the operator left (hidden, or idle from the last input), not while a summary is unread, and asks again on return', async () => {
    const stop = mod.since.start()
    lastLooked = T0
    // Hidden: seen until now.
    doc.visibilityState = 'hidden'
    listeners.get('visibilitychange')!()
    await settle()
    expect(seen).toEqual([Date.now()])
    // Hidden three minutes: the last look stays where the operator left.
    await vi.advanceTimersByTimeAsync(3 * 60_000)
    expect(seen).toHaveLength(1)
    // Shown again: asked, and something to say.
    answer = some(Date.now())
    doc.visibilityState = 'visible'
    listeners.get('visibilitychange')!()
    await settle()
    expect(mod.since.state.kind).toBe('shown')
    // Idle with the summary unread: the last look stays.
    seen.length = 0
    await vi.advanceTimersByTimeAsync(mod.IDLE_MS + 20_000)
    expect(seen).toEqual([])
    await mod.since.dismiss()
    answer = nothing(Date.now())
    // Here with nothing standing: the last look follows every 30 s.
    seen.length = 0
    const lastInput = Date.now()
    listeners.get('keydown')!()
    await settle()
    seen.length = 0
    await vi.advanceTimersByTimeAsync(mod.PRESENT_EVERY_MS)
    expect(seen).toHaveLength(1)
    expect(seen[0]).toBeGreaterThan(lastInput)
    // Idle: seen until the last input (not until the idle was noticed), and no more after.
    await vi.advanceTimersByTimeAsync(mod.IDLE_MS + 20_000)
    expect(seen.at(-1)).toBe(lastInput)
    const n = seen.length
    await vi.advanceTimersByTimeAsync(5 * mod.PRESENT_EVERY_MS)
    expect(seen).toHaveLength(n)
    // The next input is a return: asked again.
    asked.length = 0
    answer = nothing(Date.now())
    listeners.get('pointerdown')!()
    await settle()
    expect(asked).toHaveLength(1)
    stop()
  })

  it('says so when what changed cannot be read', async () => {
    lastLooked = T0
    failSince = true
    await mod.since.look()
    expect(mod.since.state).toMatchObject({ kind: 'failed', error: { message: expect.stringContaining('The team hub does not answer') } })
    failSince = false
  })
})
