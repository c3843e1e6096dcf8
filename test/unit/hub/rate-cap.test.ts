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

  it('forgets the keys of a flood from many addresses once their buckets are full again', () => {
    let t = 0
    const cap = new RateCap({ perMinute: 30, burst: 20, now: () => t })
    for (let i = 0; i < 5_000; i++) cap.take(`10.0.${i >> 8}.${i & 255}`)
    expect(cap.size).toBe(5_000)
    // One request takes 2 s to refill at 30 a minute: a minute later every flooder's bucket is full.
    t += 61_000
    cap.take('the person')
    expect(cap.size).toBe(1)
    // A key still short of its burst at a sweep is kept, and still held to it.
    t += 39_000
    for (let i = 0; i < 20; i++) cap.take('busy')
    t += 21_000
    cap.take('other')
    expect(cap.size).toBe(2)
    const answers = Array.from({ length: 11 }, () => cap.take('busy'))
    expect(answers.slice(0, 10)).toEqual(Array(10).fill(0))
    expect(answers[10]).toBeGreaterThan(0)
  })
})
