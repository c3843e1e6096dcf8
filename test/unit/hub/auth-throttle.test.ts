// Failed tokens throttled per source and per token prefix: a few free, then 429 with a
// back-off that doubles each time the key fails again after it ran out, forgotten after a
// quiet spell, memory bounded however many sources and prefixes a stranger rotates through,
// and one summary line per minute.
import { describe, expect, it } from 'vitest'
import { AuthThrottle, FIRST_BACKOFF_MS, FREE_FAILURES, MAX_BACKOFF_MS, PREFIX_CHARS, QUIET_MS } from '../../../src/hub/auth-throttle'

function clock(start = 1_000_000) {
  let t = start
  return { now: () => t, advance: (ms: number) => void (t += ms) }
}

const token = (i: number) => `rdh_${String(i).padStart(43, 'x')}`

describe('auth throttle', () => {
  it('answers the first failures from a source 401, then 429 with a back-off', () => {
    const c = clock()
    const th = new AuthThrottle({ now: c.now })
    for (let i = 0; i < FREE_FAILURES; i++) expect(th.failed('203.0.113.9', `wrong${i}`)).toEqual({ throttled: false })
    expect(th.failed('203.0.113.9', 'wrong-x')).toEqual({ throttled: true, retryAfterMs: FIRST_BACKOFF_MS, by: 'source' })
    // Failing again during the back-off does not lengthen it: it says what is left.
    c.advance(400)
    expect(th.failed('203.0.113.9', 'wrong-y')).toEqual({ throttled: true, retryAfterMs: FIRST_BACKOFF_MS - 400, by: 'source' })
    // Another source is not affected.
    expect(th.failed('198.51.100.1', 'zzz')).toEqual({ throttled: false })
  })

  it('doubles the back-off each time the key fails after the last one ran out, up to the cap', () => {
    const c = clock()
    const th = new AuthThrottle({ now: c.now })
    for (let i = 0; i < FREE_FAILURES; i++) th.failed('s', null)
    const seen: number[] = []
    for (let i = 0; i < 14; i++) {
      const v = th.failed('s', null)
      if (!v.throttled) throw new Error('not throttled')
      seen.push(v.retryAfterMs)
      c.advance(v.retryAfterMs)
    }
    expect(seen.slice(0, 5)).toEqual([1, 2, 4, 8, 16].map((n) => n * FIRST_BACKOFF_MS))
    expect(Math.max(...seen)).toBe(MAX_BACKOFF_MS)
  })

  it('forgets a key after a quiet spell', () => {
    const c = clock()
    const th = new AuthThrottle({ now: c.now })
    for (let i = 0; i <= FREE_FAILURES; i++) th.failed('s', null)
    c.advance(QUIET_MS + 1)
    expect(th.failed('s', null)).toEqual({ throttled: false })
  })

  it('throttles one token’s first characters tried from many sources', () => {
    const c = clock()
    const th = new AuthThrottle({ now: c.now })
    const prefix = 'rdh_AbCd'
    expect(prefix.length).toBe(PREFIX_CHARS)
    const verdicts = Array.from({ length: FREE_FAILURES + 3 }, (_, i) => th.failed(`10.0.${i}.1`, `${prefix}${'q'.repeat(39)}${i}`))
    expect(verdicts.slice(0, FREE_FAILURES).every((v) => !v.throttled)).toBe(true)
    expect(verdicts.slice(FREE_FAILURES)).toEqual(Array(3).fill(expect.objectContaining({ throttled: true, by: 'prefix' })))
    // A token with other first characters, from a fresh source, is not.
    expect(th.failed('10.9.9.9', 'rdh_ZzZz-other')).toEqual({ throttled: false })
  })

  it('keeps at most maxKeys keys, however many sources and prefixes a stranger rotates through', () => {
    const c = clock()
    const th = new AuthThrottle({ now: c.now, maxKeys: 1_000 })
    for (let i = 0; i < 50_000; i++) {
      th.failed(`src-${i}`, token(i))
      c.advance(1)
    }
    expect(th.size).toBeLessThanOrEqual(1_000)
    // A source failing all along stays remembered (the least recently failed go first).
    const c2 = clock()
    const th2 = new AuthThrottle({ now: c2.now, maxKeys: 100 })
    for (let i = 0; i < 5_000; i++) {
      th2.failed(`rotating-${i}`, null)
      th2.failed('steady', null)
    }
    expect(th2.failed('steady', null).throttled).toBe(true)
  })

  it('summarises what it throttled in one line a period, and says nothing for a period with none', () => {
    const c = clock()
    const lines: Array<{ m: string; f: unknown }> = []
    const th = new AuthThrottle({ now: c.now, log: { warn: (m, f) => void lines.push({ m, f }) } })
    th.flush()
    expect(lines).toEqual([])
    for (let i = 0; i < FREE_FAILURES + 2_990; i++) th.failed('203.0.113.9', `t${i}`)
    th.flush()
    expect(lines).toHaveLength(1)
    expect(lines[0]!.m).toBe('throttled 2,990 failed tokens in the last 60 s (429, back-off up to 1 s) from 203.0.113.9')
    expect(lines[0]!.f).toMatchObject({ throttled: 2990, sources: 1 })
    th.close()
  })
})
