// A Team profile's credential as the hub calls see it: a pasted operator token, or a session
// from a sign-in through the hub's identity provider. Both are kept in the secret store under
// the profile (the keychain where there is one); a session is stored as one marked string,
// which a pasted token never starts with. A session is renewed by its HubSession before its
// access token lapses, each renewal stored again; when the hub ends it, the stored copy is
// deleted and the hub's words are kept here, so every call and the Settings card say that
// the sign-in ended instead of "no token stored". Nothing of a session leaves the main process.
import type { Dispatcher } from 'undici'
import type { Profile, ProfileSignIn, TeamRole } from '../../shared/ipc/contract'
import type { SecretStore } from '../secrets/secret-store'
import { HubSession, SignInEnded } from './oidc-session'
import { newSignIn, redeemSignIn, signInStartUrl, steadyNow, type OidcSessionTokens, type SignInSecrets } from './oidc-sign-in'

const MARK = 'rampdesk-oidc-session:v1:'

/** Why a profile that signed out is not signed in (the card and the line to the hub say it). */
export const SIGNED_OUT = 'You signed out. Sign in again.'

/** A sign-in through a page redirect (the browser harness) this long at most, as the hub's own. */
const REDIRECT_TTL_MS = 10 * 60_000
const MAX_PENDING = 8

export function sessionSecret(t: OidcSessionTokens): string {
  const { accessToken, refreshToken, expiresAt, operator, role } = t
  return MARK + JSON.stringify({ accessToken, refreshToken, expiresAt, operator, role })
}

/** The session a stored secret holds, or null for a pasted operator token. */
export function parseSessionSecret(secret: string): OidcSessionTokens | null {
  if (!secret.startsWith(MARK)) return null
  try {
    const t = JSON.parse(secret.slice(MARK.length)) as Partial<OidcSessionTokens>
    const ok =
      typeof t.accessToken === 'string' &&
      typeof t.refreshToken === 'string' &&
      typeof t.expiresAt === 'number' &&
      typeof t.operator === 'string' &&
      typeof t.role === 'string'
    return ok ? (t as OidcSessionTokens) : null
  } catch {
    return null
  }
}

interface Held {
  /** The profile's hubs, in order, when the session was made: a changed list makes a new one. */
  hubs: string
  session: HubSession
  /** Every refresh token this session has held: a stored copy with one of them is this session. */
  refreshTokens: Set<string>
}

interface PendingRedirect {
  profileId: string
  hubUrl: string
  secrets: SignInSecrets
  redirectUri: string
  until: number
}

/** Signing out: the hub was told and ended the session, or only this desktop's copy is gone (the hub could not be asked). */
export type SignOutResult = { kind: 'signed-out' } | { kind: 'signed-out-here'; endsAt: number; why: string }

export type RedirectOutcome =
  | { kind: 'signed-in'; profileId: string; operator: string; role: TeamRole }
  | { kind: 'refused'; profileId: string; message: string }
  | { kind: 'unknown' }

export interface TeamCredentialsOptions {
  secrets: SecretStore
  now?: () => number
  dispatcher?: Dispatcher
  /** A profile's session was renewed (its hub closes streams opened with the old token). */
  onRenewed?(profileId: string): void
  /** A profile's renewed session could not be kept in the secret store, even after trying again. */
  onSaveFailed?(profileId: string, error: unknown): void
}

export class TeamCredentials {
  private readonly held = new Map<string, Held>()
  /** Profiles whose session the hub ended, or whose last sign-in was refused: the words to show. */
  private readonly outcome = new Map<string, Extract<ProfileSignIn, { kind: 'ended' | 'refused' }>>()
  private readonly pending = new Map<string, PendingRedirect>()
  /** Refresh tokens of sessions the hub ended: a copy read before it was deleted is not renewed again. */
  private readonly ended = new Set<string>()
  private readonly now: () => number

  constructor(private readonly o: TeamCredentialsOptions) {
    this.now = o.now ?? steadyNow
  }

