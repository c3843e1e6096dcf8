// What an alert hook is sent, and how a JSON hook's receiver checks it: the Slack body in an
// operator's words, the JSON body's fields, the signature over "<timestamp>.<body>" (a known
// vector computed here independently), a hook URL never shown past its first path part,
// non-http(s) URLs refused, and the relay's back-off on a fixed clock.
import { createHmac } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import {
  checkHookUrl,
  hookBody,
  hookDisplay,
  SIGNATURE_HEADER,
  signedHeaders,
  TIMESTAMP_HEADER,
  verifyHookSignature,
  type HookAlert
} from '../../../../src/hub/alert-hooks/hook-bodies'
import { hookNextAfter, HOOK_RETRY_WINDOW_MS } from '../../../../src/hub/alert-hooks/hook-store'
import { stalledText } from '../../../../src/shared/domain/stalled'

const T0 = Date.UTC(2026, 10, 27, 9, 0)
const coins = { coinOf: () => 'USDT' }
const stalled: HookAlert = {
  kind: 'stalled',
  id: 'stalled:2:123',
  order: { type: 2, orderId: 123 },
  since: T0,
  text: stalledText({ type: 2, status: 3, forMs: 42 * 60_000 })
}

describe('alert hook bodies', () => {
  it("writes a stalled order for Slack in an operator's words, and its resolution", () => {
    expect(JSON.parse(hookBody('slack', 'raised', stalled, coins, T0))).toEqual({
      text: ':warning: Order 123 (offramp · USDT) stalled 42 min in Held for review'
    })
    expect(JSON.parse(hookBody('slack', 'cleared', stalled, coins, T0))).toEqual({
      text: ':white_check_mark: Resolved: Order 123 (offramp · USDT) stalled 42 min in Held for review'
    })
    // A coin the hub does not hold is left out, not guessed.
    expect(JSON.parse(hookBody('slack', 'raised', stalled, { coinOf: () => null }, T0)).text).toBe(
      ':warning: Order 123 (offramp) stalled 42 min in Held for review'
    )
  })

  it('writes the generic JSON body with the kind, alert id, order, since, text and event', () => {
    const chain: HookAlert = {
      kind: 'chain',
      id: 'chain:54:3:node_out_of_sync',
      orders: [
        { type: 2, orderId: 7 },
        { type: 2, orderId: 8 }
      ],
      since: T0,
      text: '2 withdrawals of USDT on TRC20 while its node is out of sync'
    }
    expect(JSON.parse(hookBody('json', 'raised', chain, coins, T0 + 5))).toEqual({
      event: 'raised',
      kind: 'chain',
      alertId: 'chain:54:3:node_out_of_sync',
      order: null,
      orders: chain.orders,
      since: T0,
      text: '2 withdrawals of USDT on TRC20 while its node is out of sync',
      at: T0 + 5
    })
    expect(JSON.parse(hookBody('json', 'cleared', stalled, coins, T0))).toMatchObject({
      event: 'cleared',
      kind: 'stalled',
      alertId: 'stalled:2:123',
      order: { type: 2, orderId: 123 },
      orders: [{ type: 2, orderId: 123 }],
      text: 'Resolved: Order 123 (offramp · USDT) stalled 42 min in Held for review'
    })
    // A kind this hub does not know yet is told by its text and order.
    const later = {
      kind: 'unacknowledged',
      id: 'unack:1:9',
      order: { type: 1, orderId: 9 },
      since: T0,
      text: 'Completed, the merchant never acknowledged it'
    }
    expect(JSON.parse(hookBody('slack', 'raised', later as unknown as HookAlert, coins, T0)).text).toBe(
      ':warning: Order 9 (onramp · USDT): Completed, the merchant never acknowledged it'
    )
    expect(JSON.parse(hookBody('json', 'test', null, coins, T0))).toMatchObject({ event: 'test', alertId: null })
  })

  it('signs "<timestamp>.<body>" with HMAC-SHA256 and verifies only the body, secret and recent timestamp it was made with', () => {
    const body = hookBody('json', 'raised', stalled, coins, T0)
    const h = signedHeaders('whsec-1', body, T0)
    expect(h[TIMESTAMP_HEADER]).toBe(String(T0))
    expect(h[SIGNATURE_HEADER]).toBe(`sha256=${createHmac('sha256', 'whsec-1').update(`${T0}.${body}`).digest('hex')}`)
    const check = (o: Partial<Parameters<typeof verifyHookSignature>[0]>) =>
      verifyHookSignature({
        secret: 'whsec-1',
        body,
        timestamp: h[TIMESTAMP_HEADER],
        signature: h[SIGNATURE_HEADER],
        now: T0 + 1_000,
        ...o
      })
    expect(check({})).toBe(true)
    expect(check({ body: body.replace('123', '124') })).toBe(false)
    expect(check({ secret: 'whsec-2' })).toBe(false)
    expect(check({ timestamp: String(T0 + 1) })).toBe(false)
    expect(check({ now: T0 + 5 * 60_000 + 1 })).toBe(false)
    expect(check({ signature: undefined })).toBe(false)
  })

  it('never shows a hook URL past its first path part, and refuses what is not http(s)', () => {
    expect(hookDisplay('https://hooks.slack.com/services/T000/B000/XXXXsecretXXXX')).toBe('https://hooks.slack.com/services/…')
    expect(hookDisplay('https://alerts.example.com/abcdef0123456789')).toBe('https://alerts.example.com/…')
    expect(hookDisplay('https://alerts.example.com/in?token=s3cret')).toBe('https://alerts.example.com/…')
    expect(hookDisplay('http://127.0.0.1:9000')).toBe('http://127.0.0.1:9000')
    expect(checkHookUrl('https://hooks.slack.com/services/T/B/X')).toBeNull()
    expect(checkHookUrl('http://127.0.0.1:9000/in')).toBeNull()
    for (const bad of ['ftp://example.com/x', 'file:///etc/passwd', 'javascript:alert(1)', 'hooks.slack.com/services/x'])
      expect(checkHookUrl(bad)).not.toBeNull()
    expect(checkHookUrl('https://user:pw@example.com/x')).toMatch(/user name or password/)
  })
})

describe('alert hook back-off', () => {
  const job = (attempts: number) => ({ attempts, createdAt: T0 })
  it('tries again after 1 s, 2 s, 4 s ... up to 30 s while the receiver is down, and stops at a refusal or after the window', () => {
    expect(hookNextAfter(job(0), { httpStatus: 500 }, T0)).toEqual({ kind: 'waiting', nextAt: T0 + 1_000 })
    expect(hookNextAfter(job(1), { httpStatus: null }, T0)).toEqual({ kind: 'waiting', nextAt: T0 + 2_000 })
    expect(hookNextAfter(job(2), { httpStatus: 429 }, T0)).toEqual({ kind: 'waiting', nextAt: T0 + 4_000 })
    expect(hookNextAfter(job(9), { httpStatus: 503 }, T0)).toEqual({ kind: 'waiting', nextAt: T0 + 30_000 })
    expect(hookNextAfter(job(3), { httpStatus: 204 }, T0)).toEqual({ kind: 'delivered' })
    expect(hookNextAfter(job(0), { httpStatus: 404 }, T0)).toEqual({ kind: 'failed', why: 'the receiver refused it' })
    expect(hookNextAfter(job(20), { httpStatus: 500 }, T0 + HOOK_RETRY_WINDOW_MS - 29_000)).toMatchObject({ kind: 'failed' })
  })
})
