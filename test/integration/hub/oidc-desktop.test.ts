// The desktop's side of sign-in through the identity provider, against a real hub and an
// OpenID provider on loopback: the system browser (here a client that follows the redirects
// the way a browser does) goes to the hub, the provider and back to the desktop's loopback
// listener; the session then works, is renewed before it lapses, and ends with the hub's
// words when the provider disables the person.
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { request, type Dispatcher } from 'undici'
import type { OidcConfig } from '../../../src/hub/oidc/oidc-config'
import { openLoopbackListener } from '../../../src/main/team/oidc-loopback'
import { HubSession } from '../../../src/main/team/oidc-session'
import { hubSignIn, signInThroughBrowser, type OidcSessionTokens } from '../../../src/main/team/oidc-sign-in'
import { startTestProvider, type TestProvider } from '../../support/oidc-provider'
import { startHubFixture, type HubFixture } from './support'

const SESSION_MS = 15 * 60_000

/** The system browser: follows every redirect, as a person's browser would, to the end. */
function browser(visited: string[]) {
  return async (url: string): Promise<void> => {
    let next: string | null = url
    while (next) {
      visited.push(next)
      const r: Dispatcher.ResponseData = await request(next)
      await r.body.text()
      next = r.statusCode === 302 ? String(r.headers.location) : null
    }
  }
}

/** A listener on loopback answering every request with `status` and `body`; `hits` counts them. */
async function answering(status: number, body: unknown): Promise<{ url: string; hits: string[]; close(): Promise<void> }> {
  const hits: string[] = []
  const server: Server = createServer((req, res) => {
    hits.push(req.url ?? '')
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body))
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return { url, hits, close: () => new Promise<void>((r) => server.close(() => r())) }
}

