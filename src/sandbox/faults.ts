// Fault injection per endpoint (or for all of them with "*"): added latency, an error
// rate with a chosen status, 429 storms, malformed JSON, truncated bodies and dropped
// connections. The dice come from a seeded stream, so a run with the same seed and the
// same requests fails the same way.
import type { EndpointName } from './routes'
import { streamOf, STREAM, type Rng } from './rng'

export interface FaultSpec {
  /** Added before the request is handled. */
  latencyMs?: number
  /** Chance (0-1) of answering errorStatus instead. */
  errorRate?: number
  /** Status of injected errors (default 500; 503 reads as maintenance). */
  errorStatus?: number
  /** Every request gets 429. */
  rateLimitStorm?: boolean
  /** Chance of a 200 whose body is not valid JSON. */
  malformedJsonRate?: number
  /** Chance of a response cut off mid-body (Content-Length promises more, then the socket closes). */
  truncateRate?: number
  /** Chance of closing the connection without any response. */
  dropRate?: number
  /** Apply to the next N matching requests only, then lift. */
  remaining?: number
}

export type FaultTarget = EndpointName | '*'

export type FaultAction = 'none' | 'drop' | 'storm' | 'error' | 'malformed' | 'truncate'

export interface FaultDecision {
  latencyMs: number
  action: FaultAction
  status: number
}

const clamp01 = (v: number | undefined): number => (v === undefined || !Number.isFinite(v) ? 0 : Math.min(1, Math.max(0, v)))

export class FaultInjector {
  private readonly specs = new Map<FaultTarget, FaultSpec>()
  private readonly rng: Rng

  constructor(seed: number) {
    this.rng = streamOf(seed, STREAM.faults)
  }

  set(target: FaultTarget, spec: FaultSpec): void {
    this.specs.set(target, { ...spec })
  }

  clear(target?: FaultTarget): void {
    if (target === undefined) this.specs.clear()
    else this.specs.delete(target)
  }

  list(): Record<string, FaultSpec> {
    return Object.fromEntries([...this.specs].map(([k, v]) => [k, { ...v }]))
  }

  /** What to do to one request to an endpoint (the endpoint's own spec wins over "*"). */
  decide(endpoint: EndpointName): FaultDecision {
    const target: FaultTarget | undefined = this.specs.has(endpoint) ? endpoint : this.specs.has('*') ? '*' : undefined
    const none: FaultDecision = { latencyMs: 0, action: 'none', status: 200 }
    if (target === undefined) return none
    const spec = this.specs.get(target) as FaultSpec
    if (spec.remaining !== undefined) {
      if (spec.remaining <= 0) {
        this.specs.delete(target)
        return none
      }
      spec.remaining--
      if (spec.remaining <= 0) this.specs.delete(target)
    }
    const roll = (p: number | undefined): boolean => clamp01(p) > 0 && this.rng() < clamp01(p)
    const latencyMs = Math.max(0, spec.latencyMs ?? 0)
    if (roll(spec.dropRate)) return { latencyMs, action: 'drop', status: 0 }
    if (spec.rateLimitStorm) return { latencyMs, action: 'storm', status: 429 }
    if (roll(spec.errorRate)) return { latencyMs, action: 'error', status: spec.errorStatus ?? 500 }
    if (roll(spec.malformedJsonRate)) return { latencyMs, action: 'malformed', status: 200 }
    if (roll(spec.truncateRate)) return { latencyMs, action: 'truncate', status: 200 }
    return { latencyMs, action: 'none', status: 200 }
  }
}
