// Whether the merchant's service answers the hub, read from the API client's own traffic
// (every attempt it makes, and its clock's samples) rather than from a request of its own
// per probe: a load balancer asking /readyz every second must not spend the team's budget.
// The service counts as reachable when its latest answer is newer than its latest failure
// (an attempt that got no answer, or a 5xx): a 4xx or a 429 is an answer.
import type { RequestEvent } from '../main/api/client'
import type { ClockInfo } from '../main/api/clock'
import type { ReadinessCheck } from './readiness'

export interface UpstreamTraffic {
  onRequest(listener: (e: RequestEvent) => void): () => void
  clock: { info(): ClockInfo }
}

export class UpstreamHealth {
  private lastAnswerAt: number | null = null
  private lastStatus: number | null = null
  private lastFailureAt: number | null = null
  private lastFailure: string | null = null
  private readonly off: () => void

  constructor(
    private readonly client: UpstreamTraffic,
    private readonly now: () => number = Date.now
  ) {
    this.off = client.onRequest((e) => this.observe(e))
  }

  observe(e: RequestEvent): void {
    const at = this.now()
    if (e.httpStatus !== undefined && e.httpStatus < 500) {
      this.lastAnswerAt = at
      this.lastStatus = e.httpStatus
    } else {
      this.lastFailureAt = at
      this.lastFailure = `${e.endpoint}: ${e.httpStatus !== undefined ? `HTTP ${e.httpStatus}` : (e.message ?? e.outcome)}`.slice(0, 200)
    }
  }

  /**
   * A follower on PostgreSQL sends no configuration or price reads: the leader does, and its
   * answers (or failures) served here count as the service's (pg-shared-reads.ts).
   */
  observeViaLeader(failure: string | null): void {
    const at = this.now()
    if (failure === null) {
      this.lastAnswerAt = at
      this.lastStatus = null
    } else {
      this.lastFailureAt = at
      this.lastFailure = `through the leading hub: ${failure}`.slice(0, 200)
    }
  }

  check(): ReadinessCheck {
    const clock = this.client.clock.info()
    const facts = {
      lastAnswerAt: this.lastAnswerAt,
      lastStatus: this.lastStatus,
      lastFailureAt: this.lastFailureAt,
      lastFailure: this.lastFailure,
      clockSkewMs: clock.samples > 0 ? clock.skewMs : null,
      clockSampledAt: clock.lastSampleAt
    }
    if (this.lastAnswerAt === null)
      return {
        ok: false,
        detail: this.lastFailure ? `no answer from the service yet (${this.lastFailure})` : 'no answer from the service yet',
        ...facts
      }
    if (this.lastFailureAt !== null && this.lastFailureAt > this.lastAnswerAt)
      return { ok: false, detail: `the service stopped answering (${this.lastFailure})`, ...facts }
    return { ok: true, detail: `the service answered ${Math.round((this.now() - this.lastAnswerAt) / 1000)} s ago`, ...facts }
  }

  close(): void {
    this.off()
  }
}
