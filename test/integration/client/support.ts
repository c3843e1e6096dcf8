// Helpers for driving the real ApiClient against the real sandbox over loopback: a
// client wired to a sandbox, a recorder of the client's onRequest events, a way to
// catch the ApiError a call fails with, and a counter of the requests the sandbox
// itself received for an endpoint (a fault spec that injects nothing and only counts
// down its `remaining`), so tests can say what reached the service, not only what the
// client believes it sent.
import { expect } from 'vitest'
import { ApiClient, type ApiClientOptions, type RequestEvent } from '../../../src/main/api/client'
import type { RetryOptions } from '../../../src/main/api/retry'
import type { Sandbox, StartSandboxOptions } from '../../../src/sandbox'
import { startSandbox } from '../../../src/sandbox'
import type { EndpointName } from '../../../src/shared/api/endpoints'
import { ApiError } from '../../../src/shared/api/errors'

/** Retries as the client does them, with backoff in milliseconds so a test stays short. */
export const FAST_RETRY: RetryOptions = { baseDelayMs: 1, maxDelayMs: 4 }

/** A sandbox that moves only when a test moves it (no generator timer). */
export function quietSandbox(o: StartSandboxOptions = {}): Promise<Sandbox> {
  return startSandbox({ seed: 7, orders: 60, autoGenerate: false, ...o })
}

export function clientFor(sb: Sandbox, o: Partial<ApiClientOptions> = {}): ApiClient {
  return new ApiClient({
    profileId: 'client-it',
    baseUrl: sb.url,
    serviceName: sb.serviceName,
    apiKey: sb.apiKey,
    getSecret: () => Promise.resolve(sb.apiSecret),
    retry: FAST_RETRY,
    // These tests read the exact requests of each call; the clock probe (currentTimestamp
    // before the first signed call) is tested on its own (clock-probe.test.ts).
    clockProbe: false,
    ...o
  })
}

/** Every onRequest event of a client from now on. */
export function recordRequests(client: ApiClient): RequestEvent[] {
  const events: RequestEvent[] = []
  client.onRequest((e) => events.push(e))
  return events
}

/** The ApiError a call fails with; fails the test when it succeeds or throws anything else. */
export async function caught(p: Promise<unknown>): Promise<ApiError> {
  let value: unknown
  try {
    value = await p
  } catch (e) {
    expect(e, String(e)).toBeInstanceOf(ApiError)
    return e as ApiError
  }
  throw new Error(`expected the call to fail, it answered ${JSON.stringify(value)?.slice(0, 300)}`)
}

const COUNTER_START = 1_000_000

/**
 * Counts what reaches the sandbox for one endpoint: every request it receives consumes one
 * `remaining` of an otherwise empty fault spec. Replaces any fault set on that endpoint.
 */
export function countAtSandbox(sb: Sandbox, endpoint: EndpointName): () => number {
  sb.control.setFault(endpoint, { remaining: COUNTER_START })
  return () => COUNTER_START - (sb.control.faults()[endpoint]?.remaining ?? COUNTER_START)
}