describe('signing a desktop in through the identity provider', () => {
  let provider: TestProvider
  let f: HubFixture
  let offset = 0
  const clock = () => Date.now() + offset

  beforeEach(async () => {
    offset = 0
    provider = await startTestProvider()
    const oidc: OidcConfig = {
      issuer: provider.issuer,
      clientId: provider.clientId,
      clientSecret: 'a-client-secret',
      roleClaim: 'groups',
      roles: { admin: ['rd-admins'], operator: ['rd-operators'], viewer: ['rd-viewers'] },
      sessionMs: SESSION_MS,
      providerName: 'Test IdP',
      allowHttp: true
    }
    f = await startHubFixture({ sandbox: { orders: 3 }, hub: { now: clock }, server: { oidc, now: clock } })
  })
  afterEach(async () => {
    await f?.close()
    await provider?.close()
  })

  it('signs in through the system browser and a loopback redirect, renews the session, and ends it when the provider disables the person', async () => {
    expect(await hubSignIn(f.url)).toEqual({ provider: 'Test IdP', issuer: provider.issuer, sessionMinutes: 15 })
    provider.person.groups = ['rd-operators']
    const visited: string[] = []
    const tokens = await signInThroughBrowser({ hubUrl: f.url, openExternal: browser(visited) })
    expect(tokens).toMatchObject({ operator: 'ana', role: 'operator' })
    const loopback = new URL(visited.at(-1)!)
    expect(loopback.hostname).toBe('127.0.0.1')
    // One request: the listener is closed once the browser came back.
    await expect(request(loopback.href)).rejects.toThrow()

    const saved: Array<OidcSessionTokens | null> = []
    const session = new HubSession({ hubUrl: f.url, tokens, save: async (t) => void saved.push(t), now: clock })
    expect(await session.token()).toBe(tokens.accessToken)
    expect((await f.rpc(await session.token(), 'team:access')).status).toBe(200)

    // A minute before it lapses, the next token is a renewed one, saved, and it works.
    offset += SESSION_MS - 30_000
    const renewed = await session.token()
    expect(renewed).not.toBe(tokens.accessToken)
    expect(saved).toHaveLength(1)
    expect((await f.rpc(renewed, 'team:access')).status).toBe(200)

    // Disabled at the provider: at the next renewal the session ends, with the hub's words.
    provider.person.disabled = true
    offset += SESSION_MS
    await expect(session.token()).rejects.toThrow('Test IdP ended your sign-in. Sign in again.')
    expect(session.current).toEqual({ kind: 'ended', message: 'Test IdP ended your sign-in. Sign in again.' })
    expect(saved.at(-1)).toBeNull()
  })

  it('renews through the first of the profile’s hubs that answers, and stops at the first that refuses the person', async () => {
    provider.person.groups = ['rd-operators']
    const tokens = await signInThroughBrowser({ hubUrl: f.url, openExternal: browser([]) })
    // The profile's first hub is gone (nothing listens there any more), its second cannot reach the provider.
    const gone = await answering(200, {})
    await gone.close()
    const noProvider = await answering(503, { ok: false, error: { kind: 'unavailable', message: 'The provider does not answer.' } })
    const saved: Array<OidcSessionTokens | null> = []
    const session = new HubSession({
      hubUrl: gone.url,
      fallbackUrls: [noProvider.url, f.url],
      tokens,
      save: async (t) => void saved.push(t),
      now: clock
    })
    try {
      offset += SESSION_MS - 30_000
      const renewed = await session.token()
      expect(renewed).not.toBe(tokens.accessToken)
      expect(noProvider.hits).toEqual(['/auth/oidc/refresh'])
      expect(saved).toHaveLength(1)
      expect((await f.rpc(renewed, 'team:access')).status).toBe(200)
    } finally {
      await noProvider.close()
    }

    // A hub that refuses the person ends the session: the hubs after it are not asked.
    const after = await answering(200, {})
    try {
      const ending = new HubSession({
        hubUrl: f.url,
        fallbackUrls: [after.url],
        tokens: saved[0]!,
        save: async (t) => void saved.push(t),
        now: clock
      })
      provider.person.disabled = true
      offset += SESSION_MS
      await expect(ending.token()).rejects.toThrow('Test IdP ended your sign-in. Sign in again.')
      expect(ending.current.kind).toBe('ended')
      expect(after.hits).toEqual([])
      expect(saved.at(-1)).toBeNull()
    } finally {
      await after.close()
    }
  })

  it('tells a person with no role why, in the browser and in the app', async () => {
    provider.person.groups = ['everyone']
    await expect(signInThroughBrowser({ hubUrl: f.url, openExternal: browser([]) })).rejects.toThrow(
      `Your Test IdP account has no Rampdesk role: ask your team lead to add you to one of: rd-admins, rd-operators, rd-viewers`
    )
  })

  it('has the loopback listener refuse other paths, hosts, methods and states, and keep waiting for its own', async () => {
    const l = await openLoopbackListener({ state: 's'.repeat(24) })
    const at = new URL(l.redirectUri)
    const status = async (path: string, o: { method?: 'GET' | 'POST'; headers?: Record<string, string> } = {}) =>
      (await request(`${at.origin}${path}`, { method: o.method ?? 'GET', headers: o.headers })).statusCode
    expect(await status('/other')).toBe(404)
    expect(await status(`${at.pathname}?state=${'s'.repeat(24)}&code=x`, { method: 'POST' })).toBe(403)
    expect(await status(`${at.pathname}?state=${'s'.repeat(24)}&code=x`, { headers: { host: `localhost:${at.port}` } })).toBe(403)
    expect(await status(`${at.pathname}?state=${'s'.repeat(24)}&code=x`, { headers: { origin: 'https://evil.example' } })).toBe(403)
    expect(await status(`${at.pathname}?state=wrong&code=x`)).toBe(400)
    expect(await status(`${at.pathname}?state=${'s'.repeat(24)}&code=the-code`)).toBe(200)
    expect(await l.result).toEqual({ kind: 'code', code: 'the-code' })
  })
})
