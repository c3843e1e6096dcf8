// Renewal while the identity provider is out, on the hub's clock (compressed), on hub.db and on
// PostgreSQL: a provider that does not answer is not a person refused. The session goes on,
// renewed without the provider, for OUTAGE_GRACE_MS after the person was last checked; then
// renewal is refused 503 in words and the session still stands, so it renews the moment the
// provider answers again. A person the provider refuses (disabled) is out at once, outage or not.
import { createHash, randomBytes } from 'node:crypto'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { request } from 'undici'
import type { OidcConfig } from '../../../src/hub/oidc/oidc-config'
import { OUTAGE_GRACE_MS } from '../../../src/hub/oidc/oidc-service'
import type { StoreKind } from '../../../src/hub/hub-store'
import { postgresUnavailable, startPostgres, type PgCluster } from '../../support/postgres-cluster'
import { startTestProvider, type TestProvider } from '../../support/oidc-provider'
import { startProviderGate, type ProviderGate } from '../../support/provider-gate'
import { startHubFixture, type HubFixture } from './support'

const SESSION_MS = 15 * 60_000

interface Session {
  accessToken: string
  refreshToken: string
  expiresAt: number
}

async function get(url: string): Promise<{ status: number; location: string }> {
  const r = await request(url)
  await r.body.dump()
  return { status: r.statusCode, location: String(r.headers.location ?? '') }
}

describe.each(['sqlite', 'postgres'] as StoreKind[])('renewal during a provider outage on %s', (kind) => {
  let gate: ProviderGate
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
  beforeEach(async (ctx) => {
    if (kind === 'postgres' && !cluster) return ctx.skip()
    offset = 0
    gate = await startProviderGate()
    provider = await startTestProvider('rampdesk-hub', { issuer: gate.url })
    gate.target = provider.listening
    provider.person.groups = ['rd-operators']
    const oidc: OidcConfig = {
      issuer: gate.url,
      clientId: provider.clientId,
      clientSecret: 'a-client-secret',
      roleClaim: 'groups',
      roles: { admin: ['rd-admins'], operator: ['rd-operators'], viewer: [] },
      sessionMs: SESSION_MS,
      providerName: 'Test IdP',
      allowHttp: true
    }
    const database = cluster ? { url: await cluster.createDatabase() } : undefined
    f = await startHubFixture({ sandbox: { orders: 2 }, hub: { now: clock, database }, server: { oidc, now: clock } })
  })
  afterEach(async () => {
    await f?.close()
    await provider?.close()
    await gate?.close()
  })

  async function signIn(): Promise<Session> {
    const verifier = randomBytes(32).toString('base64url')
    const q = new URLSearchParams({
      redirect_uri: 'http://127.0.0.1:9/done',
      state: randomBytes(16).toString('base64url'),
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256'
    })
    const start = await get(`${f.url}/auth/oidc/start?${q}`)
    const back = new URL((await get((await get(start.location)).location)).location)
    const r = await refreshLike('/auth/oidc/token', { code: back.searchParams.get('code'), verifier })
    expect(r.status).toBe(200)
    return r.json.value!
  }

  async function refreshLike(
    path: string,
    body: unknown
  ): Promise<{ status: number; json: { ok: boolean; value?: Session; error?: { kind: string; message: string; retryable: boolean } } }> {
    const r = await request(`${f.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body)
    })
    return { status: r.statusCode, json: (await r.body.json()) as never }
  }
  const renew = (s: Session) => refreshLike('/auth/oidc/refresh', { refreshToken: s.refreshToken })
  const works = async (s: Session) => (await f.rpc(s.accessToken, 'team:access')).status === 200

  it('goes on without the provider for the grace period, then refuses in words without ending the session, and renews once it is back', async () => {
    let s = await signIn()
    await gate.set({ kind: 'down' })
    // Renewed every session through the grace period, each time without asking the provider.
    let renewals = 0
    while (offset + SESSION_MS < OUTAGE_GRACE_MS) {
      offset += SESSION_MS - 60_000
      const r = await renew(s)
      expect(r.status, JSON.stringify(r.json)).toBe(200)
      s = r.json.value!
      expect(await works(s)).toBe(true)
      renewals++
    }
    expect(renewals).toBeGreaterThanOrEqual(3)
    const unchecked = (await f.hub.audit.list(100)).filter((e) => e.action === 'oidc:renewedUnchecked').length
    expect(unchecked).toBe(renewals)
    // Past the grace: refused, retryable, in words; the access token lapses with its session.
    offset = OUTAGE_GRACE_MS + 60_000
    const refused = await renew(s)
    expect(refused.status).toBe(503)
    expect(refused.json.error).toMatchObject({ kind: 'unavailable', retryable: true })
    expect(refused.json.error!.message).toMatch(
      /Test IdP did not answer the hub\. Try again in a minute; if it goes on, ask your team lead\./
    )
    offset += SESSION_MS
    expect(await works(s)).toBe(false)
    // The provider back: the same refresh token renews (the session was never ended).
    await gate.set({ kind: 'pass' })
    const back = await renew(s)
    expect(back.status, JSON.stringify(back.json)).toBe(200)
    expect(await works(back.json.value!)).toBe(true)
    expect(f.logs.join('\n')).toMatch(/failed at renewal: connection refused \(nothing listening\)/)
  })

  it('ends the session of a person the provider refuses, and a disabled person cannot ride out an outage started after', async () => {
    const s = await signIn()
    provider.person.disabled = true
    offset += SESSION_MS - 60_000
    const r = await renew(s)
    expect(r.status).toBe(401)
    expect(r.json.error).toMatchObject({ kind: 'session_ended' })
    // The provider out now changes nothing: the session is over.
    await gate.set({ kind: 'down' })
    expect((await renew(s)).status).toBe(401)
    expect(await works(s)).toBe(false)
  })
})
