// Each way a first connection fails, put in the operator's words with what to do next.
import { describe, expect, it } from 'vitest'
import { diagnoseConnection } from '../../../src/main/connection-check'
import type { ApiErrorInfo } from '../../../src/shared/api/errors'

const ctx = { baseUrl: 'https://api.example.com', serviceName: 'recon' }
const err = (e: Partial<ApiErrorInfo> & Pick<ApiErrorInfo, 'kind' | 'message'>): ApiErrorInfo => ({ retryable: false, ...e })

describe('diagnoseConnection', () => {
  it.each([
    ['getaddrinfo ENOTFOUND api.example.com', /host name api\.example\.com was not found/],
    ['connect ECONNREFUSED 127.0.0.1:443', /Nothing accepts connections at api\.example\.com/],
    ['unable to verify the first certificate (UNABLE_TO_VERIFY_LEAF_SIGNATURE): CERT', /certificate was refused/],
    ['socket hang up', /connection to api\.example\.com failed \(socket hang up\)/]
  ])('a network failure (%s) is about the address and the network', (message, why) => {
    const d = diagnoseConnection('reach', err({ kind: 'network', message }), ctx)
    expect(d.cause).toBe('network')
    expect(d.title).toBe('Rampdesk cannot reach the service')
    expect(d.explanation).toMatch(why)
    expect(d.next).toMatch(/base URL.*online.*firewall, proxy or VPN/)
  })

  it('a timeout is a network failure too', () => {
    expect(diagnoseConnection('reach', err({ kind: 'timeout', message: 'headers timeout' }), ctx)).toMatchObject({
      cause: 'network',
      explanation: expect.stringMatching(/did not answer in time/)
    })
  })

  it('"not found" names the service name, its paths and header', () => {
    const d = diagnoseConnection(
      'reach',
      err({ kind: 'api', code: 404, httpStatus: 404, message: 'Not found: GET /recon/api/v1/public/allGasFee' }),
      ctx
    )
    expect(d.cause).toBe('service_name')
    expect(d.explanation).toContain('/recon/api/v1/public/allGasFee')
    expect(d.explanation).toContain('X-RECON-APIKEY')
    expect(d.next).toMatch(/service name your provider gave you, in lowercase/)
    expect(diagnoseConnection('reach', err({ kind: 'http', httpStatus: 404, message: 'HTTP 404' }), ctx).cause).toBe('service_name')
  })

  it('an unknown key, a bad signature and a refused key each say what to paste again', () => {
    const key = diagnoseConnection('sign', err({ kind: 'auth', httpStatus: 401, code: 401, message: 'Invalid API key' }), ctx)
    expect(key).toMatchObject({ cause: 'bad_key', title: 'The service does not accept this API key' })
    expect(key.next).toMatch(/Copy the API key again .* live key for "recon"/)
    const sig = diagnoseConnection('sign', err({ kind: 'auth', httpStatus: 401, code: 401, message: 'Invalid signature' }), ctx)
    expect(sig).toMatchObject({ cause: 'bad_signature', title: 'The API secret does not match the key' })
    expect(sig.next).toMatch(/Paste the API secret .* whole/)
    expect(diagnoseConnection('sign', err({ kind: 'auth', httpStatus: 403, code: 403, message: 'forbidden' }), ctx).cause).toBe('forbidden')
  })

  it('a refused time is about the clock, with the offset when it is known', () => {
    const ahead = diagnoseConnection(
      'sign',
      err({ kind: 'clock_skew', skewMs: -120_400, message: 'the service refused our timestamp as ahead of its clock (Ahead of Time)' }),
      ctx
    )
    expect(ahead).toMatchObject({ cause: 'clock', title: "This computer's clock is off" })
    expect(ahead.explanation).toMatch(/differ by about 120 s/)
    expect(ahead.next).toMatch(/set time automatically/)
    const expired = diagnoseConnection(
      'sign',
      err({ kind: 'auth', httpStatus: 401, message: 'Request expired: the payload timestamp is more than 60 s old' }),
      ctx
    )
    expect(expired.cause).toBe('clock')
  })

  it('a service in trouble is not blamed on the settings', () => {
    const d = diagnoseConnection('reach', err({ kind: 'api', code: 503, httpStatus: 503, message: 'maintenance' }), ctx)
    expect(d).toMatchObject({ cause: 'service_down' })
    expect(d.explanation).toMatch(/503 \(maintenance\).*Your settings may well be right/)
    expect(diagnoseConnection('sign', err({ kind: 'rate_limited', origin: 'service', message: 'too many' }), ctx).cause).toBe(
      'rate_limited'
    )
  })

  it('an answer that is not the API is about the base URL', () => {
    const d = diagnoseConnection('reach', err({ kind: 'schema', message: 'the response is not JSON' }), ctx)
    expect(d.cause).toBe('not_the_service')
    expect(d.next).toMatch(/not the address of their website/)
    expect(diagnoseConnection('sign', err({ kind: 'schema', message: 'bad shape' }), ctx).cause).toBe('other')
  })
})
