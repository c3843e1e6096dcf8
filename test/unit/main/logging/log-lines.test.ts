// The support log's lines: what each kind of event writes, at which level, and what it
// never writes.
import { describe, expect, it } from 'vitest'
import { SyncRunLog, errorFields, logApiCall, logError, logWebhook } from '../../../../src/main/logging/log-lines'
import type { Log, LogFields, LogLevel } from '../../../../src/main/logging/logger'
import { ApiError } from '../../../../src/shared/api/errors'
import type { WebhookDelivery } from '../../../../src/shared/ipc/contract'
import { runningState, syncState } from '../../../support/sync-state'

type Line = { level: LogLevel; msg: string; fields: LogFields }

/** A Log that keeps its lines (the file format is the logger's own test). */
function memoryLog(): Log & { lines: Line[] } {
  const lines: Line[] = []
  const at =
    (level: LogLevel) =>
    (msg: string, fields: LogFields = {}) =>
      void lines.push({ level, msg, fields })
  const log = { lines, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error'), child: () => log }
  return log
}

describe('logApiCall', () => {
  it('writes endpoint, status, latency, budget wait, attempt and retry for a call that worked', () => {
    const log = memoryLog()
    logApiCall(log, { endpoint: 'priceTicker', httpStatus: 200, attempt: 1, durationMs: 84.6, budgetWaitMs: 1200.2, outcome: 'ok' })
    expect(log.lines).toEqual([
      {
        level: 'info',
        msg: 'api call',
        fields: { endpoint: 'priceTicker', status: 200, latencyMs: 85, budgetWaitMs: 1200, attempt: 1, retry: false, outcome: 'ok' }
      }
    ])
  })

  it('warns with the error for a failed attempt, a retry marked as one, no status when nothing answered', () => {
    const log = memoryLog()
    logApiCall(log, {
      endpoint: 'orderStatus',
      attempt: 2,
      durationMs: 15000,
      budgetWaitMs: 0,
      outcome: 'timeout',
      message: 'headers timeout'
    })
    expect(log.lines[0]).toEqual({
      level: 'warn',
      msg: 'api call',
      fields: {
        endpoint: 'orderStatus',
        status: null,
        latencyMs: 15000,
        budgetWaitMs: 0,
        attempt: 2,
        retry: true,
        outcome: 'timeout',
        error: 'headers timeout'
      }
    })
  })
})

describe('logError', () => {
  it("keeps the app error's kind, message, endpoint and status", () => {
    const e = new ApiError({ kind: 'rate_limited', endpoint: 'merchantHistory', httpStatus: 429, message: 'too many requests' })
    expect(errorFields(e)).toEqual({ kind: 'rate_limited', error: 'too many requests', endpoint: 'merchantHistory', status: 429 })
  })

  it('warns for failures the app expects and errs for the rest', () => {
    const log = memoryLog()
    logError(log, 'channel failed', new ApiError({ kind: 'network', message: 'ECONNREFUSED' }), { channel: 'quotes:get' })
    logError(log, 'channel failed', new TypeError("Cannot read properties of undefined (reading 'id')"), { channel: 'orders:get' })
    expect(log.lines.map((l) => [l.level, l.fields.channel, l.fields.kind])).toEqual([
      ['warn', 'quotes:get', 'network'],
      ['error', 'orders:get', 'internal']
    ])
  })
})

describe('logWebhook', () => {
  const delivery: WebhookDelivery = {
    id: 7,
    receivedAt: 1,
    source: '127.0.0.1',
    verified: true,
    reason: 'signature verified',
    orderId: 100042,
    orderType: 1,
    status: 15,
    duplicate: false,
    payload: 'eyJ0aW1lc3RhbXAiOjE3MTgwMDAwMDAwMDAsImJvZHkiOnt9fQ==',
    body: '{"orderId":100042,"walletAddress":"0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed"}',
    bodyBytes: 83,
    bodySha256: null,
    bodyTruncated: false,
    payloadForm: 'timestamp+body (compact)',
    replay: false,
    notes: []
  }

  it('writes which order, which status and whether it verified, never the payload or body', () => {
    const log = memoryLog()
    logWebhook(log, delivery)
    logWebhook(log, { ...delivery, verified: false, reason: 'the signature does not verify' })
    expect(log.lines.map((l) => l.level)).toEqual(['info', 'warn'])
    expect(log.lines[0]!.fields).toEqual({
      id: 7,
      source: '127.0.0.1',
      verified: true,
      reason: 'signature verified',
      orderType: 1,
      orderId: 100042,
      status: 15,
      duplicate: false
    })
    expect(JSON.stringify(log.lines)).not.toMatch(/eyJ0|walletAddress|0x5aAeb/)
  })
})

describe('SyncRunLog', () => {
  type Over = Parameters<typeof syncState>[0] & { running?: boolean; progress?: { pages: number; orders: number } }
  const state = ({ running, progress, nextRunAt, ...o }: Over = {}) =>
    running
      ? runningState({ ...o, ...(progress ? { progress } : {}) })
      : syncState({ ...o, ...(nextRunAt !== undefined ? { nextRunAt } : {}) })

  it('writes one line when a run ends, with its pages, orders and duration', () => {
    const log = memoryLog()
    let now = 1_000
    const runs = new SyncRunLog(log, () => now)
    runs.observe(state({ running: true, progress: { pages: 0, orders: 0 } }))
    runs.observe(state({ running: true, progress: { pages: 1, orders: 500 } }))
    now = 3_500
    runs.observe(state({ running: true, progress: { pages: 2, orders: 731 } }))
    expect(log.lines).toEqual([])
    runs.observe(state({ running: false, lastSuccessAt: 3_500, nextRunAt: Date.UTC(2026, 0, 1) }))
    expect(log.lines).toEqual([
      {
        level: 'info',
        msg: 'sync run',
        fields: { type: 1, fiatType: 1, pages: 2, orders: 731, durationMs: 2_500, nextRunAt: '2026-01-01T00:00:00.000Z', outcome: 'ok' }
      }
    ])
  })

  it('warns with the error of a run that failed, even when an earlier run had succeeded', () => {
    const log = memoryLog()
    const runs = new SyncRunLog(log, () => 0)
    runs.observe(state({ running: true, lastSuccessAt: 500 }))
    runs.observe(
      state({ running: false, lastSuccessAt: 500, lastError: { kind: 'rate_limited', message: 'too many requests', retryable: true } })
    )
    expect(log.lines[0]).toMatchObject({ level: 'warn', fields: { outcome: 'rate_limited', error: 'too many requests' } })
  })

  it('keeps scopes apart, ignores states outside a run, and calls runs ended by a closing session stopped', () => {
    const log = memoryLog()
    const runs = new SyncRunLog(log, () => 0)
    runs.observe(state({ running: false, lastSuccessAt: 1 }))
    runs.observe(state({ running: true }))
    runs.observe(state({ type: 2, running: true }))
    runs.observe(state({ type: 2, running: false, lastSuccessAt: 9 }))
    runs.stop()
    runs.observe(state({ running: false, lastError: { kind: 'network', message: 'earlier failure', retryable: true } }))
    expect(log.lines.map((l) => [l.fields.type, l.fields.outcome])).toEqual([
      [2, 'ok'],
      [1, 'stopped']
    ])
  })
})
