// While the service cannot be reached, one call at a time finds out whether it is back.
// Without this every caller (each scope's sync, each fiat's probe, the watch, the tickers)
// sends its own retries into the outage: each takes a slot of the rate budget (a dropped
// connection may well have been counted by the service), so when the service returns the
// budget's minute is spent and the first syncs after it queue behind requests that never
// got an answer.
//
// The first failure to reach the service (a connection refused, reset or dropped, or one
// that could not be made in time; not a slow answer, which is one endpoint's) closes the
// gate, and the call that met it becomes the probe: its own retries go as they would (a
// single dropped connection is still retried at once). The other calls' requests wait for
// it: when one of its attempts is answered the gate opens and they all go; when it gives up
// after failing more than once they fail with it, unsent. Until the next probe is due (1 s
// after the first such call, doubling to 15 s) a request fails at once, unsent, with the
// last failure's words: its caller learns what a request would have told it, without a
// request or a budget slot. The first request after that is the next probe. A probe whose
// own budget lane is full steps aside for a request that can go. The operator's own
// requests (interactive) are never held: they are sent, and an answer to one opens the gate.
import type { EndpointName } from '../../shared/api/endpoints'
import { ApiError } from '../../shared/api/errors'
import type { Priority } from './lane-scheduler'
import { HELD_CODE, wasNeverSent } from './transport'

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
      /** Failures to reach the service the probing call met: one alone is a dropped connection, not yet an outage. */
      proberFailures: number
      /** The operator asked to try again while a call probed: when it gives up, the next call probes at once. */
      again: boolean
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

/**
 * Failures that say the service could not be reached at all: the connection refused,
 * reset or dropped, or not made in time. Not an answer, not a cancellation, and not a
 * slow answer (a headers or body timeout is one endpoint's, not the service's).
 */
export function unreachable(e: unknown): e is ApiError {
  return e instanceof ApiError && (e.kind === 'network' || (e.kind === 'timeout' && wasNeverSent(e)))
}

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
    if (s.kind === 'open') {
      this.state = { kind: 'closed', error, failures: 0, prober: call, proberFailures: 1, nextProbeAt: this.now(), again: false }
      return
    }
    s.error = error
    if (call !== null && s.prober === call) s.proberFailures++
  }

  /** The probing call cannot send at once (its budget lane is full): the first request waiting probes instead. */
  stepAside(call: GateCall): void {
    const s = this.state
    if (s.kind === 'closed' && s.prober === call) this.handOver(s)
  }

  /**
   * `call` is over (answered, given up or cancelled). When it was the probe and met the
   * outage more than once, its failure is shared by the requests that waited for it and the
   * next probe waits. When it met it once only (a dropped connection it did not retry), when
   * it ended without meeting it again (cancelled, or stopped before sending), or when the
   * operator asked to try again meanwhile, the first request waiting probes instead.
   */
  settled(call: GateCall, lastError: unknown): void {
    const s = this.state
    if (s.kind !== 'closed' || s.prober !== call) return
    if (!unreachable(lastError) || s.proberFailures < 2 || s.again) {
      s.again = false
      s.nextProbeAt = Math.min(s.nextProbeAt, this.now())
      this.handOver(s)
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
    if (s.kind !== 'closed') return
    s.nextProbeAt = Math.min(s.nextProbeAt, this.now())
    if (s.prober !== null) s.again = true
  }

  /** The probe passes to the first request waiting (which goes now), or to the next request to come. */
  private handOver(s: Extract<GateState, { kind: 'closed' }>): void {
    const next = this.waiters.shift()
    s.prober = next?.call ?? null
    s.proberFailures = 0
    next?.resolve()
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