  /**
   * The token for the profile's next hub request: a pasted one as stored, a session's current
   * access token (renewed first when `refused`, the token a hub just refused, is that one).
   */
  async tokenFor(profile: Profile, refused?: string): Promise<string | null> {
    const stored = await this.o.secrets.get(profile.id)
    if (stored === null) {
      this.held.delete(profile.id)
      const o = this.outcome.get(profile.id)
      if (o?.kind === 'ended') throw new SignInEnded(o.message)
      return null
    }
    const tokens = parseSessionSecret(stored)
    if (!tokens) {
      this.held.delete(profile.id)
      return stored
    }
    const o = this.outcome.get(profile.id)
    if (o?.kind === 'ended' && this.ended.has(tokens.refreshToken)) throw new SignInEnded(o.message)
    return this.sessionOf(profile, tokens).session.token(refused)
  }

  /**
   * Signs the profile out: a session is ended at its hub (best effort: a hub that cannot be
   * asked is said so, with when the access this computer held lapses), and the stored credential, a
   * session or a pasted token, is deleted.
   */
  async signOut(profile: Profile): Promise<SignOutResult> {
    const stored = await this.o.secrets.get(profile.id)
    const tokens = stored === null ? null : parseSessionSecret(stored)
    const held = tokens && !this.ended.has(tokens.refreshToken) ? this.sessionOf(profile, tokens) : null
    // Gone here first: a request meanwhile finds no credential (not the session, to renew it), and
    // a renewal already under way stores nothing (its session is no longer the one held).
    this.held.delete(profile.id)
    this.outcome.delete(profile.id)
    await this.o.secrets.delete(profile.id)
    if (!held) return { kind: 'signed-out' }
    // The line to the hub says the sign-in ended, and why, rather than that no token is stored.
    this.outcome.set(profile.id, { kind: 'ended', message: SIGNED_OUT })
    const s = held.session.current
    const told = await held.session.signOut()
    if (told.kind === 'told') return { kind: 'signed-out' }
    // The session's end is counted on the steady clock (it does not move with the wall clock, nor
    // run while the computer sleeps); the operator reads it on the wall clock, from now.
    const endsAt = s.kind === 'signed-in' ? s.tokens.expiresAt : tokens!.expiresAt
    return { kind: 'signed-out-here', why: told.why, endsAt: Date.now() + Math.max(0, endsAt - this.now()) }
  }

  /**
   * For a profile about to be deleted or moved to other hubs (the profile store then deletes its
   * credential): its session, detached at once, so that a renewal finishing meanwhile stores
   * nothing under the profile; `end` tells the hub it came from in the background once the
   * change is made (a hub slow or away does not hold it up; `said` hears why when the hub could
   * not be told). Null: no session to end (or the secret store could not be read). A change that
   * fails leaves the stored session, taken up again at the next request.
   */
  async sessionToEnd(profile: Profile): Promise<{ end(said: (why: string) => void): void } | null> {
    const stored = await this.o.secrets.get(profile.id).catch(() => null)
    const tokens = stored === null ? null : parseSessionSecret(stored)
    if (!tokens || this.ended.has(tokens.refreshToken)) return null
    const { session, refreshTokens } = this.sessionOf(profile, tokens)
    this.held.delete(profile.id)
    return {
      end: (said) => {
        for (const t of refreshTokens) this.ended.add(t)
        if (session.current.kind === 'signed-in') this.ended.add(session.current.tokens.refreshToken)
        this.outcome.delete(profile.id)
        this.cancelRedirect(profile.id)
        void session
          .signOut()
          .then((told) => told.kind === 'told' || said(told.why))
          .catch((e: unknown) => said(e instanceof Error ? e.message : String(e)))
      }
    }
  }

  /** Whether a sign-in through a page redirect is under way for this profile (the browser harness). */
  redirectPending(profileId: string): boolean {
    const at = this.now()
    return [...this.pending.values()].some((p) => p.profileId === profileId && p.until > at)
  }

  /** Cancels the profile's sign-ins through a page redirect: a page coming back with one of them finds it over. */
  cancelRedirect(profileId: string): boolean {
    let any = false
    for (const [state, p] of this.pending)
      if (p.profileId === profileId) {
        this.pending.delete(state)
        any = true
      }
    return any
  }

