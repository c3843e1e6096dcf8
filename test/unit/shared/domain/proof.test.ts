// Whether every order is here, quiet until it matters: one line when all is, and when
// something may be missing, the most pressing thing in one line naming what and what is
// being done, with progress and an estimate; each scope on demand in plain words.
import { describe, expect, it } from 'vitest'
import {
  aboutText,
  listText,
  proofStates,
  proofText,
  scopeDetail,
  type ProofInputs,
  type ProofWords
} from '../../../../src/shared/domain/proof'
import type { Coverage, CoverageGap, ScopeCoverage } from '../../../../src/shared/ipc/contract'
import { runningState, syncState } from '../../../support/sync-state'

const MIN = 60_000
const now = Date.UTC(2026, 10, 25, 14, 30)
const FIATS: Record<number, string> = { 1: 'INR', 2: 'TRY', 3: 'AED', 4: 'MXN', 5: 'VND', 6: 'NGN', 7: 'BRL', 8: 'PEN' }
const words: ProofWords = {
  time: (ms) => new Date(ms).toISOString().slice(11, 16),
  count: (n) => n.toLocaleString('en-US'),
  fiat: (id) => FIATS[id] ?? `#${id}`
}
type Audit = ScopeCoverage['audit']
const scope = (fiatType: number, over: Partial<Omit<ScopeCoverage, 'audit'>> & { audit?: Partial<Audit> } = {}): ScopeCoverage => ({
  type: 1,
  fiatType,
  probe: 'active',
  probedAt: now - 60 * MIN,
  nextProbeAt: null,
  orders: 1000,
  error: null,
  ...over,
  audit: {
    state: 'complete',
    serviceOrders: 1000,
    checkedAt: now - 2 * MIN,
    nextAt: now + 28 * MIN,
    repair: null,
    error: null,
    startedAt: null,
    ...over.audit
  }
})
const freshness: Coverage['freshness'] = { boundMinutes: 10, open: 40, stale: 0, oldestConfirmedAt: null, lastSweepAt: now, error: null }
const coverage = (scopes: ScopeCoverage[], gaps: CoverageGap[] = [], f = freshness): ProofInputs['coverage'] => ({
  scopes,
  gaps,
  freshness: f
})
const synced = (fiatType: number) => syncState({ type: 1, fiatType, lastSuccessAt: now - MIN })
const line = (i: Partial<ProofInputs> & Pick<ProofInputs, 'coverage'>, both = false) => {
  const states = proofStates({ sync: [], type: 1, now, ...i })
  return { ...proofText(states[0]!, words, { both, now }), kind: states[0]!.kind, more: states.length - 1 }
}

