// The activity channels through the contract's one entry (invokeChannel parses, then calls
// the real handlers): activity:since refuses a moment that is not an instant (negative, a
// fraction, text, missing, with a stray field) before anything reads the store, and a moment
// still to come with words; the last look is kept per profile across a restart of the
// desktop and never moves back.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { LastLooked } from '../../../../src/main/activity/last-looked'
import { AlertTracker } from '../../../../src/main/alerts/alert-tracker'
import { activityHandlers } from '../../../../src/main/handlers/activity'
import { invokeChannel } from '../../../../src/main/handlers/invoke'
import type { ProfileSession } from '../../../../src/main/profile-session'
import { openLocalStore, type LocalStore } from '../../../../src/main/store/local-store'
import type { ContractHandlers, Profile } from '../../../../src/shared/ipc/contract'

const NOW = Date.UTC(2026, 10, 27, 9, 0)
let dir: string
let store: LocalStore
let reads = 0
let profileId = 'desk-a'

function handlers(lastLooked = new LastLooked(dir)): ContractHandlers {
  const alerts = new AlertTracker({
    openOrders: () => [],
    config: () => null,
    thresholds: () => ({}),
    now: () => NOW,
    changed: () => undefined
  })
  return activityHandlers({
    ready: async () => {
      reads++
      return { store, alerts } as unknown as ProfileSession
    },
    now: () => NOW,
    activeProfile: () => ({ id: profileId }) as Profile,
    lastLooked
  }) as ContractHandlers
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rampdesk-activity-ch-'))
  store = openLocalStore(join(dir, 'db'))
  reads = 0
  profileId = 'desk-a'
})
afterEach(() => {
  store.close()
  rmSync(dir, { recursive: true, force: true })
})

describe('activity:since input', () => {
  it.each([[{ since: -1 }], [{ since: 1.5 }], [{ since: '2026-11-27' }], [{}], [{ since: 1, limit: 5 }], [null], [{ since: Number.NaN }]])(
    'refuses %j before reading anything',
    async (input) => {
      const r = await invokeChannel(handlers(), 'activity:since', input)
      expect(r.ok).toBe(false)
      if (!r.ok) expect(r.error.kind).toBe('invalid_input')
      expect(reads).toBe(0)
    }
  )

  it('answers an instant before now, and refuses one still to come in words', async () => {
    const ok = await invokeChannel(handlers(), 'activity:since', { since: NOW - 60_000 })
    expect(ok).toEqual({ ok: true, value: { since: NOW - 60_000, at: NOW, groups: [], items: [], more: 0 } })
    const later = await invokeChannel(handlers(), 'activity:since', { since: NOW + 1 })
    expect(later.ok).toBe(false)
    if (!later.ok) expect(later.error).toMatchObject({ kind: 'invalid_input', message: expect.stringMatching(/has not come yet/) })
  })
})

describe('the last look', () => {
  it('is kept per profile across a restart, and never moves back or past now', async () => {
    expect(await invokeChannel(handlers(), 'activity:lastLooked', {})).toEqual({ ok: true, value: { at: null } })
    expect(await invokeChannel(handlers(), 'activity:seen', { at: NOW - 5_000 })).toEqual({ ok: true, value: { at: NOW - 5_000 } })
    // A late call from a window that was away does not take it back; one from the future is now.
    expect(await invokeChannel(handlers(), 'activity:seen', { at: NOW - 9_000 })).toEqual({ ok: true, value: { at: NOW - 5_000 } })
    expect(await invokeChannel(handlers(), 'activity:seen', { at: NOW + 60_000 })).toEqual({ ok: true, value: { at: NOW } })
    const restarted = handlers(new LastLooked(dir))
    expect(await invokeChannel(restarted, 'activity:lastLooked', {})).toEqual({ ok: true, value: { at: NOW } })
    profileId = 'desk-b'
    expect(await invokeChannel(restarted, 'activity:lastLooked', {})).toEqual({ ok: true, value: { at: null } })
    expect((await invokeChannel(restarted, 'activity:seen', { at: -1 })).ok).toBe(false)
  })
})
