// Main's time for single orders queries on one profile database, for what the scale
// bench's lines do not break down: which search costs what, and what a count over every
// order costs beside order_counts. Not part of `npm run bench`; docs/performance.md
// quotes its output files (bench/results/probes/) with the command that made them.
//
//   npx tsx bench/query-probe.ts fill <orders> <dir>      a database as the scale bench's
//                                                         first sync makes one (sandbox of
//                                                         seed 3, every fiat, not generating)
//   npx tsx bench/query-probe.ts tenfold <dir>            that database's orders copied
//                                                         nine more times (new row and
//                                                         order ids, same texts): ten
//                                                         times the orders in minutes,
//                                                         every wallet ten times as many
//   npx tsx bench/query-probe.ts measure <dir> [text ...] one JSON line per figure
//   npx tsx bench/query-probe.ts plan <dir> [text ...]    each statement a search runs
//                                                         (as orders:query asks it: the
//                                                         onramp window, then the offramp
//                                                         count), its time and its plan
//
// Each search is timed through OrdersRepo.query (onramp, newest first, first page of 100)
// twice, each time after a write, so no total or probe is kept from before: the first
// read of a cold cache, then again.
import { openLocalStore } from '../src/main/store/local-store'
import { NO_FIAT } from '../src/main/store/order-counts'
import { startSandbox } from '../src/sandbox'
import { traceSql } from './lib/trace-sql'
import { fillDatabase } from './lib/warm-app'

const [cmd, ...args] = process.argv.slice(2)
const ms = (t0: number): number => Math.round((performance.now() - t0) * 10) / 10
const print = (o: Record<string, unknown>): void => void process.stdout.write(JSON.stringify(o) + '\n')

