// Sign-in through the team's identity provider, against an OpenID provider on loopback
// (test/support/oidc-provider.ts), on hub.db and on PostgreSQL: the role from the claim's
// values, a person without one refused with the message saying so, the ID token's checks
// (audience, nonce, expiry), a used sign-in refused, and a person disabled at the provider
// out within one session (the hub's clock moved on past the session's end). Where admins must
// prove a second factor, a code proves the sign-in, which renewals keep; a new sign-in asks again.
import { Secret, TOTP } from 'otpauth'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { runCli } from '../../../src/hub/commands'
import type { OidcConfig } from '../../../src/hub/oidc/oidc-config'
import type { StoreKind } from '../../../src/hub/hub-store'
import type { SecondFactorPolicy } from '../../../src/hub/second-factor-gate'
import { enrolSecondFactor } from '../../../src/hub/second-factor'
import { postgresUnavailable, startPostgres, type PgCluster } from '../../support/postgres-cluster'
import { startTestProvider, type TestProvider } from '../../support/oidc-provider'
import { startHubFixture, type HubFixture } from './support'
import { get, post, signIn as signInFlow, type Session } from './oidc-flow'

const SESSION_MS = 15 * 60_000
const ROLES = { admin: ['rd-admins'], operator: ['rd-operators'], viewer: ['rd-viewers'] }
const HEADER = 'x-rampdesk-second-factor'

