// What a follower hub shows of whether every order is here: the leader's report while it is
// fresh by the database's clock, and otherwise (none, too old, a hub that does not say when)
// a gap first saying it is not known, never a coverage of its own that claims nothing is missing.
import { describe, expect, it } from 'vitest'
import { followedCoverage, type LeaderReport } from '../../../src/hub/followed-coverage'
import type { Coverage } from '../../../src/shared/ipc/contract'

const leader: Coverage = {
  scopes: [],
  readings: [],
  freshness: { boundMinutes: 10, open: 4, stale: 1, oldestConfirmedAt: null, lastSweepAt: null, error: null },
  gaps: [{ kind: 'freshness', text: '1 open order not confirmed by the service within 10 min', type: null, fiatType: null }],
  spentLastHour: { probe: 3, audit: 1, reading: 0, freshness: 12 }
}
const writtenAt = Date.parse('2026-11-25T14:05:30Z')
const readAt = 1_000_000
const report = (over: Partial<LeaderReport> = {}): LeaderReport => ({ coverage: leader, writtenAt, ageMs: 2_000, readAt, ...over })
const opts = { staleAfterMs: 15_000, freshnessMinutes: 12 }

describe('followedCoverage', () => {
  it("shows the leader's report as it is while it is younger than the bound", () => {
    expect(followedCoverage(report(), { ...opts, now: readAt })).toEqual(leader)
    // Read 2 s old, 13 s ago by this hub's clock: 15 s, not yet past the bound.
    expect(followedCoverage(report(), { ...opts, now: readAt + 13_000 })).toEqual(leader)
  })

  it('says since when the leader has not reported once the report is older than the bound, the report kept after', () => {
    const old = followedCoverage(report({ ageMs: 15_001 }), { ...opts, now: readAt })
    expect(old.gaps.map((g) => g.kind)).toEqual(['hub', 'freshness'])
    expect(old.gaps[0]).toEqual({
      kind: 'hub',
      text: 'The leading hub has not reported since 14:05 UTC; whether every order is here is not known',
      type: null,
      fiatType: null
    })
    expect({ ...old, gaps: old.gaps.slice(1) }).toEqual(leader)
    // The age goes on growing by this hub's clock while it cannot read the row again.
    expect(followedCoverage(report(), { ...opts, now: readAt + 13_001 }).gaps[0]!.kind).toBe('hub')
  })

  it('never shows a coverage without a gap before the leader reported one', () => {
    for (const r of [null, report({ coverage: null, writtenAt: null, ageMs: null })]) {
      const c = followedCoverage(r, { ...opts, now: readAt })
      expect(c.gaps).toEqual([
        {
          kind: 'hub',
          text: 'The leading hub has not reported its coverage to this hub yet; whether every order is here is not known',
          type: null,
          fiatType: null
        }
      ])
      expect(c.scopes).toEqual([])
      expect(c.freshness).toMatchObject({ boundMinutes: 12, open: 0, stale: 0, error: 'not known: the leading hub has not reported' })
    }
  })

  it('says it is not known when the leader does not say when it wrote (an older hub)', () => {
    const c = followedCoverage(report({ writtenAt: null, ageMs: null }), { ...opts, now: readAt })
    expect(c.gaps[0]!.text).toBe(
      'The leading hub does not say when it last reported (it runs an older Rampdesk hub); whether every order is here is not known'
    )
    expect(c.gaps.slice(1)).toEqual(leader.gaps)
  })
})
