// The CSV export of a profile's database: one type or both in one file (merged oldest
// change first), headers in words or the API's names, each offramp row with the fiat of
// its scope, the file named for what it holds, and the answer saying which names it has.
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { exportFileName, exportOrdersCsv, exportTotal } from '../../../../src/main/export/orders-csv'
import { openLocalStore, type LocalStore } from '../../../../src/main/store/local-store'
import type { ExportInput, ExportProgress } from '../../../../src/shared/ipc/contract'
import { parseCsv } from '../../../support/csv-reader'
import { offramp, onramp } from '../store/order-fixtures'

const NAMES = { coin: { usdt: 54 }, chain: { erc20: 1, trc20: 2 }, fiat: { inr: 1 } }
const AT = Date.UTC(2026, 10, 25, 14, 30)
let dir: string
let store: LocalStore

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'rampdesk-export-'))
  store = openLocalStore(join(dir, 'db'))
  // Changes interleaved across the types: 10:01 onramp, 10:02 offramp, 10:03 onramp, 10:04 offramp.
  const at = (m: number) => `2024-03-01T10:0${m}:00.000Z`
  store.orders.applyHistoryPage({
    type: 1,
    fiatType: 1,
    records: [onramp({ orderId: 11, updatedAt: at(1) }), onramp({ orderId: 13, updatedAt: at(3), status: 15 })]
  })
  // Offramp records without a fiatType: the scope's fiat is theirs.
  store.orders.applyHistoryPage({
    type: 2,
    fiatType: 1,
    records: [offramp({ orderId: 12, updatedAt: at(2) }), offramp({ orderId: 14, updatedAt: at(4), status: 19 })]
  })
})
afterAll(() => {
  store.close()
  rmSync(dir, { recursive: true, force: true })
})

async function exported(input: ExportInput) {
  const progress: ExportProgress[] = []
  const r = await exportOrdersCsv({ store, input, names: NAMES, dir: join(dir, 'out'), at: AT, onProgress: (p) => progress.push(p) })
  const text = readFileSync(r.path, 'utf8')
  expect(text.startsWith('\uFEFF')).toBe(true)
  const [header, ...rows] = parseCsv(text.slice(1))
  return { r, progress, header: header!, rows: rows.map((row) => Object.fromEntries(header!.map((h, i) => [h, row[i]!]))) }
}

describe('exportOrdersCsv', () => {
  it('puts both types in one file, oldest change first, each row its type, with a name saying so', async () => {
    const { r, rows, progress } = await exported({ filter: { type: 1 }, headers: 'words', bothTypes: true })
    expect(rows.map((x) => [x['Type'], x['Order id']])).toEqual([
      ['Onramp', '11'],
      ['Offramp', '12'],
      ['Onramp', '13'],
      ['Offramp', '14']
    ])
    expect(r).toMatchObject({ rows: 4, file: 'rampdesk-orders-2026-11-25T14-30-00-000Z.csv', headers: 'words' })
    expect(r.path).toBe(join(dir, 'out', r.file!))
    expect(statSync(r.path).mode & 0o777).toBe(0o600)
    expect(progress.at(-1)).toEqual({ rows: 4, total: 4, done: true })
    expect(exportTotal(store, { filter: { type: 2 }, bothTypes: true })).toBe(4)
    // The offramp rows take their scope's fiat, for the fiat and every fiat currency.
    expect(rows[1]).toMatchObject({ Fiat: 'INR', 'Fiat paid out currency': 'INR', 'TDS (1% tax) currency': 'INR', 'Customer pays': '' })
    expect(rows[2]).toMatchObject({
      Status: 'Complete',
      'Status number': '15',
      'Network fee currency': 'USDT',
      'Platform fee currency': 'INR'
    })
  })

  it('one type with the API names (the default for scripts): the columns it always had, the new ones after', async () => {
    const { r, header, rows } = await exported({ filter: { type: 2 } })
    expect(r).toMatchObject({ rows: 2, headers: 'api', file: 'rampdesk-offramp-2026-11-25T14-30-00-000Z.csv' })
    expect(header.slice(0, 6)).toEqual(['orderId', 'merchantRecognitionId', 'createdAt', 'updatedAt', 'status', 'statusLabel'])
    expect(header).toContain('tdsFeeCurrency')
    expect(header).not.toContain('gasFee')
    expect(rows.map((x) => x['orderId'])).toEqual(['12', '14'])
    expect(rows[1]).toMatchObject({ status: '19', statusLabel: 'success', statusWords: 'Complete', fiat: 'INR', type: '2' })
  })

  it('keeps the filter for both types: a search matching one order of each', async () => {
    const { rows } = await exported({ filter: { type: 1, search: '13' }, headers: 'words', bothTypes: true })
    expect(rows.map((x) => x['Order id'])).toEqual(['13'])
  })

  it("writes each order's handler and notes from the database", async () => {
    store.claims.record({ type: 2, orderId: 14, kind: 'claim', actor: 'Ana', at: AT })
    store.claims.record({ type: 2, orderId: 14, kind: 'note', text: 'Refund sent by hand', actor: 'Ben', at: AT })
    try {
      const { rows } = await exported({ filter: { type: 2 }, headers: 'words' })
      const byId = new Map(rows.map((r) => [r['Order id'], r]))
      expect(byId.get('14')).toMatchObject({ 'Handled by': 'Ana', Notes: '2026-11-25T14:30:00.000Z Ben: Refund sent by hand' })
      expect(byId.get('12')).toMatchObject({ 'Handled by': '', Notes: '' })
    } finally {
      store.database.sql.exec('DELETE FROM order_handling; DELETE FROM order_claims')
    }
  })

  it('names each file for what it holds', () => {
    expect(exportFileName({ filter: { type: 1 } }, AT)).toBe('rampdesk-onramp-2026-11-25T14-30-00-000Z.csv')
    expect(exportFileName({ filter: { type: 2 } }, AT)).toBe('rampdesk-offramp-2026-11-25T14-30-00-000Z.csv')
    expect(exportFileName({ filter: { type: 2 }, bothTypes: true }, AT)).toBe('rampdesk-orders-2026-11-25T14-30-00-000Z.csv')
  })
})