if (cmd === 'fill') {
  const orders = Number(args[0])
  const dir = args[1]
  if (!Number.isInteger(orders) || orders < 1 || !dir) throw new Error('usage: fill <orders> <dir>')
  const sb = await startSandbox({ orders, seed: 3, autoGenerate: false, apiSecret: 'query-probe-secret-0123456789' })
  try {
    const t0 = performance.now()
    const { firstSync } = await fillDatabase(sb, dir, orders)
    print({ fill: orders, dir, requests: firstSync.requests, ms: ms(t0) })
  } finally {
    await sb.close()
  }
} else if (cmd === 'measure') {
  const dir = args[0]
  if (!dir) throw new Error('usage: measure <dir> [search text ...]')
  const t0 = performance.now()
  const store = openLocalStore(dir)
  print({ open: dir, ms: ms(t0), orders: store.orders.count() })
  const sql = store.database.sql
  const write = (): void => void sql.run('UPDATE orders SET last_changed_at = last_changed_at WHERE id = (SELECT MIN(id) FROM orders)')
  try {
    for (const search of args.slice(1)) {
      const times: number[] = []
      const cpu: number[] = []
      let answer = { total: 0, totalAtLeast: false }
      for (let i = 0; i < 2; i++) {
        write()
        const t = performance.now()
        const c = process.cpuUsage()
        const r = store.orders.query({ type: 1, search, sort: { key: 'updatedAt', dir: 'desc' }, limit: 100 })
        const used = process.cpuUsage(c)
        times.push(ms(t))
        // This process's CPU time: on a shared machine, what the query cost apart from waiting for a CPU.
        cpu.push(Math.round((used.user + used.system) / 100) / 10)
        answer = { total: r.total, totalAtLeast: r.totalAtLeast }
      }
      print({ search, ...answer, firstMs: times[0], againMs: times[1], firstCpuMs: cpu[0], againCpuMs: cpu[1] })
    }
    for (const type of [1, 2]) {
      let t = performance.now()
      sql.all('SELECT fiat_type, COUNT(*) AS n FROM orders WHERE type = ? GROUP BY fiat_type', type)
      const groupByMs = ms(t)
      t = performance.now()
      store.orders.fiatCounts(type as 1 | 2)
      print({ fiatCountsOfType: type, groupByOverOrdersMs: groupByMs, fromOrderCountsMs: ms(t) })
    }
    let t = performance.now()
    sql.all('SELECT type, status, fiat_type, coin_id, chain_id, gone_at IS NOT NULL, COUNT(*) FROM orders GROUP BY 1, 2, 3, 4, 5, 6')
    const onePassMs = ms(t)
    t = performance.now()
    sql.all(
      'SELECT type, status, fiat_type, coin_id, chain_id, COUNT(*) FROM orders WHERE id NOT IN (SELECT id FROM orders WHERE gone_at IS NOT NULL) GROUP BY 1, 2, 3, 4, 5'
    )
    sql.all('SELECT type, status, fiat_type, coin_id, chain_id, COUNT(*) FROM orders WHERE gone_at IS NOT NULL GROUP BY 1, 2, 3, 4, 5')
    print({ countEveryOrder: true, onePassReadingGoneMarksMs: onePassMs, notGoneAndGoneApartMs: ms(t) })
    // What the triggers kept through the fill, against the rows counted now.
    const kept = sql.all(
      'SELECT type, status, fiat_type, coin_id, chain_id, gone, n FROM order_counts WHERE n > 0 ORDER BY 1, 2, 3, 4, 5, 6'
    )
    const counted = sql.all(
      `SELECT type, status, IFNULL(fiat_type, ${NO_FIAT}) AS fiat_type, coin_id, chain_id, gone_at IS NOT NULL AS gone, COUNT(*) AS n
       FROM orders GROUP BY 1, 2, 3, 4, 5, 6 ORDER BY 1, 2, 3, 4, 5, 6`
    )
    print({
      orderCountsRows: kept.length,
      rowsCountedCombinations: counted.length,
      agree: JSON.stringify(kept) === JSON.stringify(counted)
    })
  } finally {
    store.close()
  }
} else if (cmd === 'tenfold') {
  const dir = args[0]
  if (!dir) throw new Error('usage: tenfold <dir>')
  const store = openLocalStore(dir)
  const sql = store.database.sql
  try {
    const columns = sql.all<{ name: string }>('PRAGMA table_info(orders)').map((c) => c.name)
    const maxId = sql.value<number>('SELECT MAX(id) FROM orders') ?? 0
    const maxOrderId = sql.value<number>('SELECT MAX(order_id) FROM orders') ?? 0
    // Order ids past every one held, a power of ten apart: a copy's id ends in the original's digits.
    const step = 10 ** (String(maxOrderId).length + 1)
    for (let k = 1; k <= 9; k++) {
      const t = performance.now()
      const values = columns.map((c) => (c === 'id' ? `id + ${k * maxId}` : c === 'order_id' ? `order_id + ${k * step}` : c))
      sql.transaction(() =>
        sql.run(`INSERT INTO orders (${columns.join(', ')}) SELECT ${values.join(', ')} FROM orders WHERE id <= ?`, maxId)
      )
      print({ copy: k, ms: ms(t) })
    }
    print({ tenfold: dir, orders: store.orders.count() })
  } finally {
    store.close()
  }
} else if (cmd === 'plan') {
  const dir = args[0]
  if (!dir) throw new Error('usage: plan <dir> [search text ...]')
  const store = openLocalStore(dir)
  const sql = store.database.sql
  const traced = traceSql(sql)
  try {
    for (const search of args.slice(1)) {
      sql.run('UPDATE orders SET last_changed_at = last_changed_at WHERE id = (SELECT MIN(id) FROM orders)')
      traced.reset()
      const t = performance.now()
      const r = store.orders.query({ type: 1, search, sort: { key: 'updatedAt', dir: 'desc' }, limit: 100 })
      const other = store.orders.totalUpTo({ type: 2, search })
      const total = ms(t)
      const ran = traced.ran().map((s) => ({ ...s, ms: Math.round(s.ms * 10) / 10 }))
      print({ search, total: r.total, totalAtLeast: r.totalAtLeast, otherTypeTotal: other.total, ms: total, statements: ran.length })
      for (const s of ran) {
        const plan = sql.raw
          .prepare(`EXPLAIN QUERY PLAN ${s.text}`)
          .all(...(s.params as never[]))
          .map((p) => (p as { detail: string }).detail)
        print({ search, ms: s.ms, sql: s.text.replace(/\s+/g, ' ').slice(0, 400), plan })
      }
    }
  } finally {
    store.close()
  }
} else {
  throw new Error(
    'usage: npx tsx bench/query-probe.ts fill <orders> <dir> | tenfold <dir> | measure <dir> [search text ...] | plan <dir> [search text ...]'
  )
}
