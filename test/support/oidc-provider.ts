// An OpenID provider on loopback for the sign-in tests (oauth2-mock-server): discovery, the
// authorization endpoint (it signs the person in at once), the token endpoint with PKCE,
// userinfo, real RS256 signatures. The person signing in is the test's to set (subject,
// username, groups), and so is what goes wrong: an ID token tampered with before it is signed,
// a renewal refused (the person disabled at the provider). Like most providers it rotates
// refresh tokens: each is taken once, and the same one again is refused (invalid_grant).
import { createSign, generateKeyPairSync } from 'node:crypto'
import { OAuth2Server } from 'oauth2-mock-server'
import type { OidcConfig } from '../../src/hub/oidc/oidc-config'

export interface Person {
  sub: string
  username: string
  groups: string[] | string | undefined
  /** Disabled at the provider: every renewal is refused (invalid_grant). */
  disabled: boolean
}

export interface TestProvider {
  issuer: string
  /** Where it listens (its issuer unless one was given). */
  listening: string
  clientId: string
  person: Person
  /** Changes the next ID token's claims before it is signed (once). */
  tamperNextIdToken(f: (claims: Record<string, unknown>) => void): void
  /** Signs the next ID token with a key that is not the provider's (its header unchanged). */
  forgeNextIdToken(): void
  /** Token requests seen, by grant type. */
  grants: string[]
  close(): Promise<void>
}

/** `issuer`: the URL it calls itself (a proxy in front of it); its own address by default. */
export async function startTestProvider(clientId = 'rampdesk-hub', o: { issuer?: string } = {}): Promise<TestProvider> {
  const server = new OAuth2Server()
  await server.issuer.keys.generate('RS256')
  if (o.issuer) server.issuer.url = o.issuer
  await server.start(0, '127.0.0.1')
  const person: Person = { sub: 'u-1', username: 'ana', groups: [], disabled: false }
  let tamper: ((c: Record<string, unknown>) => void) | null = null
  let forge = false
  const grants: string[] = []
  /** Refresh tokens already exchanged: a rotating provider refuses them. */
  const spent = new Set<string>()
  server.service.on('beforeTokenSigning', (token) => {
    const p = token.payload as Record<string, unknown>
    p.sub = person.sub
    // The ID token is the one with the client as its audience (the access token has none here).
    if (p.aud === clientId) {
      p.preferred_username = person.username
      if (person.groups !== undefined) p.groups = person.groups
      if (tamper) {
        tamper(p)
        tamper = null
      }
    }
  })
  server.service.on('beforeResponse', (answer, req) => {
    const grant = String((req.body as Record<string, unknown>).grant_type)
    grants.push(grant)
    const body = answer.body as Record<string, unknown>
    if (forge && typeof body.id_token === 'string') {
      forge = false
      const [header, payload] = body.id_token.split('.')
      const stranger = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey
      const signature = createSign('RSA-SHA256').update(`${header}.${payload}`).sign(stranger).toString('base64url')
      body.id_token = `${header}.${payload}.${signature}`
    }
    if (grant === 'refresh_token' && person.disabled) {
      answer.statusCode = 400
      answer.body = { error: 'invalid_grant', error_description: 'user is disabled' }
    } else if (grant === 'refresh_token') {
      const presented = String((req.body as Record<string, unknown>).refresh_token)
      if (spent.has(presented)) {
        answer.statusCode = 400
        answer.body = { error: 'invalid_grant', error_description: 'refresh token already used' }
      }
      spent.add(presented)
    }
  })
  server.service.on('beforeUserinfo', (answer) => {
    answer.body = { sub: person.sub, preferred_username: person.username, groups: person.groups }
    if (person.disabled) {
      answer.statusCode = 401
      answer.body = { error: 'invalid_token' }
    }
  })
  return {
    issuer: server.issuer.url!,
    listening: `http://127.0.0.1:${server.address().port}`,
    clientId,
    person,
    grants,
    tamperNextIdToken(f) {
      tamper = f
    },
    forgeNextIdToken() {
      forge = true
    },
    close: () => server.stop()
  }
}

/** A hub's sign-in configuration for this provider: groups rd-admins, rd-operators and rd-viewers give the roles. */
export function hubOidcConfig(p: Pick<TestProvider, 'issuer' | 'clientId'>, sessionMs = 15 * 60_000): OidcConfig {
  return {
    issuer: p.issuer,
    clientId: p.clientId,
    clientSecret: 'a-client-secret',
    roleClaim: 'groups',
    roles: { admin: ['rd-admins'], operator: ['rd-operators'], viewer: ['rd-viewers'] },
    sessionMs,
    providerName: 'Test IdP',
    allowHttp: true
  }
}
