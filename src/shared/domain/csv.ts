// CSV export of order rows: RFC 4180 (CRLF, quotes doubled, fields with comma,
// quote or line break quoted), decimal strings written exactly as stored, and cells
// that a spreadsheet would run as a formula defused with a leading apostrophe.
// One line per call, so an exporter can write 100,000 rows to a stream without
// building one giant string.
import type { OfframpOrder, OnrampOrder } from '../api/schemas'
import type { OrderType } from '../ipc/contract'
import { chainName, coinName, fiatName, type SymbolMapping } from './names'
import { statusInfo } from './status'

export type CsvValue = string | number | bigint | boolean | null | undefined

export const CSV_EOL = '\r\n'
/** Prepend once to a file that Excel should open as UTF-8. */
export const CSV_BOM = '\uFEFF'

// Plain decimals ("-12.5") are data, not formulas: they stay as they are.
const PLAIN_DECIMAL = /^-?\d+(\.\d+)?$/
const FORMULA_START = /^[=+\-@\t\r\n]/
const NEEDS_QUOTES = /[",\r\n]/

/** One field: formula-guarded, then quoted when RFC 4180 requires it. */
export function csvCell(value: CsvValue): string {
  if (value === null || value === undefined) return ''
  let s = typeof value === 'string' ? value : String(value)
  if (FORMULA_START.test(s) && !PLAIN_DECIMAL.test(s)) s = `'${s}`
  return NEEDS_QUOTES.test(s) ? `"${s.replace(/"/g, '""')}"` : s
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

/** The fields both order types share, in the order every export starts with. */
type CommonOrderFields = Pick<
  OnrampOrder & OfframpOrder,
  'orderId' | 'merchantRecognitionId' | 'createdAt' | 'updatedAt' | 'status' | 'coinId' | 'chainId'
> & {
  fiatType?: number
}

function leadingColumns<T extends CommonOrderFields>(type: OrderType, names: CsvNameMappings): CsvColumn<T>[] {
  return [
    { header: 'orderId', value: (o) => o.orderId },
    { header: 'merchantRecognitionId', value: (o) => o.merchantRecognitionId },
    { header: 'createdAt', value: (o) => o.createdAt },
    { header: 'updatedAt', value: (o) => o.updatedAt },
    { header: 'status', value: (o) => o.status },
    { header: 'statusLabel', value: (o) => statusInfo(type, o.status).label },
    // Offramp records may lack fiatType (the history scope supplies it in the store).
    { header: 'fiat', value: (o) => (o.fiatType === undefined ? '' : fiatName(o.fiatType, names.fiat)) },
    { header: 'coin', value: (o) => coinName(o.coinId, names.coin) },
    { header: 'chain', value: (o) => chainName(o.chainId, names.chain) }
  ]
}

/** Columns of an onramp (type 1) order export. */
export function onrampCsvColumns(names: CsvNameMappings = {}): CsvColumn<OnrampOrder>[] {
  return [
    ...leadingColumns<OnrampOrder>(1, names),
    { header: 'fiatAmount', value: (o) => o.fiatAmount },
    { header: 'expectedCryptoAmount', value: (o) => o.expectedCryptoAmount },
    { header: 'expectedPrice', value: (o) => o.expectedPrice },
    { header: 'actualCryptoAmount', value: (o) => o.actualCryptoAmount },
    { header: 'actualPrice', value: (o) => o.actualPrice },
    { header: 'onrampFee', value: (o) => o.onrampFee },
    { header: 'clientFee', value: (o) => o.clientFee },
    { header: 'gatewayFee', value: (o) => o.gatewayFee },
    { header: 'gasFee', value: (o) => o.gasFee },
    { header: 'paymentType', value: (o) => o.paymentType },
    { header: 'walletAddress', value: (o) => o.walletAddress },
    { header: 'referenceId', value: (o) => o.referenceId },
    { header: 'transactionHash', value: (o) => o.transactionHash }
  ]
}

/** Columns of an offramp (type 2) order export. */
export function offrampCsvColumns(names: CsvNameMappings = {}): CsvColumn<OfframpOrder>[] {
  return [
    ...leadingColumns<OfframpOrder>(2, names),
    { header: 'expectedQuantity', value: (o) => o.expectedQuantity },
    { header: 'expectedPrice', value: (o) => o.expectedPrice },
    { header: 'actualQuantity', value: (o) => o.actualQuantity },
    { header: 'actualPrice', value: (o) => o.actualPrice },
    { header: 'actualFiatAmount', value: (o) => o.actualFiatAmount },
    { header: 'onrampFee', value: (o) => o.onrampFee },
    { header: 'clientFee', value: (o) => o.clientFee },
    { header: 'gatewayFee', value: (o) => o.gatewayFee },
    { header: 'tdsFee', value: (o) => o.tdsFee },
    { header: 'paymentType', value: (o) => o.paymentType },
    { header: 'walletAddress', value: (o) => o.walletAddress },
    { header: 'transactionHash', value: (o) => o.transactionHash }
  ]
}
