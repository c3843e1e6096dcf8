// Giving up on work: a long-lived AbortController for a service (config cache, tickers,
// monitor): one signal cancels everything the service has in flight when a profile closes.
// Many requests wait on it at once (budget queue, retries, undici), each with its own
// listener removed when it settles, so Node's leak warning at 11 listeners is noise. And a
// deadline for a promise that may never settle (a keychain, a secret).
import { setMaxListeners } from 'node:events'

export function serviceAbortController(): AbortController {
  const c = new AbortController()
  setMaxListeners(0, c.signal)
  return c
}

/** The promise's outcome, or a rejection saying `what` did not answer within `ms`. */
export function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what} did not answer within ${ms} ms`)), ms)
    p.then(
      (v) => {
        clearTimeout(timer)
        resolve(v)
      },
      (e: unknown) => {
        clearTimeout(timer)
        reject(e instanceof Error ? e : new Error(String(e)))
      }
    )
  })
}
