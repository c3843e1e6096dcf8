// A count with its noun in the right number: "1 order", never "1 orders".
import { describe, expect, it } from 'vitest'
import { counted, nounFor } from '../../../../src/shared/domain/plural'

describe('counted', () => {
  it('writes one in the singular and every other count in the plural', () => {
    expect(counted(1, 'order')).toBe('1 order')
    expect(counted(0, 'order')).toBe('0 orders')
    expect(counted(2, 'row')).toBe('2 rows')
    expect(counted(1, ['delivery', 'deliveries'])).toBe('1 delivery')
    expect(counted(3, ['delivery', 'deliveries'])).toBe('3 deliveries')
    expect(nounFor(1.5, 'page')).toBe('pages')
  })
  it("writes the number in the operator's locale", () => {
    expect(counted(100_000, 'order', (n) => n.toLocaleString('en-IN'))).toBe('1,00,000 orders')
  })
})
