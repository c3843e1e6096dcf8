// A Team profile's session from a sign-in through the identity provider: the token each hub
// request carries, renewed with the hub (POST /auth/oidc/refresh, which asks the provider)
// a minute before it lapses, each renewal saved where the profile's credential is kept (the
// secret store). When the hub says the session ended (the provider refused, the person has
// no role any more, the operator was revoked), the saved session is dropped and every request
// fails with the hub's reason, which ends with "Sign in again" or says whom to ask.
// Hubs that share one database can each renew the session: a renewal goes to the first of the
// profile's hubs that answers, in the profile's order, so the session outlives its first hub.
// When it lapses is counted on this desktop's own clock from the hub's expiresIn (oidc-sign-in.ts,
// receivedSession), never by comparing the hub's clock with this one; and a hub that refuses the
// access token all the same (a clock jumped, a hub restored) gets it renewed once, not "revoked".
import type { Dispatcher } from 'undici'
import { postJson, receivedSession, SignInError, steadyNow, type OidcSessionTokens } from './oidc-sign-in'

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
  /** The desktop's clock (steady by default: the system clock set back or forward does not move it). */
  now?: () => number
  /** Told when a renewed session could not be kept even after trying again (the support log says so). */
  onSaveFailed?(error: unknown): void
  /** The waits before each further try to keep a renewed session (default 1 s, then 5 s, then 30 s). */
  saveRetryMs?: readonly number[]
}

/** What signing out told the hub. */
export type SignOutOutcome = { kind: 'told' } | { kind: 'not-told'; why: string }

export class HubSession {
  private state: SessionState
  private renewing: Promise<string> | null = null
  private readonly now: () => number

  constructor(private readonly o: HubSessionOptions) {
    this.state = { kind: 'signed-in', tokens: o.tokens }
    this.now = o.now ?? steadyNow
  }

  get current(): SessionState {
    return this.state
  }

  /**
   * The access token for the next request, renewed first when it is about to lapse, or when a
   * hub just refused it (`refused`: that token; renewed once, whatever this desktop's clock says).
   */
  token(refused?: string): Promise<string> {
    const s = this.state
    if (s.kind === 'ended') return Promise.reject(new SignInEnded(s.message))
    const stale = refused !== undefined && refused === s.tokens.accessToken
    if (!stale && s.tokens.expiresAt - RENEW_BEFORE_MS > this.now()) return Promise.resolve(s.tokens.accessToken)
    // One renewal however many requests want a token meanwhile (a refresh token is good once).
    this.renewing ??= this.renew(s.tokens).finally(() => (this.renewing = null))
    return this.renewing
  }

  /** Tries again to keep `value` while it is still the session held; says so when it never could. */
  private async saveAgain(value: OidcSessionTokens, first: unknown): Promise<void> {
    let last = first
    for (const ms of this.o.saveRetryMs ?? [1_000, 5_000, 30_000]) {
      await new Promise((r) => setTimeout(r, ms).unref?.())
      const s = this.state
      if (s.kind !== 'signed-in' || s.tokens !== value) return
      try {
        await this.o.save(value)
        return
      } catch (e) {
        last = e
      }
    }
    this.o.onSaveFailed?.(last)
  }

  private get urls(): string[] {
    return [...new Set([this.o.hubUrl, ...(this.o.fallbackUrls ?? [])].map((u) => u.replace(/\/+$/, '')))]
  }

  private async renew(tokens: OidcSessionTokens): Promise<string> {
    let words: string | undefined
    for (const url of this.urls) {
      let r: Awaited<ReturnType<typeof postJson>>
      const sentAt = this.now()
      try {
        r = await postJson(`${url}/auth/oidc/refresh`, { refreshToken: tokens.refreshToken }, this.o.dispatcher)
      } catch {
        continue // Unreachable: the next hub may answer.
      }
      const answered = r.json?.value as OidcSessionTokens | undefined
      if (r.status === 200 && answered) {
        const value = receivedSession(answered, sentAt)
        this.state = { kind: 'signed-in', tokens: value }
        // Kept or not, the session is renewed and goes on here. A keychain that failed to keep it
        // is asked again shortly: a desktop restarted later on the old copy would present a
        // refresh token the hub has replaced, which after its minute of grace reads as a stolen
        // one and ends the session.
        await this.o.save(value).catch((e: unknown) => void this.saveAgain(value, e))
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

  /**
   * Asks the hubs, in order, to end the session (POST /auth/oidc/sign-out): told when one
   * answered that it ended, or that there was nothing to end; not told when none could be asked.
   * Either way this session is over here.
   */
  async signOut(): Promise<SignOutOutcome> {
    const s = this.state
    this.state = { kind: 'ended', message: 'You signed out. Sign in again.' }
    if (s.kind === 'ended') return { kind: 'told' }
    let why = 'the team hub did not answer'
    for (const url of this.urls) {
      try {
        const r = await postJson(`${url}/auth/oidc/sign-out`, { refreshToken: s.tokens.refreshToken }, this.o.dispatcher, 10_000)
        // 401: the hub knows no such session (it ended already): nothing is left to end.
        if (r.status === 200 || r.status === 401) return { kind: 'told' }
        why = `the team hub answered HTTP ${r.status}`
      } catch {
        // Unreachable: the next hub may answer.
      }
    }
    return { kind: 'not-told', why }
  }
}
