// A session from the identity provider after its sign-in, on hub.db and on PostgreSQL (and on
// two hubs sharing one PostgreSQL database): each answer says how many seconds the access token
// has left; a renewal whose answer was lost can be asked again with the refresh token it
// replaced, once and for a short while, and gets the same session (audited); a second time, or
// after that while, the old token is refused and the session ends (a copy in other hands), also
// when two hubs are asked at once; signing out ends the session on every hub; and
// the provider's code is taken once, however the browser comes back with it.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { StoreKind } from '../../../src/hub/hub-store'
import { RENEWAL_GRACE_MS } from '../../../src/hub/oidc/oidc-service'
import { startSandbox, type Sandbox } from '../../../src/sandbox'
import { postgresUnavailable, startPostgres, type PgCluster } from '../../support/postgres-cluster'
import { hubOidcConfig, startTestProvider, type TestProvider } from '../../support/oidc-provider'
import { startHubFixture, type HubFixture } from './support'
import { get, post, signIn, startSignIn, type Session } from './oidc-flow'

const SESSION_MS = 15 * 60_000
const OLDER_COPY =
  'Your sign-in was ended because an older copy of it was used again. Sign in again; if you did not expect this, tell your team lead.'

/** The hubs under test: one, or two on one PostgreSQL database. */
const SETUPS: Array<[StoreKind, number]> = [
  ['sqlite', 1],
  ['postgres', 1],
  ['postgres', 2]
]

