// The columns of an orders CSV for finance: headers in words or the API's names (the
// columns an export of one type had before, unchanged and first), the payment type and
// the status in words beside their numbers, a currency column after every amount, the
// fiat fees added up exactly, and both order types in one file.
import { describe, expect, it } from 'vitest'
import { csvHeader, csvRow } from '../../../../src/shared/domain/csv'
import { orderCsvColumns, type OrderCsvRow } from '../../../../src/shared/domain/order-csv'
import { OfframpOrder, OnrampOrder } from '../../../../src/shared/api/schemas'
import type { OrderType } from '../../../../src/shared/ipc/contract'
import { parseCsv } from '../../../support/csv-reader'

const NAMES = { coin: { usdt: 54 }, chain: { bep20: 1, trc20: 2 }, fiat: { inr: 1 } }

const onramp = OnrampOrder.parse({
  orderId: 1001,
  walletAddress: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
  coinId: 54,
  chainId: 1,
  fiatType: 1,
  paymentType: 1,
  fiatAmount: 10000,
  expectedCryptoAmount: 112.4516,
  expectedPrice: 88.5,
  actualCryptoAmount: null,
  actualPrice: null,
  createdAt: '2024-03-01T10:00:00Z',
  updatedAt: '2024-03-01T10:05:00.123Z',
  status: 15,
  referenceId: '=2+5',
  onRampFee: 0.1,
  gasFee: 0.008157600000000001,
  clientFee: 0.2,
  gatewayFee: 1.1,
  merchantRecognitionId: 'm-1'
})

const offramp = OfframpOrder.parse({
  orderId: 7,
  coinId: 54,
  chainId: 2,
  expectedQuantity: '100',
  actualQuantity: 100,
  actualPrice: 85,
  actualFiatAmount: 8400,
  onrampFee: 10,
  clientFee: 0,
  gatewayFee: 5,
  tdsFee: 85,
  paymentType: 2,
  createdAt: '2024-03-01T10:00:00.000Z',
  updatedAt: '2024-03-01T10:00:00.000Z',
  status: 41
})

const row1: OrderCsvRow = { type: 1, record: onramp, fiatType: 1 }
// An offramp record without fiatType: its scope (the store's row) gives it.
const row2: OrderCsvRow = { type: 2, record: offramp, fiatType: 1 }

function table(headers: 'words' | 'api', types: OrderType[], rows: OrderCsvRow[]): Array<Record<string, string>> {
  const columns = orderCsvColumns({ headers, types, names: NAMES })
  const [header, ...records] = parseCsv(csvHeader(columns) + rows.map((r) => csvRow(columns.map((c) => c.value(r)))).join(''))
  return records.map((rec) => Object.fromEntries(header!.map((h, i) => [h, rec[i]!])))
}
const headersOf = (headers: 'words' | 'api', types: OrderType[]) => orderCsvColumns({ headers, types }).map((c) => c.header)

/** The headers each type's export had before headers in words existed, in their order: scripts read them. */
const API_BEFORE: Record<OrderType, string[]> = {
  1: [
    'orderId',
    'merchantRecognitionId',
    'createdAt',
    'updatedAt',
    'status',
    'statusLabel',
    'fiat',
    'coin',
    'chain',
    'fiatAmount',
    'expectedCryptoAmount',
    'expectedPrice',
    'actualCryptoAmount',
    'actualPrice',
    'onrampFee',
    'clientFee',
    'gatewayFee',
    'gasFee',
    'paymentType',
    'walletAddress',
    'referenceId',
    'transactionHash'
  ],
  2: [
    'orderId',
    'merchantRecognitionId',
    'createdAt',
    'updatedAt',
    'status',
    'statusLabel',
    'fiat',
    'coin',
    'chain',
    'expectedQuantity',
    'expectedPrice',
    'actualQuantity',
    'actualPrice',
    'actualFiatAmount',
    'onrampFee',
    'clientFee',
    'gatewayFee',
    'tdsFee',
    'paymentType',
    'walletAddress',
    'transactionHash'
  ]
}

