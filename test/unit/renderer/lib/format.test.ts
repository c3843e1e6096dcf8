// Times, ages and counts as the operator's locale writes them.
import { describe, expect, it } from 'vitest'
import { ago, count, dateTime, duration } from '../../../../src/renderer/src/lib/format'

describe('format', () => {
  it('writes counts with the locale grouping', () => {
    expect(count(100_000, 'en-IN')).toBe('1,00,000')
    expect(count(100_000, 'en-US')).toBe('100,000')
    expect(count(100_000, 'de-DE')).toBe('100.000')
  })

  it('writes dates and times in the order and clock the locale uses', () => {
    // Local time: the same instant reads differently per locale, never differently per run.
    const at = new Date(2026, 2, 7, 15, 4, 5).getTime()
    expect(dateTime(at, 'en-IN')).toBe('07/03/2026, 03:04:05 pm')
    expect(dateTime(at, 'en-US')).toBe('03/07/2026, 03:04:05 PM')
    expect(dateTime(at, 'en-GB')).toBe('07/03/2026, 15:04:05')
    expect(dateTime(new Date(at).toISOString(), 'en-GB')).toBe('07/03/2026, 15:04:05')
  })

  it('shows a dash for no time, the text for one that is not a date, and en-US for a locale Intl refuses', () => {
    expect(dateTime(null, 'en-IN')).toBe('—')
    expect(dateTime('', 'en-IN')).toBe('—')
    expect(dateTime('yesterday', 'en-IN')).toBe('yesterday')
    expect(count(1234, 'not a locale!')).toBe('1,234')
  })

  it('writes durations and ages in words', () => {
    expect(duration(4_000)).toBe('4 s')
    expect(duration(125 * 60_000)).toBe('2 h 5 min')
    expect(ago(null, 0)).toBe('never')
    expect(ago(10_000, 5_000)).toBe('just now')
    expect(ago(0, 12_000)).toBe('12 s ago')
  })
})
