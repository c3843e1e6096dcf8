// Retry policy for API calls: exponential backoff with full jitter. Reads retry on
// anything transient; writes (the webhook-management calls) change state at the
// service, so they are retried only when the request provably never left this machine.
import type { EndpointDef } from '../../shared/api/endpoints'
import { ApiError } from '../../shared/api/errors'
import { wasNeverSent } from './transport'

export interface RetryOptions {
  /** Attempts in all, the first included. Default 4. */
  maxAttempts?: number
  baseDelayMs?: number
  maxDelayMs?: number
  /** Uniform in [0, 1). */
  random?: () => number
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>
}

export function isRetryable(e: unknown, effect: EndpointDef['effect']): boolean {
  if (!(e instanceof ApiError)) return false
  if (effect === 'write') return wasNeverSent(e)
  switch (e.kind) {
    case 'network':
    case 'timeout':
      return true
    case 'rate_limited':
      // Our own budget already waited as long as the caller allowed.
      return e.origin === 'service'
    case 'http':
    case 'api':
      return Math.max(e.httpStatus ?? 0, e.code ?? 0) >= 500
    case 'schema':
      // Only a body that was not JSON at all (marked retryable where it is raised).
      return e.retryable
    default:
      return false
  }
}

/** Full jitter: uniform in [0, min(cap, base * 2^retry)). */
export function backoffDelay(retry: number, o: RetryOptions = {}): number {
  const ceiling = Math.min(o.maxDelayMs ?? 8_000, (o.baseDelayMs ?? 250) * 2 ** retry)
  return (o.random ?? Math.random)() * ceiling
}

/** Runs `attempt(1..maxAttempts)` until it succeeds or fails in a way not worth retrying. */
export async function withRetry<T>(
  attempt: (n: number) => Promise<T>,
  effect: EndpointDef['effect'],
  o: RetryOptions = {},
  signal?: AbortSignal
): Promise<T> {
  const max = o.maxAttempts ?? 4
  const sleep = o.sleep ?? abortableSleep
  for (let n = 1; ; n++) {
    try {
      return await attempt(n)
    } catch (e) {
      if (n >= max || !isRetryable(e, effect)) throw e
    }
    await sleep(backoffDelay(n - 1, o), signal)
  }
}

function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const cancelled = () => new ApiError({ kind: 'aborted', message: 'request cancelled during retry backoff' })
    if (signal?.aborted) return reject(cancelled())
    const onAbort = () => {
      clearTimeout(timer)
      reject(cancelled())
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    signal?.addEventListener('abort', onAbort, { once: true })
  })
}
