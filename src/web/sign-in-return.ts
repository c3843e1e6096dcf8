// A sign-in through a team hub's identity provider in the browser harness, which has no system
// browser: the page itself goes to the hub and the provider, and comes back here. The hub sends
// it back to an address, never a name (RFC 8252 loopback), so it arrives at 127.0.0.1:PORT
// /oidc/done, which this harness answers without its session cookie: nothing is read there,
// and a sign-in finishes only for the state it started (taken once), with the verifier that
// never left the main process. The page then goes to /oidc/back on the harness's own name,
// a page that sends it on to the app: a navigation the harness's page starts itself, so the
// session cookie (SameSite=Strict) is sent even by a browser that withholds such a cookie at
// the end of redirects that began at another site (Chromium by default does not withhold it).
import type { IncomingMessage, ServerResponse } from 'node:http'

export const SIGN_IN_DONE = '/oidc/done'
export const SIGN_IN_BACK = '/oidc/back'

export interface SignInReturn {
  finish(query: URLSearchParams): Promise<{ kind: 'signed-in' | 'refused'; profileId: string } | { kind: 'unknown' }>
}

const PAGE_HEADERS = {
  'Cache-Control': 'no-store',
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer'
}

function page(res: ServerResponse, status: number, type: string, body: string, csp: string): void {
  res.writeHead(status, {
    ...PAGE_HEADERS,
    'Content-Type': type,
    'Content-Length': Buffer.byteLength(body),
    'Content-Security-Policy': csp
  })
  res.end(body)
}

const PROFILE_ID = /^[a-z0-9][a-z0-9_-]{0,63}$/

/** The page back from the hub: the sign-in finishes, then the page goes to the harness's own name. */
export async function signInDone(req: IncomingMessage, res: ServerResponse, signIn: SignInReturn, ownOrigin: string): Promise<void> {
  req.resume()
  const url = new URL(req.url ?? '/', 'http://x')
  // A browser following a redirect sends no Origin on a GET; a page of another site that does is refused.
  if (req.method !== 'GET' || url.pathname !== SIGN_IN_DONE || req.headers.origin !== undefined)
    return page(res, 403, 'text/plain; charset=utf-8', 'Refused.', "default-src 'none'")
  const r = await signIn.finish(url.searchParams)
  if (r.kind === 'unknown')
    return page(
      res,
      400,
      'text/plain; charset=utf-8',
      'This sign-in was not started by this Rampdesk, or it is over. Close this tab and start again from Rampdesk: Settings, Credentials.',
      "default-src 'none'"
    )
  const back = new URLSearchParams(r.kind === 'signed-in' ? { to: 'orders' } : { to: 'settings', profile: r.profileId })
  res.writeHead(303, { ...PAGE_HEADERS, Location: `${ownOrigin}${SIGN_IN_BACK}?${back}`, 'Content-Length': 0 })
  res.end()
}

/** On to the app: its orders once signed in, or Settings with the profile whose sign-in was refused. */
export function signInBack(res: ServerResponse, q: URLSearchParams): void {
  const profile = q.get('profile') ?? ''
  const to =
    q.get('to') === 'orders' ? '/?view=main#/orders' : `/?view=main${PROFILE_ID.test(profile) ? `&signin=${profile}` : ''}#/settings`
  const body = `<!doctype html><meta charset="utf-8"><meta http-equiv="refresh" content="0;url=${to}"><title>Rampdesk</title><p><a href="${to}">Back to Rampdesk</a></p>`
  page(res, 200, 'text/html; charset=utf-8', body, "default-src 'none'")
}
