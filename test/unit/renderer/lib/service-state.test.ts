// What stands between the operator and the service, most pressing first, each with the one
// action that helps: a revoked team token, the hub out of reach, no secret, the service
// down or slow, nothing synced yet.
import { describe, expect, it } from 'vitest'
import {
  neverSynced,
  problemNotice,
  serviceProblem,
  SLOW_AFTER_MS,
  syncMarks,
  type ServiceInputs
} from '../../../../src/renderer/src/lib/service-state'
import type { BudgetEntry, ErrorInfo, ScopeCoverage, TeamAccess } from '../../../../src/shared/ipc/contract'
import { runningState, syncState } from '../../../support/sync-state'

const err = (kind: string, extra: Partial<ErrorInfo> = {}): ErrorInfo => ({ kind, message: `${kind} happened`, retryable: false, ...extra })
const synced = (lastError: ErrorInfo | null = null) => syncState({ type: 1, lastSuccessAt: 1, lastError })
const team = (line: 'connected' | 'unreachable' | 'revoked'): TeamAccess => ({
  team: { hubUrl: 'https://hub.example', operator: 'rita', role: 'viewer', connected: line === 'connected', line },
  channels: []
})
const scope: ScopeCoverage = {
  type: 1,
  fiatType: 1,
  probe: 'active',
  probedAt: 1,
  nextProbeAt: null,
  orders: 0,
  audit: { state: 'unchecked', serviceOrders: null, checkedAt: null, nextAt: null, repair: null, error: null },
  error: null
}
const inputs = (over: Partial<ServiceInputs> = {}): ServiceInputs => ({
  sync: [synced()],
  access: null,
  configWaitingSince: null,
  now: 100_000,
  ...over
})

describe('serviceProblem', () => {
  it('is nothing when the service answers and orders were synced', () => {
    expect(serviceProblem(inputs())).toBeNull()
  })

  it('puts a revoked token first, then the hub out of reach, then a missing secret, then the service down', () => {
    const all = [synced(err('network')), synced(err('missing_secret')), synced(err('hub_unreachable')), synced(err('access_revoked'))]
    expect(serviceProblem(inputs({ sync: all }))?.kind).toBe('revoked')
    expect(serviceProblem(inputs({ sync: all.slice(0, 3) }))?.kind).toBe('hub-down')
    expect(serviceProblem(inputs({ sync: all.slice(0, 2) }))?.kind).toBe('no-secret')
    expect(serviceProblem(inputs({ sync: all.slice(0, 1) }))?.kind).toBe('service-down')
    // The team line says it before any sync state does.
    expect(serviceProblem(inputs({ access: team('revoked') }))?.kind).toBe('revoked')
    expect(serviceProblem(inputs({ access: team('unreachable') }))?.kind).toBe('hub-down')
    expect(serviceProblem(inputs({ access: team('connected') }))).toBeNull()
  })

  it("names a probe's error before any scope is found (no sync state yet to carry it)", () => {
    const scopes = (probe: 'unprobed' | 'failed' | 'empty' | 'refused') => [
      { ...scope, probe },
      { ...scope, fiatType: 5, probe: 'empty' as const }
    ]
    expect(serviceProblem(inputs({ sync: [], coverage: { probeError: err('missing_secret'), scopes: scopes('failed') } }))?.kind).toBe(
      'no-secret'
    )
    expect(serviceProblem(inputs({ sync: [], coverage: { probeError: err('network'), scopes: scopes('failed') } }))?.kind).toBe(
      'service-down'
    )
    // No scope found yet while one is still to be probed: nothing synced, said as such.
    expect(serviceProblem(inputs({ sync: [], coverage: { probeError: null, scopes: scopes('unprobed') } }))?.kind).toBe('never-synced')
    expect(serviceProblem(inputs({ sync: [], coverage: null }))?.kind).toBe('never-synced')
    // Every scope probed empty (or refused): the merchant has no orders, and that is no problem.
    expect(serviceProblem(inputs({ sync: [], coverage: { probeError: null, scopes: scopes('empty') } }))).toBeNull()
    expect(serviceProblem(inputs({ sync: [], coverage: { probeError: null, scopes: scopes('refused') } }))).toBeNull()
  })

  it("counts one type's orders where one type is shown, so the banner agrees with the table", () => {
    const held = {
      scopes: [
        { ...scope, orders: 500 },
        { ...scope, type: 2 as const, orders: 496 }
      ]
    }
    const first = [runningState({ type: 1, lastSuccessAt: null })]
    expect(neverSynced(first, held, 1)).toEqual({ kind: 'never-synced', running: true, orders: 500 })
    expect(neverSynced(first, held, 2).orders).toBe(496)
    expect(neverSynced(first, held).orders).toBe(996)
  })

  it('calls 5xx and maintenance the service down, not a refusal of one request', () => {
    expect(serviceProblem(inputs({ sync: [synced(err('api', { code: 503 }))] }))?.kind).toBe('service-down')
    expect(serviceProblem(inputs({ sync: [synced(err('http', { httpStatus: 502 }))] }))?.kind).toBe('service-down')
    expect(serviceProblem(inputs({ sync: [synced(err('timeout'))] }))?.kind).toBe('service-down')
    expect(serviceProblem(inputs({ sync: [synced(err('api', { code: 413 }))] }))).toBeNull()
  })

  it('calls the service slow once the configuration has been awaited for a while', () => {
    expect(serviceProblem(inputs({ configWaitingSince: 100_000 - SLOW_AFTER_MS + 1 }))).toBeNull()
    expect(serviceProblem(inputs({ configWaitingSince: 100_000 - 12_000 }))).toEqual({ kind: 'service-slow', waitingMs: 12_000 })
  })

  it('says nothing was synced yet, whether the first sync runs, and counts the orders it already brought', () => {
    expect(serviceProblem(inputs({ sync: [runningState({ type: 1, lastSuccessAt: null })] }))).toEqual({
      kind: 'never-synced',
      running: true,
      orders: 0
    })
    const held = {
      probeError: null,
      scopes: [
        { ...scope, orders: 28_333 },
        { ...scope, type: 2 as const, orders: 20_958 }
      ]
    }
    expect(serviceProblem(inputs({ sync: [syncState({ type: 1, lastSuccessAt: null })], coverage: held }))).toEqual({
      kind: 'never-synced',
      running: false,
      orders: 49_291
    })
  })
})

