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
  expiresAt: number
  operator: string
  role: string
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
  dispatcher?: Dispatcher
): Promise<{ status: number; json: Record<string, unknown> | null }> {
  const r = await request(url, {
    method: 'POST',
    dispatcher,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    headersTimeout: 30_000,
    bodyTimeout: 30_000
  })
  return { status: r.statusCode, json: (await r.body.json().catch(() => null)) as Record<string, unknown> | null }
}

export interface SignInOptions {
  hubUrl: string
  /** Opens a URL in the system browser (the shell's: Electron's shell.openExternal). */
  openExternal(url: string): Promise<void>
  dispatcher?: Dispatcher
  timeoutMs?: number
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
export async function redeemSignIn(hubUrl: string, code: string, verifier: string, dispatcher?: Dispatcher): Promise<OidcSessionTokens> {
  const r = await postJson(`${base(hubUrl)}/auth/oidc/token`, { code, verifier }, dispatcher)
  const value = r.json?.value as OidcSessionTokens | undefined
  if (r.status !== 200 || !value) {
    const error = r.json?.error as { message?: string } | undefined
    throw new SignInError(error?.message ?? 'The team hub did not finish the sign-in. Try again.')
  }
  return value
}

export async function signInThroughBrowser(o: SignInOptions): Promise<OidcSessionTokens> {
  const secrets = newSignIn()
  const listener = await openLoopbackListener({ state: secrets.state, timeoutMs: o.timeoutMs })
  try {
    await o.openExternal(signInStartUrl(o.hubUrl, listener.redirectUri, secrets))
    const back = await listener.result
    if (back.kind === 'error') throw new SignInError(back.message)
    return await redeemSignIn(o.hubUrl, back.code, secrets.verifier, o.dispatcher)
  } finally {
    listener.close()
  }
}
