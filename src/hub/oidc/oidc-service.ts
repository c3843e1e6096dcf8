// Sign-in through the team's identity provider, from the desktop's first request to its
// renewals. The desktop (its loopback listener, RFC 8252, or the web harness) opens
// /auth/oidc/start in a browser with its own redirect URI, state and PKCE challenge; the hub
// sends the browser to the provider with a state, a nonce and a PKCE challenge of its own,
// kept sealed server-side for ten minutes and taken once; the provider sends the browser back
// to /auth/oidc/callback; the hub checks the ID token, finds or creates the operator, opens a
// session and sends the browser back to the desktop with a one-time hand-over code, which
// only the desktop holding the PKCE verifier can redeem (POST /auth/oidc/token). A session's
// access token lasts `sessionMs` (each answer says so in seconds, expiresIn, for a desktop to
// count on its own clock, and as the hub's instant, expiresAt); each renewal (POST
// /auth/oidc/refresh) asks the provider
// again, and ends the session when it refuses or the person's claim gives no role, so a
// person disabled at the provider loses access within one session. A provider that does not
// answer is not a person refused: a renewal then goes on without asking it, for an hour after
// the person was last checked (OUTAGE_GRACE_MS), so an outage of the provider does not sign
// the whole team out in the middle of their work. A renewal replaces the refresh token; the one
// it replaced is taken again once within RENEWAL_GRACE_MS and answered with the same session, so
// an answer lost on the way (or a desktop that could not keep it) costs nobody their sign-in;
// presented again after that (a second time, or after the grace) it is a copy in someone else's
// hands, and the session ends; so does any older token a renewal replaced. Two renewals with one
// refresh token at once (a desktop retrying on another hub) ask the provider once: the first
// claims the session, the other waits for its answer and is given the same session.
// POST /auth/oidc/sign-out ends a session for the person holding it.
import { createHash, randomUUID } from 'node:crypto'
import { setTimeout as sleep } from 'node:timers/promises'
import type { TeamRole } from '../../shared/ipc/contract'
import type { AuditLog } from '../hub-store'
import type { HubLog } from '../hub-log'
import { noRoleMessage, roleOf, type OidcConfig } from './oidc-config'
import { OidcProvider, PROVIDER_TIMEOUT_S, type Claims, type ProviderTokens } from './oidc-provider'
import { keyHash, randomSecret, seal, unseal } from './oidc-seal'
import {
  ACCESS_PREFIX,
  HANDOFF_PREFIX,
  REFRESH_PREFIX,
  sessionShaped,
  type OidcStore,
  type PreviousSession,
  type StoredSession
} from './oidc-store'

/** How long a sign-in may take at the provider, and a finished one wait for its desktop. */
export const LOGIN_TTL_MS = 10 * 60_000
export const HANDOFF_TTL_MS = 2 * 60_000
/**
 * Sign-ins under way kept at most, hub-wide: anyone may start one, so a flood from many
 * addresses drops the oldest rather than growing the store or refusing the next person. A
 * person is at the provider for a minute or so; at the per-address cap (oidc-routes.ts) it
 * takes over a hundred addresses to push their sign-in out in that time.
 */
export const MAX_PENDING_SIGN_INS = 1_000
/** How long after a person was last checked with the provider a renewal goes on without it while the provider does not answer. */
export const OUTAGE_GRACE_MS = 60 * 60_000
/**
 * How long the refresh token a renewal replaced is taken again (once), answered with the session
 * as that renewal left it: long enough for a desktop to retry a renewal whose answer it never got,
 * short enough that a copy of the token found later is refused (and ends the session).
 */
export const RENEWAL_GRACE_MS = 60_000
/**
 * How long a renewal holds its session while it asks the provider (the provider's timeout and
 * then some): another renewal with the same refresh token waits for it that long at most, and a
 * hub that died while asking holds nobody up for longer.
 */
export const RENEWAL_CLAIM_MS = (PROVIDER_TIMEOUT_S + 5) * 1000
/** How often a renewal waiting for another with the same token looks again. */
const RENEWAL_WAIT_STEP_MS = 100
const OLDER_COPY =
  'Your sign-in was ended because an older copy of it was used again. Sign in again; if you did not expect this, tell your team lead.'

interface PendingLogin {
  nonce: string
  verifier: string
  redirectUri: string
  desktopState: string
  challenge: string
}

