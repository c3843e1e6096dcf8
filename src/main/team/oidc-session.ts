// A Team profile's session from a sign-in through the identity provider: the token each hub
// request carries, renewed with the hub (POST /auth/oidc/refresh, which asks the provider)
// a minute before it lapses, each renewal saved where the profile's credential is kept (the
// secret store). When the hub says the session ended (the provider refused, the person has
// no role any more, the operator was revoked), the saved session is dropped and every request
// fails with the hub's reason, which ends with "Sign in again" or says whom to ask.
// Hubs that share one database can each renew the session: a renewal goes to the first of the
// profile's hubs that answers, in the profile's order, so the session outlives its first hub.
import type { Dispatcher } from 'undici'
import { postJson, SignInError, type OidcSessionTokens } from './oidc-sign-in'

/** The hub ended the session: only signing in again helps (hub-connection.ts reports it as such). */
export class SignInEnded extends SignInError {
  readonly signedOut = true
  constructor(message: string) {
    super(message)
    this.name = 'SignInEnded'
  }
}

/** Renewed this long before it lapses, so no request goes out with a token about to lapse. */
export const RENEW_BEFORE_MS = 60_000

export type SessionState = { kind: 'signed-in'; tokens: OidcSessionTokens } | { kind: 'ended'; message: string }

export interface HubSessionOptions {
  hubUrl: string
  /** The profile's other hubs, asked in this order when the ones before do not answer. */
  fallbackUrls?: readonly string[]
  tokens: OidcSessionTokens
  /** Keeps the renewed session (null: it ended) where the profile's credential is kept. */
  save(tokens: OidcSessionTokens | null): Promise<void>
  dispatcher?: Dispatcher
  now?: () => number
}

export class HubSession {
  private state: SessionState
  private renewing: Promise<string> | null = null
  private readonly now: () => number

  constructor(private readonly o: HubSessionOptions) {
    this.state = { kind: 'signed-in', tokens: o.tokens }
    this.now = o.now ?? Date.now
  }

  get current(): SessionState {
    return this.state
  }

  /** The access token for the next request, renewed first when it is about to lapse. */
  token(): Promise<string> {
    const s = this.state
    if (s.kind === 'ended') return Promise.reject(new SignInEnded(s.message))
    if (s.tokens.expiresAt - RENEW_BEFORE_MS > this.now()) return Promise.resolve(s.tokens.accessToken)
    // One renewal however many requests want a token meanwhile (a refresh token is good once).
    this.renewing ??= this.renew(s.tokens).finally(() => (this.renewing = null))
    return this.renewing
  }

  private async renew(tokens: OidcSessionTokens): Promise<string> {
    const urls = [...new Set([this.o.hubUrl, ...(this.o.fallbackUrls ?? [])].map((u) => u.replace(/\/+$/, '')))]
    let words: string | undefined
    for (const url of urls) {
      let r: Awaited<ReturnType<typeof postJson>>
      try {
        r = await postJson(`${url}/auth/oidc/refresh`, { refreshToken: tokens.refreshToken }, this.o.dispatcher)
      } catch {
        continue // Unreachable: the next hub may answer.
      }
      const value = r.json?.value as OidcSessionTokens | undefined
      if (r.status === 200 && value) {
        this.state = { kind: 'signed-in', tokens: value }
        await this.o.save(value)
        return value.accessToken
      }
      const error = r.json?.error as { kind?: string; message?: string } | undefined
      if (r.status === 401) {
        // The person was refused: another hub would refuse them too (one database, one provider).
        const message = error?.message ?? 'Your sign-in has ended. Sign in again.'
        this.state = { kind: 'ended', message }
        await this.o.save(null)
        throw new SignInEnded(message)
      }
      words = error?.message ?? words
      // A 5xx (the provider did not answer this hub included: the next hub reaches it its own way,
      // and a 503 leaves the refresh token unspent) moves on; any other answer is this hub's last word.
      if (r.status < 500) break
    }
    // No hub renewed it now: the session stands, the next request tries again.
    throw new SignInError(words ?? 'The team hub could not renew your sign-in just now. Trying again shortly.')
  }
}
