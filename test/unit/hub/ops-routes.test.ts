// Who may read /metrics: the holder of the metrics token (compared in constant time), or,
// when the hub has none, a peer on this machine that no proxy relayed.
import type { IncomingMessage } from 'node:http'
import { describe, expect, it } from 'vitest'
import { metricsRefusal, tokenMatches } from '../../../src/hub/ops-routes'

const req = (remoteAddress: string, headers: Record<string, string> = {}) =>
  ({ socket: { remoteAddress }, headers }) as unknown as IncomingMessage
const TOKEN = 'metrics-token-0123456789abcdef'

describe('metrics access', () => {
  it('with a token, answers only its holder, from anywhere', () => {
    expect(metricsRefusal(req('203.0.113.9', { authorization: `Bearer ${TOKEN}` }), TOKEN)).toBeNull()
    expect(metricsRefusal(req('127.0.0.1'), TOKEN)).toMatchObject({ status: 401 })
    expect(metricsRefusal(req('127.0.0.1', { authorization: `Bearer ${TOKEN}x` }), TOKEN)).toMatchObject({ status: 401 })
    expect(metricsRefusal(req('127.0.0.1', { authorization: `Basic ${TOKEN}` }), TOKEN)).toMatchObject({ status: 401 })
  })

  it('without a token, answers loopback peers that no proxy relayed', () => {
    expect(metricsRefusal(req('127.0.0.1'), undefined)).toBeNull()
    expect(metricsRefusal(req('::1'), undefined)).toBeNull()
    expect(metricsRefusal(req('::ffff:127.0.0.1'), undefined)).toBeNull()
    expect(metricsRefusal(req('192.168.1.20'), undefined)).toMatchObject({ status: 403 })
    expect(metricsRefusal(req('::ffff:192.168.1.20'), undefined)).toMatchObject({ status: 403 })
    for (const h of ['forwarded', 'x-forwarded-for', 'x-real-ip'])
      expect(metricsRefusal(req('127.0.0.1', { [h]: '203.0.113.9' }), undefined)).toMatchObject({ status: 403 })
  })

  it('compares tokens of any length', () => {
    expect(tokenMatches(TOKEN, TOKEN)).toBe(true)
    expect(tokenMatches('', TOKEN)).toBe(false)
    expect(tokenMatches(TOKEN + TOKEN, TOKEN)).toBe(false)
  })
})
