// The display helpers for durations, ages and local times.
import { describe, expect, it } from 'vitest'
import { ago, dateTime, duration } from '../../../../src/renderer/src/lib/format'

const S = 1000
const MIN = 60 * S
const H = 60 * MIN

describe('duration', () => {
  it('counts seconds below a minute, rounding to the nearest second', () => {
    expect(duration(0)).toBe('0 s')
    expect(duration(4_400)).toBe('4 s')
    expect(duration(4_500)).toBe('5 s')
    expect(duration(59_499)).toBe('59 s')
  })

  it('switches to minutes at the rounded minute, then hours with their minutes, then days', () => {
    expect(duration(59_500)).toBe('1 min')
    expect(duration(59 * MIN + 59 * S)).toBe('59 min')
    expect(duration(H)).toBe('1 h')
    expect(duration(2 * H + 5 * MIN)).toBe('2 h 5 min')
    expect(duration(23 * H + 59 * MIN)).toBe('23 h 59 min')
    expect(duration(24 * H)).toBe('1 d')
    expect(duration(3 * 24 * H + 23 * H)).toBe('3 d')
  })

  it('never shows a negative time (a clock that stepped back)', () => {
    expect(duration(-5_000)).toBe('0 s')
  })
})

describe('ago', () => {
  const now = Date.UTC(2024, 5, 1, 12, 0, 0)

  it('says how long ago, in the same units as duration', () => {
    expect(ago(now - 12 * S, now)).toBe('12 s ago')
    expect(ago(now - 90 * MIN, now)).toBe('1 h 30 min ago')
    expect(ago(now, now)).toBe('0 s ago')
  })

  it('says "never" for no time and "just now" for a time ahead of the clock', () => {
    expect(ago(null, now)).toBe('never')
    expect(ago(undefined, now)).toBe('never')
    expect(ago(now + 3 * S, now)).toBe('just now')
  })
})

describe('dateTime', () => {
  it('writes local date and time with seconds, zero-padded', () => {
    expect(dateTime(new Date(2024, 0, 5, 7, 8, 9).getTime())).toBe('2024-01-05 07:08:09')
    expect(dateTime(new Date(2023, 11, 31, 23, 59, 0).getTime())).toBe('2023-12-31 23:59:00')
  })

  it('reads ISO text too (a zoneless time is local, as the Date constructor reads it)', () => {
    expect(dateTime('2024-03-01T10:20:30')).toBe('2024-03-01 10:20:30')
    const utc = '2024-03-01T10:20:30.000Z'
    expect(dateTime(utc)).toBe(dateTime(Date.parse(utc)))
  })

  it('shows a dash for nothing and text it cannot read as it came', () => {
    expect(dateTime(null)).toBe('—')
    expect(dateTime(undefined)).toBe('—')
    expect(dateTime('')).toBe('—')
    expect(dateTime('not a date')).toBe('not a date')
  })
})
