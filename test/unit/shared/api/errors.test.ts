// The error taxonomy: every kind explains itself in a sentence an operator can act on,
// retryable defaults follow the kind and the status, and errors survive the trip
// through IPC (toInfo / toErrorInfo / JSON) unchanged.
import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { ApiError, explainError, serviceErrorCodes, toErrorInfo } from '../../../../src/shared/api/errors'
import type { ApiErrorInfo, ApiErrorKind } from '../../../../src/shared/api/errors'
import { toEnvelopeError } from '../../../../src/shared/ipc/contract'

/** One typical error per kind; `satisfies` makes this fail to compile when a kind is added. */
const samples = {
  network: { kind: 'network', message: 'connect ECONNREFUSED 127.0.0.1:8787', endpoint: 'priceTicker', retryable: true },
  timeout: { kind: 'timeout', message: 'headers timeout', endpoint: 'quotes', retryable: true },
  aborted: { kind: 'aborted', message: 'aborted', endpoint: 'merchantHistory', retryable: false },
  http: { kind: 'http', message: 'Bad Gateway', endpoint: 'limits', httpStatus: 502, retryable: true },
  api: { kind: 'api', message: 'Amount out of bounds', endpoint: 'quotes', httpStatus: 413, code: 413, retryable: false },
  auth: { kind: 'auth', message: 'Invalid signature', endpoint: 'allGasFee', httpStatus: 401, code: 401, retryable: false },
  rate_limited: {
    kind: 'rate_limited',
    message: 'budget exhausted',
    endpoint: 'priceTicker',
    origin: 'budget',
    nextSlotAt: Date.UTC(2024, 0, 1, 12, 34, 56),
    retryable: true
  },
  schema: { kind: 'schema', message: 'expected a decimal', endpoint: 'merchantHistory', path: 'data[3].fiatAmount', retryable: false },
  clock_skew: { kind: 'clock_skew', message: 'Ahead of Time', endpoint: 'quotes', skewMs: 93_400, code: 401, retryable: false },
  too_large: { kind: 'too_large', message: 'response over 8 MiB', endpoint: 'publicAllConfig', retryable: false },
  invalid_request: {
    kind: 'invalid_request',
    message: 'offramp quotes support INR (fiatType 1) only',
    endpoint: 'quotes',
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
    message: 'the team hub at https://hub.example is unreachable (ECONNREFUSED)',
    endpoint: 'sync:state',
    retryable: true
  },
  access_revoked: {
    kind: 'access_revoked',
    message: 'this operator token is unknown or was revoked',
    endpoint: 'sync:state',
    retryable: false
  }
} satisfies Record<ApiErrorKind, ApiErrorInfo>

const kinds = Object.keys(samples) as ApiErrorKind[]
const cases = kinds.map((k) => [k, samples[k] as ApiErrorInfo] as const)

