// Whether the service answers, from the client's own attempts: unknown until the first
// answer, down when the latest failure is newer than the latest answer (no answer, or a
// 5xx), up again at the next answer; a 4xx or a 429 is an answer.
import { describe, expect, it } from 'vitest'
import type { RequestEvent } from '../../../src/main/api/client'
import { SkewClock } from '../../../src/main/api/clock'
import { UpstreamHealth } from '../../../src/hub/upstream-health'

function setup() {
  let listener: (e: RequestEvent) => void = () => undefined
  let t = 1_000
  const clock = new SkewClock()
  const health = new UpstreamHealth({ onRequest: (l) => ((listener = l), () => undefined), clock }, () => t)
  const attempt = (httpStatus: number | undefined, outcome: RequestEvent['outcome'] = 'ok') => {
    t += 1000
    listener({
      endpoint: 'merchantHistory',
      httpStatus,
      attempt: 1,
      durationMs: 10,
      budgetWaitMs: 0,
      outcome,
      message: httpStatus ? undefined : 'connect ECONNREFUSED'
    })
  }
  return { health, attempt }
}

describe('upstream health', () => {
  it('is not known to be up before the first answer', () => {
    const { health, attempt } = setup()
    expect(health.check()).toMatchObject({ ok: false, detail: 'no answer from the service yet' })
    attempt(undefined, 'network')
    expect(health.check()).toMatchObject({
      ok: false,
      detail: expect.stringMatching(/no answer from the service yet \(merchantHistory: connect ECONNREFUSED\)/)
    })
  })

  it('follows the latest attempt: an answer, a failure, an answer again', () => {
    const { health, attempt } = setup()
    attempt(200)
    expect(health.check()).toMatchObject({ ok: true, lastStatus: 200 })
    attempt(503, 'http')
    expect(health.check()).toMatchObject({ ok: false, detail: 'the service stopped answering (merchantHistory: HTTP 503)' })
    attempt(429, 'rate_limited')
    expect(health.check()).toMatchObject({ ok: true, lastStatus: 429 })
    attempt(undefined, 'network')
    expect(health.check().ok).toBe(false)
  })
})
