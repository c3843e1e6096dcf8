// How a desktop tells the ways a request to its team hub failed: never sent (any call may go to
// the next hub), the token refused, the identity provider's session ended.
/** Failures before anything reached the hub: any call may go to the next one. */
const NEVER_SENT = new Set([
  'ECONNREFUSED',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EADDRNOTAVAIL',
  'ETIMEDOUT',
  'UND_ERR_CONNECT_TIMEOUT'
])

export function errorCode(e: unknown): string | undefined {
  const x = e as { code?: unknown; cause?: { code?: unknown } } | null
  const code = x?.code ?? x?.cause?.code
  return typeof code === 'string' ? code : undefined
}

/**
 * Whether the hub refused the operator token: 401, or 429 saying so (a hub throttles a client
 * whose tokens keep failing: the token is refused all the same, and waiting will not help).
 */
export function tokenRefused(status: number, error: unknown): boolean {
  return status === 401 || (status === 429 && (error as { kind?: unknown } | null)?.kind === 'unauthorized')
}

/** A session from the identity provider that the hub ended (oidc-session.ts's SignInEnded). */
export function signedOut(e: unknown): e is Error {
  return e instanceof Error && (e as { signedOut?: unknown }).signedOut === true
}

/** Whether a failed request never reached the hub (the connection was refused or not made). */
export function neverReachedHub(e: unknown): boolean {
  const code = errorCode(e)
  return code !== undefined && NEVER_SENT.has(code)
}
