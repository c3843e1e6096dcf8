// The orders table's row model: texts formatted as the locale writes them, unknown
// statuses and missing values shown as such, and models kept per page array.
import { describe, expect, it } from 'vitest'
import { monogram, OrderRowViews, orderRowView, type RowLabels } from '../../../../src/renderer/src/lib/order-row-views'
import type { OrderRow } from '../../../../src/shared/ipc/contract'

function row(over: Partial<OrderRow> = {}): OrderRow {
  return {
    type: 1,
    orderId: 100001,
    status: 4,
    fiatType: 1,
    coinId: 54,
    chainId: 1,
    fiatAmount: '100000.456',
    cryptoAmount: '11.5',
    walletAddress: '0xabc',
    merchantRecognitionId: 'm-1',
    referenceId: null,
    transactionHash: null,
    createdAt: '2024-01-01T00:00:00.000Z',
    updatedAt: '2024-01-02T03:04:05.000Z',
    firstSeenAt: 0,
    lastChangedAt: 0,
    watched: true,
    ...over
  }
}

const labels = (locale: string): RowLabels => ({
  locale,
  fiatLabel: (id) => (id === 1 ? 'INR' : `fiat ${String(id)}`),
  coinLabel: (id) => (id === 54 ? 'USDT' : `coin ${id}`),
  chainLabel: (id) => (id === 1 ? 'ERC20' : `chain ${id}`),
  coinDp: () => 4
})

describe('orderRowView', () => {
  it('formats amounts, labels and the time in the operator locale', () => {
    const v = orderRowView(row(), labels('en-IN'))
    expect(v.fiat).toEqual({ text: '1,00,000.46', title: '100000.456', unit: 'INR' })
    // The crypto amount carries its coin, as the fiat amount its currency.
    expect(v.crypto).toEqual({ text: '11.5000', title: '11.5', unit: 'USDT' })
    expect(v.coinNetwork).toBe('USDT · ERC20')
    // The cell says the status in words; its number and meaning are in the title only.
    expect(v.statusLabel).toBe('Complete')
    expect(v.statusTitle).toBe("Complete (status 4): The crypto was sent to the customer's wallet. Final.")
    expect(v.wallet).toBe('0xabc')
    // Within the year given: month, day and time; the title has the whole instant.
    const midJune = row({ updatedAt: '2024-06-15T12:00:00.000Z' })
    expect(orderRowView(midJune, { ...labels('en-US'), year: 2024 }).updated).toMatch(/^Jun 15, \d\d:\d\d (AM|PM)$/)
    expect(orderRowView(midJune, { ...labels('en-US'), year: 2026 }).updated).toBe('Jun 15, 2024')
    expect(v.updatedTitle).toMatch(/2024/)
    // The status in words in the cell, never the service's integration words.
    const long = orderRowView(row({ status: 16 }), labels('en-US'))
    expect(long.statusLabel).toBe('Complete')
    expect(long.statusTitle).toMatch(/^Complete \(status 16\): The crypto was sent to the customer's wallet and your system was told\./)
    expect(long.statusTitle).not.toMatch(/webhook/i)
    expect(orderRowView(row(), labels('en-US')).fiat.text).toBe('100,000.46')
  })

  it('says after the status of an order the service no longer has that it is unlisted', () => {
    const listed = orderRowView(row({ status: 0, goneAt: null }), labels('en-US'))
    expect(listed.statusNote).toBe('')
    expect(listed.statusTitle).toBe('Created (status 0): The order was placed; no payment has been seen yet.')
    const gone = orderRowView(row({ status: 0, goneAt: Date.UTC(2026, 10, 24, 9, 30) }), labels('en-US'))
    expect(gone.statusLabel).toBe('Created')
    expect(gone.statusNote).toBe('unlisted')
    expect(gone.statusTitle).toMatch(
      /^Created \(status 0\): .* The last status seen: the service no longer lists this order \(since .*2026/
    )
    // A hub of an older version leaves goneAt out: listed.
    expect(orderRowView(row({ status: 0 }), labels('en-US')).statusNote).toBe('')
  })

  it('shows a fiat without a minor unit (the dong, fiat 5 in the spec) without decimals; the title keeps every digit', () => {
    const dong = { ...labels('en-US'), fiatLabel: () => 'VND' }
    expect(orderRowView(row({ fiatType: 5, fiatAmount: '1350000' }), dong).fiat).toEqual({
      text: '1,350,000',
      title: '1350000',
      unit: 'VND'
    })
    expect(orderRowView(row({ fiatType: 5, fiatAmount: '1350000.6' }), dong).fiat).toEqual({
      text: '1,350,001',
      title: '1350000.6',
      unit: 'VND'
    })
  })

  it('shows a status it does not know without a number, and missing values as a dash', () => {
    const v = orderRowView(row({ status: 999, fiatAmount: null, walletAddress: null, merchantRecognitionId: null }), labels('en-US'))
    expect(v.statusLabel).toBe('Unknown status 999')
    expect(v.statusTitle).toMatch(/^Unknown status 999: The service reported a status this app does not know/)
    expect(v.fiat).toEqual({ text: '—', title: undefined, unit: '' })
    expect(v.wallet).toBe('—')
    expect(v.walletTitle).toBe('')
    expect(v.merchant).toBe('—')
  })

  it('shows an amount that is not a decimal as it came', () => {
    expect(orderRowView(row({ cryptoAmount: 'n/a' }), labels('en-US')).crypto.text).toBe('n/a')
  })
})

describe('OrderRowViews', () => {
  it('formats a row once per page array and again for a new array', () => {
    const views = new OrderRowViews(labels('en-US'))
    const page = [row(), row({ orderId: 100002 })]
    const a = views.at(page, 1)
    expect(a?.orderId).toBe(100002)
    expect(views.at(page, 1)).toBe(a)
    expect(views.at(page, 2)).toBeUndefined()
    const patched = page.slice()
    patched[1] = row({ orderId: 100002, status: 5 })
    expect(views.at(patched, 1)).not.toBe(a)
    expect(views.at(patched, 1)?.status).toBe(5)
  })
})

describe('the handler mark', () => {
  it('is the initials of the first two words of the name, or its first two letters', () => {
    expect(monogram('Ana Lopez')).toBe('AL')
    expect(monogram('ana')).toBe('AN')
    expect(monogram('ben.smith')).toBe('BS')
    expect(monogram('')).toBe('')
  })
})
