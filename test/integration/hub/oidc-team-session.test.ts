// A desktop's Team profile signed in through the hub's identity provider, end to end through
// the real services (createServices) and a real hub, with an OpenID provider on loopback and
// the system browser a client that follows redirects: "Sign in with" (profiles:signIn) makes
// the profile active with the claim's role, no token pasted; every hub call carries the
// session's access token, renewed before it lapses (a compressed clock); when the provider
// disables the person, the line says in words that the sign-in ended, the stored session is
// gone, and signing in again works. Nothing of the session reaches the window's answers.
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createServices, type Services } from '../../../src/main/services'
import { invokeChannel } from '../../../src/main/handlers/invoke'
import type { SqliteHubStore } from '../../../src/hub/sqlite-hub-store'
import { SANDBOX_PROFILE_ID } from '../../../src/main/profiles/profile-store'
import type { ChannelInput, ChannelName, Envelope, TeamAccess } from '../../../src/shared/ipc/contract'
import { memorySafeStorage } from '../../support/memory-safe-storage'
import { hubOidcConfig, startTestProvider, type TestProvider } from '../../support/oidc-provider'
import { startHubFixture, type HubFixture } from './support'
import { browse } from './oidc-flow'

const SESSION_MS = 15 * 60_000
const Q = { filter: { type: 1 as const }, offset: 0, limit: 5 }