interface Handoff {
  accessToken: string
  refreshToken: string
  expiresAt: number
  operator: string
  role: TeamRole
  challenge: string
}

/** The provider's tokens as a session keeps them: with when the provider last said yes (older sessions have none). */
type CheckedTokens = ProviderTokens & { checkedAt?: number }

/** Where the provider failed: what a support engineer sees counted. */
export type ProviderStage = 'discovery' | 'sign_in' | 'renewal'

/** What a desktop holds after a sign-in or a renewal. */
export interface OidcSession {
  accessToken: string
  refreshToken: string
  /** When the access token lapses, on the hub's clock (ms since the epoch). */
  expiresAt: number
  operator: string
  role: TeamRole
}

/** A session as answered: with the seconds its access token has left, which a desktop counts on its own clock. */
export type AnsweredSession = OidcSession & { expiresIn: number }

export type StartAnswer = { kind: 'redirect'; location: string } | { kind: 'refused'; status: number; message: string }
export type CallbackAnswer = { kind: 'redirect'; location: string } | { kind: 'page'; status: number; message: string }
export type SessionAnswer = { kind: 'ok'; session: AnsweredSession } | Refusal
export type SignOutAnswer = { kind: 'ok'; ended: boolean } | Refusal
type Refusal = { kind: 'refused'; status: number; errorKind: string; message: string }

const ENDED = 'Your sign-in has ended. Sign in again.'
const REVOKED = 'Your access to this team was revoked. Ask your team lead.'
const ended = (message: string): Refusal => ({ kind: 'refused', status: 401, errorKind: 'session_ended', message })

/** A desktop's redirect URI: http on a loopback address with a port (RFC 8252 7.3), nothing else. */
export function loopbackRedirect(uri: string): URL | null {
  let u: URL
  try {
    u = new URL(uri)
  } catch {
    return null
  }
  if (u.protocol !== 'http:' || (u.hostname !== '127.0.0.1' && u.hostname !== '[::1]')) return null
  if (u.port === '' || u.username || u.password || u.hash) return null
  return u
}

const S256 = (verifier: string) => createHash('sha256').update(verifier, 'ascii').digest('base64url')
const CHALLENGE = /^[A-Za-z0-9_-]{43}$/
/** A desktop's state, and the shape of the hub's own (43 characters). */
const STATE = /^[A-Za-z0-9_-]{16,128}$/

export interface OidcServiceOptions {
  config: OidcConfig
  store: OidcStore
  audit: AuditLog
  log: HubLog
  /** The address the provider sends browsers back to (the hub's public URL). */
  publicUrl(): string
  now?: () => number
  /** The provider did not answer or answered nonsense (counted in /metrics). */
  providerFailed?(stage: ProviderStage): void
  /** Sign-ins under way dropped at the cap (counted in /metrics). */
  pendingDropped?(count: number): void
}

export class OidcService {
  readonly provider: OidcProvider
  private readonly now: () => number
  /** Lines about the provider or the cap, one a minute per subject (a flood writes a summary, not a line per request). */
  private readonly said = new Map<string, { at: number; more: number }>()

  constructor(private readonly o: OidcServiceOptions) {
    this.provider = new OidcProvider(o.config)
    this.now = o.now ?? Date.now
  }

  private sayOnceAMinute(subject: string, message: string): void {
    const t = Date.now()
    const last = this.said.get(subject)
    if (last && t - last.at < 60_000) {
      last.more++
      return
    }
    this.said.set(subject, { at: t, more: 0 })
    this.o.log.warn(last?.more ? `${message} (and ${last.more} more like it in the minute before)` : message)
  }

  private providerDown(stage: ProviderStage, reason: string): void {
    this.o.providerFailed?.(stage)
    const during = { discovery: 'sign-in start', sign_in: 'sign-in', renewal: 'renewal' }[stage]
    this.sayOnceAMinute(`provider ${stage}`, `identity provider ${this.o.config.issuer} failed at ${during}: ${reason}`)
  }

  /** What a person is shown when the provider does not answer the hub. */
  private get noAnswer(): string {
    return `${this.o.config.providerName} did not answer the hub. Try again in a minute; if it goes on, ask your team lead.`
  }

