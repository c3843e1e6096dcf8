import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { openLocalStore, type LocalStore } from '../../../../src/main/store/local-store'
import { fillGramsStep, gramQuery, gramsReady, GRAM_LENGTH } from '../../../../src/main/store/order-grams'
import type { StoredOrder } from '../../../../src/main/store/stored-order'
import { rng } from '../../../fixtures/crash/synthetic-history'
import { undoGramsMigration } from './grams-upgrade'
import { offramp, onramp } from './order-fixtures'
import { withPlans } from './query-plans'

let dir: string
let store: LocalStore | null = null

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rampdesk-grams-'))
})
afterEach(() => {
  store?.close()
  store = null
  rmSync(dir, { recursive: true, force: true })
})

const hex = (s: string): string => Buffer.from(s, 'utf8').toString('hex')

describe('gramQuery', () => {
  it('asks for the grams that cover the text: one every six characters and the last', () => {
    expect(gramQuery('abcdef')).toBe(`"${hex('abcdef')}"`)
    expect(gramQuery('0x1400ff')).toBe(`"${hex('0x1400')}" AND "${hex('1400ff')}"`)
    expect(gramQuery('abcdefghijklm')).toBe(`"${hex('abcdef')}" AND "${hex('ghijkl')}" AND "${hex('hijklm')}"`)
  })

  it('asks for at most six grams of a long pasted text, spread from its start to its end', () => {
    const text = '0x3f9a1c77e0b24d5a8c16f0e3b97d2a4c58e1f06b39d7c2a8e4f1b0c6d9a3e7f25b8c1d4e0a6f39b7c2d5e8a1f4'
    const grams = gramQuery(text).split(' AND ')
    expect(grams).toHaveLength(6)
    expect(grams[0]).toBe(`"${hex(text.slice(0, 6))}"`)
    expect(grams[5]).toBe(`"${hex(text.slice(-6))}"`)
  })

  it('counts characters as SQLite does (code points), and needs six of them', () => {
    // Six code points, eight UTF-16 units: one gram.
    expect(gramQuery('ab😀c😀d')).toBe(`"${hex('ab😀c😀d')}"`)
    expect(() => gramQuery('abcde')).toThrow(RangeError)
    expect(GRAM_LENGTH).toBe(6)
  })
})

/** Onramp and offramp orders 1..n with texts made from their ids, some of them empty or short. */
function fill(s: LocalStore, n: number, seed = 5): void {
  const r = rng(seed)
  for (const type of [1, 2] as const) {
    const records = []
    for (let i = 1; i <= n; i++) {
      const common = {
        orderId: i,
        merchantRecognitionId: r() < 0.15 ? null : r() < 0.1 ? 'MR' : `MR-${['a', 'B'][i % 2]}-${i}`,
        transactionHash: r() < 0.2 ? null : `0x${(i * 7919).toString(16)}Ff${i % 3}`,
        walletAddress: `0xWallet${i % 5}`
      }
      records.push(type === 1 ? onramp({ ...common, referenceId: r() < 0.5 ? null : `UPI-${i * 31}` }) : offramp(common))
    }
    s.orders.applyHistoryPage({ type, fiatType: 1, records: records as never })
  }
}

const fold = (v: string): string => v.replace(/[A-Z]/g, (c) => c.toLowerCase())

/** The orders of a type whose own texts or wallet hold the text anywhere (the search's meaning, by brute force). */
function expected(s: LocalStore, type: 1 | 2, text: string): number[] {
  const t = fold(text)
  return [...s.orders.exportRows({ type, sort: { key: 'orderId', dir: 'asc' } })]
    .filter((o: StoredOrder) =>
      [o.merchantRecognitionId, o.referenceId, o.transactionHash, o.walletAddress].some((v) => v !== null && fold(v).includes(t))
    )
    .map((o) => o.orderId)
}

const found = (s: LocalStore, type: 1 | 2, text: string): number[] =>
  s.orders
    .query({ type, search: text, sort: { key: 'orderId', dir: 'asc' }, limit: 1000 })
    .rows.map((r) => r.orderId)
    .sort((a, b) => a - b)

/** Long texts of the orders above: a merchant reference, part of a hash, a reference id, a wallet, some held by none. */
const LONG = [
  'LOW-ID-REF',
  'MR-a-12',
  'mr-b-1',
  '-B-13',
  'ff1',
  '0x' + (17 * 7919).toString(16),
  (40 * 7919).toString(16) + 'ff',
  'UPI-31',
  'upi-1240',
  '0xwallet3',
  'nothing-here',
  'MR-a-',
  '1a2b3c4d'
]

