// The tray's state by precedence: offline or sync failing, then orders needing
// attention (with their count), then orders in progress, then nothing; with the icon
// variant, the macOS title and the tooltip that go with each. Each state is said once, in
// the operator's words: the detail says what the headline does not, with no error code,
// endpoint name or library text.
import { describe, expect, it } from 'vitest'
import { trayIconFile, trayState } from '../../../src/main/tray-state'
import type { ErrorInfo, SyncState } from '../../../src/shared/ipc/contract'
import { syncState } from '../../support/sync-state'

const sync = (lastError: ErrorInfo | null = null, type: 1 | 2 = 1): SyncState => syncState({ type, lastSuccessAt: 1, lastError })
const network: ErrorInfo = { kind: 'network', message: 'connect ECONNREFUSED 10.0.0.1:443', endpoint: 'merchantHistory', retryable: true }
const auth: ErrorInfo = { kind: 'auth', message: 'Invalid signature', endpoint: 'merchantHistory', httpStatus: 401, retryable: false }

describe('trayState', () => {
  it('is quiet when nothing needs the operator', () => {
    expect(trayState({ sync: [sync(), sync(null, 2)], attention: 0, inProgress: 0 })).toEqual({
      level: 'idle',
      icon: 'idle',
      headline: 'Nothing needs you',
      detail: null,
      attention: 0,
      inProgress: 0,
      title: '',
      tooltip: 'Rampdesk · Nothing needs you',
      gaps: []
    })
  })

  it('never says all is well while it knows orders may be missing', () => {
    const gaps = ['Offramp TRY: not probed yet, orders there may be missing']
    const s = trayState({ sync: [sync()], attention: 0, inProgress: 0, gaps })
    expect(s).toMatchObject({ level: 'idle', headline: 'Orders may be missing', gaps })
    expect(s.tooltip).toContain(gaps[0])
    expect(trayState({ sync: [sync()], attention: 0, inProgress: 0, gaps: [...gaps, 'x'] }).tooltip).toContain('2 known gaps')
  })

  it('says whether orders may be missing in one plain line in the tooltip, instead of the technical gap texts', () => {
    const gaps = [
      'merchantHistory not yet checked: since filters on (assumed updatedAt)',
      'Onramp INR: incomplete: repairing (3 of 12 pages)'
    ]
    const proof = 'Onramp INR orders may be missing: reading them again from the service, 3 of 12 pages, about 2 min'
    const s = trayState({ sync: [sync()], attention: 0, inProgress: 0, gaps, proof })
    expect(s.tooltip).toBe(`Rampdesk · Orders may be missing · ${proof}`)
    expect(s.tooltip).not.toMatch(/merchantHistory|known gaps/)
    // The gaps themselves stay in the state, for Diagnostics and scripts.
    expect(s.gaps).toEqual(gaps)
  })

  it('shows orders in progress when nothing else needs the operator', () => {
    const s = trayState({ sync: [sync()], attention: 0, inProgress: 5 })
    expect(s).toMatchObject({ level: 'progress', icon: 'progress', headline: '5 orders in progress', title: '5 in progress' })
    expect(s.tooltip).toBe('Rampdesk · 5 orders in progress')
    expect(trayState({ sync: [], attention: 0, inProgress: 1 }).headline).toBe('1 order in progress')
  })

  it('puts orders needing attention, with their count, before orders in progress', () => {
    const s = trayState({ sync: [sync()], attention: 3, inProgress: 5 })
    expect(s).toMatchObject({ level: 'attention', icon: 'attention', headline: '3 orders need attention', title: '3 need attention' })
    expect(s.tooltip).toBe('Rampdesk · 3 orders need attention · 5 orders in progress')
    expect(trayState({ sync: [], attention: 1, inProgress: 0 })).toMatchObject({
      headline: '1 order needs attention',
      title: '1 needs attention'
    })
  })

  it('puts a failing sync before everything, and says why in words', () => {
    const s = trayState({ sync: [sync(), sync(auth, 2)], attention: 3, inProgress: 5 })
    expect(s).toMatchObject({ level: 'failing', icon: 'error', headline: 'Order sync is failing', title: 'Sync failing' })
    expect(s.detail).toContain("The service refused this profile's API key or secret. Check them in Settings → Credentials.")
    expect(s.detail).not.toMatch(/merchantHistory|Invalid signature|401/)
    expect(s.detail).toContain('from the last successful sync')
    expect(s.tooltip).toBe('Rampdesk · Order sync is failing · 3 orders need attention · 5 orders in progress')
  })

  it('calls an unreachable service offline, even beside another failure', () => {
    const s = trayState({ sync: [sync(auth), sync(network, 2)], attention: 0, inProgress: 0 })
    expect(s).toMatchObject({ level: 'offline', icon: 'error', headline: 'Offline: orders are not updating', title: 'Offline' })
    expect(s.detail).toBe('The service cannot be reached; Rampdesk tries again by itself. What you see is from the last successful sync.')
    // Neither the library's code, the address nor the endpoint reaches the operator.
    expect(s.detail).not.toMatch(/ECONNREFUSED|10\.0\.0\.1|merchantHistory/)
    const timeout = trayState({ sync: [sync({ kind: 'timeout', message: 'no answer', retryable: true })], attention: 0, inProgress: 0 })
    expect(timeout.level).toBe('offline')
  })

  it('names a revoked team token and a missing secret as what to do, with no promise of a retry', () => {
    const revoked: ErrorInfo = { kind: 'access_revoked', message: 'this operator token is unknown or was revoked', retryable: false }
    const s = trayState({ sync: [sync(revoked), sync(revoked, 2)], attention: 2, inProgress: 0 })
    expect(s).toMatchObject({
      level: 'failing',
      icon: 'error',
      headline: "Your access was revoked: ask your team's admin",
      title: 'Access revoked'
    })
    // The headline says it was revoked and whom to ask; the detail only what to do next, not the same again.
    expect(s.detail).toBe('Store the new operator token in Settings → Credentials. What you see is from the last successful sync.')
    expect(s.detail).not.toMatch(/revoked|retries|base URL|could not be reached/)
    const secret: ErrorInfo = { kind: 'missing_secret', message: 'no API secret is stored', retryable: false }
    expect(trayState({ sync: [sync(secret)], attention: 0, inProgress: 0 })).toMatchObject({
      level: 'failing',
      headline: 'No API secret stored: add it in Settings'
    })
  })

  it("calls a team hub out of reach the hub's trouble, not the service's", () => {
    const hub: ErrorInfo = {
      kind: 'hub_unreachable',
      message: 'the team hub at https://hub.example is unreachable (ECONNREFUSED)',
      retryable: true
    }
    const s = trayState({ sync: [sync(hub)], attention: 0, inProgress: 0 })
    expect(s).toMatchObject({ level: 'offline', headline: "Offline: your team's hub cannot be reached" })
    expect(s.detail).toMatch(/^Rampdesk reconnects by itself; if it stays away, ask your team's admin whether the hub is running\./)
    expect(s.detail).not.toMatch(/base URL|ECONNREFUSED|cannot be reached/)
  })

  it('never speaks of a last successful sync when there was none', () => {
    const never = syncState({ type: 1, lastSuccessAt: null, lastError: network })
    const s = trayState({ sync: [never], attention: 0, inProgress: 0 })
    expect(s.detail).toContain('Nothing has been synced yet')
    expect(s.detail).not.toContain('last successful sync')
  })

  it('does not count a request cancelled by a profile switch as a failure', () => {
    const s = trayState({ sync: [sync({ kind: 'aborted', message: 'aborted', retryable: false })], attention: 0, inProgress: 2 })
    expect(s.level).toBe('progress')
  })

  it('writes counts in the OS locale', () => {
    expect(trayState({ sync: [], attention: 0, inProgress: 100_000, locale: 'en-IN' }).headline).toBe('1,00,000 orders in progress')
    expect(trayState({ sync: [], attention: 1234, inProgress: 0, locale: 'bad locale!' }).title).toBe('1,234 need attention')
  })
})

describe('trayIconFile', () => {
  it('names one file per variant and theme, with the @2x file beside it', () => {
    expect(trayIconFile('attention', 'dark')).toBe('tray-attention-dark.png')
    expect(trayIconFile('idle', 'light', 2)).toBe('tray-idle-light@2x.png')
  })
})

describe('trayState with stalled orders and unwell chains', () => {
  const chain = '7 withdrawals of USDT on TRC20 while its node is out of sync'
  it('needs the operator for stalled orders or an unwell chain even when no status does', () => {
    expect(trayState({ sync: [sync()], attention: 0, inProgress: 3, stalled: 2, chains: [chain] })).toMatchObject({
      level: 'attention',
      icon: 'attention',
      headline: '2 orders stalled',
      title: '2 stalled',
      tooltip: `Rampdesk · 2 orders stalled · ${chain} · 3 orders in progress`
    })
    expect(trayState({ sync: [sync()], attention: 0, inProgress: 0, stalled: 0, chains: [chain] })).toMatchObject({
      level: 'attention',
      headline: chain,
      title: 'Chain trouble',
      tooltip: `Rampdesk · ${chain}`
    })
  })
  it('tells them after the orders needing attention', () => {
    expect(trayState({ sync: [sync()], attention: 1, inProgress: 0, stalled: 1, chains: [chain] }).tooltip).toBe(
      `Rampdesk · 1 order needs attention · 1 order stalled · ${chain}`
    )
  })
})
