// The orders table's columns at the widths the window really has: the table's width at
// 1280x800 and at 960x600 (the window's minimum), alone and beside the order detail (a third of the width, at least 320 px).
import { describe, expect, it } from 'vitest'
import { layoutColumns, ORDER_COLUMNS, shortenMiddle } from '../../../../src/renderer/src/lib/order-columns'

const ids = (width: number) => layoutColumns(width).map((c) => c.id)

describe('layoutColumns', () => {
  it('shows every column where the table has the width, the wallet taking what is left', () => {
    // 1280 wide: 1280 - 168 (navigation) - 32 (padding) - 2 (border) - 15 (scrollbar).
    const cols = layoutColumns(1063)
    expect(cols.map((c) => c.id)).toEqual(['order', 'status', 'fiat', 'crypto', 'coin', 'wallet', 'merchant', 'updated'])
    expect(cols.reduce((s, c) => s + c.width, 0)).toBe(1063)
    for (const c of cols) expect(c.width).toBeGreaterThanOrEqual(c.min)
    expect(cols.find((c) => c.id === 'wallet')!.width).toBeGreaterThan(ORDER_COLUMNS.find((c) => c.id === 'wallet')!.min)
  })

  it('gives way by priority, keeping the table order, at 960 and beside the detail', () => {
    // 960 wide alone, 1280 beside the detail, 960 beside the detail.
    expect(ids(741)).toEqual(['order', 'status', 'fiat', 'wallet', 'updated'])
    expect(ids(705)).toEqual(['order', 'status', 'fiat', 'wallet', 'updated'])
    expect(ids(409)).toEqual(['order', 'status', 'fiat'])
    for (const w of [741, 705, 409, 300]) {
      const cols = layoutColumns(w)
      expect(cols.every((c) => c.width >= 40)).toBe(true)
      if (w >= 268) expect(cols.reduce((s, c) => s + c.width, 0)).toBe(w)
    }
  })

  it('never drops the order and its status, however narrow', () => {
    expect(ids(100)).toEqual(['order', 'status'])
  })
})

describe('shortenMiddle', () => {
  it('keeps the start and the end of a value that does not fit, and a value that fits whole', () => {
    expect(shortenMiddle('0x7f857A05c3aBcD1234567890abcdef0012345678', 13)).toBe('0x7f85…345678')
    expect(shortenMiddle('0x7f85', 13)).toBe('0x7f85')
    expect(shortenMiddle('abcdefghij', 5)).toBe('ab…ij')
    expect([...shortenMiddle('abcdefghij', 5)]).toHaveLength(5)
  })
})
