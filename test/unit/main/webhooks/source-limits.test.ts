// Per-source caps on their own, with an injected clock: the bucket empties and refills,
// sources do not share budgets, socket counts go up and down, IPv6 hosts count per /64.
import { describe, expect, it } from 'vitest'
import { SOURCE_LIMIT_DEFAULTS, SourceLimits, sourceOf } from '../../../../src/main/webhooks/source-limits'

describe('SourceLimits', () => {
  it('allows a burst, then the refill rate, per source', () => {
    let t = 0
    const l = new SourceLimits({ burst: 3, perSecond: 2, now: () => t })
    expect([l.take('a'), l.take('a'), l.take('a')].every((r) => r.ok)).toBe(true)
    expect(l.take('a')).toEqual({ ok: false, retryAfterSeconds: 1 })
    // Another source still has its whole burst.
    expect(l.take('b').ok).toBe(true)
    t = 500
    expect(l.take('a').ok).toBe(true)
    expect(l.take('a').ok).toBe(false)
    t = 60_000
    expect([1, 2, 3, 4].map(() => l.take('a').ok)).toEqual([true, true, true, false])
  })

  it('counts open sockets per source up to the cap', () => {
    const l = new SourceLimits({ maxSockets: 2 })
    expect([l.openSocket('a'), l.openSocket('a'), l.openSocket('a')]).toEqual([true, true, false])
    expect(l.openSocket('b')).toBe(true)
    l.closeSocket('a')
    expect(l.openSockets('a')).toBe(1)
    expect(l.openSocket('a')).toBe(true)
  })

  it('remembers a bounded number of sources, forgetting idle ones first', () => {
    let t = 0
    const l = new SourceLimits({ burst: 2, perSecond: 1, maxSources: 3, now: () => t })
    l.take('busy')
    l.take('busy')
    l.take('idle-1')
    t = 10_000
    for (const s of ['n1', 'n2', 'n3', 'n4']) {
      l.take(s)
      expect(l.trackedSources).toBeLessThanOrEqual(3)
    }
    // A source emptied now and then forgotten: what it comes back to is a fresh burst, no more.
    l.take('n4')
    for (const s of ['m1', 'm2', 'm3']) l.take(s)
    expect([l.take('n4').ok, l.take('n4').ok, l.take('n4').ok]).toEqual([true, true, false])
  })

  it('has defaults a retrying service never reaches', () => {
    // Ten deliveries retried ten times each, all at once, fit in the burst.
    expect(SOURCE_LIMIT_DEFAULTS.burst).toBeGreaterThanOrEqual(100)
    expect(SOURCE_LIMIT_DEFAULTS.maxSockets).toBeGreaterThanOrEqual(10)
  })
})

describe('sourceOf', () => {
  it('is the IPv4 address, mapped IPv6 included', () => {
    expect(sourceOf('127.0.0.2')).toBe('127.0.0.2')
    expect(sourceOf('::ffff:127.0.0.1')).toBe('127.0.0.1')
    expect(sourceOf(undefined)).toBe('unknown')
  })

  it('is the /64 for IPv6, however the address is written', () => {
    const a = sourceOf('2001:db8:0:0::1')
    expect(a).toBe('2001:db8:0:0::/64')
    expect(sourceOf('2001:0db8::ffff:1:2')).toBe(a)
    expect(sourceOf('2001:db8::1.2.3.4')).toBe(a)
    expect(sourceOf('2001:db8:0:1::1')).not.toBe(a)
    expect(sourceOf('fe80::1%eth0')).toBe('fe80:0:0:0::/64')
    expect(sourceOf('::1')).toBe('0:0:0:0::/64')
  })
})
