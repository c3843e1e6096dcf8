import { describe, expect, it } from 'vitest'
import { FixedWindowLimiter, SlidingWindowLimiter } from '../../../src/sandbox/rate-limiter'

describe('SlidingWindowLimiter', () => {
  it('allows 10 in any 60 s window and refuses the 11th until the oldest ages out', () => {
    const l = new SlidingWindowLimiter(60_000)
    for (let i = 0; i < 10; i++) expect(l.take('k', 10, 1000 + i * 1000)).toBeUndefined()
    expect(l.take('k', 10, 11_000)).toBe(61_000)
    // Refused requests do not count: still the first slot frees at 61 s.
    expect(l.take('k', 10, 60_999)).toBe(61_000)
    expect(l.take('k', 10, 61_000)).toBeUndefined()
    expect(l.take('k', 10, 61_500)).toBe(62_000)
  })

  it('keeps keys apart', () => {
    const l = new SlidingWindowLimiter(60_000)
    for (let i = 0; i < 3; i++) l.take('a', 3, 0)
    expect(l.take('a', 3, 0)).toBe(60_000)
    expect(l.take('b', 3, 0)).toBeUndefined()
  })
})

describe('FixedWindowLimiter', () => {
  it('counts per clock minute: a full minute refuses until the next one starts, then all slots are back', () => {
    const l = new FixedWindowLimiter(60_000)
    for (let i = 0; i < 10; i++) expect(l.take('k', 10, 120_000 + 50_000 + i * 500)).toBeUndefined()
    expect(l.take('k', 10, 179_999)).toBe(180_000)
    // Unlike a sliding window, ten more fit right after the boundary.
    for (let i = 0; i < 10; i++) expect(l.take('k', 10, 180_000 + i)).toBeUndefined()
    expect(l.take('k', 10, 180_100)).toBe(240_000)
    expect(l.take('other', 10, 180_100)).toBeUndefined()
  })
})
