// The tray follows the app: the state is asked at start, again after the events that can
// change it (a burst is one question), one question at a time, and shown only when it changed.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { followTrayState } from '../../../src/main/tray-follower'
import { trayState } from '../../../src/main/tray-state'
import type { EventName, TrayState } from '../../../src/shared/ipc/contract'

function setup() {
  const listeners = new Set<(e: EventName, p: unknown) => void>()
  let attention = 0
  let gets = 0
  let hold: Promise<void> | null = null
  const shown: TrayState[] = []
  const follower = followTrayState({
    subscribe: (l) => {
      listeners.add(l)
      return () => listeners.delete(l)
    },
    get: async () => {
      gets++
      if (hold) await hold
      return trayState({ sync: [], attention, inProgress: 0 })
    },
    show: (s) => shown.push(s),
    delayMs: 500
  })
  return {
    follower,
    shown,
    emit: (e: EventName) => listeners.forEach((l) => l(e, {})),
    setAttention: (n: number) => (attention = n),
    gets: () => gets,
    listeners,
    holdNext: () => {
      let release = () => undefined as void
      hold = new Promise<void>((r) => (release = r))
      return () => {
        hold = null
        release()
      }
    }
  }
}

beforeEach(() => void vi.useFakeTimers())
afterEach(() => void vi.useRealTimers())

describe('followTrayState', () => {
  it('shows the state at start', async () => {
    const t = setup()
    await vi.advanceTimersByTimeAsync(0)
    expect(t.shown.map((s) => s.level)).toEqual(['idle'])
  })

  it('asks once after a burst of events, and shows only a change', async () => {
    const t = setup()
    await vi.advanceTimersByTimeAsync(0)
    t.setAttention(2)
    for (let i = 0; i < 50; i++) t.emit('order:created')
    await vi.advanceTimersByTimeAsync(499)
    expect(t.gets()).toBe(1)
    await vi.advanceTimersByTimeAsync(1)
    expect(t.gets()).toBe(2)
    expect(t.shown.map((s) => s.headline)).toEqual(['Nothing needs you', '2 orders need attention'])
    t.emit('sync:state')
    await vi.advanceTimersByTimeAsync(500)
    expect(t.gets()).toBe(3)
    expect(t.shown).toHaveLength(2)
  })

  it('ignores events that cannot change the tray', async () => {
    const t = setup()
    await vi.advanceTimersByTimeAsync(0)
    t.emit('ticker:tick')
    t.emit('budget:changed')
    await vi.advanceTimersByTimeAsync(2000)
    expect(t.gets()).toBe(1)
  })

  it('asks one question at a time: events during a question ask again after it', async () => {
    const t = setup()
    await vi.advanceTimersByTimeAsync(0)
    const release = t.holdNext()
    t.emit('order:changed')
    await vi.advanceTimersByTimeAsync(500)
    expect(t.gets()).toBe(2)
    t.setAttention(1)
    t.emit('order:changed')
    await vi.advanceTimersByTimeAsync(500)
    expect(t.gets()).toBe(2)
    release()
    await vi.advanceTimersByTimeAsync(500)
    expect(t.gets()).toBe(3)
    expect(t.shown.at(-1)?.headline).toBe('1 order needs attention')
  })

  it('stops listening and asking when stopped', async () => {
    const t = setup()
    await vi.advanceTimersByTimeAsync(0)
    t.emit('order:changed')
    t.follower.stop()
    await vi.advanceTimersByTimeAsync(2000)
    expect(t.gets()).toBe(1)
    expect(t.listeners.size).toBe(0)
  })
})
