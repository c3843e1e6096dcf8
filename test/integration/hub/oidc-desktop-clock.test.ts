// A desktop whose clock is not the hub's, signed in through the identity provider against a real
// hub and an OpenID provider on loopback: it counts its session's end from the hub's expiresIn
// on its own clock, so a clock minutes ahead does not renew at every call and one minutes behind
// renews before the hub refuses the token; a hub that refuses the access token all the same
// gets it renewed once and the call (or the CSV export) sent again, and only a refused renewal
// says the sign-in ended. Signing out tells the hub, or says it could not.
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { HubConnection } from '../../../src/main/team/hub-connection'
import { HubSession } from '../../../src/main/team/oidc-session'
import { signInThroughBrowser, type OidcSessionTokens } from '../../../src/main/team/oidc-sign-in'
import { hubOidcConfig, startTestProvider, type TestProvider } from '../../support/oidc-provider'
import { startHubFixture, type HubFixture } from './support'
import { browse } from './oidc-flow'

const SESSION_MS = 15 * 60_000
const MIN = 60_000

describe('a desktop whose clock is not the hub’s', () => {
  let provider: TestProvider
  let f: HubFixture
  /** The hub's clock, and the desktop's, each off real time by its own offset. */
  let hubOffset = 0
  let deskOffset = 0
  const hubClock = () => Date.now() + hubOffset
  const deskClock = () => Date.now() + deskOffset
  const renewals = () => provider.grants.filter((g) => g === 'refresh_token').length
  const connections: HubConnection[] = []

  beforeEach(async () => {
    hubOffset = 0
    deskOffset = 0
    provider = await startTestProvider()
    provider.person.groups = ['rd-operators']
    f = await startHubFixture({
      sandbox: { orders: 3 },
      hub: { now: hubClock },
      server: { oidc: hubOidcConfig(provider, SESSION_MS), now: hubClock }
    })
  })
  afterEach(async () => {
    for (const c of connections.splice(0)) await c.close()
    await f?.close()
    await provider?.close()
  })

  async function signedIn(saved: Array<OidcSessionTokens | null> = []): Promise<HubSession> {
    const tokens = await signInThroughBrowser({ hubUrl: f.url, openExternal: browse, now: deskClock })
    return new HubSession({ hubUrl: f.url, tokens, save: async (t) => void saved.push(t), now: deskClock })
  }

  it('ahead by 14½ minutes, does not renew at every call', async () => {
    deskOffset = 14.5 * MIN
    const session = await signedIn()
    const first = await session.token()
    expect(await session.token()).toBe(first)
    expect(await session.token()).toBe(first)
    expect(renewals()).toBe(0)
    expect((await f.rpc(first, 'team:access')).status).toBe(200)
    // It renews a minute before the end as it counts it.
    deskOffset += SESSION_MS - 30_000
    hubOffset += SESSION_MS - 30_000
    expect(await session.token()).not.toBe(first)
    expect(renewals()).toBe(1)
  })

  it('behind by 3 minutes, renews before the hub would refuse the token', async () => {
    deskOffset = -3 * MIN
    const session = await signedIn()
    const first = await session.token()
    // 15½ minutes on: the hub counts the token lapsed; the desktop, counting from its answer, renews first.
    deskOffset += 15.5 * MIN
    hubOffset += 15.5 * MIN
    const renewed = await session.token()
    expect(renewed).not.toBe(first)
    expect(renewals()).toBe(1)
    expect((await f.rpc(renewed, 'team:access')).status).toBe(200)
  })

  it('renews once and sends the call again when the hub refuses the access token, and says the sign-in ended only when renewal is refused', async () => {
    const session = await signedIn()
    const connection = new HubConnection({ hubUrl: f.url, token: (refused) => session.token(refused), onEvent: () => undefined })
    connections.push(connection)
    expect(await connection.call('team:access', {})).toMatchObject({ ok: true })
    // The hub's clock jumps past the token's end (a hub restored, a clock corrected); the desktop's does not.
    hubOffset += SESSION_MS + MIN
    const after = await connection.call('team:access', {})
    expect(after, JSON.stringify(after)).toMatchObject({ ok: true, value: { team: { operator: 'ana' } } })
    expect(renewals()).toBe(1)

    // Again, and the provider has disabled the person meanwhile: the renewal is refused, and that is what the call says.
    provider.person.disabled = true
    hubOffset += SESSION_MS + MIN
    expect(await connection.call('team:access', {})).toMatchObject({
      ok: false,
      error: { kind: 'access_revoked', reason: 'signed-out', message: 'Test IdP ended your sign-in. Sign in again.' }
    })
    expect(session.current.kind).toBe('ended')
  })

  it('renews once and sends the CSV export again when the hub refuses the access token', async () => {
    const session = await signedIn()
    const connection = new HubConnection({ hubUrl: f.url, token: (refused) => session.token(refused), onEvent: () => undefined })
    connections.push(connection)
    hubOffset += SESSION_MS + MIN
    const r = await connection.post('/export/orders', { filter: { type: 1 } })
    const text = await r.body.text()
    expect(r.statusCode, text).toBe(200)
    expect(text.split('\n')[0]).toMatch(/order/i)
    expect(renewals()).toBe(1)
  })

  it('a refused access token whose renewal cannot be made just now is the hub out of reach, not access revoked', async () => {
    const tokens = await signInThroughBrowser({ hubUrl: f.url, openExternal: browse, now: deskClock })
    // Renewals go to a hub that does not answer (a closed port); calls to the live one.
    const session = new HubSession({ hubUrl: 'http://127.0.0.1:9', tokens, save: async () => undefined, now: deskClock })
    const connection = new HubConnection({ hubUrl: f.url, token: (refused) => session.token(refused), onEvent: () => undefined })
    connections.push(connection)
    expect(await connection.call('team:access', {})).toMatchObject({ ok: true })
    hubOffset += SESSION_MS + MIN
    const after = await connection.call('team:access', {})
    expect(after, JSON.stringify(after)).toMatchObject({ ok: false, error: { kind: 'hub_unreachable', retryable: true } })
    expect(session.current.kind).not.toBe('ended')
  })

  it('a renewed session the keychain failed to keep is kept on a second try, or said when it never could be', async () => {
    const tokens = await signInThroughBrowser({ hubUrl: f.url, openExternal: browse, now: deskClock })
    const kept: OidcSessionTokens[] = []
    let failures = 1
    const session = new HubSession({
      hubUrl: f.url,
      tokens,
      now: deskClock,
      saveRetryMs: [20, 20],
      save: async (t) => {
        if (failures-- > 0) throw new Error('the keychain is locked')
        if (t) kept.push(t)
      }
    })
    deskOffset += SESSION_MS
    const renewed = await session.token()
    await expect.poll(() => kept.map((t) => t.accessToken)).toEqual([renewed])

    const failed: unknown[] = []
    const never = new HubSession({
      hubUrl: f.url,
      tokens: kept[0]!,
      now: deskClock,
      saveRetryMs: [20, 20],
      save: async () => {
        throw new Error('the keychain is locked')
      },
      onSaveFailed: (e) => failed.push(e)
    })
    deskOffset += SESSION_MS
    await never.token()
    await expect.poll(() => failed.map((e) => (e as Error).message)).toEqual(['the keychain is locked'])
  })

  it('signs out at the hub, or says it could not', async () => {
    const session = await signedIn()
    const token = await session.token()
    expect(await session.signOut()).toEqual({ kind: 'told' })
    expect((await f.rpc(token, 'team:access')).status).toBe(401)
    expect((await f.hub.audit.list(10)).map((e) => e.action)).toContain('oidc:signedOut')
    await expect(session.token()).rejects.toThrow('You signed out. Sign in again.')

    const other = await signedIn()
    await f.stopHub()
    try {
      expect(await other.signOut()).toEqual({ kind: 'not-told', why: 'the team hub did not answer' })
    } finally {
      await f.startHub()
    }
  })
})
