// Times, ages and counts as the operator's locale writes them.
import { describe, expect, it } from 'vitest'
import { ago, count, dateTime, duration, fullAmountText } from '../../../../src/renderer/src/lib/format'

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

describe('fullAmountText', () => {
  it('groups an amount as the locale does and keeps every decimal place the service sent', () => {
    expect(fullAmountText(10700, 2, 'en-IN')).toBe('10,700.00')
    expect(fullAmountText('1070000.5', 2, 'en-IN')).toBe('10,70,000.50')
    expect(fullAmountText('0.81321912', 0, 'en-US')).toBe('0.81321912')
    expect(fullAmountText('12836.096', 2, 'de-DE')).toBe('12.836,096')
    expect(fullAmountText(107, 0, 'en-US')).toBe('107')
  })

  it('shows what is not a plain decimal as it came', () => {
    expect(fullAmountText(1e-7, 0, 'en-US')).toBe('1e-7')
    expect(fullAmountText('n/a', 2, 'en-US')).toBe('n/a')
  })
})
