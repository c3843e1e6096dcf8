// A follower hub copies the leader's order rows into its own order database. A leader of a
// newer version sends columns this hub does not have yet (a rolling upgrade): the row is
// copied without them, not refused every round.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { upsertOrder } from '../../../../src/hub/pg/pg-order-feed'
import { openLocalStore, type LocalStore } from '../../../../src/main/store/local-store'
import { onramp } from '../../main/store/order-fixtures'

let dir: string
let store: LocalStore

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rampdesk-feed-'))
  store = openLocalStore(dir)
})
afterEach(() => {
  store.close()
  rmSync(dir, { recursive: true, force: true })
})

describe('upsertOrder (a leader row onto this hub)', () => {
  it("copies a row with a column this hub's orders table lacks, leaving that column out", () => {
    store.orders.applyHistoryPage({ type: 1, fiatType: 1, records: [onramp({ orderId: 7, status: 0 })] as never })
    const { id: _id, ...row } = store.database.sql.get<Record<string, string | number | null>>('SELECT * FROM orders WHERE order_id = 7')!
    upsertOrder(store.database.sql, { ...row, status: 4, a_column_of_a_newer_hub: 'x' })
    expect(store.orders.get(1, 7)!.status).toBe(4)
    upsertOrder(store.database.sql, { ...row, order_id: 8, a_column_of_a_newer_hub: 'x' })
    expect(store.orders.get(1, 8)).toBeDefined()
  })
})
