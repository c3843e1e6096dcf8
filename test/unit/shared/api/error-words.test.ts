// A failure in the operator's words: every kind says what happened and what Rampdesk does
// or they can do, with no error code, endpoint name, address or library text, which stay
// in explainError for Diagnostics and the support log.
import { describe, expect, it } from 'vitest'
import { isTechnicalText, operatorErrorText } from '../../../../src/shared/api/error-words'
import { endpointNames } from '../../../../src/shared/api/endpoints'
import { explainError, type ApiErrorInfo, type ApiErrorKind } from '../../../../src/shared/api/errors'

/** One error per kind as the transport, the service and the hub really word them. */
const samples = {
  network: {
    kind: 'network',
    message: 'connect ECONNREFUSED 127.0.0.1:34573 (ECONNREFUSED)',
    endpoint: 'merchantHistory',
    retryable: true
  },
  timeout: { kind: 'timeout', message: 'Headers Timeout Error (UND_ERR_HEADERS_TIMEOUT)', endpoint: 'orderStatus', retryable: true },
  aborted: { kind: 'aborted', message: 'request cancelled', endpoint: 'merchantHistory', retryable: false },
  http: { kind: 'http', message: 'Bad Gateway', endpoint: 'limits', httpStatus: 502, retryable: true },
  api: {
    kind: 'api',
    message: 'Invalid page: must be at least 1',
    endpoint: 'merchantHistory',
    httpStatus: 400,
    code: 400,
    retryable: false
  },
  auth: { kind: 'auth', message: 'Invalid signature', endpoint: 'allGasFee', httpStatus: 401, code: 401, retryable: false },
  rate_limited: {
    kind: 'rate_limited',
    message: 'budget exhausted',
    endpoint: 'priceTicker',
    origin: 'service',
    nextSlotAt: Date.UTC(2024, 0, 1, 12, 34, 56),
    retryable: true
  },
  schema: { kind: 'schema', message: 'expected a decimal', endpoint: 'merchantHistory', path: 'data[3].fiatAmount', retryable: false },
  clock_skew: { kind: 'clock_skew', message: 'Ahead of Time', endpoint: 'quotes', skewMs: 93_400, code: 401, retryable: false },
  too_large: { kind: 'too_large', message: 'response larger than 8388608 bytes', endpoint: 'publicAllConfig', retryable: false },
  invalid_request: {
    kind: 'invalid_request',
    message: 'data.orderId: Expected number, received string',
    path: 'orderId',
    endpoint: 'orderStatus',
    retryable: false
  },
  missing_secret: {
    kind: 'missing_secret',
    message: 'no API secret is stored for profile "Live"',
    endpoint: 'orderStatus',
    retryable: false
  },
  hub_unreachable: {
    kind: 'hub_unreachable',
    message: 'fetch failed: connect ECONNREFUSED 10.0.0.7:8443',
    endpoint: 'sync:state',
    retryable: true
  },
  access_revoked: {
    kind: 'access_revoked',
    message: 'this operator token is unknown or was revoked (401)',
    endpoint: 'sync:state',
    retryable: false
  }
} satisfies Record<ApiErrorKind, ApiErrorInfo>

const cases = (Object.keys(samples) as ApiErrorKind[]).map((k) => [k, samples[k] as ApiErrorInfo] as const)
const TECHNICAL = [
  /ECONN|UND_ERR|fetch failed|\d+\.\d+\.\d+\.\d+/,
  new RegExp(`\\b(${endpointNames.join('|')})\\b`),
  /\b(400|401|413|429|500|502|503)\b/,
  /data\[\d+\]|sync:state/,
  /\bbudget\b/
]

describe('operatorErrorText', () => {
  it.each(cases)('%s: plain words, with no code, endpoint, address or library text', (_k, info) => {
    const s = operatorErrorText(info)
    expect(s).toMatch(/^[A-Z].*\.$/)
    for (const t of TECHNICAL) expect(s).not.toMatch(t)
    // The technical sentence stays for Diagnostics: not the operator's.
    expect(explainError(info)).not.toBe(s)
  })

  it('names an outage as the service being unreachable, never as the budget', () => {
    expect(operatorErrorText(samples.network)).toBe(
      "The service cannot be reached. Rampdesk tries again by itself; if it lasts, check this computer's internet connection."
    )
    expect(operatorErrorText({ kind: 'http', message: 'Service Unavailable', httpStatus: 503 })).toBe(
      'The service is down for maintenance. Rampdesk tries again by itself.'
    )
    expect(operatorErrorText({ kind: 'api', message: 'server problem', code: 500, httpStatus: 200 })).toMatch(/trouble on its side/)
  })

  it("keeps the service's own words of a refusal, and the bounds it named", () => {
    const t = operatorErrorText({
      kind: 'api',
      message: 'Amount should be greater than 500 INR',
      code: 413,
      bounds: { minimum: '500', unit: 'INR' }
    })
    expect(t).toBe("The service refused the request: Amount should be greater than 500 INR. The service's minimum is 500 INR.")
    expect(operatorErrorText({ kind: 'api', message: 'connect ECONNRESET', code: 416 })).toBe(
      'The service refused the request: insufficient balance.'
    )
  })

  it("says the budget's own pacing when that is what it is, with the time in the operator's writing", () => {
    const t = operatorErrorText({ kind: 'rate_limited', message: 'x', origin: 'budget', nextSlotAt: 5 }, { time: () => '14:05:10' })
    expect(t).toBe("Rampdesk is pacing its requests to the service's limit: this one goes at 14:05:10. Nothing was lost.")
  })

  it("passes Rampdesk's own messages for other kinds, unless they are technical", () => {
    expect(operatorErrorText({ kind: 'forbidden', message: 'Your role cannot change the webhook URL' })).toBe(
      'Your role cannot change the webhook URL'
    )
    expect(operatorErrorText({ kind: 'internal', message: "TypeError: Cannot read properties of undefined (reading 'x')" })).toBe(
      'Something went wrong. Diagnostics and the support log have the details.'
    )
  })
})

describe('isTechnicalText', () => {
  it('tells a library or transport text from a sentence a person wrote', () => {
    for (const t of [
      'connect ECONNREFUSED 127.0.0.1:80',
      'other side closed',
      'UND_ERR_SOCKET',
      'merchantHistory failed',
      'data[3].updatedAt'
    ])
      expect(isTechnicalText(t), t).toBe(true)
    for (const t of ['Amount should be greater than 500 INR', 'insufficient balance', 'Invalid page: must be at least 1'])
      expect(isTechnicalText(t), t).toBe(false)
  })
})
