// A Team profile whose hub cannot be reached keeps the gaps the hub last reported, and
// says first that whether every order is here cannot be known until it answers.
import { describe, expect, it } from 'vitest'
import { hubGap, offlineCoverage, offlineGapTexts } from '../../../../src/main/team/offline-coverage'
import type { Coverage } from '../../../../src/shared/ipc/contract'

const last: Coverage = {
  scopes: [],
  readings: [],
  freshness: { boundMinutes: 10, open: 4, stale: 1, oldestConfirmedAt: null, lastSweepAt: null, error: null },
  gaps: [
    { kind: 'freshness', text: '1 open order not confirmed by the service within 10 min', type: null, fiatType: null },
    { kind: 'unprobed', text: 'Offramp TRY: not probed yet, orders there may be missing', type: 2, fiatType: 5 }
  ],
  spentLastHour: { probe: 0, audit: 0, reading: 0, freshness: 0 }
}
const since = Date.parse('2026-11-25T14:05:00Z')

describe('offline coverage of a Team profile', () => {
  it('keeps every gap the hub last reported, after one saying completeness cannot be known', () => {
    const c = offlineCoverage({ refused: false, since, last })!
    expect(c.gaps.map((g) => g.kind)).toEqual(['hub', 'freshness', 'unprobed'])
    expect(c.gaps[0]!.text).toBe(
      'Team hub unreachable since 14:05 UTC: whether every order is here cannot be known until it answers; the hub last reported 2 gaps (below)'
    )
    expect(c.gaps.slice(1)).toEqual(last.gaps)
    expect(c.freshness).toEqual(last.freshness)
    expect(offlineGapTexts({ refused: false, since, last })).toEqual([c.gaps[0]!.text, ...last.gaps.map((g) => g.text)])
  })

  it('is never stacked: going offline twice keeps one hub gap', () => {
    const once = offlineCoverage({ refused: false, since, last })!
    expect(offlineCoverage({ refused: false, since, last: once })!.gaps.filter((g) => g.kind === 'hub')).toHaveLength(1)
  })

  it('says when the hub last reported none, or never reported, or refuses the token', () => {
    expect(hubGap({ refused: false, since: null, last: { ...last, gaps: [] } }).text).toMatch(
      /cannot be known until it answers; the hub last reported no gaps$/
    )
    expect(offlineCoverage({ refused: false, since: null, last: null })).toBeUndefined()
    expect(offlineGapTexts({ refused: false, since: null, last: null })).toEqual([
      'Team hub unreachable: whether every order is here cannot be known until it answers; the hub has reported no coverage to this desktop yet'
    ])
    expect(hubGap({ refused: true, since, last }).text).toMatch(
      /^The team hub has refused this desktop since 14:05 UTC: whether every order/
    )
  })
})
