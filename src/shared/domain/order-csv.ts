// The columns of an orders CSV, for finance: headers in words ("Customer pays"), or the
// API's own names (`fiatAmount`) for scripts; the payment type and the status in words
// beside their numbers; a currency column after every amount (order-amounts.ts says
// which); the fiat fees added up; and onramp and offramp orders in one file when asked,
// each row saying its type, the other type's columns left empty.
//
// With API headers, an export of one type starts with exactly the columns it had before
// headers in words existed, in the same order, and adds the new ones after them, so a
// script reading columns by name or by position keeps working (docs/development.md,
// "CSV export").
import type { OfframpOrder, OnrampOrder } from '../api/schemas'
import type { OrderType } from '../ipc/contract'
import type { CsvColumn, CsvNameMappings, CsvValue } from './csv'
import { amountUnit, feeTotals, unitText, type AmountUnit } from './order-amounts'
import { paymentTypeLabel } from './order-fields'
import { chainName, coinName, fiatName } from './names'
import { orderKindLabel, statusInfo } from './status'

export type CsvHeaders = 'words' | 'api'

/** One order as the export writes it: its type, its record, and the fiat its scope gives it (offramp records may lack one). */
export interface OrderCsvRow {
  type: OrderType
  record: OnrampOrder | OfframpOrder
  fiatType: number | null
  /** Who handles the order (orders:claim), or null. */
  handledBy?: string | null
  /** The team's notes on it, oldest first. */
  notes?: ReadonlyArray<{ author: string; at: number; text: string }>
}

export interface OrderCsvOptions {
  headers: CsvHeaders
  /** The types the file holds: [1], [2] or [1, 2]. */
  types: readonly OrderType[]
  names?: CsvNameMappings
}

interface Def {
  /** The API name (today's header), also the column's id. */
  api: string
  words: string
  /** The types that have the column (the other type's rows leave it empty). */
  types: readonly OrderType[]
  value: (r: OrderCsvRow, names: CsvNameMappings) => CsvValue
}

const BOTH: readonly OrderType[] = [1, 2]
const field = (r: OrderCsvRow, key: string): CsvValue => (r.record as Record<string, CsvValue>)[key]
const fiatOf = (r: OrderCsvRow): number | null => (r.record as { fiatType?: number }).fiatType ?? r.fiatType
const unitNames = (r: OrderCsvRow, n: CsvNameMappings) => {
  const fiat = fiatOf(r)
  return { fiat: fiat === null ? '' : fiatName(fiat, n.fiat), coin: coinName(r.record.coinId, n.coin) }
}

const def = (api: string, words: string, types: readonly OrderType[], value: Def['value']): Def => ({ api, words, types, value })
const plain = (api: string, words: string, types: readonly OrderType[] = BOTH): Def => def(api, words, types, (r) => field(r, api))

/** An amount and its currency column ("Customer pays", "Customer pays currency"). */
function amount(api: string, words: string, types: readonly OrderType[] = BOTH): [Def, Def] {
  const unit = (r: OrderCsvRow): AmountUnit | null => amountUnit(r.type, api)
  return [
    plain(api, words, types),
    def(`${api}Currency`, `${words} currency`, types, (r, n) => {
      const u = unit(r)
      const v = field(r, api)
      return u === null || v === null || v === undefined || v === '' ? '' : unitText(u, unitNames(r, n))
    })
  ]
}

const [fiatAmount, fiatAmountCurrency] = amount('fiatAmount', 'Customer pays', [1])
const [expectedCryptoAmount, expectedCryptoAmountCurrency] = amount('expectedCryptoAmount', 'Crypto quoted', [1])
const [actualCryptoAmount, actualCryptoAmountCurrency] = amount('actualCryptoAmount', 'Crypto delivered', [1])
const [expectedQuantity, expectedQuantityCurrency] = amount('expectedQuantity', 'Crypto to sell', [2])
const [actualQuantity, actualQuantityCurrency] = amount('actualQuantity', 'Crypto sold', [2])
const [actualFiatAmount, actualFiatAmountCurrency] = amount('actualFiatAmount', 'Fiat paid out', [2])
const [expectedPrice, expectedPriceCurrency] = amount('expectedPrice', 'Price quoted')
const [actualPrice, actualPriceCurrency] = amount('actualPrice', 'Price filled')
const [onrampFee, onrampFeeCurrency] = amount('onrampFee', 'Platform fee')
const [clientFee, clientFeeCurrency] = amount('clientFee', 'Client fee')
const [gatewayFee, gatewayFeeCurrency] = amount('gatewayFee', 'Gateway fee')
const [gasFee, gasFeeCurrency] = amount('gasFee', 'Network fee', [1])
const [tdsFee, tdsFeeCurrency] = amount('tdsFee', 'TDS (1% tax)', [2])

const fiatFeesTotal = def(
  'fiatFeesTotal',
  'Fiat fees total',
  BOTH,
  (r) => feeTotals(r.type, r.record as Record<string, unknown>).fiat ?? ''
)
const fiatFeesTotalCurrency = def('fiatFeesTotalCurrency', 'Fiat fees total currency', BOTH, (r, n) =>
  feeTotals(r.type, r.record as Record<string, unknown>).fiat === null ? '' : unitNames(r, n).fiat
)