describe('who handles an order and its notes', () => {
  it('writes the handler and one line per note, oldest first, under "Handled by" and "Notes"; empty when there are none', () => {
    const rows = table(
      'words',
      [1],
      [
        {
          type: 1,
          record: onramp,
          fiatType: 1,
          handledBy: 'Ana',
          notes: [
            { author: 'Ana', at: Date.UTC(2026, 10, 27, 10, 42), text: 'Customer called, "bank" said pending' },
            { author: 'Ben', at: Date.UTC(2026, 10, 27, 11, 5), text: 'Asked for a new UTR' }
          ]
        },
        { type: 1, record: onramp, fiatType: 1 }
      ]
    )
    expect(rows[0]!['Handled by']).toBe('Ana')
    expect(rows[0]!.Notes).toBe(
      '2026-11-27T10:42:00.000Z Ana: Customer called, "bank" said pending\n2026-11-27T11:05:00.000Z Ben: Asked for a new UTR'
    )
    expect(rows[1]!['Handled by']).toBe('')
    expect(rows[1]!.Notes).toBe('')
  })
})

describe('orders CSV with the API names (the machine-readable option)', () => {
  it.each([1, 2] as const)('starts with the very columns a type-%i export had, in their order, and adds the new ones after', (type) => {
    const headers = headersOf('api', [type])
    expect(headers.slice(0, API_BEFORE[type].length)).toEqual(API_BEFORE[type])
    const added = headers.slice(API_BEFORE[type].length)
    expect(added.slice(0, 4)).toEqual(['type', 'typeLabel', 'statusWords', 'paymentTypeLabel'])
    // Who handles the order and its notes came after the fee totals (the new ones go last).
    expect(added.at(-4)).toBe('fiatFeesTotal')
    expect(added.slice(-2)).toEqual(['handledBy', 'notes'])
    // One currency column per amount of the type, named after it.
    const amounts = API_BEFORE[type].filter((h) => /Amount|Quantity|Price|Fee$/.test(h))
    for (const a of amounts) expect(added, a).toContain(`${a}Currency`)
    for (const h of headers) expect(h).toMatch(/^[a-z][A-Za-z]*$/)
  })

  it('keeps the values as they were: exact decimals, the service words under statusLabel, names for ids, formulas defused', () => {
    const [r] = table('api', [1], [row1])
    expect(r).toMatchObject({
      orderId: '1001',
      status: '15',
      statusLabel: 'withdrawal complete',
      fiat: 'INR',
      coin: 'USDT',
      chain: 'BEP20',
      fiatAmount: '10000',
      gasFee: '0.008157600000000001',
      onrampFee: '0.1',
      actualCryptoAmount: '',
      referenceId: "'=2+5",
      createdAt: '2024-03-01T10:00:00.000Z',
      statusWords: 'Complete',
      paymentTypeLabel: 'instant (UPI)',
      type: '1',
      typeLabel: 'Onramp'
    })
  })

  it('an offramp record with an unknown status and unknown ids: said as such, never dropped', () => {
    const odd = OfframpOrder.parse({
      orderId: 8,
      coinId: 999,
      chainId: 10116,
      expectedQuantity: '100',
      createdAt: '2024-03-01T10:00:00.000Z',
      updatedAt: '2024-03-01T10:00:00.000Z',
      status: 77,
      tdsFee: 1.1
    })
    const [r] = table('api', [2], [{ type: 2, record: odd, fiatType: null }])
    expect(r).toMatchObject({ statusLabel: '', statusWords: 'Unknown status 77', coin: '#999', chain: '#10116', fiat: '', tdsFee: '1.1' })
    // No fiat known: the currency of a fiat amount is left empty rather than guessed.
    expect(r!.tdsFeeCurrency).toBe('')
    expect(r!.expectedQuantityCurrency).toBe('#999')
  })
})

