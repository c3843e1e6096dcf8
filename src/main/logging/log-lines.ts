// The support log's lines, one kind of event each: an API call (every attempt, with its
// latency, budget wait and whether it was a retry), a history sync run (from the
// monitor's sync:state events, logged when a run ends), a webhook delivery (never its
// body or signature) and an error. What a line holds is decided here, so the log reads
// the same whichever shell runs the services.
import type { RequestEvent } from '../api/client'
import type { SyncState, WebhookDelivery } from '../../shared/ipc/contract'
import { toEnvelopeError } from '../../shared/ipc/contract'
import type { Log, LogFields } from './logger'

/** Failures that happen in normal operation (the service busy, the network down) are warnings. */
const EXPECTED_KINDS = new Set(['network', 'timeout', 'rate_limited', 'http', 'api', 'auth', 'clock_skew', 'aborted', 'invalid_input'])

export function logApiCall(log: Log, e: RequestEvent): void {
  const fields: LogFields = {
    endpoint: e.endpoint,
    status: e.httpStatus ?? null,
    latencyMs: Math.round(e.durationMs),
    budgetWaitMs: Math.round(e.budgetWaitMs),
    attempt: e.attempt,
    retry: e.attempt > 1,
    outcome: e.outcome
  }
  if (e.outcome === 'ok') return log.info('api call', fields)
  // A refusal the caller asked for is an answer (page 0 of a service counting from 1).
  if (e.expected) return log.info('api call', { ...fields, expected: true, answer: e.message })
  log.warn('api call', { ...fields, error: e.message })
}

/** What an error says, as the log keeps it: the kind and message of the app's error taxonomy. */
export function errorFields(e: unknown): LogFields {
  const info = toEnvelopeError(e)
  const out: LogFields = { kind: info.kind, error: info.message }
  if (info.endpoint !== undefined) out.endpoint = info.endpoint
  if (info.httpStatus !== undefined) out.status = info.httpStatus
  return out
}

/** Logs an error at warn when it is one the app expects to meet, at error otherwise. */
export function logError(log: Log, msg: string, e: unknown, fields: LogFields = {}): void {
  const f = { ...fields, ...errorFields(e) }
  if (EXPECTED_KINDS.has(String(f.kind))) log.warn(msg, f)
  else log.error(msg, f)
}

export function logWebhook(log: Log, d: WebhookDelivery): void {
  const fields: LogFields = {
    id: d.id,
    source: d.source,
    verified: d.verified,
    reason: d.reason,
    orderType: d.orderType,
    orderId: d.orderId,
    status: d.status,
    duplicate: d.duplicate
  }
  if (d.verified) log.info('webhook', fields)
  else log.warn('webhook', fields)
}

interface RunInProgress {
  startedAt: number
  lastSuccessAt: number | null
  pages: number
  orders: number
}

/**
 * Turns the monitor's sync:state events into one line per history sync run, when it
 * ends: the scope, pages and orders, how long it took, and whether it succeeded, failed
 * (with the error) or was stopped with its session.
 */
export class SyncRunLog {
  private readonly runs = new Map<string, RunInProgress>()
  private stopping = false

  constructor(
    private readonly log: Log,
    private readonly now: () => number = Date.now
  ) {}

  observe(s: SyncState): void {
    const key = `${s.type}:${s.fiatType}`
    const run = this.runs.get(key)
    if (s.running) {
      if (!run) this.runs.set(key, { startedAt: this.now(), lastSuccessAt: s.lastSuccessAt, pages: 0, orders: 0 })
      else if (s.progress) Object.assign(run, s.progress)
      return
    }
    if (!run) return
    this.runs.delete(key)
    const fields: LogFields = {
      type: s.type,
      fiatType: s.fiatType,
      pages: run.pages,
      orders: run.orders,
      durationMs: Math.max(0, this.now() - run.startedAt),
      nextRunAt: s.nextRunAt === null ? null : new Date(s.nextRunAt).toISOString()
    }
    if (s.lastSuccessAt !== null && s.lastSuccessAt !== run.lastSuccessAt) return this.log.info('sync run', { ...fields, outcome: 'ok' })
    if (this.stopping || !s.lastError) return this.log.info('sync run', { ...fields, outcome: 'stopped' })
    this.log.warn('sync run', { ...fields, outcome: s.lastError.kind, error: s.lastError.message })
  }

  /** Runs that end from now on were stopped with their session, whatever their last error says. */
  stop(): void {
    this.stopping = true
  }
}
