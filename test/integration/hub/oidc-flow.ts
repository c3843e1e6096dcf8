// What a desktop and its browser do to sign in through a hub's identity provider, for the
// integration tests: /auth/oidc/start, the provider (which signs the person in at once), the
// hub's callback and the hand-over of the session to the desktop; and the desktop's POSTs.
import { createHash, randomBytes } from 'node:crypto'
import { expect } from 'vitest'
import { request, type Dispatcher } from 'undici'

/** The desktop's loopback redirect (nothing listens there: the hub's redirect is read, not followed). */
export const DESKTOP = 'http://127.0.0.1:9/done'

export interface Session {
  accessToken: string
  refreshToken: string
  expiresAt: number
  expiresIn: number
  operator: string
  role: string
}

export type SignIn = { kind: 'ok'; session: Session; callback: string } | { kind: 'refused'; message: string; callback: string }

export async function get(url: string): Promise<{ status: number; location: string; text: string }> {
  const r = await request(url)
  return { status: r.statusCode, location: String(r.headers.location ?? ''), text: await r.body.text() }
}

export async function post(
  url: string,
  body: unknown,
  headers: Record<string, string> = {}
): Promise<{ status: number; json: { ok: boolean; value?: Session; error?: { kind: string; message: string } } }> {
  const r = await request(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) })
  return { status: r.statusCode, json: (await r.body.json()) as never }
}

/** Starts a sign-in at the hub: where it sends the browser (the provider), and the desktop's verifier. */
export async function startSignIn(hubUrl: string, issuer: string): Promise<{ atProvider: string; verifier: string; state: string }> {
  const verifier = randomBytes(32).toString('base64url')
  const state = randomBytes(16).toString('base64url')
  const q = new URLSearchParams({
    redirect_uri: DESKTOP,
    state,
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256'
  })
  const start = await get(`${hubUrl}/auth/oidc/start?${q}`)
  expect(start.status, start.text).toBe(302)
  expect(start.location.startsWith(issuer)).toBe(true)
  return { atProvider: start.location, verifier, state }
}

/** A whole sign-in: start, the provider, the callback, the hand-over (good once). */
export async function signIn(hubUrl: string, issuer: string): Promise<SignIn> {
  const { atProvider, verifier, state } = await startSignIn(hubUrl, issuer)
  const provider = await get(atProvider)
  expect(provider.status).toBe(302)
  const callback = provider.location
  expect(callback.startsWith(`${hubUrl}/auth/oidc/callback?`)).toBe(true)
  const back = await get(callback)
  expect(back.status, back.text).toBe(302)
  const desktop = new URL(back.location)
  expect(desktop.origin + desktop.pathname).toBe(DESKTOP)
  expect(desktop.searchParams.get('state')).toBe(state)
  const error = desktop.searchParams.get('error_description')
  if (error !== null) return { kind: 'refused', message: error, callback }
  const code = desktop.searchParams.get('code')!
  const redeemed = await post(`${hubUrl}/auth/oidc/token`, { code, verifier })
  expect(redeemed.status).toBe(200)
  // The hand-over code is good once.
  expect((await post(`${hubUrl}/auth/oidc/token`, { code, verifier })).status).toBe(400)
  return { kind: 'ok', session: redeemed.json.value!, callback }
}

/** The system browser: follows every redirect to the end, as a person's would. */
export async function browse(url: string): Promise<void> {
  let next: string | null = url
  while (next) {
    const r: Dispatcher.ResponseData = await request(next)
    await r.body.text()
    next = r.statusCode === 302 ? String(r.headers.location) : null
  }
}
