// The replay window on its own: the edges of the window, each payload admitted once, and
// a memory that stays bounded.
import { describe, expect, it } from 'vitest'
import { REPLAY_WINDOW_MS, ReplayGuard } from '../../../../src/main/webhooks/replay-guard'

const T = 1_750_000_000_000

describe('ReplayGuard', () => {
  it('admits timestamps up to the window either side of the service clock, not beyond', () => {
    let now = T
    const g = new ReplayGuard({ serviceNow: () => now })
    expect(g.admit('a', T - REPLAY_WINDOW_MS)).toEqual({ ok: true })
    expect(g.admit('b', T + REPLAY_WINDOW_MS)).toEqual({ ok: true })
    expect(g.admit('c', T - REPLAY_WINDOW_MS - 1)).toMatchObject({ ok: false, kind: 'stale' })
    expect(g.admit('d', T + REPLAY_WINDOW_MS + 1)).toMatchObject({ ok: false, kind: 'future' })
    now = T + 3 * 3_600_000
    expect(g.admit('e', T)).toMatchObject({ ok: false, kind: 'stale', reason: expect.stringMatching(/3\.0 h old/) })
  })

  it('admits each payload once while it is inside the window', () => {
    let now = T
    const g = new ReplayGuard({ serviceNow: () => now })
    expect(g.admit('p', T).ok).toBe(true)
    now = T + 4 * 60_000
    expect(g.admit('p', T)).toMatchObject({ ok: false, kind: 'repeat', reason: expect.stringMatching(/already accepted 4\.0 min ago/) })
    expect(g.admit('q', T).ok).toBe(true)
    // Once outside the window the age check refuses it, whatever the cache holds.
    now = T + REPLAY_WINDOW_MS + 1
    expect(g.admit('p', T)).toMatchObject({ ok: false, kind: 'stale' })
  })

  it('forgets payloads two windows after their timestamp, and never holds more than its bound', () => {
    let now = T
    const g = new ReplayGuard({ serviceNow: () => now, maxEntries: 50 })
    for (let i = 0; i < 40; i++) g.admit(`old-${i}`, T)
    expect(g.size).toBe(40)
    now = T + 2 * REPLAY_WINDOW_MS + 1
    g.admit('fresh', now)
    expect(g.size).toBe(1)
    for (let i = 0; i < 500; i++) g.admit(`many-${i}`, now)
    expect(g.size).toBe(50)
    // The newest are the ones kept.
    expect(g.admit('many-499', now)).toMatchObject({ kind: 'repeat' })
  })
})