const orderId = plain('orderId', 'Order id')
const merchantRecognitionId = plain('merchantRecognitionId', 'Merchant reference')
const createdAt = plain('createdAt', 'Created')
const updatedAt = plain('updatedAt', 'Last updated')
const status = plain('status', 'Status number')
/** The service's own words under the API name (what the column held before), the operator's under words. */
const statusLabel = def('statusLabel', 'Status (service words)', BOTH, (r) => statusInfo(r.type, r.record.status).serviceLabel ?? '')
const statusWords = def('statusWords', 'Status', BOTH, (r) => statusInfo(r.type, r.record.status).label)
const fiat = def('fiat', 'Fiat', BOTH, (r, n) => {
  const f = fiatOf(r)
  return f === null ? '' : fiatName(f, n.fiat)
})
const coin = def('coin', 'Coin', BOTH, (r, n) => coinName(r.record.coinId, n.coin))
const chain = def('chain', 'Network', BOTH, (r, n) => chainName(r.record.chainId, n.chain))
const paymentType = plain('paymentType', 'Payment type number')
const paymentTypeWords = def('paymentTypeLabel', 'Payment type', BOTH, (r) => {
  const p = field(r, 'paymentType')
  return p === null || p === undefined || p === '' ? '' : paymentTypeLabel(r.type, p)
})
const walletAddress = plain('walletAddress', 'Wallet')
const referenceId = plain('referenceId', 'Payment reference', [1])
const transactionHash = plain('transactionHash', 'Transaction hash')
const kind = def('typeLabel', 'Type', BOTH, (r) => orderKindLabel(r.type))
const typeNumber = def('type', 'Type number', BOTH, (r) => r.type)
const handledBy = def('handledBy', 'Handled by', BOTH, (r) => r.handledBy ?? '')
// One line per note, oldest first: "2026-11-27T10:42:00.000Z Ana: Customer called".
const notes = def('notes', 'Notes', BOTH, (r) =>
  (r.notes ?? []).map((n) => `${new Date(n.at).toISOString()} ${n.author}: ${n.text}`).join('\n')
)

/** The columns each type had before headers in words, in their order. */
const API_BEFORE: Record<OrderType, readonly Def[]> = {
  1: [
    orderId,
    merchantRecognitionId,
    createdAt,
    updatedAt,
    status,
    statusLabel,
    fiat,
    coin,
    chain,
    fiatAmount,
    expectedCryptoAmount,
    expectedPrice,
    actualCryptoAmount,
    actualPrice,
    onrampFee,
    clientFee,
    gatewayFee,
    gasFee,
    paymentType,
    walletAddress,
    referenceId,
    transactionHash
  ],
  2: [
    orderId,
    merchantRecognitionId,
    createdAt,
    updatedAt,
    status,
    statusLabel,
    fiat,
    coin,
    chain,
    expectedQuantity,
    expectedPrice,
    actualQuantity,
    actualPrice,
    actualFiatAmount,
    onrampFee,
    clientFee,
    gatewayFee,
    tdsFee,
    paymentType,
    walletAddress,
    transactionHash
  ]
}

/** Added after those with API headers: the type, the words beside the numbers, the currencies and the fees' total. */
const API_ADDED: readonly Def[] = [
  typeNumber,
  kind,
  statusWords,
  paymentTypeWords,
  fiatAmountCurrency,
  expectedCryptoAmountCurrency,
  actualCryptoAmountCurrency,
  expectedQuantityCurrency,
  actualQuantityCurrency,
  actualFiatAmountCurrency,
  expectedPriceCurrency,
  actualPriceCurrency,
  onrampFeeCurrency,
  clientFeeCurrency,
  gatewayFeeCurrency,
  gasFeeCurrency,
  tdsFeeCurrency,
  fiatFeesTotal,
  fiatFeesTotalCurrency,
  handledBy,
  notes
]

/** With headers in words: what finance reads first, every amount followed by its currency. */
const WORDS_ORDER: readonly Def[] = [
  kind,
  orderId,
  merchantRecognitionId,
  createdAt,
  updatedAt,
  statusWords,
  status,
  paymentTypeWords,
  paymentType,
  fiat,
  coin,
  chain,
  fiatAmount,
  fiatAmountCurrency,
  expectedCryptoAmount,
  expectedCryptoAmountCurrency,
  actualCryptoAmount,
  actualCryptoAmountCurrency,
  expectedQuantity,
  expectedQuantityCurrency,
  actualQuantity,
  actualQuantityCurrency,
  actualFiatAmount,
  actualFiatAmountCurrency,
  expectedPrice,
  expectedPriceCurrency,
  actualPrice,
  actualPriceCurrency,
  onrampFee,
  onrampFeeCurrency,
  clientFee,
  clientFeeCurrency,
  gatewayFee,
  gatewayFeeCurrency,
  gasFee,
  gasFeeCurrency,
  tdsFee,
  tdsFeeCurrency,
  fiatFeesTotal,
  fiatFeesTotalCurrency,
  walletAddress,
  referenceId,
  transactionHash,
  handledBy,
  notes
]

/** The columns of an export holding `types`, in the order the headers choice gives them. */
export function orderCsvColumns(o: OrderCsvOptions): CsvColumn<OrderCsvRow>[] {
  const names = o.names ?? {}
  const holds = (d: Def) => d.types.some((t) => o.types.includes(t))
  let defs: Def[]
  if (o.headers === 'words') defs = WORDS_ORDER.filter(holds)
  else {
    const seen = new Set<string>()
    defs = [...o.types.flatMap((t) => API_BEFORE[t]), ...API_ADDED].filter((d) => holds(d) && !seen.has(d.api) && seen.add(d.api))
  }
  return defs.map((d) => ({
    header: o.headers === 'words' ? d.words : d.api,
    value: (r: OrderCsvRow) => (d.types.includes(r.type) ? d.value(r, names) : '')
  }))
}
