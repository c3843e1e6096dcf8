// The hub's routes for sign-in through the identity provider, answered without an operator
// token (they are how a person gets one):
//   GET  /auth/oidc            which provider, for the desktop's "Sign in with …"
//   GET  /auth/oidc/start      a browser, sent on to the provider (redirect_uri, state, code_challenge from the desktop)
//   GET  /auth/oidc/callback   the browser back from the provider, sent on to the desktop with a hand-over code
//   POST /auth/oidc/token      the desktop redeems the code with its PKCE verifier: its session
//   POST /auth/oidc/refresh    the desktop renews its session (the provider is asked again)
//   POST /auth/oidc/sign-out   the desktop ends its session (its refresh token in the body, or its access token as Bearer)
// The two GETs are browser pages: plain text, no script, never framed. The POSTs come from a
// desktop, never a web page (a request with an Origin header is refused, as on /rpc). Every
// source is held to a few sign-in requests a minute, so no stranger fills the store with
// sign-ins under way or asks the provider on the hub's behalf without end.
import type { IncomingMessage, ServerResponse } from 'node:http'
import { readBody } from '../../main/request-body'
import { RateCap } from '../rate-cap'
import { sendJson as json } from '../json-answer'
import type { OidcService, SessionAnswer, SignOutAnswer } from './oidc-service'

export const OIDC_PATH = '/auth/oidc'
const MAX_BODY = 8 * 1024

export interface OidcRoutesOptions {
  service: OidcService
  /** The client a request comes from (the trusted proxies' view). */
  sourceOf(req: IncomingMessage): string
  /** A refusal worth counting and a summarised log line. */
  refused(req: IncomingMessage, status: number, what: string): void
  /** Requests per minute from one source (default 30, a burst of 20). */
  perMinute?: number
}

const PAGE_HEADERS = {
  'Content-Type': 'text/plain; charset=utf-8',
  'Cache-Control': 'no-store',
  'X-Content-Type-Options': 'nosniff',
  'Content-Security-Policy': "default-src 'none'; frame-ancestors 'none'",
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer'
}

function page(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { ...PAGE_HEADERS, 'Content-Length': Buffer.byteLength(text) })
  res.end(text)
}

function redirect(res: ServerResponse, location: string): void {
  // No Referer to the provider or the desktop: the URL carries a state or a code.
  res.writeHead(302, { Location: location, 'Cache-Control': 'no-store', 'Referrer-Policy': 'no-referrer', 'Content-Length': 0 })
  res.end()
}

const failure = (kind: string, message: string, retryable = false) => ({ ok: false, error: { kind, message, retryable } })

export function oidcRoutes(o: OidcRoutesOptions): (req: IncomingMessage, res: ServerResponse, path: string) => Promise<void> {
  const cap = new RateCap({ perMinute: o.perMinute ?? 30, burst: 20 })
  const { service } = o

  async function body(req: IncomingMessage): Promise<Record<string, unknown> | null> {
    if (!(req.headers['content-type'] ?? '').toLowerCase().startsWith('application/json')) return null
    try {
      const v: unknown = JSON.parse(await readBody(req, MAX_BODY))
      return v && typeof v === 'object' ? (v as Record<string, unknown>) : null
    } catch {
      return null
    }
  }

  const sessionAnswer = (res: ServerResponse, a: SessionAnswer) =>
    a.kind === 'ok'
      ? json(res, 200, { ok: true, value: a.session })
      : json(res, a.status, failure(a.errorKind, a.message, a.status === 503), a.status === 503 ? { 'Retry-After': '30' } : {})

  const signOutAnswer = (res: ServerResponse, a: SignOutAnswer) =>
    a.kind === 'ok'
      ? json(res, 200, { ok: true, value: { signedOut: true, wasActive: a.ended } })
      : json(res, a.status, failure(a.errorKind, a.message))

  return async (req, res, path) => {
    const method = req.method ?? 'GET'
    const wait = cap.take(o.sourceOf(req))
    if (wait > 0) {
      o.refused(req, 429, 'too many sign-in requests')
      req.resume()
      const seconds = String(Math.ceil(wait / 1000))
      if (method === 'GET') return page(res, 429, `Too many sign-in attempts from here. Try again in ${seconds} s.`)
      return json(res, 429, failure('rate_limited', `too many sign-in requests; try again in ${seconds} s`, true), {
        'Retry-After': seconds
      })
    }
    const query = new URL(req.url ?? '/', 'http://hub').searchParams
    const route = `${method} ${path}`
    if (route === `GET ${OIDC_PATH}`) return json(res, 200, { ok: true, value: service.info() })
    if (route === `GET ${OIDC_PATH}/start`) {
      const a = await service.start(query)
      if (a.kind === 'refused') o.refused(req, a.status, 'sign-in start refused')
      return a.kind === 'redirect' ? redirect(res, a.location) : page(res, a.status, a.message)
    }
    if (route === `GET ${OIDC_PATH}/callback`) {
      const a = await service.callback(query)
      if (a.kind === 'page') o.refused(req, a.status, 'sign-in callback refused')
      return a.kind === 'redirect' ? redirect(res, a.location) : page(res, a.status, a.message)
    }
    if (route === `POST ${OIDC_PATH}/token` || route === `POST ${OIDC_PATH}/refresh` || route === `POST ${OIDC_PATH}/sign-out`) {
      if (req.headers.origin !== undefined) {
        o.refused(req, 403, 'a request with an Origin header (a web page)')
        req.resume()
        return json(res, 403, failure('forbidden', 'the team hub answers Rampdesk desktops, not web pages'))
      }
      const b = await body(req).catch(() => null)
      const str = (k: string) => (typeof b?.[k] === 'string' ? (b[k] as string) : '')
      if (!b) return json(res, 400, failure('invalid_input', 'the body must be a JSON object (Content-Type: application/json)'))
      if (path.endsWith('/token')) return sessionAnswer(res, await service.redeem(str('code'), str('verifier')))
      if (path.endsWith('/sign-out')) {
        const auth = /^Bearer (\S+)$/i.exec(req.headers.authorization ?? '')?.[1] ?? ''
        return signOutAnswer(res, await service.signOut(str('refreshToken') || auth))
      }
      return sessionAnswer(res, await service.refresh(str('refreshToken')))
    }
    o.refused(req, 404, 'no such sign-in path')
    req.resume()
    json(res, 404, failure('not_found', 'not found'))
  }
}
