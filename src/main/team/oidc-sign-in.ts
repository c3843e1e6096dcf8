// "Sign in with <provider>" on a Team profile: the desktop asks the hub which provider it
// signs in with (GET /auth/oidc), opens the system browser on the hub's /auth/oidc/start with
// a loopback redirect URI of its own, a state and a PKCE challenge, waits for the browser to
// come back (oidc-loopback.ts), and redeems the hand-over code with its verifier. The session
// (a short access token and a refresh token) is then the profile's credential, kept in the
// secret store like a pasted token, and renewed by HubSession (oidc-session.ts).
import { createHash, randomBytes } from 'node:crypto'
import { request, type Dispatcher } from 'undici'
import { openLoopbackListener } from './oidc-loopback'

export interface HubSignIn {
  provider: string
  issuer: string
  sessionMinutes: number
}

export interface OidcSessionTokens {
  accessToken: string
  refreshToken: string
  /** When the access token lapses, on this desktop's clock (see receivedSession). */
  expiresAt: number
  operator: string
  role: string
}

/**
 * A clock that moves on steadily while the app runs (a system clock set back or forward does not
 * move it), in the units of Date.now so that a session's end can be kept across a restart.
 */
export const steadyNow = (): number => performance.timeOrigin + performance.now()

/**
 * The session a hub answered, its end counted on this desktop's clock: `expiresIn` seconds from
 * when the request was sent (the hub started counting before its answer left, so this errs
 * early, never late). A hub that sends no expiresIn (older than this desktop) gives its own
 * instant, which is only right while the two clocks agree.
 */
export function receivedSession(value: OidcSessionTokens & { expiresIn?: unknown }, sentAt: number): OidcSessionTokens {
  const { accessToken, refreshToken, operator, role } = value
  const expiresAt = typeof value.expiresIn === 'number' && value.expiresIn >= 0 ? sentAt + value.expiresIn * 1000 : value.expiresAt
  return { accessToken, refreshToken, expiresAt, operator, role }
}

/** A sign-in that did not happen, in words for the operator. */
export class SignInError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'SignInError'
  }
}

const base = (hubUrl: string) => hubUrl.replace(/\/+$/, '')

/** How the hub signs people in, or null when it takes pasted tokens only; throws when that cannot be told now. */
export async function hubSignIn(hubUrl: string, o: { dispatcher?: Dispatcher } = {}): Promise<HubSignIn | null> {
  const r = await request(`${base(hubUrl)}/auth/oidc`, { dispatcher: o.dispatcher, headersTimeout: 10_000, bodyTimeout: 10_000 })
  const body = (await r.body.json().catch(() => null)) as { ok?: boolean; value?: HubSignIn } | null
  if (r.statusCode === 200 && body?.ok && body.value) return body.value
  // Only a hub without the route takes tokens alone; a busy hub or a proxy's error page says nothing about it.
  if (r.statusCode === 404) return null
  throw new SignInError(
    r.statusCode === 429
      ? `The team hub at ${base(hubUrl)} is busy just now. Try again in a minute.`
      : `The team hub at ${base(hubUrl)} did not answer as a Rampdesk hub. Try again in a minute; if it goes on, ask your team lead.`
  )
}

export async function postJson(
  url: string,
  body: unknown,
  dispatcher?: Dispatcher,
  timeoutMs = 30_000
): Promise<{ status: number; json: Record<string, unknown> | null }> {
  const r = await request(url, {
    method: 'POST',
    dispatcher,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs
  })
  return { status: r.statusCode, json: (await r.body.json().catch(() => null)) as Record<string, unknown> | null }
}

export interface SignInOptions {
  hubUrl: string
  /** Opens a URL in the system browser (the shell's: Electron's shell.openExternal). */
  openExternal(url: string): Promise<void>
  dispatcher?: Dispatcher
  timeoutMs?: number
  /** Aborted: the person cancelled the sign-in. */
  signal?: AbortSignal
  now?: () => number
}

/** A sign-in's secrets, kept by whoever waits for the browser to come back. */
export interface SignInSecrets {
  state: string
  verifier: string
}

export const newSignIn = (): SignInSecrets => ({
  state: randomBytes(24).toString('base64url'),
  verifier: randomBytes(32).toString('base64url')
})

/** The hub's page that starts a sign-in whose browser comes back to `redirectUri`. */
export function signInStartUrl(hubUrl: string, redirectUri: string, s: SignInSecrets): string {
  const q = new URLSearchParams({
    redirect_uri: redirectUri,
    state: s.state,
    code_challenge: createHash('sha256').update(s.verifier, 'ascii').digest('base64url'),
    code_challenge_method: 'S256'
  })
  return `${base(hubUrl)}/auth/oidc/start?${q}`
}

/** Redeems the hand-over code the browser brought back, with the sign-in's verifier. */
export async function redeemSignIn(
  hubUrl: string,
  code: string,
  verifier: string,
  dispatcher?: Dispatcher,
  now: () => number = steadyNow
): Promise<OidcSessionTokens> {
  const sentAt = now()
  const r = await postJson(`${base(hubUrl)}/auth/oidc/token`, { code, verifier }, dispatcher)
  const value = r.json?.value as OidcSessionTokens | undefined
  if (r.status !== 200 || !value) {
    const error = r.json?.error as { message?: string } | undefined
    throw new SignInError(error?.message ?? 'The team hub did not finish the sign-in. Try again.')
  }
  return receivedSession(value, sentAt)
}

/** What a sign-in ends with when the person cancelled it. */
export const SIGN_IN_CANCELLED = 'Sign-in cancelled.'

/** The person cancelled the sign-in (nothing was refused: no words to keep on the card). */
export class SignInCancelled extends SignInError {
  readonly cancelled = true
  constructor() {
    super(SIGN_IN_CANCELLED)
    this.name = 'SignInCancelled'
  }
}

export async function signInThroughBrowser(o: SignInOptions): Promise<OidcSessionTokens> {
  if (o.signal?.aborted) throw new SignInCancelled()
  const secrets = newSignIn()
  const listener = await openLoopbackListener({ state: secrets.state, timeoutMs: o.timeoutMs })
  // Cancelled: the listener closes at once (a browser coming back later finds nothing) and the wait ends.
  const cancel = () => listener.cancel()
  o.signal?.addEventListener('abort', cancel, { once: true })
  try {
    await o.openExternal(signInStartUrl(o.hubUrl, listener.redirectUri, secrets))
    const back = await listener.result
    if (back.kind === 'cancelled') throw new SignInCancelled()
    if (back.kind === 'error') throw new SignInError(back.message)
    return await redeemSignIn(o.hubUrl, back.code, secrets.verifier, o.dispatcher, o.now)
  } finally {
    o.signal?.removeEventListener('abort', cancel)
    listener.close()
  }
}
