// The orders' dates as one control: its presets, and the range it holds in words.
import { describe, expect, it } from 'vitest'
import { presetOf, presetRange, rangeLabel } from '../../../../src/renderer/src/lib/date-range'

const today = new Date(2026, 10, 25, 15, 30)

describe('presetRange', () => {
  it('counts each preset back from today, in local days', () => {
    expect(presetRange('today', today)).toEqual({ from: '2026-11-25', to: '2026-11-25' })
    expect(presetRange('last7', today)).toEqual({ from: '2026-11-19', to: '2026-11-25' })
    expect(presetRange('last30', today)).toEqual({ from: '2026-10-27', to: '2026-11-25' })
    expect(presetRange('month', today)).toEqual({ from: '2026-11-01', to: '2026-11-25' })
    expect(presetRange('any', today)).toEqual({ from: '', to: '' })
  })
  it('knows a range that is a preset', () => {
    expect(presetOf('2026-11-19', '2026-11-25', today)).toBe('last7')
    expect(presetOf('2026-11-18', '2026-11-25', today)).toBeNull()
  })
})

describe('rangeLabel', () => {
  it("says the range in the button's words", () => {
    expect(rangeLabel('', '', 'en-US', today)).toBe('Any time')
    expect(rangeLabel('2026-11-19', '2026-11-25', 'en-US', today)).toBe('Last 7 days')
    expect(rangeLabel('2026-09-01', '2026-09-15', 'en-US', today)).toBe('Sep 1 – Sep 15')
    expect(rangeLabel('2026-09-01', '2026-09-01', 'en-US', today)).toBe('Sep 1')
    expect(rangeLabel('2025-12-30', '', 'en-US', today)).toBe('From Dec 30, 2025')
    expect(rangeLabel('', '2026-09-15', 'en-GB', today)).toMatch(/^Until 15 Sep/)
  })
})
