// Sync-gap alerts: a scope whose completeness check found orders missing from the copy is
// raised (with how many, in operator words), stays one alert with its first 'since' while it
// stands, and clears once the check finds the scope complete.
import { describe, expect, it } from 'vitest'
import { AlertTracker } from '../../../../src/main/alerts/alert-tracker'
import type { AlertList, Coverage, ScopeCoverage } from '../../../../src/shared/ipc/contract'

const T0 = Date.UTC(2026, 10, 27, 9, 0)

function scope(state: ScopeCoverage['audit']['state'], orders: number, serviceOrders: number | null): ScopeCoverage {
  return {
    type: 2,
    fiatType: 1,
    probe: 'active',
    probedAt: T0,
    nextProbeAt: null,
    orders,
    audit: { state, serviceOrders, checkedAt: T0, nextAt: null, repair: null, error: null },
    error: null
  } as ScopeCoverage
}

describe('gap alerts', () => {
  it('raises a scope the completeness check found short, keeps its since while it stands, and clears when complete', () => {
    let now = T0
    let scopes = [scope('complete', 100, 100)]
    const emitted: AlertList[] = []
    const t = new AlertTracker({
      openOrders: () => [],
      config: () => null,
      thresholds: () => ({}),
      coverage: () => ({ scopes }) as Coverage,
      now: () => now,
      changed: (l) => emitted.push(l)
    })
    expect(t.refresh().alerts).toEqual([])
    scopes = [scope('incomplete', 100, 114)]
    now = T0 + 60_000
    expect(t.refresh().alerts).toEqual([
      {
        kind: 'gap',
        id: 'gap:2:1',
        type: 2,
        fiatType: 1,
        missing: 14,
        since: T0 + 60_000,
        text: expect.stringMatching(/^Offramp .+: 14 orders missing here, found by the completeness check$/)
      }
    ])
    scopes = [scope('repairing', 105, 114)]
    now = T0 + 120_000
    const repairing = t.refresh().alerts
    expect(repairing).toMatchObject([{ id: 'gap:2:1', missing: 9, since: T0 + 60_000 }])
    expect(repairing[0]!.text).toMatch(/9 orders missing here, being read again$/)
    scopes = [scope('complete', 114, 114)]
    expect(t.refresh().alerts).toEqual([])
    expect(emitted.map((l) => l.alerts.length)).toEqual([0, 1, 1, 0])
  })
})