describe.each(['sqlite', 'postgres'] as StoreKind[])('OIDC sign-in on %s', (kind) => {
  let provider: TestProvider
  let f: HubFixture
  let cluster: PgCluster | null = null
  let offset = 0
  const clock = () => Date.now() + offset

  beforeAll(async () => {
    if (kind === 'postgres' && postgresUnavailable === null) cluster = await startPostgres()
  })
  afterAll(async () => {
    await cluster?.stop()
  })
  /** Starts the hub on a fresh store (a database of its own on PostgreSQL). */
  async function open(requireSecondFactor: SecondFactorPolicy = 'none'): Promise<void> {
    const oidc: OidcConfig = {
      issuer: provider.issuer,
      clientId: provider.clientId,
      clientSecret: 'a-client-secret',
      roleClaim: 'groups',
      roles: ROLES,
      sessionMs: SESSION_MS,
      providerName: 'Test IdP',
      allowHttp: true
    }
    const database = cluster ? { url: await cluster.createDatabase() } : undefined
    f = await startHubFixture({ sandbox: { orders: 3 }, hub: { now: clock, database }, server: { oidc, now: clock, requireSecondFactor } })
  }

  beforeEach(async (ctx) => {
    if (kind === 'postgres' && !cluster) return ctx.skip()
    offset = 0
    provider = await startTestProvider()
    await open()
  })
  afterEach(async () => {
    await f?.close()
    await provider?.close()
  })

  const signIn = () => signInFlow(f.url, provider.issuer)

  async function signedIn(): Promise<Session> {
    const r = await signIn()
    if (r.kind !== 'ok') throw new Error(`refused: ${r.message}`)
    return r.session
  }

  const refresh = (refreshToken: string) => post(`${f.url}/auth/oidc/refresh`, { refreshToken })

  it.each([
    ['admin', ['rd-admins', 'other']],
    ['operator', ['rd-operators']],
    ['viewer', 'rd-viewers'],
    ['admin', ['rd-viewers', 'rd-admins']]
  ])('gives the %s role for the claim %j, creates the operator on first sign-in and lists it as oidc', async (role, groups) => {
    provider.person.groups = groups
    const s = await signedIn()
    expect(s).toMatchObject({ operator: 'ana', role })
    const access = await f.call<{ team: { operator: string; role: string } }>(s.accessToken, 'team:access')
    expect(access.team).toMatchObject({ operator: 'ana', role })
    const out: string[] = []
    const io = { out: (l: string) => void out.push(l), err: () => undefined }
    const args = cluster ? ['--database', (f.hub.store as { where: string }).where] : ['--data-dir', f.dataDir]
    if (!cluster) {
      expect(await runCli(['operator', 'list', ...args], io)).toBe(0)
      expect(out.join('\n')).toMatch(new RegExp(`^ana\\t${role}\\tadded .*\\tlast seen .*\\toidc$`, 'm'))
    } else expect((await f.hub.operators.list()).map((o) => [o.name, o.role])).toEqual([['ana', role]])
    expect(await f.hub.store.oidc.oidcNames()).toEqual(new Set(['ana']))
    // A second sign-in is the same operator.
    expect((await signedIn()).operator).toBe('ana')
    expect((await f.hub.operators.list()).length).toBe(1)
  })

  it('refuses a person whose claim gives no role, saying so, and creates no operator', async () => {
    provider.person.groups = ['everyone']
    const r = await signIn()
    expect(r).toMatchObject({
      kind: 'refused',
      message: `Your Test IdP account has no Rampdesk role: ask your team lead to add you to one of: rd-admins, rd-operators, rd-viewers`
    })
    provider.person.groups = undefined
    expect((await signIn()).kind).toBe('refused')
    expect(await f.hub.operators.list()).toEqual([])
  })

  it.each([
    ['a wrong audience', (c: Record<string, unknown>) => void (c.aud = 'another-client')],
    ['a wrong nonce', (c: Record<string, unknown>) => void (c.nonce = 'not-the-hubs-nonce')],
    [
      'an expired ID token',
      (c: Record<string, unknown>) => {
        const now = Math.floor(Date.now() / 1000)
        c.iat = now - 3600
        c.exp = now - 600
      }
    ],
    ['another issuer', (c: Record<string, unknown>) => void (c.iss = 'https://idp.example.com')]
  ])('refuses %s', async (_what, tamper) => {
    provider.person.groups = ['rd-admins']
    provider.tamperNextIdToken(tamper)
    const r = await signIn()
    expect(r).toMatchObject({
      kind: 'refused',
      message: 'Test IdP did not sign you in. Try again; if it happens again, tell your team lead.'
    })
    expect(await f.hub.operators.list()).toEqual([])
    expect((await f.hub.audit.list(10)).map((e) => e.action)).toContain('oidc:refused')
  })

  it("refuses an ID token not signed with the provider's keys", async () => {
    provider.person.groups = ['rd-admins']
    provider.forgeNextIdToken()
    expect(await signIn()).toMatchObject({
      kind: 'refused',
      message: 'Test IdP did not sign you in. Try again; if it happens again, tell your team lead.'
    })
    expect(await f.hub.operators.list()).toEqual([])
  })

  it('refuses a replayed code and state', async () => {
    provider.person.groups = ['rd-operators']
    const r = await signIn()
    expect(r.kind).toBe('ok')
    const again = await get(r.callback)
    expect(again.status).toBe(400)
    expect(again.text).toBe('This sign-in link was already used or is too old. Start again from Rampdesk: Team, Sign in.')
    expect(provider.grants.filter((g) => g === 'authorization_code')).toHaveLength(1)
  })

  it('refuses a redirect that is not a desktop on this machine', async () => {
    const q = (uri: string) =>
      new URLSearchParams({ redirect_uri: uri, state: 'a'.repeat(20), code_challenge: 'b'.repeat(43), code_challenge_method: 'S256' })
    for (const uri of ['https://evil.example/cb', 'http://localhost.evil.example:80/cb', 'http://127.0.0.1/cb', 'http://10.0.0.1:9/cb'])
      expect((await get(`${f.url}/auth/oidc/start?${q(uri)}`)).status).toBe(400)
  })

  it('renews with the provider, and a person disabled there loses access within one session', async () => {
    provider.person.groups = ['rd-operators']
    const s = await signedIn()
    expect((await f.rpc(s.accessToken, 'team:access')).status).toBe(200)

    // Renewed: the provider is asked, a new access token works, the old refresh token gives the
    // same session for a short while (oidc-renewal.test.ts: refused, and the session ended, after).
    offset += SESSION_MS - 60_000
    const renewed = await refresh(s.refreshToken)
    expect(renewed.status).toBe(200)
    expect(provider.grants).toContain('refresh_token')
    const s2 = renewed.json.value!
    expect((await f.rpc(s2.accessToken, 'team:access')).status).toBe(200)
    expect((await refresh(s.refreshToken)).json.value).toEqual({ ...s2, expiresIn: expect.any(Number) })

    // Disabled at the provider: the access token works until its session ends, not after.
    provider.person.disabled = true
    offset += SESSION_MS - 1_000
    expect((await f.rpc(s2.accessToken, 'team:access')).status).toBe(200)
    offset += 2_000
    if (cluster) await (f.hub.store as unknown as { refresh(): Promise<void> }).refresh()
    expect((await f.rpc(s2.accessToken, 'team:access')).status).toBe(401)
    const ended = await refresh(s2.refreshToken)
    expect(ended.status).toBe(401)
    expect(ended.json.error).toMatchObject({ kind: 'session_ended', message: 'Test IdP ended your sign-in. Sign in again.' })
    expect((await f.hub.audit.list(10)).map((e) => e.action)).toContain('oidc:sessionEnded')
    // Ended for good: enabled again, the old session does not come back.
    provider.person.disabled = false
    expect((await refresh(s2.refreshToken)).status).toBe(401)
  })

  it('ends a session whose role the provider took away at renewal, and follows a changed role', async () => {
    provider.person.groups = ['rd-viewers']
    const s = await signedIn()
    provider.person.groups = ['rd-admins']
    const up = await refresh(s.refreshToken)
    expect(up.json.value).toMatchObject({ role: 'admin' })
    if (cluster) await (f.hub.store as unknown as { refresh(): Promise<void> }).refresh()
    expect(await f.call(up.json.value!.accessToken, 'team:access')).toMatchObject({ team: { role: 'admin' } })
    provider.person.groups = []
    const out = await refresh(up.json.value!.refreshToken)
    expect(out.status).toBe(401)
    expect(out.json.error!.message).toMatch(/has no Rampdesk role/)
  })

  it('ends the sessions of an operator revoked at the hub', async () => {
    provider.person.groups = ['rd-operators']
    const s = await signedIn()
    await f.hub.operators.revoke('ana')
    if (cluster) await (f.hub.store as unknown as { refresh(): Promise<void> }).refresh()
    expect((await f.rpc(s.accessToken, 'team:access')).status).toBe(401)
    expect((await refresh(s.refreshToken)).json.error!.message).toBe('Your access to this team was revoked. Ask your team lead.')
  })

  it('asks a provider-signed-in admin for a second factor once per sign-in, not at every renewal', async () => {
    await f.close()
    await open('admins')
    provider.person.groups = ['rd-admins']
    const s = await signedIn()
    const e = await enrolSecondFactor(f.hub.store.secondFactors, 'ana', 'test', clock())
    const totp = new TOTP({ secret: Secret.fromBase32(e.secret), digits: 6, period: 30 })
    const admin = (token: string, headers: Record<string, string> = {}) => f.rpc(token, 'team:operators', {}, headers)
    expect((await admin(s.accessToken)).json?.error).toMatchObject({ kind: 'second_factor_required' })
    expect((await admin(s.accessToken, { [HEADER]: totp.generate({ timestamp: clock() }) })).status).toBe(200)

    // Renewed three times, each just before the access token lapses: a new token each time, never a new code.
    let refreshToken = s.refreshToken
    for (let i = 0; i < 3; i++) {
      offset += SESSION_MS - 60_000
      const renewed = await refresh(refreshToken)
      expect(renewed.status).toBe(200)
      const next = renewed.json.value!
      if (cluster) await (f.hub.store as unknown as { refresh(): Promise<void> }).refresh()
      const r = await admin(next.accessToken)
      expect(r.status, r.text).toBe(200)
      refreshToken = next.refreshToken
    }

    // A new sign-in proves again.
    const again = await signedIn()
    expect(again.operator).toBe('ana')
    expect((await admin(again.accessToken)).json?.error).toMatchObject({
      kind: 'second_factor_required',
      message: 'this hub requires a second factor for admins: enter the code from your authenticator app'
    })
  })
})
