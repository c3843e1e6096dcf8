// The last thing each endpoint did, from the API client's request events: when it was
// called, what it answered, how long it took and waited for the budget, the shape of the
// answer and the last error. Kept in memory for the diagnostics view; the log file is
// where history lives.
import type { EndpointName } from '../../shared/api/endpoints'
import type { RequestEvent } from '../api/client'

export interface EndpointRecord {
  calls: number
  failures: number
  lastCallAt: number | null
  lastHttpStatus: number | null
  lastOutcome: string | null
  latencyMs: number | null
  budgetWaitMs: number | null
  shape: string | null
  lastError: { at: number; kind: string; httpStatus: number | null; message: string } | null
}

const empty = (): EndpointRecord => ({
  calls: 0,
  failures: 0,
  lastCallAt: null,
  lastHttpStatus: null,
  lastOutcome: null,
  latencyMs: null,
  budgetWaitMs: null,
  shape: null,
  lastError: null
})

export class EndpointLog {
  private readonly byEndpoint = new Map<EndpointName, EndpointRecord>()

  constructor(private readonly now: () => number = Date.now) {}

  record(e: RequestEvent): void {
    // An abort is the app's own doing (a profile switch, a newer quote), not the service's.
    if (e.outcome === 'aborted') return
    const r = this.byEndpoint.get(e.endpoint) ?? empty()
    const at = this.now()
    r.calls++
    // A refusal the caller asked for (page 0 of a service counting pages from 1) answered
    // its question: counted as a call, never as the endpoint's failure or its last outcome.
    if (e.expected) return void this.byEndpoint.set(e.endpoint, r)
    r.lastCallAt = at
    r.lastHttpStatus = e.httpStatus ?? null
    r.lastOutcome = e.outcome
    r.latencyMs = e.durationMs
    r.budgetWaitMs = e.budgetWaitMs
    if (e.shape) r.shape = e.shape
    if (e.outcome !== 'ok') {
      r.failures++
      r.lastError = { at, kind: e.outcome, httpStatus: e.httpStatus ?? null, message: e.message ?? e.outcome }
    }
    this.byEndpoint.set(e.endpoint, r)
  }

  get(endpoint: EndpointName): EndpointRecord {
    return { ...(this.byEndpoint.get(endpoint) ?? empty()) }
  }
}