describe('explainError', () => {
  it.each(cases)('%s: one plain sentence', (_k, info) => {
    const s = explainError(info)
    expect(typeof s).toBe('string')
    expect(s).toMatch(/^[A-Z]/)
    expect(s).toMatch(/\.$/)
    expect(s).not.toMatch(/undefined|NaN|\[object Object\]/)
  })

  it.each(cases.filter(([k]) => k !== 'clock_skew'))('%s names the endpoint', (_k, info) => {
    expect(explainError(info)).toContain(`(${info.endpoint})`)
  })

  it.each(kinds)('%s reads differently from every other kind', (k) => {
    const mine = explainError({ ...samples[k], endpoint: undefined } as ApiErrorInfo)
    for (const other of kinds)
      if (other !== k) expect(explainError({ ...samples[other], endpoint: undefined } as ApiErrorInfo)).not.toBe(mine)
  })

  it('a revoked team token says so and what helps, with no promise of a retry; a hub out of reach is not the service', () => {
    const revoked = explainError(samples.access_revoked)
    expect(revoked).toMatch(/^Your access was revoked/)
    expect(revoked).toMatch(/ask your team's admin/)
    expect(revoked).not.toMatch(/retr|base URL|could not be reached/i)
    const hub = explainError(samples.hub_unreachable)
    expect(hub).toMatch(/team's hub cannot be reached/)
    expect(hub).not.toMatch(/base URL|The service/)
  })

  it('network and auth errors carry the underlying message and what to check', () => {
    expect(explainError(samples.network)).toContain('ECONNREFUSED')
    expect(explainError(samples.network)).toMatch(/base URL/)
    expect(explainError(samples.auth)).toContain('Invalid signature')
    expect(explainError(samples.auth)).toMatch(/API key and secret/)
  })

  it('api errors add the meaning of the service code unless the message already says it', () => {
    expect(explainError(samples.api)).toBe('The service refused the request (quotes): Amount out of bounds.')
    expect(explainError({ kind: 'api', message: 'Invalid signature', code: 401, retryable: false })).toBe(
      'The service refused the request: Invalid signature (bad credentials or signature).'
    )
    expect(explainError({ kind: 'api', message: 'Order 7 is gone', code: 417, retryable: false })).toContain('(order no longer exists)')
    expect(explainError({ kind: 'api', message: 'Teapot', code: 418, retryable: false })).toBe('The service refused the request: Teapot.')
  })

  it('every documented service code has a meaning', () => {
    expect(
      Object.keys(serviceErrorCodes)
        .map(Number)
        .sort((a, b) => a - b)
    ).toEqual([400, 401, 403, 406, 409, 413, 416, 417, 428, 429, 500, 503])
  })

  it('rate limits: a budget slot says when and that nothing was sent; the service limit says it backs off', () => {
    expect(explainError(samples.rate_limited)).toBe('Request budget exhausted (priceTicker); next slot at 12:34:56 UTC. Nothing was sent.')
    expect(explainError({ ...samples.rate_limited, nextSlotAt: undefined })).toContain('next slot at soon')
    expect(explainError({ kind: 'rate_limited', origin: 'service', message: 'Too many requests', retryable: true })).toBe(
      'The service is rate-limiting; Rampdesk backs off.'
    )
    expect(
      explainError({ kind: 'rate_limited', origin: 'service', message: '', nextSlotAt: Date.UTC(2024, 0, 1, 0, 0, 5), retryable: true })
    ).toContain('until 00:00:05 UTC')
  })

  it('schema errors point at the field', () => {
    expect(explainError(samples.schema)).toContain('at data[3].fiatAmount')
    expect(explainError({ ...samples.schema, path: undefined })).not.toContain(' at ')
  })

  it('clock skew gives the offset in seconds when known', () => {
    expect(explainError(samples.clock_skew)).toContain('by 93 s')
    expect(explainError({ ...samples.clock_skew, skewMs: undefined })).not.toContain(' by ')
  })

  it('http errors give the status', () => {
    expect(explainError(samples.http)).toBe('The service answered HTTP 502 (limits): Bad Gateway.')
  })

  it('never throws and never prints nonsense, whatever the numbers', () => {
    const odd = fc.oneof(
      fc.constant(undefined),
      fc.double(),
      fc.integer(),
      fc.constantFrom(Number.NaN, Infinity, -Infinity, 8.64e15 + 1, -1)
    )
    fc.assert(
      fc.property(
        fc.constantFrom(...kinds),
        fc.string(),
        fc.option(fc.string(), { nil: undefined }),
        odd,
        odd,
        odd,
        odd,
        fc.constantFrom(undefined, 'budget' as const, 'service' as const),
        (kind, message, endpoint, httpStatus, code, nextSlotAt, skewMs, origin) => {
          const s = explainError({ kind, message, endpoint, httpStatus, code, nextSlotAt, skewMs, origin, retryable: false })
          expect(typeof s).toBe('string')
          expect(s.length).toBeGreaterThan(0)
          expect(s).not.toMatch(/Invalid Date|NaN s|Infinity s/)
        }
      )
    )
  })
})

describe('retryable defaults', () => {
  const d = (i: Omit<ApiErrorInfo, 'retryable' | 'message'>) => new ApiError({ message: 'x', ...i }).retryable

  it('network, timeout and rate limits retry; aborts, auth, schema, skew, size and our own validation do not', () => {
    expect(d({ kind: 'network' })).toBe(true)
    expect(d({ kind: 'timeout' })).toBe(true)
    expect(d({ kind: 'rate_limited', origin: 'budget' })).toBe(true)
    expect(d({ kind: 'rate_limited', origin: 'service', httpStatus: 429 })).toBe(true)
    for (const kind of ['aborted', 'auth', 'schema', 'clock_skew', 'too_large', 'invalid_request'] as const) {
      expect(d({ kind, httpStatus: 503, code: 503 }), kind).toBe(false)
    }
  })

  it.each([
    [500, true],
    [502, true],
    [503, true],
    [429, true],
    [400, false],
    [401, false],
    [404, false],
    [413, false],
    [417, false]
  ])('http and api with status %i -> %s', (status, retry) => {
    expect(d({ kind: 'http', httpStatus: status })).toBe(retry)
    expect(d({ kind: 'api', code: status })).toBe(retry)
    expect(d({ kind: 'api', httpStatus: status, code: status })).toBe(retry)
  })

  it('an envelope code that says down or busy counts even when the HTTP status was 200', () => {
    expect(d({ kind: 'api', httpStatus: 200, code: 503 })).toBe(true)
    expect(d({ kind: 'api', httpStatus: 200, code: 429 })).toBe(true)
    expect(d({ kind: 'api', httpStatus: 200, code: 413 })).toBe(false)
  })

  it('with no status at all an http or api error is not retried', () => {
    expect(d({ kind: 'http' })).toBe(false)
    expect(d({ kind: 'api' })).toBe(false)
  })

  it('an explicit retryable wins over the default', () => {
    expect(new ApiError({ kind: 'network', message: 'x', retryable: false }).retryable).toBe(false)
    expect(new ApiError({ kind: 'auth', message: 'x', retryable: true }).retryable).toBe(true)
  })
})

describe('ApiError and toErrorInfo', () => {
  it.each(cases)('%s: info -> ApiError -> info is the identity, also through JSON', (_k, info) => {
    const e = new ApiError(info)
    expect(e.toInfo()).toEqual(info)
    expect(toErrorInfo(e)).toEqual(info)
    const wire = JSON.parse(JSON.stringify(toErrorInfo(e))) as unknown
    expect(toErrorInfo(wire)).toEqual(info)
    expect(new ApiError(toErrorInfo(wire)).toInfo()).toEqual(info)
  })

  it('toInfo leaves out fields that were not set (plain data for IPC)', () => {
    const info = new ApiError({ kind: 'timeout', message: 't' }).toInfo()
    expect(info).toEqual({ kind: 'timeout', message: 't', retryable: true })
    expect(Object.keys(info).sort()).toEqual(['kind', 'message', 'retryable'])
  })

  it('is an Error with a name, a message and a cause', () => {
    const cause = new Error('socket hang up')
    const e = new ApiError({ kind: 'network', message: 'socket hang up' }, { cause })
    expect(e).toBeInstanceOf(Error)
    expect(e.name).toBe('ApiError')
    expect(e.message).toBe('socket hang up')
    expect(e.cause).toBe(cause)
    expect(e).toBeInstanceOf(ApiError)
    expect(cause).not.toBeInstanceOf(ApiError)
    expect(samples.network).not.toBeInstanceOf(ApiError)
  })

  it('a plain ApiErrorInfo passes through unchanged', () => {
    expect(toErrorInfo(samples.schema)).toBe(samples.schema)
  })

  it('an info that lost retryable on the way gets the default for its kind', () => {
    expect(toErrorInfo({ kind: 'http', message: 'Bad Gateway', httpStatus: 502 })).toEqual({
      kind: 'http',
      message: 'Bad Gateway',
      httpStatus: 502,
      retryable: true
    })
    expect(toErrorInfo({ kind: 'auth', message: 'Invalid signature' }).retryable).toBe(false)
  })

  it('anything else becomes a retryable network error with its message', () => {
    expect(toErrorInfo(new TypeError('fetch failed'))).toEqual({ kind: 'network', message: 'fetch failed', retryable: true })
    expect(toErrorInfo('boom')).toEqual({ kind: 'network', message: 'boom', retryable: true })
    expect(toErrorInfo(undefined)).toEqual({ kind: 'network', message: 'undefined', retryable: true })
    // An object shaped like an info but with an unknown kind would make explainError fall through.
    const odd = toErrorInfo({ kind: 'weird', message: 'x' })
    expect(odd.kind).toBe('network')
    expect(explainError(odd)).toMatch(/could not be reached/)
    expect(toErrorInfo({ kind: 'api', message: 42 }).kind).toBe('network')
    // String() throws on an object without a prototype; toErrorInfo runs in catch blocks.
    expect(toErrorInfo(Object.create(null))).toEqual({ kind: 'network', message: '[object Object]', retryable: true })
  })

  it('whatever is thrown, toErrorInfo gives something explainError can explain', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.anything(),
          fc.record({ kind: fc.oneof(fc.constantFrom(...kinds), fc.string()), message: fc.oneof(fc.string(), fc.integer()) })
        ),
        (thrown) => {
          const info = toErrorInfo(thrown)
          expect(kinds).toContain(info.kind)
          expect(typeof info.retryable).toBe('boolean')
          expect(typeof explainError(info)).toBe('string')
        }
      )
    )
  })
})

describe('bounds a refusal names', () => {
  it('are kept by ApiError, cross IPC in the envelope, and are stated in the explanation', () => {
    const e = new ApiError({
      kind: 'api',
      endpoint: 'quotes',
      code: 413,
      httpStatus: 413,
      message: 'fiatAmount 50 INR is outside the limits: min 100, max 200000',
      bounds: { minimum: '100', maximum: '200000', unit: 'INR' }
    })
    expect(e.toInfo().bounds).toEqual({ minimum: '100', maximum: '200000', unit: 'INR' })
    const crossed = toEnvelopeError(e)
    expect(crossed.bounds).toEqual({ minimum: '100', maximum: '200000', unit: 'INR' })
    expect(explainError(e.toInfo())).toBe(
      "The service refused the request (quotes): fiatAmount 50 INR is outside the limits: min 100, max 200000 (amount out of bounds). The service's minimum 100 INR, maximum 200000 INR."
    )
    expect(explainError({ ...e.toInfo(), bounds: { maximum: '5000' } })).toMatch(/ The service's maximum 5000\.$/)
    expect(explainError({ ...e.toInfo(), bounds: undefined })).toMatch(/\(amount out of bounds\)\.$/)
  })
})