describe('orders CSV with headers in words (for finance)', () => {
  it('names every column in words, the status and the payment type in words beside their numbers', () => {
    const headers = headersOf('words', [1])
    for (const h of headers) expect(h, h).toMatch(/^[A-Z][a-z]*( [a-z0-9%()]+)*$/)
    expect(headers.slice(0, 12)).toEqual([
      'Type',
      'Order id',
      'Merchant reference',
      'Created',
      'Last updated',
      'Status',
      'Status number',
      'Payment type',
      'Payment type number',
      'Fiat',
      'Coin',
      'Network'
    ])
    // Nothing of the integration in the words.
    expect(headers.join(' ')).not.toMatch(/webhook|\bAPI\b|endpoint|reference id/i)
    const [r] = table('words', [1], [row1])
    expect(r).toMatchObject({ Status: 'Complete', 'Status number': '15', 'Payment type': 'instant (UPI)', 'Payment type number': '1' })
    const [o] = table('words', [2], [row2])
    expect(o).toMatchObject({ Status: 'Paid out', 'Status number': '41', 'Payment type': 'IMPS', 'Payment type number': '2' })
  })

  it('follows every amount with its currency: fiat fees in the fiat, the network fee in the coin, prices in fiat per coin', () => {
    const headers = headersOf('words', [1, 2])
    const amounts = headers.filter((h) => !h.endsWith(' currency') && /pays|Crypto|paid|Price|fee|TDS/.test(h) && h !== 'Fiat fees total')
    expect(amounts.length).toBe(13)
    for (const a of amounts) expect(headers[headers.indexOf(a) + 1], a).toBe(`${a} currency`)

    const [r] = table('words', [1], [row1])
    expect(r).toMatchObject({
      'Customer pays': '10000',
      'Customer pays currency': 'INR',
      'Crypto quoted': '112.4516',
      'Crypto quoted currency': 'USDT',
      'Price quoted': '88.5',
      'Price quoted currency': 'INR per USDT',
      'Platform fee currency': 'INR',
      'Client fee currency': 'INR',
      'Gateway fee currency': 'INR',
      'Network fee': '0.008157600000000001',
      'Network fee currency': 'USDT',
      // A missing amount has no currency either.
      'Crypto delivered': '',
      'Crypto delivered currency': ''
    })
    const [o] = table('words', [2], [row2])
    expect(o).toMatchObject({ 'Fiat paid out currency': 'INR', 'TDS (1% tax) currency': 'INR', 'Crypto sold currency': 'USDT' })
  })

  it('adds the fiat fees up exactly (decimals, not floats), and leaves the coin fee out of the fiat total', () => {
    const [r] = table('words', [1], [row1])
    // 0.1 + 0.2 + 1.1: a float sum would write 1.4000000000000001.
    expect(r).toMatchObject({ 'Fiat fees total': '1.4', 'Fiat fees total currency': 'INR' })
    const [o] = table('words', [2], [row2])
    expect(o).toMatchObject({ 'Fiat fees total': '100', 'Fiat fees total currency': 'INR' })
  })
})

describe('both order types in one file', () => {
  it('holds the columns of both, each row its type, the other type columns empty', () => {
    for (const headers of ['words', 'api'] as const) {
      const both = headersOf(headers, [1, 2])
      for (const h of [...headersOf(headers, [1]), ...headersOf(headers, [2])]) expect(both, h).toContain(h)
      expect(new Set(both).size).toBe(both.length)
    }
    const [a, b] = table('words', [1, 2], [row1, row2])
    expect(a).toMatchObject({
      Type: 'Onramp',
      'Customer pays': '10000',
      'Crypto sold': '',
      'TDS (1% tax)': '',
      'TDS (1% tax) currency': ''
    })
    expect(b).toMatchObject({ Type: 'Offramp', 'Customer pays': '', 'Customer pays currency': '', 'Crypto sold': '100', Fiat: 'INR' })
    // A single-type file has no column of the other type.
    expect(headersOf('words', [1])).not.toContain('TDS (1% tax)')
    expect(headersOf('words', [2])).not.toContain('Network fee')
  })
})