describe('a Team profile signed in through the identity provider', () => {
  let provider: TestProvider
  let f: HubFixture
  let services: Services
  let dataDir: string
  let offset = 0
  const clock = () => Date.now() + offset
  /** Every answer the window got, to look for the session's tokens in. */
  const seen: string[] = []

  async function call<C extends ChannelName>(channel: C, input: ChannelInput<C>): Promise<Envelope<unknown>> {
    const env = await invokeChannel(services.handlers, channel, input)
    seen.push(JSON.stringify(env))
    return env
  }
  async function value<C extends ChannelName>(channel: C, input: ChannelInput<C>): Promise<unknown> {
    const env = await call(channel, input)
    if (!env.ok) throw new Error(`${channel}: ${env.error.message}`)
    return env.value
  }
  async function access(): Promise<NonNullable<TeamAccess['team']>> {
    return ((await value('team:access', {})) as TeamAccess).team!
  }

  beforeEach(async () => {
    offset = 0
    seen.length = 0
    provider = await startTestProvider()
    const oidc = hubOidcConfig(provider, SESSION_MS)
    f = await startHubFixture({ sandbox: { orders: 3 }, hub: { now: clock }, server: { oidc, now: clock, streamCheckMs: 100 } })
    dataDir = await mkdtemp(join(tmpdir(), 'rampdesk-oidc-desktop-'))
    services = await createServices({
      dataDir,
      exportDir: join(dataDir, 'exports'),
      version: '0.0.0-test',
      shellKind: 'electron',
      safeStorage: memorySafeStorage(),
      keychain: false,
      now: clock,
      sandbox: { orders: 2, autoGenerate: false },
      shell: { openExternal: browse },
      team: { minRetryMs: 100, maxRetryMs: 400 }
    })
    await services.start()
  })
  afterEach(async () => {
    await services?.close()
    await f?.close()
    await provider?.close()
    await rm(dataDir, { recursive: true, force: true })
  })

  it('signs in with the role the claim gives, renews before the session lapses, and says in words when the provider ends it', async () => {
    provider.person.groups = ['rd-operators']
    const profile = (await value('profiles:create', { name: 'Team SSO', baseUrl: f.url, kind: 'team' })) as { id: string }
    expect(await value('profiles:signInInfo', { id: profile.id })).toEqual({
      offer: { kind: 'provider', provider: 'Test IdP', sessionMinutes: 15 },
      signIn: { kind: 'none' },
      waiting: false
    })

    expect(await value('profiles:signIn', { id: profile.id })).toEqual({ kind: 'signed-in', operator: 'ana', role: 'operator' })
    expect(services.teamSession()?.profile.id).toBe(profile.id)
    expect(await access()).toMatchObject({ operator: 'ana', role: 'operator' })
    expect(await value('profiles:signInInfo', { id: profile.id })).toMatchObject({
      signIn: { kind: 'signed-in', operator: 'ana', role: 'operator' }
    })
    const first = await call('orders:query', Q)
    expect(first, JSON.stringify(first)).toMatchObject({ ok: true })
    expect(provider.grants.filter((g) => g === 'refresh_token')).toHaveLength(0)

    await expect.poll(async () => (await access()).connected, { timeout: 10_000 }).toBe(true)
    // From here the windows must not see the line drop: the hub closes the stream opened with the old token.
    const drops: unknown[] = []
    services.subscribe((event, payload) => {
      if (event === 'team:access' && !(payload as TeamAccess).team?.connected) drops.push(payload)
    })

    // Half a minute before the access token lapses, the next call renews it with the hub (which asks the provider).
    offset += SESSION_MS - 30_000
    expect(await call('orders:query', Q)).toMatchObject({ ok: true })
    expect(provider.grants.filter((g) => g === 'refresh_token')).toHaveLength(1)
    // The stream was opened again with the renewed token before the hub's check (every 100 ms) closed the old one.
    await new Promise((r) => setTimeout(r, 1000))
    expect(drops).toEqual([])
    expect(await access()).toMatchObject({ connected: true, line: 'connected' })
    // Past the first token's end: the renewed one is the one in use.
    offset += 60_000
    expect(await call('orders:query', Q)).toMatchObject({ ok: true })

    // Disabled at the provider: at the next renewal the hub ends the session.
    provider.person.disabled = true
    offset += SESSION_MS
    const refused = await call('orders:query', Q)
    expect(refused).toMatchObject({
      ok: false,
      error: { kind: 'access_revoked', reason: 'signed-out', message: 'Test IdP ended your sign-in. Sign in again.' }
    })
    await expect.poll(async () => (await access()).line, { timeout: 10_000 }).toBe('revoked')
    expect(await access()).toMatchObject({ refusal: 'signed-out', connected: false })
    expect(await value('profiles:signInInfo', { id: profile.id })).toMatchObject({
      signIn: { kind: 'ended', message: 'Test IdP ended your sign-in. Sign in again.' }
    })
    // The session is gone from the secret store: nothing is left to renew with.
    expect(await value('secrets:status', { profileId: profile.id })).toMatchObject({ has: false })

    // Back at the provider: signing in again opens the line again.
    provider.person.disabled = false
    expect(await value('profiles:signIn', { id: profile.id })).toEqual({ kind: 'signed-in', operator: 'ana', role: 'operator' })
    await expect.poll(async () => (await access()).line, { timeout: 10_000 }).toBe('connected')

    // No answer to the window carried a session token (rds_ access, rdr_ refresh).
    expect(seen.join('\n')).not.toMatch(/rd[sr]_/)
  })

  it('signs out at the hub and here; with the hub out of reach, deletes the copy here and says when the access it held lapses', async () => {
    provider.person.groups = ['rd-operators']
    const profile = (await value('profiles:create', { name: 'Team SSO', baseUrl: f.url, kind: 'team' })) as { id: string }
    await value('profiles:signIn', { id: profile.id })
    expect(await value('profiles:signOut', { id: profile.id })).toEqual({ kind: 'signed-out' })
    const out = (await f.hub.audit.list(20)).filter((e) => e.action === 'oidc:signedOut')
    expect(out.map((e) => e.operator)).toEqual(['ana'])
    expect(await value('secrets:status', { profileId: profile.id })).toMatchObject({ has: false })
    expect(await value('profiles:signInInfo', { id: profile.id })).toMatchObject({
      signIn: { kind: 'ended', message: 'You signed out. Sign in again.' }
    })
    // The line to the hub says so too, not that no token is stored or the hub is away.
    await expect.poll(async () => (await access()).line, { timeout: 10_000 }).toBe('revoked')
    expect(await access()).toMatchObject({ refusal: 'signed-out' })

    await value('profiles:signIn', { id: profile.id })
    await f.stopHub()
    try {
      const here = (await value('profiles:signOut', { id: profile.id })) as { kind: string; endsAt: number }
      expect(here.kind).toBe('signed-out-here')
      expect(Math.abs(here.endsAt - (clock() + SESSION_MS))).toBeLessThan(10_000)
      expect(await value('secrets:status', { profileId: profile.id })).toMatchObject({ has: false })
    } finally {
      await f.startHub()
    }
    expect(seen.join('\n')).not.toMatch(/rd[sr]_/)
  })

  it('ends the session at the hub when its profile is deleted, or moved to another address', async () => {
    provider.person.groups = ['rd-operators']
    const signedOut = async () => (await f.hub.audit.list(50)).filter((e) => e.action === 'oidc:signedOut').length
    /** Sessions standing at the hub. */
    const standing = () => (f.hub.store as SqliteHubStore).sql.value<number>('SELECT COUNT(*) FROM oidc_sessions WHERE ended_at IS NULL')
    const one = (await value('profiles:create', { name: 'Team SSO', baseUrl: f.url, kind: 'team' })) as { id: string }
    await value('profiles:signIn', { id: one.id })
    expect(standing()).toBe(1)
    await value('profiles:delete', { id: one.id })
    await expect.poll(signedOut, { timeout: 10_000 }).toBe(1)
    expect(standing()).toBe(0)

    const two = (await value('profiles:create', { name: 'Team SSO 2', baseUrl: f.url, kind: 'team' })) as { id: string }
    await value('profiles:signIn', { id: two.id })
    expect(standing()).toBe(1)
    await value('profiles:switch', { id: SANDBOX_PROFILE_ID })
    // Another address (here the same hub by name): the credential goes, and the session at the old one ends.
    await value('profiles:update', { id: two.id, patch: { baseUrl: f.url.replace('127.0.0.1', 'localhost') } })
    await expect.poll(signedOut, { timeout: 10_000 }).toBe(2)
    expect(standing()).toBe(0)
    expect(await value('secrets:status', { profileId: two.id })).toMatchObject({ has: false })
    // An edit that keeps the address keeps the session.
    await value('profiles:signIn', { id: two.id })
    await value('profiles:update', { id: two.id, patch: { name: 'Team SSO two' } })
    expect(await value('secrets:status', { profileId: two.id })).toMatchObject({ has: true })
    expect(await signedOut()).toBe(2)
    expect(standing()).toBe(1)
  })

  it('keeps a refused sign-in’s words for the profile, and leaves the active profile as it was', async () => {
    provider.person.groups = ['everyone']
    const profile = (await value('profiles:create', { name: 'Team none', baseUrl: f.url, kind: 'team' })) as { id: string }
    const env = await call('profiles:signIn', { id: profile.id })
    const words = `Your Test IdP account has no Rampdesk role: ask your team lead to add you to one of: rd-admins, rd-operators, rd-viewers`
    expect(env).toMatchObject({ ok: false, error: { kind: 'sign_in_refused', message: words } })
    expect(await value('profiles:signInInfo', { id: profile.id })).toMatchObject({ signIn: { kind: 'refused', message: words } })
    expect(services.teamSession()).toBeNull()
    expect(await value('secrets:status', { profileId: profile.id })).toMatchObject({ has: false })
  })

  it('says a hub that signs no one in through a provider takes pasted tokens', async () => {
    const plain = await startHubFixture({ sandbox: { orders: 1 } })
    try {
      const profile = (await value('profiles:create', { name: 'Team tokens', baseUrl: plain.url, kind: 'team' })) as { id: string }
      expect(await value('profiles:signInInfo', { id: profile.id })).toEqual({
        offer: { kind: 'tokens-only' },
        signIn: { kind: 'none' },
        waiting: false
      })
      expect(await call('profiles:signIn', { id: profile.id })).toMatchObject({ ok: false, error: { kind: 'sign_in_unavailable' } })
    } finally {
      await plain.close()
    }
  })
})