describe('proofStates and proofText', () => {
  it('says all orders are here in one line when every scope is complete, with the oldest check', () => {
    const l = line({ coverage: coverage([scope(1, { audit: { checkedAt: now - 5 * MIN } }), scope(2)]), sync: [synced(1), synced(2)] })
    expect(l).toEqual({ kind: 'complete', text: 'All orders here · checked 14:25', tone: 'success', more: 0 })
  })

  it('during the first sync counts what is here so far, never "not checked" beside rows', () => {
    const sync = [runningState({ type: 1, fiatType: 1, lastSuccessAt: null }), syncState({ type: 1, fiatType: 2, lastSuccessAt: null })]
    const l = line({
      coverage: coverage([
        scope(1, { orders: 28_333, audit: { state: 'unchecked', checkedAt: null, nextAt: null } }),
        scope(2, { orders: 0, audit: { state: 'unchecked', checkedAt: null, nextAt: null } })
      ]),
      sync
    })
    expect(l.kind).toBe('syncing')
    expect(l.text).toBe('Syncing orders: 28,333 orders here so far')
    expect(l.text).not.toMatch(/not checked/)
    // Some scopes done, others still in their first sync: they are named.
    const partly = line({
      coverage: coverage([
        scope(1, { orders: 52_346, audit: { state: 'unchecked', checkedAt: null, nextAt: now + 4 * MIN } }),
        scope(2, { orders: 500, audit: { state: 'unchecked', checkedAt: null } })
      ]),
      sync: [synced(1), runningState({ type: 1, fiatType: 2, lastSuccessAt: null })]
    })
    expect(partly.text).toBe('Syncing TRY orders: 52,846 orders here so far')
    expect(partly.more).toBe(1)
  })

  it('after the first sync says what is done about scopes not checked yet, with when and an estimate', () => {
    const scopes = [1, 2, 3, 4, 5, 6, 7, 8].map((f) =>
      scope(f, { audit: { state: 'unchecked', checkedAt: null, nextAt: now + (4 + f / 10) * MIN } })
    )
    const l = line({ coverage: coverage(scopes), sync: scopes.map((s) => synced(s.fiatType)) })
    expect(l).toMatchObject({ kind: 'unchecked', tone: 'progress' })
    expect(l.text).toBe('Orders not yet checked against the service: first check at 14:34 (in about 4 min)')
    // Only some: named, the rest counted.
    const some = line({ coverage: coverage([scope(1), ...scopes.slice(1)]), sync: scopes.map((s) => synced(s.fiatType)) })
    expect(some.text).toBe('Orders in TRY, AED and 5 more fiats not yet checked against the service: first check at 14:34 (in about 4 min)')
  })

  it('says a repair with its progress and an estimate, before anything less pressing', () => {
    const repairing = scope(1, { audit: { state: 'repairing', repair: { page: 3, pages: 12 }, startedAt: now - 45_000 } })
    const l = line({
      coverage: coverage([repairing, scope(2, { audit: { state: 'unchecked', checkedAt: null } })]),
      sync: [synced(1), synced(2)]
    })
    expect(l).toMatchObject({ kind: 'repairing', tone: 'attention', more: 1 })
    // 45 s for 3 pages: 9 pages more take about 2 min.
    expect(l.text).toBe('INR orders may be missing: reading them again from the service, 3 of 12 pages, about 2 min')
    expect(line({ coverage: coverage([repairing]), sync: [synced(1)] }, true).text).toMatch(/^Onramp INR orders may be missing/)
    const starting = scope(1, { audit: { state: 'repairing', repair: { page: 0, pages: 12 }, startedAt: now - 5000 } })
    expect(line({ coverage: coverage([starting]) }).text).toBe(
      'INR orders may be missing: reading them again from the service, 0 of 12 pages, starting'
    )
  })

  it('names a difference, a probe that failed and stale statuses in plain words, none of the technical gap texts', () => {
    const missing = scope(1, {
      orders: 988,
      audit: {
        state: 'incomplete',
        serviceOrders: 1000,
        error: '12 orders the service holds are not here after 1 full read; read again in full after 15:00 UTC',
        nextAt: now + 30 * MIN
      }
    })
    expect(line({ coverage: coverage([missing]) }).text).toBe(
      '12 orders may be missing from INR: the service counts more than are here; checked again at 15:00 (in about 30 min)'
    )
    const failed = scope(4, { probe: 'failed', error: 'api 500: server problem', nextProbeAt: now + 5 * MIN })
    const gaps: CoverageGap[] = [
      {
        kind: 'probe',
        text: 'Onramp MXN: could not be probed (api 500: server problem); orders there may be missing',
        type: 1,
        fiatType: 4
      },
      { kind: 'reading', text: 'merchantHistory not yet checked: since filters on (assumed updatedAt)', type: null, fiatType: null },
      { kind: 'freshness', text: '3 open orders not confirmed by the service within 10 min', type: null, fiatType: null }
    ]
    const states = proofStates({
      coverage: coverage([scope(1), failed], gaps, { ...freshness, stale: 3 }),
      sync: [synced(1)],
      type: 1,
      now
    })
    const texts = states.map((p) => proofText(p, words, { both: false, now }).text)
    expect(texts).toEqual([
      'MXN orders may be missing: the service could not be asked; asked again at 14:35 (in about 5 min)',
      '3 open orders not confirmed by the service in the last 10 min: asking again',
      'Checking how the service lists orders, so that none is skipped'
    ])
    for (const t of texts) expect(t).not.toMatch(/merchantHistory|orderStatus|api 500|probed|scope/)
  })

  it("leaves the hub's absence to the notice that names it, and a type's scopes to its own view", () => {
    const hub: CoverageGap = { kind: 'hub', text: 'Team hub unreachable since 14:05 UTC: ...', type: null, fiatType: null }
    expect(line({ coverage: coverage([scope(1)], [hub]) }).kind).toBe('hub')
    const offramp = { ...scope(1, { audit: { state: 'repairing', repair: { page: 1, pages: 4 } } }), type: 2 as const }
    expect(line({ coverage: coverage([scope(1), offramp]), sync: [synced(1)] }).kind).toBe('complete')
    expect(proofStates({ coverage: coverage([scope(1), offramp]), sync: [], type: null, now })[0]!.kind).toBe('repairing')
  })

  it('says the service holds none when every scope was probed empty, and nothing known before any coverage', () => {
    expect(line({ coverage: coverage([scope(1, { probe: 'empty', orders: 0 })]) }).text).toBe('The service holds no orders here')
    expect(line({ coverage: null }).kind).toBe('unknown')
  })
})

describe('scopeDetail', () => {
  it('says each scope in plain words with its count', () => {
    expect(scopeDetail(scope(1, { orders: 1 }), words, now)).toBe('1 order · complete, checked 14:28')
    expect(scopeDetail(scope(1, { audit: { state: 'unchecked', checkedAt: null, nextAt: now + 4 * MIN } }), words, now)).toBe(
      '1,000 orders · not checked yet, first check at 14:34'
    )
    expect(scopeDetail(scope(1, { audit: { state: 'repairing', repair: { page: 2, pages: 5 } } }), words, now)).toBe(
      '1,000 orders · reading again, 2 of 5 pages'
    )
    expect(scopeDetail(scope(1, { audit: { error: 'the check could not finish: connect ECONNREFUSED 127.0.0.1:1' } }), words, now)).toBe(
      '1,000 orders · the last check could not finish'
    )
    expect(scopeDetail(scope(4, { probe: 'failed' }), words, now)).toBe('the service could not be asked whether it holds any')
  })
})

describe('aboutText and listText', () => {
  it('rounds an estimate as an operator says it', () => {
    expect(aboutText(20_000)).toBe('under a minute')
    expect(aboutText(135_000)).toBe('about 2 min')
    expect(aboutText(3 * 60 * MIN)).toBe('about 3 h')
  })
  it('names up to four, then two and counts the rest', () => {
    expect(listText(['INR'])).toBe('INR')
    expect(listText(['INR', 'TRY'])).toBe('INR and TRY')
    expect(listText(['INR', 'TRY', 'AED'])).toBe('INR, TRY and AED')
    expect(listText(['INR', 'TRY', 'AED', 'MXN'], 'fiat')).toBe('INR, TRY, AED and MXN')
    expect(listText(['a', 'b', 'c', 'd', 'e'])).toBe('a, b and 3 more')
    expect(listText(['a', 'b', 'c', 'd', 'e'], 'fiat')).toBe('a, b and 3 more fiats')
  })
})