  get callbackUrl(): string {
    return `${this.o.publicUrl().replace(/\/+$/, '')}/auth/oidc/callback`
  }

  /** What a desktop is told before it offers "Sign in with …". */
  info(): { provider: string; issuer: string; sessionMinutes: number } {
    return {
      provider: this.o.config.providerName,
      issuer: this.o.config.issuer,
      sessionMinutes: Math.round(this.o.config.sessionMs / 60_000)
    }
  }

  async start(q: URLSearchParams): Promise<StartAnswer> {
    const redirect = loopbackRedirect(q.get('redirect_uri') ?? '')
    if (!redirect)
      return {
        kind: 'refused',
        status: 400,
        message: 'redirect_uri must be http://127.0.0.1:PORT/… or http://[::1]:PORT/… (a desktop on this machine)'
      }
    const challenge = q.get('code_challenge') ?? ''
    const desktopState = q.get('state') ?? ''
    if (!CHALLENGE.test(challenge) || q.get('code_challenge_method') !== 'S256')
      return { kind: 'refused', status: 400, message: 'code_challenge (S256, 43 characters) is required' }
    if (!STATE.test(desktopState)) return { kind: 'refused', status: 400, message: 'state (16-128 URL-safe characters) is required' }
    let req
    try {
      req = await this.provider.authorizationRequest(this.callbackUrl)
    } catch (e) {
      this.providerDown('discovery', (e as Error).message)
      return { kind: 'refused', status: 503, message: `Sign-in is unavailable: ${this.noAnswer}` }
    }
    const pending: PendingLogin = { nonce: req.nonce, verifier: req.verifier, redirectUri: redirect.href, desktopState, challenge }
    const dropped = await this.o.store.putPending(
      keyHash(req.state),
      seal(req.state, 'login', pending),
      this.now() + LOGIN_TTL_MS,
      MAX_PENDING_SIGN_INS
    )
    if (dropped > 0) {
      this.o.pendingDropped?.(dropped)
      this.sayOnceAMinute(
        'cap',
        `sign-ins under way at their cap (${MAX_PENDING_SIGN_INS}): the oldest are dropped (a flood of /auth/oidc/start?)`
      )
    }
    return { kind: 'redirect', location: req.url.href }
  }

  async callback(query: URLSearchParams): Promise<CallbackAnswer> {
    const state = query.get('state') ?? ''
    // A state not even shaped like the hub's is refused before the store is asked.
    const sealed = STATE.test(state) ? await this.o.store.takePending(keyHash(state), this.now()) : null
    const login = sealed === null ? null : unseal<PendingLogin>(state, 'login', sealed)
    if (!login)
      return {
        kind: 'page',
        status: 400,
        message: 'This sign-in link was already used or is too old. Start again from Rampdesk: Team, Sign in.'
      }
    const back = (params: Record<string, string>): CallbackAnswer => {
      const u = new URL(login.redirectUri)
      for (const [k, v] of Object.entries({ ...params, state: login.desktopState })) u.searchParams.set(k, v)
      return { kind: 'redirect', location: u.href }
    }
    const refuse = (message: string, detail: Record<string, unknown>) => {
      this.o.audit.append('(sign-in)', 'oidc:refused', { issuer: this.o.config.issuer, ...detail })
      this.o.log.warn(`sign-in through ${this.o.config.issuer} refused: ${String(detail.reason ?? message)}`)
      return back({ error: 'access_denied', error_description: message })
    }
    const callbackUrl = new URL(this.callbackUrl)
    callbackUrl.search = query.toString()
    const answer = await this.provider.exchange(callbackUrl, { state, nonce: login.nonce, verifier: login.verifier })
    if (answer.kind === 'unreachable') {
      this.providerDown('sign_in', answer.reason)
      return refuse(`Sign-in did not finish: ${this.noAnswer}`, { reason: `the provider did not answer: ${answer.reason}` })
    }
    if (answer.kind === 'refused')
      return refuse(`${this.o.config.providerName} did not sign you in. Try again; if it happens again, tell your team lead.`, {
        reason: answer.reason
      })
    const { claims, tokens } = answer
    const role = roleOf(this.o.config, claims)
    if (!role) return refuse(noRoleMessage(this.o.config), { subject: tokens.subject, reason: `no role in ${this.o.config.roleClaim}` })
    const op = await this.o.store.signIn(
      { issuer: this.o.config.issuer, subject: tokens.subject, preferredName: preferredName(claims), role },
      this.now()
    )
    if (op.created) this.o.audit.append('(sign-in)', 'team:addOperator', { name: op.name, role, issuer: this.o.config.issuer })
    else if (op.previousRole) this.o.audit.append('(sign-in)', 'oidc:roleChanged', { name: op.name, from: op.previousRole, to: role })
    this.o.audit.append(op.name, 'oidc:signIn', { issuer: this.o.config.issuer, role })
    this.o.log.info(`${op.name} (${role}) signed in through ${this.o.config.issuer}`, { operator: op.name, role })
    const session = this.newTokens(op.name, role)
    await this.o.store.createSession(
      {
        id: randomUUID(),
        operatorKey: op.key,
        accessHash: keyHash(session.accessToken),
        accessExpiresAt: session.expiresAt,
        refreshHash: keyHash(session.refreshToken),
        sealed: seal(session.refreshToken, 'provider', { ...tokens, checkedAt: this.now() } satisfies CheckedTokens)
      },
      this.now()
    )
    const code = randomSecret()
    const handoff: Handoff = { ...session, challenge: login.challenge }
    await this.o.store.putPending(HANDOFF_PREFIX + keyHash(code), seal(code, 'handoff', handoff), this.now() + HANDOFF_TTL_MS)
    return back({ code })
  }