  /** This profile's sign-in through the provider, as it stands. */
  async state(profile: Profile): Promise<ProfileSignIn> {
    const stored = await this.o.secrets.get(profile.id).catch(() => null)
    const tokens = stored === null ? null : parseSessionSecret(stored)
    if (tokens && !this.ended.has(tokens.refreshToken)) {
      const s = this.sessionOf(profile, tokens).session.current
      if (s.kind === 'signed-in') return { kind: 'signed-in', operator: s.tokens.operator, role: s.tokens.role as TeamRole }
      return { kind: 'ended', message: s.message }
    }
    return this.outcome.get(profile.id) ?? { kind: 'none' }
  }

  /** Keeps a new session as the profile's credential (replacing a pasted token or an older session). */
  async store(profile: Profile, tokens: OidcSessionTokens): Promise<void> {
    await this.o.secrets.set(profile.id, sessionSecret(tokens))
    this.outcome.delete(profile.id)
    this.ended.clear()
    this.held.delete(profile.id)
    this.sessionOf(profile, tokens)
  }

  /** A sign-in that did not happen: its words stay for the profile's card. */
  refused(profileId: string, message: string): void {
    this.outcome.set(profileId, { kind: 'refused', message })
  }

  /** A sign-in whose page goes to the hub and comes back to `redirectUri` (the browser harness). */
  beginRedirect(profile: Profile, redirectUri: string): string {
    const at = this.now()
    for (const [state, p] of this.pending) if (p.until <= at) this.pending.delete(state)
    while (this.pending.size >= MAX_PENDING) this.pending.delete(this.pending.keys().next().value!)
    const secrets = newSignIn()
    this.pending.set(secrets.state, { profileId: profile.id, hubUrl: profile.baseUrl, secrets, redirectUri, until: at + REDIRECT_TTL_MS })
    return signInStartUrl(profile.baseUrl, redirectUri, secrets)
  }

  /** The page came back with `state` and a code or an error: the sign-in finishes (once). */
  async finishRedirect(query: URLSearchParams, profileOf: (id: string) => Profile | undefined): Promise<RedirectOutcome> {
    const state = query.get('state') ?? ''
    const p = this.pending.get(state)
    if (!p || p.until <= this.now()) return { kind: 'unknown' }
    this.pending.delete(state)
    const profile = profileOf(p.profileId)
    const refuse = (message: string): RedirectOutcome => {
      this.refused(p.profileId, message)
      return { kind: 'refused', profileId: p.profileId, message }
    }
    if (!profile || profile.baseUrl !== p.hubUrl) return refuse('The profile changed while you were signing in. Sign in again.')
    const code = query.get('code')
    const error = query.get('error_description') ?? query.get('error')
    if (!code || error) return refuse(error ?? 'The sign-in did not finish. Try again.')
    try {
      const tokens = await redeemSignIn(p.hubUrl, code, p.secrets.verifier, this.o.dispatcher, this.now)
      await this.store(profile, tokens)
      return { kind: 'signed-in', profileId: profile.id, operator: tokens.operator, role: tokens.role as TeamRole }
    } catch (e) {
      return refuse(e instanceof Error ? e.message : String(e))
    }
  }

  private sessionOf(profile: Profile, tokens: OidcSessionTokens): Held {
    const h = this.held.get(profile.id)
    const hubs = [profile.baseUrl, ...(profile.fallbackUrls ?? [])].join(' ')
    if (h && h.hubs === hubs && h.refreshTokens.has(tokens.refreshToken)) return h
    const refreshTokens = new Set([tokens.refreshToken])
    const held: Held = {
      hubs,
      refreshTokens,
      session: new HubSession({
        hubUrl: profile.baseUrl,
        fallbackUrls: profile.fallbackUrls,
        tokens,
        dispatcher: this.o.dispatcher,
        now: this.now,
        onSaveFailed: (e) => this.o.onSaveFailed?.(profile.id, e),
        save: async (next) => {
          if (this.held.get(profile.id) !== held) return
          if (next) {
            refreshTokens.add(next.refreshToken)
            this.o.onRenewed?.(profile.id)
            await this.o.secrets.set(profile.id, sessionSecret(next))
            return
          }
          const s = held.session.current
          for (const t of refreshTokens) this.ended.add(t)
          this.outcome.set(profile.id, {
            kind: 'ended',
            message: s.kind === 'ended' ? s.message : 'Your sign-in has ended. Sign in again.'
          })
          this.held.delete(profile.id)
          await this.o.secrets.delete(profile.id)
        }
      })
    }
    this.held.set(profile.id, held)
    return held
  }
}