describe('the gram index', () => {
  it('a new profile searches long texts through it at once, finding a text anywhere in the merchant reference, reference id or hash, in any case', () => {
    store = openLocalStore(dir)
    expect(gramsReady(store.database.sql)).toBe(true)
    fill(store, 60)
    for (const type of [1, 2] as const)
      for (const text of LONG) {
        if ([...text].length < GRAM_LENGTH) continue
        const { value, plans, statements } = withPlans(store.database.sql, () => found(store!, type, text))
        expect(value, text).toEqual(expected(store, type, text))
        // Driven by the index, each candidate sought by its row id: a LIMIT stops the read
        // (a list of every candidate built first would cost as many as a shared prefix has).
        for (const st of statements.filter((x) => /orders_grams_\d/.test(x.text))) {
          expect(st.plan, st.text).not.toContain('LIST SUBQUERY 1')
          expect(st.plan.join('\n'), st.text).toMatch(
            new RegExp(`SCAN orders_grams_${type} VIRTUAL TABLE[^\n]*\nSEARCH candidate USING INTEGER PRIMARY KEY`)
          )
        }
        expect(plans.join('\n'), text).toMatch(new RegExp(`orders_grams_${type} VIRTUAL TABLE`))
        expect(plans.join('\n'), text).not.toMatch(/orders_text_\d/)
      }
    // Not a sign of life only: most of these find orders, and the offramp orders hold no reference id.
    expect(LONG.filter((text) => [...text].length >= GRAM_LENGTH && found(store!, 1, text).length > 0).length).toBeGreaterThanOrEqual(5)
    expect(found(store, 1, 'upi-31')).toEqual(expected(store, 1, 'upi-31'))
    expect(found(store, 1, 'upi-31').length).toBeGreaterThan(0)
    expect(found(store, 2, 'upi-31')).toEqual([])
  })

  it('holds only a narrowing: an order holding every gram of a text but not the text is not found', () => {
    store = openLocalStore(dir)
    store.orders.applyHistoryPage({
      type: 1,
      fiatType: 1,
      records: [
        onramp({ orderId: 1, merchantRecognitionId: 'abcdef-ghijkl', referenceId: null, transactionHash: null }),
        onramp({ orderId: 2, merchantRecognitionId: 'xxABCDEFGHIJKLxx', referenceId: null, transactionHash: null }),
        onramp({ orderId: 3, merchantRecognitionId: 'Ωxyzxyzé', referenceId: null, transactionHash: null })
      ] as never
    })
    expect(found(store, 1, 'abcdefghijkl')).toEqual([2])
    // Beyond ASCII: the characters as they are (lower() folds ASCII only), the grams cut by code point.
    expect(found(store, 1, 'xyzxyzé')).toEqual([3])
    expect(found(store, 1, 'Ωxyzxy')).toEqual([3])
    expect(found(store, 1, 'ωxyzxy')).toEqual([])
  })

  it('follows an order whose texts change, and one deleted', () => {
    store = openLocalStore(dir)
    fill(store, 20)
    store.orders.applyHistoryPage({
      type: 1,
      fiatType: 1,
      records: [onramp({ orderId: 12, merchantRecognitionId: 'OLD-REFERENCE-12' })] as never
    })
    expect(found(store, 1, 'old-reference')).toEqual([12])
    const before = store.orders.get(1, 12)!
    store.orders.applyRecord(
      1,
      {
        ...before.record,
        merchantRecognitionId: 'NEW-REFERENCE-9',
        updatedAt: new Date(Date.parse(before.updatedAt) + 1000).toISOString()
      } as never,
      'webhook'
    )
    expect(found(store, 1, 'old-reference')).toEqual([])
    expect(found(store, 1, 'reference-9')).toEqual([12])
    // Out of the index too, not only left out by the test of each candidate.
    const inIndex = (text: string) =>
      store!.database.sql.all('SELECT rowid FROM orders_grams_1 WHERE orders_grams_1 MATCH ?', gramQuery(text)).length
    expect(inIndex('old-reference')).toBe(0)
    expect(inIndex('new-reference')).toBe(1)
    store.database.sql.run('DELETE FROM orders WHERE type = 1 AND order_id = 12')
    expect(found(store, 1, 'reference-9')).toEqual([])
    expect(store.database.sql.value('SELECT COUNT(*) FROM orders_grams_1 WHERE rowid NOT IN (SELECT id FROM orders)')).toBe(0)
  })

  it("an upgraded profile's orders are added in steps; every long text is found before, between and after them, through writes", () => {
    store = openLocalStore(dir)
    fill(store, 80)
    store.close()
    undoGramsMigration(dir)
    store = openLocalStore(dir)
    const sql = store.database.sql
    // Every order held is still to be added; searches take the trigram index until then.
    expect(gramsReady(sql)).toBe(false)
    expect(sql.value('SELECT COUNT(*) FROM orders_grams_1') ?? 0).toBe(0)
    const check = (): void => {
      for (const type of [1, 2] as const)
        for (const text of LONG) expect(found(store!, type, text), `${type} ${text}`).toEqual(expected(store!, type, text))
    }
    const { plans } = withPlans(sql, () => found(store!, 1, 'MR-a-12'))
    expect(plans.join('\n')).toMatch(/orders_text_1 VIRTUAL TABLE/)
    expect(plans.join('\n')).not.toMatch(/orders_grams_\d/)
    check()
    let steps = 0
    let lowIds = 0
    let nextId = 1000
    for (;;) {
      const r = fillGramsStep(sql, 17)
      if (r.done) break
      steps++
      // Writes between steps: a new order (indexed by its trigger), an older one's texts
      // changed before or after its step, one deleted.
      store.orders.applyHistoryPage({
        type: 1,
        fiatType: 1,
        records: [onramp({ orderId: nextId++, merchantRecognitionId: `MR-a-12${steps}` })] as never
      })
      const old = store.orders.get(1, 80 - steps * 3)!
      store.orders.applyRecord(
        1,
        {
          ...old.record,
          transactionHash: `0x1a2b3c4d${steps}`,
          updatedAt: new Date(Date.parse(old.updatedAt) + 1000).toISOString()
        } as never,
        'webhook'
      )
      // An order written under a row id below the fill's start (ids are reused once the
      // highest is deleted, and the sandbox's orders are forgotten whole before each run).
      const freed = sql.value<number>('SELECT id FROM orders WHERE type = 2 AND order_id = ?', steps * 5)
      sql.run('DELETE FROM orders WHERE type = 2 AND order_id = ?', steps * 5)
      if (freed !== undefined && freed <= (sql.value<number>('SELECT through_id FROM orders_grams_fill') ?? 0)) {
        const columns = sql.all<{ name: string }>('PRAGMA table_info(orders)').map((c) => c.name)
        const values = columns.map((c) =>
          c === 'id' ? '?' : c === 'order_id' ? `order_id + 9000` : c === 'merchant_recognition_id' ? `'LOW-ID-REF-' || order_id` : c
        )
        sql.run(
          `INSERT INTO orders (${columns.join(', ')}) SELECT ${values.join(', ')} FROM orders WHERE type = 2 AND order_id = ?`,
          freed,
          80 - steps
        )
        lowIds++
      }
      check()
    }
    // 160 orders held (and those written meanwhile, some of them below the fill's start), 17 a step.
    expect(steps).toBeGreaterThanOrEqual(10)
    expect(lowIds).toBeGreaterThanOrEqual(3)
    expect(found(store, 2, 'low-id-ref').length).toBe(lowIds)
    expect(gramsReady(sql)).toBe(true)
    const { plans: after } = withPlans(sql, () => found(store!, 1, 'MR-a-12'))
    expect(after.join('\n')).toMatch(/orders_grams_1 VIRTUAL TABLE/)
    check()
    expect(found(store, 1, '1a2b3c4d').length).toBeGreaterThan(5)
    // Every order holding a text of six characters is in the index once, none that is gone.
    for (const type of [1, 2])
      expect(sql.value(`SELECT COUNT(*) FROM orders_grams_${type}`)).toBe(
        sql.value(
          `SELECT COUNT(*) FROM orders WHERE type = ? AND (length(merchant_recognition_id) >= 6 OR length(reference_id) >= 6 OR length(transaction_hash) >= 6)`,
          type
        )
      )
    expect(fillGramsStep(sql, 17)).toEqual({ looked: 0, done: true })
  })
})
