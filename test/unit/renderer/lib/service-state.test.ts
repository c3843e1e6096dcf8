// What stands between the operator and the service, most pressing first, each with the one
// action that helps: a revoked team token, the hub out of reach, no secret, the service
// down or slow, nothing synced yet.
import { describe, expect, it } from 'vitest'
import { problemNotice, serviceProblem, SLOW_AFTER_MS, type ServiceInputs } from '../../../../src/renderer/src/lib/service-state'
import type { ErrorInfo, ScopeCoverage, TeamAccess } from '../../../../src/shared/ipc/contract'
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

  it('says nothing was synced yet, and whether the first sync runs', () => {
    expect(serviceProblem(inputs({ sync: [runningState({ type: 1, lastSuccessAt: null })] }))).toEqual({
      kind: 'never-synced',
      running: true
    })
    expect(serviceProblem(inputs({ sync: [syncState({ type: 1, lastSuccessAt: null })] }))).toEqual({
      kind: 'never-synced',
      running: false
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
    expect(problemNotice({ kind: 'never-synced', running: true }).action).toBeNull()
    expect(problemNotice({ kind: 'never-synced', running: false }).action?.kind).toBe('sync')
  })
})
