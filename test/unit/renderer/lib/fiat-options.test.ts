// The orders view's fiat filter: fiats holding orders of the tab's type first, with their
// counts and the preferred ones first; the configuration's other fiats after, as their
// probes left them ("no orders" only where the service answered so); counts left out where
// the service lists every fiat of the type together.
import { describe, expect, it } from 'vitest'
import { fiatOptionLabel, fiatOptions } from '../../../../src/renderer/src/lib/fiat-options'
import type { Coverage, ScopeCoverage } from '../../../../src/shared/ipc/contract'

const audit: ScopeCoverage['audit'] = { state: 'complete', serviceOrders: null, checkedAt: null, nextAt: null, repair: null, error: null }
const scope = (
  type: 1 | 2,
  fiatType: number,
  orders: number,
  probe: ScopeCoverage['probe'] = orders > 0 ? 'active' : 'empty'
): ScopeCoverage => ({
  type,
  fiatType,
  probe,
  probedAt: null,
  nextProbeAt: null,
  orders,
  audit,
  error: null
})
const coverage = (scopes: ScopeCoverage[]): Coverage => ({
  scopes,
  readings: [],
  freshness: { boundMinutes: 10, open: 0, stale: 0, oldestConfirmedAt: null, lastSweepAt: null, error: null },
  gaps: [],
  spentLastHour: { probe: 0, audit: 0, reading: 0, freshness: 0 }
})
const fiats = [
  { id: 1, symbol: 'inr' },
  { id: 2, symbol: 'try' },
  { id: 3, symbol: 'aed' },
  { id: 4, symbol: 'mxn' }
]
const sym = (id: number) => fiats.find((f) => f.id === id)?.symbol.toUpperCase() ?? `#${id}`
const label = (o: Parameters<typeof fiatOptionLabel>[0]) => fiatOptionLabel(o, (n) => n.toLocaleString('en-US'))

describe('fiat options', () => {
  it('lists the fiats holding orders first, preferred first then by count, with counts; the rest as holding none', () => {
    const c = coverage([scope(1, 1, 2034), scope(1, 2, 310), scope(1, 3, 5000), scope(1, 4, 0), scope(2, 2, 7)])
    expect(fiatOptions(1, c, fiats, [2], sym).map(label)).toEqual(['TRY (310)', 'AED (5,000)', 'INR (2,034)', 'MXN (no orders)'])
    expect(fiatOptions(2, c, fiats, [], sym).map(label)).toEqual([
      'TRY (7)',
      'INR (not checked yet)',
      'AED (not checked yet)',
      'MXN (not checked yet)'
    ])
  })

  it('says "no orders" only where a probe found none: fiats not probed yet, failing or refused say so instead', () => {
    const c = coverage([scope(1, 1, 2034), scope(1, 2, 0, 'unprobed'), scope(1, 3, 0, 'failed'), scope(1, 4, 0, 'refused'), scope(2, 1, 0)])
    expect(fiatOptions(1, c, fiats, [], sym).map(label)).toEqual([
      'INR (2,034)',
      'TRY (not checked yet)',
      'AED (could not be checked)',
      'MXN (not offered)'
    ])
    // A fiat the configuration names that no scope stands for yet: not known either.
    expect(fiatOptions(2, c, fiats, [], sym).map(label)).toEqual([
      'INR (no orders)',
      'TRY (not checked yet)',
      'AED (not checked yet)',
      'MXN (not checked yet)'
    ])
    // Orders held in a scope being probed again are counted.
    expect(fiatOptions(1, coverage([scope(1, 2, 3, 'probing')]), fiats, [], sym).map(label)[0]).toBe('TRY (3)')
  })

  it('names no counts where they are not known: before coverage, or a type listed across fiats', () => {
    expect(fiatOptions(1, null, fiats, [1], sym).map(label)).toEqual(['INR', 'TRY', 'AED', 'MXN'])
    expect(fiatOptions(2, coverage([scope(2, 0, 40)]), fiats, [], sym).map(label)).toEqual(['INR', 'TRY', 'AED', 'MXN'])
  })
})
