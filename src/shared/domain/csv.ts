// CSV export of order rows: RFC 4180 (CRLF, every field quoted, quotes doubled),
// decimal strings written exactly as stored, and text a spreadsheet would run as a
// formula defused with an apostrophe wherever a cell could begin. One line per call, so
// an exporter can write 100,000 rows to a stream without building one giant string. The
// columns of an orders export are order-csv.ts's.
import type { ConfigSnapshot } from '../ipc/contract'
import type { SymbolMapping } from './names'

export type CsvValue = string | number | bigint | boolean | null | undefined

export const CSV_EOL = '\r\n'
/** Prepend once to a file that Excel should open as UTF-8. */
export const CSV_BOM = '\uFEFF'

/**
 * What starts a formula (or DDE call) in Excel, LibreOffice or Google Sheets: = + - @,
 * a leading tab, CR or LF, and every character whose Unicode folding (NFKC) begins with
 * = + - @: the full-width ＝ ＋ － ＠, the small forms ﹦ ﹢ ﹣ ﹫, super- and subscripts,
 * the Hebrew alternative plus, and ⩵ ⩶ (two and three equals signs), which some
 * importers fold before they look. csv.test.ts checks the list against every code point.
 */
export const FORMULA_TRIGGERS = '=+-@\t\r\n\u207a\u207c\u208a\u208c\u2a75\u2a76\ufb29\ufe62\ufe63\ufe66\ufe6b\uff0b\uff0d\uff1d\uff20'
const TRIGGER = new RegExp(`[${FORMULA_TRIGGERS.replace('-', '\\-')}]`)
/**
 * Where a cell can begin inside one field: after a comma (the separator), a semicolon (the
 * separator in many locales' Excel), a tab (paste, TSV) or a line break (an importer that
 * ignores quotes). The text after each is guarded like the start of a field.
 */
const CELL_BREAK = /[;,\t\r\n]/
/** Leading whitespace an importer may trim before it looks for a formula (tab, CR, LF excepted: they break cells). */
const LEAD_SPACE = /[^\S\t\r\n]/
/** A number a spreadsheet reads as a number, not a formula: it stays as it is. */
const PLAIN_NUMBER = /^-?\d+(\.\d+)?([eE][-+]?\d+)?$/

/**
 * The text with an apostrophe before every formula trigger that could begin a cell: at
 * the start, after leading whitespace, and after each ; , tab or line break (and the
 * whitespace after it). A run that is a plain number is left alone.
 */
export function defuseFormulas(text: string): string {
  let out = ''
  let i = 0
  // Each pass guards the start of one run (the field's start, or just after a cell break),
  // then copies the run and the break that ends it.
  for (;;) {
    let q = i
    while (q < text.length && LEAD_SPACE.test(text[q]!)) q++
    let end = q
    while (end < text.length && !CELL_BREAK.test(text[end]!)) end++
    // A run that starts with a tab, CR or LF is empty: the break is itself a trigger and is guarded.
    const guard = q < text.length && TRIGGER.test(text[q]!) && !PLAIN_NUMBER.test(text.slice(q, end).trimEnd())
    out += text.slice(i, q) + (guard ? "'" : '') + text.slice(q, end + 1)
    if (end >= text.length) return out
    i = end + 1
  }
}

/** One field: formula-defused, then always quoted (quotes doubled). */
export function csvCell(value: CsvValue): string {
  if (value === null || value === undefined) return '""'
  const s = defuseFormulas(typeof value === 'string' ? value : String(value))
  return `"${s.replace(/"/g, '""')}"`
}

/** One record, terminated with CRLF. */
export function csvRow(values: readonly CsvValue[]): string {
  return values.map(csvCell).join(',') + CSV_EOL
}

export interface CsvColumn<T> {
  header: string
  value: (row: T) => CsvValue
}

/** The header record, from header names or from columns. */
export function csvHeader(columns: readonly (string | { header: string })[]): string {
  return csvRow(columns.map((c) => (typeof c === 'string' ? c : c.header)))
}

/** The record of one row under the given columns. */
export function csvRecord<T>(row: T, columns: readonly CsvColumn<T>[]): string {
  return csvRow(columns.map((c) => c.value(row)))
}

/** Header, then one record per row, lazily: iterate and write each line to a stream. */
export function* csvLines<T>(rows: Iterable<T>, columns: readonly CsvColumn<T>[]): Generator<string, void, undefined> {
  yield csvHeader(columns)
  for (const row of rows) yield csvRecord(row, columns)
}

// ---------------------------------------------------------------- order columns

export interface CsvNameMappings {
  fiat?: SymbolMapping
  coin?: SymbolMapping
  chain?: SymbolMapping
}

/** The names the configuration gives fiats, coins and chains, for the export (without them a coin is "#54"). */
export function csvNamesOf(config: Pick<ConfigSnapshot, 'fiats' | 'coins' | 'chains'>): CsvNameMappings {
  const map = (items: ReadonlyArray<{ id: number; name: string }>): SymbolMapping => Object.fromEntries(items.map((x) => [x.name, x.id]))
  return {
    fiat: map(config.fiats.map((f) => ({ id: f.id, name: f.symbol }))),
    coin: map(config.coins.map((c) => ({ id: c.id, name: c.code }))),
    chain: map(config.chains.map((c) => ({ id: c.id, name: c.symbol })))
  }
}
