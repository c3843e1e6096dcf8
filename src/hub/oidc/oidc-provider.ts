// The hub's client at the team's identity provider (openid-client): discovery, once and again
// after a failure; the authorization code flow with PKCE and a nonce; the ID token checked
// (issuer, audience, expiry, nonce, and its signature against the provider's keys); and the
// provider asked again at each renewal (refresh_token grant, or userinfo when it gave no
// refresh token).
import * as client from 'openid-client'
import type { OidcConfig } from './oidc-config'

export type Claims = Record<string, unknown>

export interface ProviderTokens {
  /** The provider's refresh token, or null when it gives none (then its access token is asked with). */
  refreshToken: string | null
  accessToken: string
  subject: string
}

/** What the provider answered a sign-in or a renewal. */
export type ProviderAnswer =
  | { kind: 'ok'; claims: Claims; tokens: ProviderTokens }
  /** The provider refused (an error it answered, or a token that fails the checks): the person is not signed in. */
  | { kind: 'refused'; reason: string }
  /** The provider could not be reached or answered nonsense: nothing is known. */
  | { kind: 'unreachable'; reason: string }

export interface AuthorizationRequest {
  url: URL
  state: string
  nonce: string
  verifier: string
}

/**
 * How long the hub waits for each answer of the provider (discovery, token, userinfo), in
 * seconds: a person at /auth/oidc/start or a desktop renewing is answered within about this.
 */
export const PROVIDER_TIMEOUT_S = 10

/** A failure to reach the provider in words a support engineer acts on (never a token: errors carry none). */
export function unreachableReason(e: unknown): string {
  const chain: Array<Error & { code?: string }> = []
  for (let c: unknown = e; c instanceof Error && chain.length < 5; c = c.cause) chain.push(c)
  const has = (f: (x: Error & { code?: string }) => boolean) => chain.some(f)
  if (has((x) => x.name === 'TimeoutError' || x.name === 'AbortError')) return `no answer within ${PROVIDER_TIMEOUT_S} s`
  if (has((x) => x.code === 'ECONNREFUSED')) return 'connection refused (nothing listening)'
  if (has((x) => x.code === 'ENOTFOUND' || x.code === 'EAI_AGAIN')) return 'its host name does not resolve'
  if (has((x) => x.code === 'ECONNRESET' || x.code === 'UND_ERR_SOCKET')) return 'the connection was cut'
  if (has((x) => x.code === 'OAUTH_TIMEOUT')) return `no answer within ${PROVIDER_TIMEOUT_S} s`
  if (has((x) => x.code === 'OAUTH_RESPONSE_IS_NOT_JSON' || x.code === 'OAUTH_RESPONSE_IS_NOT_CONFORM'))
    return `an answer that is not OpenID (${chain[0]!.message})`
  return chain.map((x) => x.message).join(': ')
}

/** openid-client's codes for a provider that did not answer, or answered something other than OpenID. */
const NO_ANSWER_CODES = new Set(['OAUTH_TIMEOUT', 'OAUTH_ABORT', 'OAUTH_RESPONSE_IS_NOT_JSON', 'OAUTH_RESPONSE_IS_NOT_CONFORM'])

const PROVIDER_TROUBLE = new Set(['temporarily_unavailable', 'server_error'])

/** The provider's own refusals, told from failures to reach it. */
function answerOf(e: unknown): ProviderAnswer {
  const err = e as Error & { code?: string; error?: string; error_description?: string; cause?: unknown }
  // A provider in trouble says so (5xx, temporarily_unavailable, server_error): that is no refusal of the person.
  if (e instanceof client.ResponseBodyError && (e.status >= 500 || PROVIDER_TROUBLE.has(e.error)))
    return { kind: 'unreachable', reason: `HTTP ${e.status} ${e.error}` }
  if (e instanceof client.ResponseBodyError || e instanceof client.AuthorizationResponseError)
    return { kind: 'refused', reason: `${err.error ?? 'refused'}${err.error_description ? `: ${err.error_description}` : ''}` }
  if (e instanceof client.WWWAuthenticateChallengeError) return { kind: 'refused', reason: 'the provider refused the token' }
  // openid-client's own checks (OAUTH_JWT_CLAIM_COMPARISON_FAILED, OAUTH_JWT_TIMESTAMP_CHECK_FAILED, a bad signature...).
  // A timeout is openid-client's too (OAUTH_TIMEOUT), but no answer: a provider that hangs must not end everyone's session.
  const code = String(err.code ?? '')
  if (code.startsWith('OAUTH_') && !NO_ANSWER_CODES.has(code)) return { kind: 'refused', reason: err.message }
  return { kind: 'unreachable', reason: unreachableReason(e) }
}

