// How long the orders search takes in main at a given number of orders: fills a profile
// database with synthetic orders shaped like the service's (wallets, merchant references,
// reference ids, hashes), then times the queries the orders view sends for typical
// searches (first page and total, the other tab's count) through the real OrdersRepo.
//   npx tsx scripts/search-scale.ts --orders 1000000 [--dir DIR] [--runs 5]
// A --dir that already holds the orders is reused (filling 1,000,000 takes minutes).
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { performance } from 'node:perf_hooks'
import { openLocalStore } from '../src/main/store/local-store'
import type { StoredOrderQuery, OrderRecordOf } from '../src/main/store/orders-repo'

const { values } = parseArgs({
  options: { orders: { type: 'string', default: '100000' }, dir: { type: 'string' }, runs: { type: 'string', default: '5' } }
})
const target = Number(values.orders)
const runs = Number(values.runs)
const dir = values.dir ?? mkdtempSync(join(tmpdir(), 'rampdesk-search-'))

// mulberry32: a small PRNG good enough for varied synthetic values.
let seed = 12345
const rand = (): number => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}
const pick = (chars: string, n: number): string => Array.from({ length: n }, () => chars[Math.floor(rand() * chars.length)]).join('')
const HEX = '0123456789abcdefABCDEF'
const B58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz'
const wallet = (): string => {
  const r = rand()
  return r < 0.7 ? `0x${pick(HEX, 40)}` : r < 0.9 ? `T${pick(B58, 33)}` : `bc1q${pick('023456789acdefghjklmnpqrstuvwxyz', 38)}`
}

const store = openLocalStore(dir)
const have = store.orders.count()
if (have < target) {
  const started = performance.now()
  const base = Date.UTC(2025, 0, 1)
  for (let id = 100_000 + have; id < 100_000 + target;) {
    const page1: OrderRecordOf<1>[] = []
    const page2: OrderRecordOf<2>[] = []
    for (let i = 0; i < 500 && id < 100_000 + target; i++, id++) {
      const at = new Date(base + id * 37_000).toISOString()
      const common = {
        orderId: id,
        coinId: 54,
        chainId: 1,
        fiatType: 1,
        paymentType: 1,
        walletAddress: wallet(),
        createdAt: at,
        updatedAt: at,
        status: [0, 4, 5, 15, 16, -1, -2][Math.floor(rand() * 7)]!,
        merchantRecognitionId: `rd-${pick('0123456789abcdefghijklmnopqrstuvwxyz', 10)}`,
        transactionHash: rand() < 0.6 ? `0x${pick('0123456789abcdef', 64)}` : ''
      }
      if (rand() < 0.5)
        page1.push({
          ...common,
          fiatAmount: '1000',
          expectedCryptoAmount: '11.99',
          expectedPrice: '83.4',
          actualCryptoAmount: null,
          actualPrice: null,
          kycNeeded: 0,
          referenceId: rand() < 0.5 ? pick('0123456789', 12) : null,
          onrampFee: '1',
          gasFee: '0.5',
          clientFee: '0',
          gatewayFee: '1'
        } as unknown as OrderRecordOf<1>)
      else
        page2.push({
          ...common,
          expectedPrice: '82',
          expectedQuantity: '25',
          actualPrice: '82',
          actualQuantity: '25',
          actualFiatAmount: '2050',
          onrampFee: '2',
          clientFee: '0',
          gatewayFee: '3',
          tdsFee: '20'
        } as unknown as OrderRecordOf<2>)
    }
    if (page1.length) store.orders.applyHistoryPage({ type: 1, fiatType: 1, records: page1 })
    if (page2.length) store.orders.applyHistoryPage({ type: 2, fiatType: 1, records: page2 })
    if ((id - 100_000) % 100_000 === 0)
      console.error(`filled ${id - 100_000} orders (${((performance.now() - started) / 1000).toFixed(0)} s)`)
  }
  console.error(`filled ${target} orders in ${((performance.now() - started) / 1000).toFixed(1)} s`)
}

// Searches an operator types, taken from stored orders: the end of a wallet and of a hash,
// the middle of a merchant reference, a reference id, an order id and its first digits,
// a text in no order, and broad ones (three characters every hash shares).
const sample = store.orders.query({
  type: 1,
  offset: Math.floor(store.orders.count(1) / 2),
  limit: 1,
  sort: { key: 'orderId', dir: 'asc' }
}).rows[0]!
const withRef = store.database.sql.get<{ reference_id: string }>(
  'SELECT reference_id FROM orders WHERE reference_id IS NOT NULL LIMIT 1 OFFSET 777'
)
const withHash = store.database.sql.get<{ transaction_hash: string }>(
  "SELECT transaction_hash FROM orders WHERE transaction_hash != '' LIMIT 1 OFFSET 999"
)
const searches: Array<[string, string]> = [
  ['wallet, last 8', sample.walletAddress!.slice(-8)],
  ['wallet, last 6 in capitals', sample.walletAddress!.slice(-6).toUpperCase()],
  ['merchant ref, middle 6', sample.merchantRecognitionId!.slice(4, 10)],
  ['reference id, last 6', withRef!.reference_id.slice(-6)],
  ['hash, last 10', withHash!.transaction_hash.slice(-10)],
  ['order id', String(sample.orderId)],
  ['order id, first 4 digits', String(sample.orderId).slice(0, 4)],
  ['no match', 'zzqqzz'],
  ['broad: "rd-"', 'rd-'],
  ['broad: "0x"', '0x'],
  ['broad: "abc"', 'abc']
]

const pct = (xs: number[], p: number): number => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length * p) / 100))]!
const results: Array<Record<string, unknown>> = []
for (const [what, search] of searches) {
  const firstPage: number[] = []
  const other: number[] = []
  let total = 0
  let otherTotal = 0
  for (let i = 0; i < runs; i++) {
    // A write between runs, as a sync makes: the cached totals and probes of the last write go.
    store.database.sql.run('UPDATE sync_cursors SET last_error = NULL WHERE 0')
    store.database.sql.run('INSERT INTO audit_log (at, action, detail_json) VALUES (?, ?, ?)', new Date().toISOString(), 'bench', '{}')
    const q: StoredOrderQuery = { type: 1, search, sort: { key: 'updatedAt', dir: 'desc' }, limit: 100 }
    let t = performance.now()
    total = store.orders.query(q).total
    firstPage.push(performance.now() - t)
    t = performance.now()
    otherTotal = store.orders.total({ type: 2, search })
    other.push(performance.now() - t)
  }
  results.push({
    what,
    search,
    total,
    otherTotal,
    firstPageP50: +pct(firstPage, 50).toFixed(1),
    firstPageMax: +Math.max(...firstPage).toFixed(1),
    otherTabP50: +pct(other, 50).toFixed(1),
    otherTabMax: +Math.max(...other).toFixed(1)
  })
}
console.log(JSON.stringify({ orders: store.orders.count(), dir, runs }))
console.table(results)
store.close()
