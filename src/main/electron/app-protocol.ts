// The app:// scheme in Electron: registered as privileged before the app is ready, then
// served from the built renderer folder. The decisions (which file, which status, which
// headers) are made by src/main/app-scheme.ts; this file only adapts Request/Response.
import { protocol } from 'electron'
import { APP_SCHEME, answerAppRequest } from '../app-scheme'

/**
 * A standard scheme (relative URLs, a real origin, web storage), secure (a secure
 * context, like https), and reachable by fetch(). Deliberately NOT corsEnabled, which
 * would let any origin read these responses, and NOT bypassCSP: the pages obey the CSP
 * header every response carries.
 */
export const APP_SCHEME_PRIVILEGES = { standard: true, secure: true, supportFetchAPI: true } as const

/** Electron fixes scheme privileges at startup: this must run before the app is ready, and once. */
export function registerAppScheme(): void {
  protocol.registerSchemesAsPrivileged([{ scheme: APP_SCHEME, privileges: { ...APP_SCHEME_PRIVILEGES } }])
}

/** Answers app:// on the default session from `rendererDir`; every response carries `csp` as a header. */
export function serveAppScheme(rendererDir: string, csp: string): void {
  protocol.handle(APP_SCHEME, async (request) => {
    // Electron sets initiatorOrigin itself (the page cannot forge it); the DOM Request type does not declare it.
    const { initiatorOrigin } = request as Request & { initiatorOrigin?: string }
    const answer = await answerAppRequest(rendererDir, { url: request.url, method: request.method, initiatorOrigin }, csp)
    return new Response(answer.body, { status: answer.status, headers: answer.headers })
  })
}
