import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { CSV_EOL, FORMULA_TRIGGERS, csvCell, csvHeader, csvLines, csvRow, type CsvColumn } from '../../../../src/shared/domain/csv'
import { CSV_ATTACKS, cellsThatWouldRun, parseCsv } from '../../../support/csv-reader'

/** Every field of a CSV text is quoted: the reader above, told to reject unquoted ones. */
function everyFieldQuoted(text: string): boolean {
  // After the quoted field's closing quote comes a comma or CRLF; outside quotes nothing else may stand.
  return /^("([^"]|"")*"(,|\r\n))*$/.test(text)
}

describe('csvCell / csvRow', () => {
  it('quotes every field, doubling quotes', () => {
    expect(csvRow(['a', 'b c', 'd,e', 'say "hi"', 'line\nbreak', ''])).toBe('"a","b c","d,e","say ""hi""","line\nbreak",""\r\n')
  })

  it('writes decimal strings and numbers as they are, negatives included: numbers stay numbers', () => {
    expect(csvRow(['0.008157600000000001', '-12.5', '1234567890123456789012345.000001', 42, -7, 1e21, -1e-7])).toBe(
      '"0.008157600000000001","-12.5","1234567890123456789012345.000001","42","-7","1e+21","-1e-7"\r\n'
    )
    expect(csvCell('1,-5')).toBe('"1,-5"')
  })

  it('defuses a formula at the start, after leading whitespace, and after ; , tab or a line break', () => {
    expect(csvCell('=HYPERLINK("http://x","y")')).toBe(`"'=HYPERLINK(""http://x"",""y"")"`)
    expect(csvCell('+1+cmd|calc')).toBe(`"'+1+cmd|calc"`)
    expect(csvCell('-1+2')).toBe(`"'-1+2"`)
    expect(csvCell('@SUM(A1)')).toBe(`"'@SUM(A1)"`)
    expect(csvCell('\t=1')).toBe(`"'\t'=1"`)
    expect(csvCell('\r=1')).toBe(`"'\r'=1"`)
    expect(csvCell('  =1')).toBe(`"  '=1"`)
    expect(csvCell('\uff1d1+1')).toBe(`"'\uff1d1+1"`)
    expect(csvCell('a;=1')).toBe(`"a;'=1"`)
    expect(csvCell('a, +1')).toBe(`"a, '+1"`)
    expect(csvCell('a\t@x')).toBe(`"a\t'@x"`)
    expect(csvCell('a=1')).toBe('"a=1"')
    expect(csvCell('a-b')).toBe('"a-b"')
  })

  it.each(CSV_ATTACKS)('no cell of %j would run in a spreadsheet once exported', (attack) => {
    expect(cellsThatWouldRun(attack)).not.toEqual([])
    const [field] = parseCsv(csvRow([attack]))[0]!
    expect(cellsThatWouldRun(field!)).toEqual([])
  })

  it('writes empty quoted cells for null and undefined, and text for booleans and bigints', () => {
    expect(csvRow([null, undefined, true, 10n ** 30n])).toBe('"","","true","1000000000000000000000000000000"\r\n')
  })

  it('counts as a trigger every character whose NFKC folding begins with = + - or @', () => {
    const folding: string[] = []
    for (let cp = 0; cp <= 0x10ffff; cp++) {
      if (cp >= 0xd800 && cp <= 0xdfff) continue
      const ch = String.fromCodePoint(cp)
      if (/^[=+\-@]/.test(ch.normalize('NFKC'))) folding.push(ch)
    }
    expect(folding.filter((ch) => !FORMULA_TRIGGERS.includes(ch))).toEqual([])
    expect(csvCell('\u2a75 1')).toBe(`"'\u2a75 1"`)
  })

  it('any row: every field quoted, no cell would run, and the text round-trips apart from the apostrophes (fast-check)', () => {
    const trigger = fc.constantFrom('=', '+', '-', '@', '\t', '\r', '\n', '\uff1d', '\uff0b', '\uff0d', '\uff20', '\ufe62', '\u207c')
    const filler = fc.constantFrom(';', ',', ' ', '\u00a0', '"', "'", 'a', '1', '.', 'cmd|calc', 'SUM(A1)')
    const cell = fc.oneof(
      fc.string({ unit: 'grapheme', maxLength: 20 }),
      fc.array(fc.oneof(trigger, filler), { maxLength: 12 }).map((parts) => parts.join('')),
      fc
        .tuple(fc.bigInt({ min: -(10n ** 25n), max: 10n ** 25n }), fc.nat(18))
        .map(([u, s]) => (s === 0 ? String(u) : `${u}.${'1'.repeat(s)}`))
    )
    fc.assert(
      fc.property(fc.array(fc.array(cell, { minLength: 1, maxLength: 8 }), { minLength: 1, maxLength: 10 }), (rows) => {
        const text = rows.map(csvRow).join('')
        expect(everyFieldQuoted(text)).toBe(true)
        const back = parseCsv(text)
        expect(back.map((r) => r.length)).toEqual(rows.map((r) => r.length))
        back.forEach((r, i) =>
          r.forEach((field, j) => {
            const original = rows[i]![j]!
            expect(cellsThatWouldRun(field)).toEqual([])
            // Only apostrophes were added, and only where they were needed.
            expect(field.replace(/'/g, '')).toBe(original.replace(/'/g, ''))
            if (![...original].some((ch) => FORMULA_TRIGGERS.includes(ch))) expect(field).toBe(original)
          })
        )
      })
    )
  })
})

describe('csvHeader / csvLines', () => {
  interface Row {
    id: number
    note: string
  }
  const columns: CsvColumn<Row>[] = [
    { header: 'id', value: (r) => r.id },
    { header: 'note, free text', value: (r) => r.note }
  ]

  it('writes a header row from names or columns', () => {
    expect(csvHeader(['orderId', 'status'])).toBe('"orderId","status"' + CSV_EOL)
    expect(csvHeader(columns)).toBe('"id","note, free text"\r\n')
  })

  it('yields one line at a time, so an endless source can be streamed', () => {
    function* endless(): Generator<Row> {
      for (let id = 1; ; id++) yield { id, note: `n${id}` }
    }
    const it = csvLines(endless(), columns)
    expect(it.next().value).toBe('"id","note, free text"\r\n')
    expect(it.next().value).toBe('"1","n1"\r\n')
    expect(it.next().value).toBe('"2","n2"\r\n')
  })

  it('writes 100,000 rows line by line that parse back to the same rows', () => {
    function* rows(): Generator<Row> {
      for (let id = 0; id < 100_000; id++) yield { id, note: id % 7 === 0 ? `=cmd ${id}` : `note "${id}", ok` }
    }
    let count = 0
    let bytes = 0
    let last = ''
    for (const line of csvLines(rows(), columns)) {
      count++
      bytes += line.length
      last = line
    }
    expect(count).toBe(100_001)
    expect(bytes).toBeGreaterThan(2_000_000)
    expect(parseCsv(last)).toEqual([['99999', 'note "99999", ok']])
    expect(parseCsv(csvRow([7, '=cmd 7']))).toEqual([['7', "'=cmd 7"]])
  })
})
