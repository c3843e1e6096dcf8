// What the fault suites share: where each scenario's figures go (scripts/test.mjs prints them
// under "Hub fault figures"), signed deliveries of real sandbox orders, and posting them to a
// hub as the service does.
import { appendFileSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { request } from 'undici'
import type { Sandbox } from '../../src/sandbox'
import { hmacHex } from '../support/webhook-senders'
import { REPO_ROOT } from '../attack/hub/hub-process'

export const FAULT_SUMMARY = join(REPO_ROOT, 'test-results', 'hub-fault-summary.jsonl')

/** One scenario's outcome for the run's summary: the figures and the bound each is held to. */
export function recordFault(scenario: string, figures: Record<string, number | string>, bounds: Record<string, string>): void {
  mkdirSync(join(REPO_ROOT, 'test-results'), { recursive: true })
  appendFileSync(FAULT_SUMMARY, JSON.stringify({ scenario, figures, bounds }) + '\n')
  console.log(`${scenario}: ${JSON.stringify(figures)}`)
}

export interface Delivery {
  orderId: number
  body: string
  headers: Record<string, string>
}

/**
 * A completion delivery of a real sandbox order, signed as the service signs one. Its fiat
 * amount is written with more digits than a double holds (the service's amounts are JSON
 * floats with artefacts): the relay must pass the very bytes on.
 */
export function signedDelivery(sandbox: Sandbox, orderId: number): Delivery {
  const truth = sandbox.control.order(orderId, 1)!
  const record = { ...truth.record, webhookTrials: 1 }
  const body = JSON.stringify(record).replace(/"fiatAmount":[^,}]+/, `"fiatAmount":1000.00000000000001${orderId % 10}`)
  const payload = Buffer.from(`{"timestamp":${sandbox.control.serverNow()},"body":${body}}`).toString('base64')
  const name = sandbox.serviceName.toLowerCase()
  return {
    orderId,
    body,
    headers: {
      'content-type': 'application/json;charset=UTF-8',
      'user-agent': 'service-webhooks/1.0',
      [`x-${name}-payload`]: payload,
      [`x-${name}-signature`]: hmacHex(payload, sandbox.apiSecret)
    }
  }
}

/** Posts a delivery to a hub as the service does, on a connection of its own; its status and how long the answer took. */
export async function post(hubUrl: string, d: Delivery): Promise<{ status: number; ms: number }> {
  const started = performance.now()
  try {
    const r = await request(`${hubUrl}/webhook`, { method: 'POST', headers: d.headers, body: d.body, reset: true, headersTimeout: 10_000 })
    await r.body.dump()
    return { status: r.statusCode, ms: performance.now() - started }
  } catch {
    return { status: 0, ms: performance.now() - started }
  }
}
