// What one relay is: a content whatever its attempt counters, member order or number
// spelling, but never two amounts a float cannot tell apart; and what follows an attempt:
// back-off doubling to 30 s while the receiver is down or answers 5xx, inside a day; a 4xx
// is final.
import { describe, expect, it } from 'vitest'
import {
  contentKeyOf,
  nextAfter,
  RELAY_MAX_BACKOFF_MS,
  RELAY_RETRY_WINDOW_MS,
  relayBackoffMs,
  relayContent,
  type RelayAttempt
} from '../../../../src/hub/kept/kept-delivery'

const attempt = (httpStatus: number | null): RelayAttempt => ({ at: 0, hub: 'h', httpStatus, answer: 'x', ms: 1 })

describe('a relay’s content', () => {
  it('is one content whatever the attempt counters, the member order or the spelling of a number', () => {
    const a = relayContent('{"orderId":42,"status":5,"fiatAmount":1000,"webhookTrials":1}')
    const b = relayContent('{"webhookTrials":3,"fiatAmount":1e3,"status":5,"orderId":42,"trials":2}')
    expect(a).toBe(b)
    expect(contentKeyOf('{"orderId":42,"fiatAmount":1000.0}')).toBe(contentKeyOf('{"fiatAmount":1000,"orderId":42}'))
  })

  it('tells apart amounts a float cannot', () => {
    expect(contentKeyOf('{"orderId":42,"fiatAmount":1000}')).not.toBe(contentKeyOf('{"orderId":42,"fiatAmount":1000.00000000000001}'))
    expect(contentKeyOf('{"n":1e400}')).not.toBe(contentKeyOf('{"n":1e401}'))
  })
})

describe('after an attempt', () => {
  it('waits 1 s, then doubling, never more than 30 s', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 50].map(relayBackoffMs)).toEqual([1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000, 30_000])
    expect(relayBackoffMs(10_000)).toBe(RELAY_MAX_BACKOFF_MS)
  })

  it('tries again while the receiver is down, overloaded or slow; stops at a refusal; and waits for an admin after a day', () => {
    const job = { attempts: 2, windowFrom: 0 }
    expect(nextAfter(job, attempt(200), 10_000)).toEqual({ kind: 'delivered' })
    for (const s of [null, 500, 503, 408, 429]) expect(nextAfter(job, attempt(s), 10_000)).toEqual({ kind: 'waiting', nextAt: 14_000 })
    expect(nextAfter(job, attempt(403), 10_000)).toEqual({ kind: 'failed', why: 'the receiver refused it' })
    expect(nextAfter(job, attempt(503), RELAY_RETRY_WINDOW_MS - 1_000)).toEqual({
      kind: 'failed',
      why: 'the receiver did not take it in 24 h of tries'
    })
  })
})
