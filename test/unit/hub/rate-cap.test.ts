// The per-operator request cap: a burst, then the sustained rate, per key.
import { describe, expect, it } from 'vitest'
import { RateCap } from '../../../src/hub/rate-cap'

describe('RateCap', () => {
  it('allows the burst, then one request per interval, and says how long to wait', () => {
    let t = 0
    const cap = new RateCap({ perMinute: 60, burst: 3, now: () => t })
    expect([cap.take('a'), cap.take('a'), cap.take('a')]).toEqual([0, 0, 0])
    expect(cap.take('a')).toBe(1000)
    expect(cap.take('b')).toBe(0)
    t += 1000
    expect(cap.take('a')).toBe(0)
    expect(cap.take('a')).toBeGreaterThan(0)
    t += 60_000
    expect([cap.take('a'), cap.take('a'), cap.take('a')]).toEqual([0, 0, 0])
    cap.forget('a')
    expect(cap.take('a')).toBe(0)
  })
})
