// A long-lived AbortController for a service (config cache, tickers, monitor): one
// signal cancels everything the service has in flight when a profile closes. Many
// requests wait on it at once (budget queue, retries, undici), each with its own
// listener removed when it settles, so Node's leak warning at 11 listeners is noise.
import { setMaxListeners } from 'node:events'

export function serviceAbortController(): AbortController {
  const c = new AbortController()
  setMaxListeners(0, c.signal)
  return c
}
