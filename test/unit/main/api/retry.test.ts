import { errors } from 'undici'
import { describe, expect, test } from 'vitest'
import { backoffDelay, isRetryable, withRetry } from '../../../../src/main/api/retry'
import { ApiError, type ApiErrorInfo } from '../../../../src/shared/api/errors'

const err = (info: Omit<ApiErrorInfo, 'retryable' | 'message'>, cause?: unknown) => new ApiError({ message: 'x', ...info }, { cause })
const sys = (code: string) => Object.assign(new Error(code), { code })

describe('backoffDelay', () => {
  test('full jitter: uniform below min(cap, base * 2^retry)', () => {
    const o = { baseDelayMs: 100, maxDelayMs: 1_000 }
    expect(backoffDelay(0, { ...o, random: () => 0.5 })).toBe(50)
    expect(backoffDelay(2, { ...o, random: () => 0.5 })).toBe(200)
    expect(backoffDelay(10, { ...o, random: () => 0.999 })).toBeCloseTo(999)
    expect(backoffDelay(3, { ...o, random: () => 0 })).toBe(0)
  })
})

describe('isRetryable', () => {
  test.each<[ApiError | Error, boolean]>([
    [err({ kind: 'network' }), true],
    [err({ kind: 'timeout' }), true],
    [err({ kind: 'http', httpStatus: 502 }), true],
    [err({ kind: 'api', httpStatus: 500, code: 500 }), true],
    [err({ kind: 'api', httpStatus: 200, code: 503 }), true],
    [err({ kind: 'rate_limited', origin: 'service', httpStatus: 429 }), true],
    [err({ kind: 'rate_limited', origin: 'budget' }), false],
    ...[400, 404, 409, 413].map((s): [ApiError, boolean] => [err({ kind: 'api', httpStatus: s, code: s }), false]),
    [err({ kind: 'auth', httpStatus: 401 }), false],
    [err({ kind: 'schema' }), false],
    [err({ kind: 'aborted' }), false],
    [err({ kind: 'too_large' }), false],
    [new Error('not an ApiError'), false]
  ])('read: %o -> %s', (e, expected) => {
    expect(isRetryable(e, 'read')).toBe(expected)
  })

  test.each<[ApiError, boolean]>([
    [err({ kind: 'network' }, sys('ECONNREFUSED')), true],
    [err({ kind: 'network' }, sys('ENOTFOUND')), true],
    [err({ kind: 'timeout' }, new errors.ConnectTimeoutError()), true],
    [err({ kind: 'network' }, sys('ECONNRESET')), false],
    [err({ kind: 'network' }, new errors.SocketError('other side closed')), false],
    [err({ kind: 'timeout' }, new errors.HeadersTimeoutError()), false],
    [err({ kind: 'http', httpStatus: 503 }), false],
    [err({ kind: 'rate_limited', origin: 'service', httpStatus: 429 }), false]
  ])('write: %o -> %s', (e, expected) => {
    expect(isRetryable(e, 'write')).toBe(expected)
  })
})

describe('withRetry', () => {
  test('retries a read until it succeeds, sleeping the jittered backoff between attempts', async () => {
    const slept: number[] = []
    const attempts: number[] = []
    const result = await withRetry(
      async (n) => {
        attempts.push(n)
        if (n < 3) throw err({ kind: 'http', httpStatus: 503 })
        return 'ok'
      },
      'read',
      { baseDelayMs: 100, random: () => 0.5, sleep: async (ms) => void slept.push(ms) }
    )
    expect(result).toBe('ok')
    expect(attempts).toEqual([1, 2, 3])
    expect(slept).toEqual([50, 100])
  })

  test('gives up after maxAttempts with the last error', async () => {
    let n = 0
    const e = await withRetry(
      async () => {
        n++
        throw err({ kind: 'timeout' })
      },
      'read',
      { maxAttempts: 3, sleep: async () => {} }
    ).catch((x: unknown) => x)
    expect(n).toBe(3)
    expect(e).toMatchObject({ kind: 'timeout' })
  })

  test('stops at once on an error not worth retrying', async () => {
    let n = 0
    await expect(
      withRetry(
        async () => {
          n++
          throw err({ kind: 'api', httpStatus: 400, code: 400 })
        },
        'read',
        { sleep: async () => {} }
      )
    ).rejects.toMatchObject({ code: 400 })
    expect(n).toBe(1)
  })

  test('an aborted signal ends the backoff sleep', async () => {
    const ac = new AbortController()
    ac.abort()
    await expect(
      withRetry(
        async () => {
          throw err({ kind: 'network' })
        },
        'read',
        { baseDelayMs: 60_000, random: () => 1 },
        ac.signal
      )
    ).rejects.toMatchObject({ kind: 'aborted' })
  })
})
