// Counting CSV records as the hub's stream passes: a line break inside a quoted field
// does not end a record, wherever the chunks are cut.
import { describe, expect, it } from 'vitest'
import { CsvRecordCounter } from '../../../../src/main/team/team-export'
import { csvHeader, csvRow, CSV_BOM } from '../../../../src/shared/domain/csv'

describe('CsvRecordCounter', () => {
  it('counts records, not lines, across any chunking', () => {
    const text =
      CSV_BOM +
      csvHeader(['a', 'b']) +
      csvRow(['plain', 'x']) +
      csvRow(['with\nnewline', 'say "hi"']) +
      csvRow(['"quoted",comma', '\r\nboth']) +
      csvRow(['', ''])
    const bytes = Buffer.from(text, 'utf8')
    for (const size of [1, 2, 3, 7, 64, bytes.length]) {
      const c = new CsvRecordCounter()
      for (let i = 0; i < bytes.length; i += size) c.push(bytes.subarray(i, i + size))
      expect(c.records).toBe(4)
    }
    expect(new CsvRecordCounter().records).toBe(0)
  })
})