export class OidcProvider {
  private config: Promise<client.Configuration> | null = null

  constructor(private readonly o: OidcConfig) {}

  /** The provider's configuration, discovered once (again after a failure). */
  discover(): Promise<client.Configuration> {
    this.config ??= client
      .discovery(new URL(this.o.issuer), this.o.clientId, this.o.clientSecret, undefined, {
        execute: this.o.allowHttp ? [client.allowInsecureRequests] : [],
        timeout: PROVIDER_TIMEOUT_S
      })
      .then((c) => {
        // ID tokens from the token endpoint are checked against the provider's keys too.
        client.enableNonRepudiationChecks(c)
        return c
      })
      .catch((e: unknown) => {
        this.config = null
        throw new Error(`the identity provider at ${this.o.issuer} could not be reached: ${unreachableReason(e)}`, { cause: e })
      })
    return this.config
  }

  async authorizationRequest(callbackUrl: string): Promise<AuthorizationRequest> {
    const config = await this.discover()
    const verifier = client.randomPKCECodeVerifier()
    const state = client.randomState()
    const nonce = client.randomNonce()
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: callbackUrl,
      scope: 'openid profile email',
      state,
      nonce,
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256'
    })
    return { url, state, nonce, verifier }
  }

  /** Exchanges the code the provider sent the browser back with, checking everything. */
  async exchange(callback: URL, expected: { state: string; nonce: string; verifier: string }): Promise<ProviderAnswer> {
    try {
      const config = await this.discover()
      const tokens = await client.authorizationCodeGrant(config, callback, {
        pkceCodeVerifier: expected.verifier,
        expectedState: expected.state,
        expectedNonce: expected.nonce,
        idTokenExpected: true
      })
      const claims = tokens.claims()
      if (!claims) return { kind: 'refused', reason: 'the provider sent no ID token' }
      return await this.withRoleClaim(config, claims, {
        refreshToken: tokens.refresh_token ?? null,
        accessToken: tokens.access_token,
        subject: claims.sub
      })
    } catch (e) {
      return answerOf(e)
    }
  }

  /** Asks the provider whether the person may still be signed in, and with which claims. */
  async renew(t: ProviderTokens): Promise<ProviderAnswer> {
    try {
      const config = await this.discover()
      if (t.refreshToken === null) {
        const info = await client.fetchUserInfo(config, t.accessToken, t.subject)
        return { kind: 'ok', claims: info, tokens: t }
      }
      const tokens = await client.refreshTokenGrant(config, t.refreshToken)
      const next: ProviderTokens = {
        refreshToken: tokens.refresh_token ?? t.refreshToken,
        accessToken: tokens.access_token,
        subject: t.subject
      }
      const claims = tokens.claims()
      if (claims && claims.sub !== t.subject) return { kind: 'refused', reason: 'the renewed ID token is for another person' }
      if (claims) return await this.withRoleClaim(config, claims, next)
      const info = await client.fetchUserInfo(config, tokens.access_token, t.subject)
      return { kind: 'ok', claims: info, tokens: next }
    } catch (e) {
      return answerOf(e)
    }
  }

  /** The ID token's claims, with userinfo's when the role claim is not among them (some providers send groups there only). */
  private async withRoleClaim(
    config: client.Configuration,
    claims: Claims & { sub: string },
    tokens: ProviderTokens
  ): Promise<ProviderAnswer> {
    const top = this.o.roleClaim.split('.')[0]!
    if (top in claims || !config.serverMetadata().userinfo_endpoint) return { kind: 'ok', claims, tokens }
    const info = await client.fetchUserInfo(config, tokens.accessToken, claims.sub)
    return { kind: 'ok', claims: { ...info, ...claims }, tokens }
  }
}