  /** The desktop redeems its hand-over code with its PKCE verifier. */
  async redeem(code: string, verifier: string): Promise<SessionAnswer> {
    const sealed = code ? await this.o.store.takePending(HANDOFF_PREFIX + keyHash(code), this.now()) : null
    const h = sealed === null ? null : unseal<Handoff>(code, 'handoff', sealed)
    if (!h || S256(verifier) !== h.challenge)
      return {
        kind: 'refused',
        status: 400,
        errorKind: 'unauthorized',
        message: 'This sign-in was already used, is too old or is not yours: sign in again.'
      }
    const { challenge: _, ...session } = h
    return { kind: 'ok', session: this.answered(session) }
  }

  /** The session with the seconds left on its access token, counted now (never up: a desktop renews early rather than late). */
  private answered(s: OidcSession): AnsweredSession {
    return { ...s, expiresIn: Math.max(0, Math.floor((s.expiresAt - this.now()) / 1000)) }
  }

  /** `waitUntil`: given while this renewal waits for another with the same token (the hub's clock). */
  async refresh(refreshToken: string, waitUntil?: number): Promise<SessionAnswer> {
    const hash = keyHash(refreshToken)
    if (!refreshToken.startsWith(REFRESH_PREFIX)) return ended(ENDED)
    const s = await this.o.store.sessionByRefresh(hash)
    if (!s) {
      const previous = await this.o.store.sessionByPreviousRefresh(hash)
      if (previous) return this.renewedAgain(previous, refreshToken)
      const replaced = await this.o.store.sessionByReplacedRefresh(hash)
      return replaced
        ? this.reused(replaced, 'a refresh token replaced by an earlier renewal (not the last) was presented again')
        : ended(ENDED)
    }
    const tokens = unseal<CheckedTokens>(refreshToken, 'provider', s.sealed)
    if (s.ended || !tokens) return ended(ENDED)
    if (!s.operator) return ended(REVOKED)
    const at = this.now()
    let mine = at + RENEWAL_CLAIM_MS
    if (!(await this.o.store.claimRenewal(s.id, hash, mine, at))) {
      // Another renewal with this token is asking the provider, which may take a refresh token
      // once: its answer is this one's too (the replaced token's one retry), or its claim lapses.
      const deadline = waitUntil ?? at + RENEWAL_CLAIM_MS + 1_000
      if (at >= deadline)
        return {
          kind: 'refused',
          status: 503,
          errorKind: 'unavailable',
          message: 'Your sign-in is being renewed by another request that has not finished. Try again in a moment.'
        }
      await sleep(RENEWAL_WAIT_STEP_MS)
      return this.refresh(refreshToken, deadline)
    }
    // Asking the provider may take several requests, each up to its timeout: the claim is kept
    // while this hub is at it, and lapses RENEWAL_CLAIM_MS after a hub that died while asking.
    let extending: Promise<unknown> = Promise.resolve()
    const keep = setInterval(() => {
      const until = this.now() + RENEWAL_CLAIM_MS
      extending = (async () => {
        if (await this.o.store.extendRenewal(s.id, hash, mine, until)) mine = until
      })().catch(() => undefined)
    }, RENEWAL_CLAIM_MS / 3)
    keep.unref()
    try {
      return await this.renewClaimed(s as StoredSession & { operator: NonNullable<StoredSession['operator']> }, refreshToken, tokens)
    } finally {
      clearInterval(keep)
      await extending
      // A rotation took the claim with the token; else it goes now, for the next renewal.
      try {
        await this.o.store.releaseRenewal(s.id, hash, mine)
      } catch (e) {
        this.o.log.warn(`could not release a renewal of ${s.operator.name}'s session (it lapses by itself): ${(e as Error).message}`)
      }
    }
  }