describe.each(SETUPS)('a session from the identity provider on %s, %i hub(s)', (kind, hubs) => {
  let provider: TestProvider
  let cluster: PgCluster | null = null
  let sandbox: Sandbox
  let a: HubFixture
  /** The other hub on the same database, or the same hub. */
  let b: HubFixture
  let offset = 0
  const clock = () => Date.now() + offset

  beforeAll(async () => {
    if (kind === 'postgres' && postgresUnavailable === null) cluster = await startPostgres()
  })
  afterAll(async () => {
    await cluster?.stop()
  })
  beforeEach(async (ctx) => {
    if (kind === 'postgres' && !cluster) return ctx.skip()
    offset = 0
    provider = await startTestProvider()
    sandbox = await startSandbox({ orders: 3, seed: 5, autoGenerate: false })
    const database = cluster ? { url: await cluster.createDatabase() } : undefined
    const each = () =>
      startHubFixture({
        sharedSandbox: sandbox,
        hub: { now: clock, database },
        server: { oidc: hubOidcConfig(provider, SESSION_MS), now: clock }
      })
    a = await each()
    b = hubs === 2 ? await each() : a
  })
  afterEach(async () => {
    if (b !== a) await b?.close()
    await a?.close()
    await sandbox?.close()
    await provider?.close()
  })

  /** What each hub's cache of sessions says now (PostgreSQL reads it again every second and on notice). */
  const caught = async () => {
    for (const f of new Set([a, b])) await (f.hub.store.oidc as { refresh?: () => Promise<void> }).refresh?.()
  }
  /** The audit entries of this action, every hub's written first (PostgreSQL's are queued). */
  const audited = async (action: string) => {
    for (const f of new Set([a, b])) await f.hub.audit.list(1)
    return (await a.hub.audit.list(50)).filter((e) => e.action === action)
  }
  const refresh = (f: HubFixture, refreshToken: string) => post(`${f.url}/auth/oidc/refresh`, { refreshToken })
  async function signedIn(): Promise<Session> {
    provider.person.groups = ['rd-operators']
    const r = await signIn(a.url, provider.issuer)
    if (r.kind !== 'ok') throw new Error(`refused: ${r.message}`)
    return r.session
  }

  it('says how many seconds the access token has left, on the hub’s clock or not', async () => {
    const s = await signedIn()
    expect(s.expiresIn).toBeGreaterThanOrEqual(SESSION_MS / 1000 - 2)
    expect(s.expiresIn).toBeLessThanOrEqual(SESSION_MS / 1000)
    // expiresAt stays, for desktops that read it.
    expect(Math.abs(s.expiresAt - (clock() + s.expiresIn * 1000))).toBeLessThan(2_000)
    offset += 10 * 60_000
    const renewed = (await refresh(b, s.refreshToken)).json.value!
    expect(renewed.expiresIn).toBeGreaterThanOrEqual(SESSION_MS / 1000 - 2)
    expect(renewed.expiresAt).toBeGreaterThan(s.expiresAt)
  })

  it('answers a renewal asked again with the replaced refresh token with the same session, without the provider, for a while', async () => {
    const s = await signedIn()
    const first = await refresh(a, s.refreshToken)
    expect(first.status).toBe(200)
    const s2 = first.json.value!
    const asked = provider.grants.length
    // The answer never reached the desktop: it asks again (of the other hub, when there are two), with what it holds.
    offset += RENEWAL_GRACE_MS - 1_000
    const again = await refresh(b, s.refreshToken)
    expect(again.status).toBe(200)
    expect(again.json.value).toEqual({ ...s2, expiresIn: expect.any(Number) })
    expect(again.json.value!.expiresIn).toBeLessThan(s2.expiresIn)
    expect(provider.grants).toHaveLength(asked)
    await caught()
    expect((await b.rpc(s2.accessToken, 'team:access')).status).toBe(200)
    // The replaced access token is no longer good; the new refresh token renews as usual.
    expect((await b.rpc(s.accessToken, 'team:access')).status).toBe(401)
    const s3 = await refresh(b, s2.refreshToken)
    expect(s3.status).toBe(200)
    expect(s3.json.value!.accessToken).not.toBe(s2.accessToken)
    expect(await audited('oidc:refreshReused')).toEqual([])
    const again1 = await audited('oidc:renewedAgain')
    expect(again1).toHaveLength(1)
    expect(again1[0]).toMatchObject({ operator: 'ana' })
  })

  it('answers the replaced refresh token once: a second time within the grace ends the session, audited as reuse', async () => {
    const s = await signedIn()
    const s2 = (await refresh(a, s.refreshToken)).json.value!
    // Whoever holds the old token gets the whole session once...
    expect((await refresh(b, s.refreshToken)).json.value).toEqual({ ...s2, expiresIn: expect.any(Number) })
    // ...and not twice: the second time is a copy in someone else's hands, however soon.
    const twice = await refresh(a, s.refreshToken)
    expect(twice.status).toBe(401)
    expect(twice.json.error).toMatchObject({ kind: 'session_ended', message: OLDER_COPY })
    await caught()
    for (const f of new Set([a, b])) expect((await f.rpc(s2.accessToken, 'team:access')).status).toBe(401)
    expect((await refresh(b, s2.refreshToken)).status).toBe(401)
    expect(await audited('oidc:renewedAgain')).toHaveLength(1)
    const reused = await audited('oidc:refreshReused')
    expect(reused).toHaveLength(1)
    expect(reused[0]).toMatchObject({ operator: 'ana' })
  })

  it('hands the session out again to one of two hubs asked at once with the replaced token, and ends it', async () => {
    const s = await signedIn()
    const s2 = (await refresh(a, s.refreshToken)).json.value!
    const both = await Promise.all([refresh(a, s.refreshToken), refresh(b, s.refreshToken)])
    expect(both.map((r) => r.status).sort((x, y) => x - y)).toEqual([200, 401])
    expect(both.find((r) => r.status === 200)!.json.value!.accessToken).toBe(s2.accessToken)
    await caught()
    expect((await a.rpc(s2.accessToken, 'team:access')).status).toBe(401)
    expect(await audited('oidc:renewedAgain')).toHaveLength(1)
    expect(await audited('oidc:refreshReused')).toHaveLength(1)
  })

  it('gives two renewals at once with one refresh token the same session', async () => {
    const s = await signedIn()
    const [x, y] = await Promise.all([refresh(a, s.refreshToken), refresh(b, s.refreshToken)])
    expect([x.status, y.status]).toEqual([200, 200])
    expect(y.json.value!.accessToken).toBe(x.json.value!.accessToken)
    expect(y.json.value!.refreshToken).toBe(x.json.value!.refreshToken)
    // The provider (which takes each of its refresh tokens once) was asked once, and the session goes on.
    expect(provider.grants.filter((g) => g === 'refresh_token')).toHaveLength(1)
    expect((await refresh(b, x.json.value!.refreshToken)).status).toBe(200)
  })

  it('ends the session when any refresh token it replaced is presented again, not only the last one', async () => {
    const s = await signedIn()
    const s2 = (await refresh(a, s.refreshToken)).json.value!
    const s3 = (await refresh(b, s2.refreshToken)).json.value!
    const oldest = await refresh(a, s.refreshToken)
    expect(oldest.status).toBe(401)
    expect(oldest.json.error).toMatchObject({ kind: 'session_ended', message: OLDER_COPY })
    await caught()
    for (const f of new Set([a, b])) expect((await f.rpc(s3.accessToken, 'team:access')).status).toBe(401)
    expect((await refresh(b, s3.refreshToken)).status).toBe(401)
    const reused = await audited('oidc:refreshReused')
    expect(reused).toHaveLength(1)
    expect(reused[0]).toMatchObject({ operator: 'ana' })
  })

  it('refuses the replaced refresh token after the grace, ends the session for everyone, and audits it', async () => {
    const s = await signedIn()
    const s2 = (await refresh(a, s.refreshToken)).json.value!
    offset += RENEWAL_GRACE_MS + 1_000
    const late = await refresh(b, s.refreshToken)
    expect(late.status).toBe(401)
    expect(late.json.error).toMatchObject({ kind: 'session_ended', message: OLDER_COPY })
    await caught()
    // The holder of the current tokens is out too: one of the two is not who they say.
    for (const f of new Set([a, b])) expect((await f.rpc(s2.accessToken, 'team:access')).status).toBe(401)
    expect((await refresh(a, s2.refreshToken)).status).toBe(401)
    const reused = await audited('oidc:refreshReused')
    expect(reused).toHaveLength(1)
    expect(reused[0]).toMatchObject({ operator: 'ana' })
    // Asked yet again: still refused, audited once.
    expect((await refresh(a, s.refreshToken)).json.error!.message).toBe('Your sign-in has ended. Sign in again.')
    expect(await audited('oidc:refreshReused')).toHaveLength(1)
  })

  it('signs out with the refresh token or the access token: the session ends on every hub, audited once', async () => {
    const s = await signedIn()
    const out = await post(`${b.url}/auth/oidc/sign-out`, { refreshToken: s.refreshToken })
    expect(out).toEqual({ status: 200, json: { ok: true, value: { signedOut: true, wasActive: true } } })
    await caught()
    for (const f of new Set([a, b])) expect((await f.rpc(s.accessToken, 'team:access')).status).toBe(401)
    expect((await refresh(a, s.refreshToken)).status).toBe(401)
    // Again: nothing stood, nothing audited twice.
    expect((await post(`${a.url}/auth/oidc/sign-out`, { refreshToken: s.refreshToken })).json.value).toEqual({
      signedOut: true,
      wasActive: false
    })
    const out1 = await audited('oidc:signedOut')
    expect(out1).toHaveLength(1)
    expect(out1[0]).toMatchObject({ operator: 'ana' })

    // With the access token as the bearer, lapsed even.
    const t = await signedIn()
    offset += SESSION_MS + 1_000
    const byAccess = await post(`${a.url}/auth/oidc/sign-out`, {}, { authorization: `Bearer ${t.accessToken}` })
    expect(byAccess.json.value).toEqual({ signedOut: true, wasActive: true })
    expect((await refresh(b, t.refreshToken)).status).toBe(401)

    // Nobody's token, or a web page: refused.
    const stranger = await post(`${a.url}/auth/oidc/sign-out`, { refreshToken: 'rdr_not-a-session' })
    expect(stranger.status).toBe(401)
    expect(stranger.json.error!.message).toBe('This hub knows no such sign-in: there is nothing to sign out of.')
    expect((await post(`${a.url}/auth/oidc/sign-out`, { refreshToken: t.refreshToken }, { origin: 'https://evil.example' })).status).toBe(
      403
    )
  })

  it("refuses the provider's code brought back a second time, with a sign-in of its own", async () => {
    provider.person.groups = ['rd-operators']
    const first = await signIn(a.url, provider.issuer)
    expect(first.kind).toBe('ok')
    const code = new URL(first.callback).searchParams.get('code')!
    // A second sign-in under way (a state the hub issued and has not seen come back), its
    // callback carrying the first sign-in's code instead of the one the provider would give.
    const second = await startSignIn(b.url, provider.issuer)
    const hubState = new URL(second.atProvider).searchParams.get('state')!
    const replay = await get(`${b.url}/auth/oidc/callback?${new URLSearchParams({ code, state: hubState })}`)
    expect(replay.status).toBe(302)
    const desktop = new URL(replay.location)
    expect(desktop.searchParams.get('code')).toBeNull()
    expect(desktop.searchParams.get('error_description')).toBe(
      'Test IdP did not sign you in. Try again; if it happens again, tell your team lead.'
    )
    // The hub took it to the provider with the second sign-in's PKCE verifier, and the provider
    // refused it (the code was exchanged already, and was not issued for that verifier): one session, the first.
    const refused = await audited('oidc:refused')
    expect(refused).toHaveLength(1)
    expect(refused[0]!.detail.reason).toMatch(/^invalid_request: /)
    expect(await audited('oidc:signIn')).toHaveLength(1)
  })
})