describe('problemNotice', () => {
  it('tells a revoked operator whom to ask, promising no retry', () => {
    const n = problemNotice({ kind: 'revoked', error: null })
    expect(n.title).toBe('Your access was revoked')
    expect(n.text).toMatch(/Ask your team's admin/)
    expect(`${n.title} ${n.text}`).not.toMatch(/retr|base URL|could not be reached/i)
    expect(n.action).toEqual({ kind: 'go', href: '#/settings', label: 'Open Settings' })
  })

  it('gives each state its one action', () => {
    expect(problemNotice({ kind: 'hub-down', error: null }).action?.kind).toBe('retry')
    // Nothing silent: the orders' completeness cannot be known while the hub is away.
    expect(problemNotice({ kind: 'hub-down', error: null }).text).toMatch(/whether every order is here cannot be known/)
    expect(problemNotice({ kind: 'no-secret', error: err('missing_secret') }).action).toMatchObject({ label: 'Add the secret' })
    expect(problemNotice({ kind: 'service-down', error: err('network', { message: 'ECONNREFUSED' }) }).action?.kind).toBe('sync')
    expect(problemNotice({ kind: 'service-down', error: err('api', { code: 503 }) }).title).toBe('The service is down for maintenance')
    expect(problemNotice({ kind: 'service-slow', waitingMs: 12_400 }).text).toMatch(/^No answer to the configuration for 12 s/)
    expect(problemNotice({ kind: 'never-synced', running: true, orders: 0 }).action).toBeNull()
    expect(problemNotice({ kind: 'never-synced', running: false, orders: 0 }).action?.kind).toBe('sync')
  })

  it('counts what the first sync already brought instead of saying none is here', () => {
    const n = problemNotice({ kind: 'never-synced', running: true, orders: 49_291 })
    expect(n.title).toBe('Syncing: 49,291 orders so far')
    expect(`${n.title} ${n.text}`).not.toMatch(/No orders|not been read/)
    expect(problemNotice({ kind: 'never-synced', running: true, orders: 1 }).title).toBe('Syncing: 1 order so far')
    // In the operator's locale.
    expect(problemNotice({ kind: 'never-synced', running: true, orders: 149_291 }, (x) => x.toLocaleString('en-IN')).title).toBe(
      'Syncing: 1,49,291 orders so far'
    )
    const stopped = problemNotice({ kind: 'never-synced', running: false, orders: 28_333 })
    expect(stopped.title).toBe('28,333 orders so far: the first sync has not finished')
    expect(stopped.action?.kind).toBe('sync')
    expect(problemNotice({ kind: 'never-synced', running: false, orders: 0 }).title).toBe('No orders synced yet')
  })

  it('names an outage as the service being unreachable, in plain words: no error code, endpoint or budget', () => {
    const refused = err('network', { message: 'connect ECONNREFUSED 127.0.0.1:34573 (ECONNREFUSED)', endpoint: 'merchantHistory' })
    const n = problemNotice({ kind: 'service-down', error: refused })
    expect(n.title).toBe('The service cannot be reached')
    expect(`${n.title} ${n.text}`).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|merchantHistory|budget/)
    expect(problemNotice({ kind: 'service-down', error: err('http', { httpStatus: 502, endpoint: 'limits' }) }).title).toBe(
      'The service is having trouble'
    )
    const hub = problemNotice({ kind: 'hub-down', error: err('hub_unreachable', { message: 'connect ECONNREFUSED 10.1.1.1:8443' }) })
    expect(hub.text).not.toMatch(/ECONNREFUSED|10\.1\.1\.1/)
  })
})