  /** A renewal this hub claimed: the provider asked, the session renewed or ended. */
  private async renewClaimed(
    s: StoredSession & { operator: NonNullable<StoredSession['operator']> },
    refreshToken: string,
    tokens: CheckedTokens
  ): Promise<SessionAnswer> {
    const close = async (reason: string, message: string): Promise<SessionAnswer> => {
      // Only the session as this renewal found it: one renewed meanwhile (the claim lost to a
      // stalled hub) stands, and this token is its replaced one.
      if (!(await this.o.store.end(s.id, this.now(), keyHash(refreshToken)))) {
        const previous = await this.o.store.sessionByPreviousRefresh(keyHash(refreshToken))
        return previous ? this.renewedAgain(previous, refreshToken) : ended(ENDED)
      }
      this.o.audit.append(s.operator!.name, 'oidc:sessionEnded', { issuer: this.o.config.issuer, reason })
      this.o.log.warn(`${s.operator!.name}'s session ended: ${reason}`, { operator: s.operator!.name })
      return ended(message)
    }
    const { checkedAt, ...providerTokens } = tokens
    const answer = await this.provider.renew(providerTokens)
    if (answer.kind === 'unreachable') {
      this.providerDown('renewal', answer.reason)
      if (checkedAt !== undefined && this.now() - checkedAt < OUTAGE_GRACE_MS) {
        // Not a refusal of this person: they go on as they were, and are checked at the next renewal.
        this.o.audit.append(s.operator.name, 'oidc:renewedUnchecked', { issuer: this.o.config.issuer, lastChecked: checkedAt })
        return this.renewed(s, refreshToken, s.operator.role, tokens)
      }
      this.o.log.warn(
        `${s.operator.name}'s session was not renewed: the provider has not answered since ${new Date(checkedAt ?? 0).toISOString()}`
      )
      return {
        kind: 'refused',
        status: 503,
        errorKind: 'unavailable',
        message: `${this.noAnswer} Your sign-in cannot be renewed until it does.`
      }
    }
    if (answer.kind === 'refused')
      return close(`the provider refused: ${answer.reason}`, `${this.o.config.providerName} ended your sign-in. Sign in again.`)
    const role = roleOf(this.o.config, answer.claims)
    if (!role) return close(`no role in ${this.o.config.roleClaim}`, noRoleMessage(this.o.config))
    if (role !== s.operator.role) {
      await this.o.store.setRole(s.operatorKey, role)
      this.o.audit.append('(sign-in)', 'oidc:roleChanged', { name: s.operator.name, from: s.operator.role, to: role })
    }
    return this.renewed(s, refreshToken, role, { ...answer.tokens, checkedAt: this.now() })
  }

  /**
   * New tokens for a session, if its refresh token is still `refreshToken` (another renewal with
   * the same token may have come first, on this hub or another: then its answer is this one's).
   */
  private async renewed(s: StoredSession, refreshToken: string, role: TeamRole, tokens: CheckedTokens): Promise<SessionAnswer> {
    const next = this.newTokens(s.operator!.name, role)
    const hash = keyHash(refreshToken)
    const rotated = await this.o.store.rotate(
      s.id,
      hash,
      {
        accessHash: keyHash(next.accessToken),
        accessExpiresAt: next.expiresAt,
        refreshHash: keyHash(next.refreshToken),
        sealed: seal(next.refreshToken, 'provider', tokens)
      },
      { sealed: seal(refreshToken, 'renewed', next), until: this.now() + RENEWAL_GRACE_MS }
    )
    if (rotated) return { kind: 'ok', session: this.answered(next) }
    const previous = await this.o.store.sessionByPreviousRefresh(hash)
    return previous ? this.renewedAgain(previous, refreshToken) : ended(ENDED)
  }

