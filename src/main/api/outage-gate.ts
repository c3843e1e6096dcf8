// While the service cannot be reached, one call at a time finds out whether it is back.
// Without this every caller (each scope's sync, each fiat's probe, the watch, the tickers)
// sends its own retries into the outage: each takes a slot of the rate budget (a dropped
// connection may well have been counted by the service), so when the service returns the
// budget's minute is spent and the first syncs after it queue behind requests that never
// got an answer.
//
// The first failure to reach the service closes the gate, and the call that met it becomes
// the probe: its own retries go as they would (a single dropped connection is still retried
// at once). The other calls' requests wait for it: when one of its attempts is answered the
// gate opens and they all go; when it gives up they fail with it, unsent. Until the next
// probe is due (1 s after the first call gave up, doubling to 15 s) a request fails at
// once, unsent, with the last failure's words: its caller learns what a request would have
// told it, without a request or a budget slot. The first request after that is the next
// probe. The operator's own requests (interactive) are never held: they are sent, and an
// answer to one opens the gate.
import type { EndpointName } from '../../shared/api/endpoints'
import { ApiError } from '../../shared/api/errors'
import type { Priority } from './lane-scheduler'

/** One call of the client (its attempts share it): the gate knows the probing call by it. */
export type GateCall = object

type GateState =
  | { kind: 'open' }
  | {
      kind: 'closed'
      /** The failure that closed it, or the last one since. */
      error: ApiError
      /** Probing calls that gave up since it closed. */
      failures: number
      /** The call whose attempts are the probe (null: none; the first request from nextProbeAt on starts one). */
      prober: GateCall | null
      /** When the next probe may start, once no call probes. */
      nextProbeAt: number
    }

interface Waiter {
  call: GateCall
  endpoint: EndpointName
  resolve: () => void
  reject: (e: ApiError) => void
}

export interface OutageGateOptions {
  /** The wait before the next probe after the first probing call gave up; doubles after each. Default 1 s. */
  firstProbeMs?: number
  /** The longest wait between probes. Default 15 s. */
  maxProbeMs?: number
  now?: () => number
}

/** Failures that say the service could not be reached at all (not an answer, not a cancellation). */
export function unreachable(e: unknown): e is ApiError {
  return e instanceof ApiError && (e.kind === 'network' || e.kind === 'timeout')
}

/** The code a held request's failure carries: it never left this machine (transport.ts's wasNeverSent). */
export const HELD_CODE = 'RAMPDESK_HELD_IN_OUTAGE'

export class OutageGate {
  private state: GateState = { kind: 'open' }
  private waiters: Waiter[] = []
  private readonly firstProbeMs: number
  private readonly maxProbeMs: number
  private readonly now: () => number

  constructor(o: OutageGateOptions = {}) {
    this.firstProbeMs = o.firstProbeMs ?? 1_000
    this.maxProbeMs = o.maxProbeMs ?? 15_000
    this.now = o.now ?? (() => Date.now())
  }

  /** Open, or closed since a failure to reach the service: whether a call probes, how many gave up, when the next may start. */
  status(): { kind: 'open' } | { kind: 'closed'; probing: boolean; failures: number; nextProbeAt: number; waiting: number } {
    const s = this.state
    if (s.kind === 'open') return { kind: 'open' }
    return { kind: 'closed', probing: s.prober !== null, failures: s.failures, nextProbeAt: s.nextProbeAt, waiting: this.waiters.length }
  }

  /**
   * Resolves when a request of `call` to `endpoint` may be sent. Rejects, with nothing sent,
   * when the call probing meanwhile gave up, when no probe is due yet, or when `signal` aborts.
   */
  pass(call: GateCall, endpoint: EndpointName, priority: Priority, signal?: AbortSignal): Promise<void> {
    const s = this.state
    if (s.kind === 'open' || priority === 'interactive' || s.prober === call) return Promise.resolve()
    if (s.prober === null) {
      if (this.now() < s.nextProbeAt) return Promise.reject(held(endpoint, s.error))
      s.prober = call
      return Promise.resolve()
    }
    if (signal?.aborted) return Promise.reject(cancelled(endpoint))
    return new Promise<void>((resolve, reject) => {
      const onAbort = () => {
        this.waiters = this.waiters.filter((w) => w !== waiter)
        reject(cancelled(endpoint))
      }
      const waiter: Waiter = {
        call,
        endpoint,
        resolve: () => {
          signal?.removeEventListener('abort', onAbort)
          resolve()
        },
        reject: (e) => {
          signal?.removeEventListener('abort', onAbort)
          reject(e)
        }
      }
      signal?.addEventListener('abort', onAbort, { once: true })
      this.waiters.push(waiter)
    })
  }

  /** The service answered a request (whatever it said): it is reached, every held request goes. */
  answered(): void {
    if (this.state.kind === 'open') return
    this.state = { kind: 'open' }
    const waiting = this.waiters
    this.waiters = []
    for (const w of waiting) w.resolve()
  }

  /**
   * A request of `call` failed to reach the service: the gate closes with `call` probing (a
   * request outside any call, null, leaves the next request to probe), or keeps the words.
   */
  failed(call: GateCall | null, error: ApiError): void {
    const s = this.state
    if (s.kind === 'open') this.state = { kind: 'closed', error, failures: 0, prober: call, nextProbeAt: this.now() }
    else s.error = error
  }

  /**
   * `call` is over (answered, given up or cancelled). When it was the probe and nothing
   * answered, its failure is shared by the requests that waited for it and the next probe
   * waits; when it ended without meeting the outage again (cancelled, or stopped before
   * sending), the first request waiting probes instead.
   */
  settled(call: GateCall, lastError: unknown): void {
    const s = this.state
    if (s.kind !== 'closed' || s.prober !== call) return
    if (!unreachable(lastError)) {
      const next = this.waiters.shift()
      s.prober = next?.call ?? null
      next?.resolve()
      return
    }
    s.prober = null
    s.failures++
    s.nextProbeAt = this.now() + Math.min(this.maxProbeMs, this.firstProbeMs * 2 ** (s.failures - 1))
    const waiting = this.waiters
    this.waiters = []
    for (const w of waiting) w.reject(held(w.endpoint, s.error))
  }

  /** The operator asked to try again (or the network came back): the next request probes at once. */
  probeNow(): void {
    const s = this.state
    if (s.kind === 'closed') s.nextProbeAt = Math.min(s.nextProbeAt, this.now())
  }
}

function cancelled(endpoint: EndpointName): ApiError {
  return new ApiError({ kind: 'aborted', endpoint, message: 'request cancelled while the service could not be reached' })
}

/** A held request's failure: the probe's kind and words, never sent (so a write may be tried again). */
function held(endpoint: EndpointName, probe: ApiError): ApiError {
  const cause = Object.assign(new Error('held while the service could not be reached'), { code: HELD_CODE })
  return new ApiError(
    {
      kind: probe.kind,
      endpoint,
      message: `not sent: the service could not be reached a moment before (${probe.message})`
    },
    { cause }
  )
}
