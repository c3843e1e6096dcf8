// Which columns of the orders table show, and how wide, for the width the table has: at
// 1280x800 (a common laptop), at 960x600 (the window's minimum) and with the order detail
// beside it. Columns give way by priority (the order and its status never do), each keeps
// at least the width its values need, and what is left goes to the wallet and the
// merchant reference. Pure, so every width is unit-tested.

export type ColumnId = 'order' | 'status' | 'fiat' | 'crypto' | 'coin' | 'wallet' | 'merchant' | 'updated'

export interface ColumnSpec {
  id: ColumnId
  header: string
  /** The least width (px) its values are readable in. */
  min: number
  /** Share of the width left over once every shown column has its least. */
  grow: number
  /** 1 shows first; a column shows only when every column of a smaller number does. */
  priority: number
  /** Numbers align right. */
  right?: boolean
}

/** In the order they stand in the table. */
export const ORDER_COLUMNS: readonly ColumnSpec[] = [
  { id: 'order', header: 'Order', min: 92, grow: 0, priority: 1 },
  { id: 'status', header: 'Status', min: 176, grow: 0, priority: 1 },
  { id: 'fiat', header: 'Fiat', min: 136, grow: 0, priority: 2, right: true },
  { id: 'crypto', header: 'Crypto', min: 104, grow: 0, priority: 5, right: true },
  { id: 'coin', header: 'Coin · network', min: 144, grow: 0, priority: 4 },
  { id: 'wallet', header: 'Wallet', min: 140, grow: 3, priority: 3 },
  { id: 'merchant', header: 'Merchant ref', min: 116, grow: 1, priority: 6 },
  { id: 'updated', header: 'Updated', min: 148, grow: 0, priority: 3 }
]

export interface PlacedColumn extends ColumnSpec {
  width: number
}

/** The columns that fit `width` px, in table order, with their widths (which add up to `width` when it is enough for the first two). */
export function layoutColumns(width: number, columns: readonly ColumnSpec[] = ORDER_COLUMNS): PlacedColumn[] {
  const byPriority = [...columns].sort((a, b) => a.priority - b.priority)
  const shown = new Set<ColumnId>()
  let used = 0
  for (const c of byPriority) {
    // The first priority always shows; past it, a column that does not fit stops the rest.
    if (c.priority > byPriority[0]!.priority && used + c.min > width) break
    shown.add(c.id)
    used += c.min
  }
  const placed = columns.filter((c) => shown.has(c.id)).map((c) => ({ ...c, width: c.min }))
  const left = Math.max(0, Math.floor(width - used))
  const growers = placed.filter((c) => c.grow > 0)
  const weights = growers.reduce((s, c) => s + c.grow, 0)
  if (weights > 0) {
    let given = 0
    for (const c of growers) {
      const extra = Math.floor((left * c.grow) / weights)
      c.width += extra
      given += extra
    }
    growers[0]!.width += left - given
  } else if (placed.length) placed[placed.length - 1]!.width += left
  return placed
}

/** The text cut in the middle to at most `max` characters ("0x7f85…05c3"), whole when it fits. */
export function shortenMiddle(text: string, max: number): string {
  const chars = [...text]
  if (chars.length <= max) return text
  const keep = Math.max(2, max - 1)
  const head = Math.ceil(keep / 2)
  const tail = keep - head
  return `${chars.slice(0, head).join('')}…${tail > 0 ? chars.slice(chars.length - tail).join('') : ''}`
}