  /**
   * A refresh token a renewal already replaced: within RENEWAL_GRACE_MS, once, the session as that
   * renewal left it (the same tokens again, nothing asked of the provider), taken from the store
   * so that no other hub on it hands it out too. Presented again, after that answer or after the
   * grace, it is a copy used by someone else, it may be: the session ends for everyone holding it.
   * Whoever held it got the whole session, so a desktop that loses that answer too signs in again.
   */
  private async renewedAgain(p: PreviousSession, refreshToken: string): Promise<SessionAnswer> {
    if (p.ended) return ended(ENDED)
    if (!p.operator) return ended(REVOKED)
    const at = this.now()
    const within = at <= p.previousUntil
    const sealed = within && p.previousSealed !== null ? await this.o.store.takePrevious(p.id, keyHash(refreshToken), at) : null
    const current = sealed === null ? null : unseal<OidcSession>(refreshToken, 'renewed', sealed)
    if (current) {
      this.o.audit.append(p.operator.name, 'oidc:renewedAgain', { issuer: this.o.config.issuer })
      this.o.log.info(`${p.operator.name}'s renewal was asked for again with the refresh token it replaced, and answered once more`, {
        operator: p.operator.name
      })
      return { kind: 'ok', session: this.answered(current) }
    }
    return this.reused(
      p,
      within
        ? 'a refresh token replaced by a renewal was presented again after its one retry had been answered'
        : `a refresh token replaced over ${RENEWAL_GRACE_MS / 1000} s before was presented again`
    )
  }

  /** A replaced refresh token presented again: the session ends for everyone holding it (once audited). */
  private async reused(p: StoredSession, reason: string): Promise<SessionAnswer> {
    if (p.ended) return ended(ENDED)
    if (!p.operator) return ended(REVOKED)
    if (await this.o.store.end(p.id, this.now())) {
      this.o.audit.append(p.operator.name, 'oidc:refreshReused', { issuer: this.o.config.issuer, reason })
      this.o.log.warn(`${p.operator.name}'s session ended: ${reason} (a copy of it in other hands?)`, { operator: p.operator.name })
    }
    return ended(OLDER_COPY)
  }

  /**
   * Ends the session holding this refresh token (its current one, or the one its last renewal
   * replaced) or access token (lapsed or not): on every hub of the store, at once on this one
   * and within about a second on the others.
   */
  async signOut(token: string): Promise<SignOutAnswer> {
    const hash = keyHash(token)
    let s: StoredSession | null = null
    if (token.startsWith(REFRESH_PREFIX))
      s =
        (await this.o.store.sessionByRefresh(hash)) ??
        (await this.o.store.sessionByPreviousRefresh(hash)) ??
        (await this.o.store.sessionByReplacedRefresh(hash))
    else if (sessionShaped(token)) s = await this.o.store.sessionByAccess(hash)
    if (!s)
      return {
        kind: 'refused',
        status: 401,
        errorKind: 'unauthorized',
        message: 'This hub knows no such sign-in: there is nothing to sign out of.'
      }
    const stood = await this.o.store.end(s.id, this.now())
    if (stood) {
      const name = s.operator?.name ?? '(sign-in)'
      this.o.audit.append(name, 'oidc:signedOut', { issuer: this.o.config.issuer })
      this.o.log.info(`${name} signed out`, { operator: name })
    }
    return { kind: 'ok', ended: stood }
  }

  private newTokens(operator: string, role: TeamRole): OidcSession {
    return {
      accessToken: randomSecret(ACCESS_PREFIX),
      refreshToken: randomSecret(REFRESH_PREFIX),
      expiresAt: this.now() + this.o.config.sessionMs,
      operator,
      role
    }
  }
}

/** What to call a new operator: the provider's username, else the email, else the name, else the subject. */
function preferredName(c: Claims): string {
  for (const k of ['preferred_username', 'email', 'name', 'sub']) {
    const v = c[k]
    if (typeof v === 'string' && v.trim()) return v
  }
  return 'oidc-user'
}