describe('syncMarks', () => {
  const queued = (endpoint: string, over: Partial<BudgetEntry> = {}): BudgetEntry => ({
    endpoint,
    limit: 60,
    usedInWindow: 60,
    queued: 3,
    nextSlotAt: 160_000,
    blockedUntil: null,
    ...over
  })
  const down = err('network', { message: 'connect ECONNREFUSED 127.0.0.1:34573', endpoint: 'merchantHistory' })

  it('during an outage says neither a budget wait nor a failing count: the notice names the service unreachable', () => {
    // Nine scopes failing, retrying (running) as the service does not answer.
    const sync = Array.from({ length: 9 }, (_, i) =>
      (i < 3 ? runningState : syncState)({ type: 1, fiatType: i + 1, lastSuccessAt: 1, lastError: down })
    )
    const budget = [queued('merchantHistory'), queued('orderStatus', { queued: 0, blockedUntil: 130_000 })]
    const problem = serviceProblem(inputs({ sync }))
    expect(problem?.kind).toBe('service-down')
    expect(syncMarks({ sync, budget, problem, now: 100_000 })).toEqual({ budget: null, failing: null, syncing: false })
    // The same for a hub out of reach or access revoked.
    for (const kind of ['hub_unreachable', 'access_revoked']) {
      const s = [syncState({ lastSuccessAt: 1, lastError: err(kind) })]
      expect(syncMarks({ sync: s, budget, problem: serviceProblem(inputs({ sync: s })), now: 100_000 })).toEqual({
        budget: null,
        failing: null,
        syncing: false
      })
    }
  })

  it('says a real wait for the budget, with how long, and a failure the notice does not name', () => {
    const sync = [synced(), syncState({ type: 2, lastSuccessAt: 1, lastError: err('schema', { path: 'data[3].fiatAmount' }) })]
    const marks = syncMarks({ sync, budget: [queued('merchantHistory')], problem: serviceProblem(inputs({ sync })), now: 100_000 })
    expect(marks.budget).toEqual({ waitMs: 60_000, endpoints: ['merchantHistory'] })
    expect(marks.failing?.errors.map((e) => e.kind)).toEqual(['schema'])
    // Waiting for its own budget is no failure; a cancelled request neither.
    const waiting = [
      syncState({ lastSuccessAt: 1, lastError: err('rate_limited', { origin: 'budget' }) }),
      syncState({ lastSuccessAt: 1, lastError: err('aborted') })
    ]
    expect(syncMarks({ sync: waiting, budget: [], problem: null, now: 100_000 })).toEqual({
      budget: { waitMs: null, endpoints: [] },
      failing: null,
      syncing: false
    })
  })
})
