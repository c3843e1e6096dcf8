import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'libsql'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { DATABASE_FILE, openProfileDatabase, type ProfileDatabase } from '../../../../src/main/store/database'
import { Sql } from '../../../../src/main/store/sql'
import { applyMigrations, migrations } from '../../../../src/main/store/migrations'
import { OrdersRepo } from '../../../../src/main/store/orders-repo'
import { SyncCursorsRepo } from '../../../../src/main/store/sync-cursors-repo'
import { UnreadableOrdersRepo } from '../../../../src/main/store/unreadable-orders-repo'
import { toContractRow } from '../../../../src/main/order-rows'

let dir: string
let db: ProfileDatabase | null = null

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rampdesk-db-'))
})
afterEach(() => {
  db?.close()
  db = null
  rmSync(dir, { recursive: true, force: true })
})

/** A database in `dir` exactly as migrations 1 to `version` left it, open without the app's layer. */
function databaseAt(version: number): InstanceType<typeof Database> {
  mkdirSync(dir, { recursive: true })
  const raw = new Database(join(dir, DATABASE_FILE))
  expect(
    applyMigrations(
      new Sql(raw),
      migrations.filter((m) => m.version <= version)
    )
  ).toBe(version)
  return raw
}

describe('openProfileDatabase', () => {
  it('creates the file with WAL, synchronous=NORMAL, foreign keys and a busy timeout', () => {
    db = openProfileDatabase(join(dir, 'p1'))
    expect(db.path).toBe(join(dir, 'p1', DATABASE_FILE))
    const sql = db.sql
    expect(sql.value('PRAGMA journal_mode')).toBe('wal')
    expect(sql.value('PRAGMA synchronous')).toBe(1)
    expect(sql.value('PRAGMA foreign_keys')).toBe(1)
    expect(sql.value<number>('PRAGMA busy_timeout')).toBeGreaterThan(0)
    expect(db.integrityCheck()).toBe('ok')
  })

  it('records every migration once and reopens without reapplying', () => {
    db = openProfileDatabase(dir)
    const latest = Math.max(...migrations.map((m) => m.version))
    expect(db.schemaVersion).toBe(latest)
    db.sql.run("INSERT INTO settings (key, json, updated_at) VALUES ('k', '1', 'now')")
    db.close()
    db = openProfileDatabase(dir)
    expect(db.sql.value('SELECT COUNT(*) FROM schema_migrations')).toBe(migrations.length)
    expect(db.sql.value("SELECT json FROM settings WHERE key = 'k'")).toBe('1')
    const tables = db.sql.all<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").map((t) => t.name)
    for (const t of [
      'orders',
      'order_events',
      'sync_cursors',
      'sync_cursor_ids',
      'watches',
      'config_cache',
      'ticker_history',
      'webhook_deliveries',
      'audit_log',
      'settings'
    ]) {
      expect(tables).toContain(t)
    }
  })

  it('upgrades a database of an older schema in place, keeping its data', () => {
    // A database exactly as version 1 of the schema left it.
    mkdirSync(dir, { recursive: true })
    const raw = new Database(join(dir, DATABASE_FILE))
    const v1 = migrations.find((m) => m.version === 1)!
    raw.exec(v1.sql)
    raw.exec('CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)')
    raw.exec(`INSERT INTO schema_migrations (version, name, applied_at) VALUES (1, '${v1.name}', '2024-01-01T00:00:00.000Z')`)
    raw.exec("INSERT INTO sync_cursors (type, fiat_type, cursor) VALUES (1, 1, '2024-01-01T00:00:00.000Z')")
    raw.exec(`INSERT INTO orders (type, order_id, status, coin_id, chain_id, created_at, updated_at, wallet_address, record_json,
      content_hash, first_seen_at, last_changed_at) VALUES (2, 9, 0, 1, 1, 'x', 'x', '0xAbCdEf0123', '{}', 'h', 'x', 'x')`)
    raw.exec('INSERT INTO sync_cursor_ids (type, fiat_type, order_id) VALUES (1, 1, 7)')
    raw.exec(`INSERT INTO webhook_deliveries (received_at, last_received_at, headers_json, body, verified, dedupe_key)
      VALUES ('2024-01-01T00:00:00.000Z', '2024-01-01T00:00:00.000Z', '{}', '{"orderId":1}', 1, 'k1')`)
    raw.close()
    db = openProfileDatabase(dir)
    expect(db.schemaVersion).toBe(Math.max(...migrations.map((m) => m.version)))
    expect(db.sql.get('SELECT cursor, repair_from, last_reconcile_at FROM sync_cursors')).toEqual({
      cursor: '2024-01-01T00:00:00.000Z',
      repair_from: null,
      last_reconcile_at: null
    })
    // Ids read before positions were kept have none: the sync treats their run as unknown.
    expect(db.sql.get('SELECT order_id, position FROM sync_cursor_ids')).toEqual({ order_id: 7, position: null })
    expect(db.sql.value('SELECT COUNT(*) FROM service_facts')).toBe(0)
    // Orders stored before the search index existed are in it, under their type.
    expect(db.sql.all(`SELECT rowid FROM orders_text_2 WHERE orders_text_2 MATCH '"cdef01"'`)).toEqual([{ rowid: 1 }])
    expect(db.sql.value(`SELECT COUNT(*) FROM orders_text_1`)).toBe(0)
    expect(db.sql.get('SELECT body, payload_form, notes_json FROM webhook_deliveries')).toEqual({
      body: '{"orderId":1}',
      payload_form: null,
      notes_json: '[]'
    })
  })

  it("upgrades a database main's schema 5 left (search index and all) to status confirmations, keeping the index whole", () => {
    // A database exactly as migrations 1 to 5 (the substring search index) left it.
    const raw = databaseAt(5)
    const order = (type: number, id: number, status: number, source: string, changed: string) =>
      raw.exec(`INSERT INTO orders (type, order_id, status, status_source, coin_id, chain_id, created_at, updated_at,
        wallet_address, record_json, content_hash, first_seen_at, last_changed_at)
        VALUES (${type}, ${id}, ${status}, '${source}', 1, 1, 'x', 'x', '0xWallet${id}Tail', '{}', 'h', 'x', '${changed}')`)
    order(1, 7, 0, 'sync', '2025-01-01T00:00:00.000Z')
    order(2, 7, 1, 'watch', '2025-01-02T00:00:00.000Z')
    order(1, 8, 5, 'webhook', '2025-01-03T00:00:00.000Z')
    raw.close()

    db = openProfileDatabase(dir)
    expect(db.schemaVersion).toBe(Math.max(...migrations.map((m) => m.version)))
    expect(db.sql.value('SELECT name FROM schema_migrations WHERE version = 6')).toBe('status confirmations')
    // Each order's status counts as confirmed when it last changed, by what changed it.
    expect(
      db.sql.all('SELECT type, order_id, status_confirmed_at AS at, status_confirmed_by AS by FROM orders ORDER BY type, order_id')
    ).toEqual([
      { type: 1, order_id: 7, at: '2025-01-01T00:00:00.000Z', by: 'history' },
      { type: 1, order_id: 8, at: '2025-01-03T00:00:00.000Z', by: 'webhook' },
      { type: 2, order_id: 7, at: '2025-01-02T00:00:00.000Z', by: 'orderStatus' }
    ])
    // The wallets of schema 5's orders are in the distinct wallets' index (migration 14), which follows the orders.
    const found = (type: number, text: string) =>
      db!.sql.all(
        'SELECT w.wallet FROM order_wallets w WHERE w.type = ? AND w.id IN (SELECT rowid FROM order_wallets_text WHERE order_wallets_text MATCH ?)',
        type,
        `"${text}"`
      ).length
    expect(found(1, 'wallet7tail')).toBe(1)
    expect(found(2, 'wallet7tail')).toBe(1)
    // The per-order index of schema 5 held the wallets too: an order whose wallet changes is no longer found there by the old one.
    const inOrderIndex = (type: number, text: string) =>
      db!.sql.all(`SELECT rowid FROM orders_text_${type} WHERE orders_text_${type} MATCH ?`, `"${text}"`).length
    expect(inOrderIndex(1, 'wallet7tail')).toBe(1)
    db.sql.run("UPDATE orders SET wallet_address = '0xOther', status_confirmed_by = 'orderStatus' WHERE type = 1 AND order_id = 7")
    expect(found(1, 'wallet7tail')).toBe(0)
    expect(found(1, 'other')).toBe(1)
    expect(inOrderIndex(1, 'wallet7tail')).toBe(0)
    expect(db.integrityCheck()).toBe('ok')
  })

  it('upgrades a database of schema 6 to status checks: orders never asked, queued by their confirmation', () => {
    const raw = databaseAt(6)
    const order = (id: number, confirmed: string) =>
      raw.exec(`INSERT INTO orders (type, order_id, status, status_source, coin_id, chain_id, created_at, updated_at,
        wallet_address, record_json, content_hash, first_seen_at, last_changed_at, status_confirmed_at, status_confirmed_by)
        VALUES (1, ${id}, 0, 'sync', 1, 1, 'x', 'x', '0x${id}', '{}', 'h', 'x', 'x', '${confirmed}', 'history')`)
    order(7, '2025-01-02T00:00:00.000Z')
    order(8, '2025-01-01T00:00:00.000Z')
    raw.close()

    db = openProfileDatabase(dir)
    expect(db.sql.value('SELECT name FROM schema_migrations WHERE version = 7')).toBe('status checks')
    expect(db.sql.all('SELECT order_id, status_checked_at AS at, status_check_failures AS n FROM orders ORDER BY order_id')).toEqual([
      { order_id: 7, at: null, n: 0 },
      { order_id: 8, at: null, n: 0 }
    ])
    const orders = new OrdersRepo(
      db.sql,
      () => new Date('2025-01-03T00:00:00.000Z'),
      new SyncCursorsRepo(db.sql),
      new UnreadableOrdersRepo(db.sql, '0.0.0')
    )
    const due = () => orders.unconfirmedOpen('2025-01-05T00:00:00.000Z', 10).map((d) => d.orderId)
    expect(due()).toEqual([8, 7])
    // A failed request sends the order behind the other; three in a row make it one that cannot be confirmed.
    for (let i = 0; i < 3; i++) orders.noteStatusCheck(1, 8, false)
    expect(due()).toEqual([7, 8])
    expect(orders.openSummary('2025-01-05T00:00:00.000Z', 3)).toMatchObject({ open: 2, unconfirmed: 2, unconfirmable: 1 })
    // The order's row says so too (the order detail's "cannot be confirmed"), with when it was last asked.
    const shown = (id: number) => {
      const r = toContractRow(orders.get(1, id)!, false)
      return { failures: r.statusCheckFailures, checkedAt: r.statusCheckedAt, confirmedAt: r.statusConfirmedAt }
    }
    expect(shown(8)).toEqual({
      failures: 3,
      checkedAt: Date.parse('2025-01-03T00:00:00.000Z'),
      confirmedAt: Date.parse('2025-01-01T00:00:00.000Z')
    })
    expect(shown(7)).toMatchObject({ failures: 0, checkedAt: null })
    // Confirmed since (a webhook, a history answer): the failures no longer stand.
    orders.applyStatus(1, 8, 0, 'watch', '2025-01-04T00:00:00.000Z')
    expect(shown(8)).toMatchObject({ failures: 0, confirmedAt: Date.parse('2025-01-04T00:00:00.000Z') })
    expect(db.integrityCheck()).toBe('ok')
  })

  it('upgrades a database of schema 8 to noting how a webhook status was matched: statuses from before give way to history', () => {
    const raw = databaseAt(8)
    const record = JSON.stringify({ orderId: 9, coinId: 1, chainId: 1, createdAt: 'x', updatedAt: 'x', status: 4 })
    raw.exec(`INSERT INTO orders (type, order_id, status, status_source, coin_id, chain_id, created_at, updated_at,
      record_json, content_hash, first_seen_at, last_changed_at)
      VALUES (1, 9, 4, 'webhook', 1, 1, 'x', 'x', '${record}', 'h', 'x', 'x')`)
    raw.close()

    db = openProfileDatabase(dir)
    expect(db.sql.value('SELECT name FROM schema_migrations WHERE version = 10')).toBe('how a webhook status was matched to its order')
    expect(db.sql.value('SELECT webhook_match FROM orders WHERE order_id = 9')).toBeNull()
    const orders = new OrdersRepo(db.sql, () => new Date(), new SyncCursorsRepo(db.sql), new UnreadableOrdersRepo(db.sql, '0.0.0'))
    // Whether that webhook was checked against the order is not known: the service's record of equal updatedAt stands.
    orders.applyRecord(1, { ...JSON.parse(record), status: 2 }, 'sync')
    expect(orders.get(1, 9)).toMatchObject({ status: 2, statusSource: 'sync' })
    expect(() => db!.sql.run("UPDATE orders SET webhook_match = 'maybe'")).toThrow(/CHECK/)
  })

  it('moves an unreadable file aside and starts fresh, or throws when asked to', () => {
    mkdirSync(dir, { recursive: true })
    const junk = 'not a database, just text '.repeat(40)
    writeFileSync(join(dir, DATABASE_FILE), junk)
    expect(() => openProfileDatabase(dir, { onCorrupt: 'throw' })).toThrow(/not a database/)
    expect(readFileSync(join(dir, DATABASE_FILE), 'utf8')).toBe(junk)

    db = openProfileDatabase(dir, { now: () => new Date(1_700_000_000_000) })
    const aside = join(dir, `${DATABASE_FILE}.corrupt-1700000000000`)
    expect(db.recoveredFrom).toBe(aside)
    expect(readFileSync(aside, 'utf8')).toBe(junk)
    expect(db.integrityCheck()).toBe('ok')
    expect(readdirSync(dir).filter((f) => f.includes('.corrupt-'))).toEqual([`${DATABASE_FILE}.corrupt-1700000000000`])
    db.close()
    db = openProfileDatabase(dir)
    expect(db.recoveredFrom).toBeNull()
  })

  it('refuses a database written by a newer schema', () => {
    db = openProfileDatabase(dir)
    db.sql.run("INSERT INTO schema_migrations (version, name, applied_at) VALUES (999, 'future', 'x')")
    db.close()
    db = null
    expect(() => openProfileDatabase(dir)).toThrow(/newer than this Rampdesk/)
  })

  it('applies a migration below the newest recorded that is not recorded (9 landing after 10)', () => {
    mkdirSync(dir, { recursive: true })
    const raw = new Database(join(dir, DATABASE_FILE))
    expect(
      applyMigrations(
        new Sql(raw),
        // As main had them between the two landings: up to 10, without 9.
        migrations.filter((m) => m.version !== 9 && m.version <= 10)
      )
    ).toBe(10)
    expect(new Sql(raw).value<number>("SELECT COUNT(*) FROM pragma_table_info('orders') WHERE name = 'gone_at'")).toBe(0)
    raw.close()
    db = openProfileDatabase(dir)
    expect(db.sql.value<number>("SELECT COUNT(*) FROM pragma_table_info('orders') WHERE name = 'gone_at'")).toBe(1)
    expect(db.sql.all<{ version: number }>('SELECT version FROM schema_migrations ORDER BY version').map((r) => r.version)).toEqual(
      migrations.map((m) => m.version).sort((a, b) => a - b)
    )
  })

  it('applies pending migrations in one transaction: a failing one leaves none applied', () => {
    db = openProfileDatabase(dir)
    const extra = [
      ...migrations,
      { version: 100, name: 'good', sql: 'CREATE TABLE m100 (x)' },
      { version: 101, name: 'bad', sql: 'CREATE TABLE m101 (x); THIS IS NOT SQL' }
    ]
    expect(() => applyMigrations(db!.sql, extra)).toThrow()
    expect(db.sql.value("SELECT COUNT(*) FROM sqlite_master WHERE name = 'm100'")).toBe(0)
    expect(db.sql.value('SELECT MAX(version) FROM schema_migrations')).toBe(db.schemaVersion)
    expect(applyMigrations(db.sql, extra.slice(0, -1))).toBe(100)
    expect(db.sql.value("SELECT COUNT(*) FROM sqlite_master WHERE name = 'm100'")).toBe(1)
  })
})

describe('Sql', () => {
  it('rolls back a transaction that throws, and nested savepoints independently', () => {
    db = openProfileDatabase(dir)
    const { sql } = db
    const put = (k: string) => sql.run('INSERT INTO settings (key, json, updated_at) VALUES (?, ?, ?)', k, '1', 'now')
    expect(() =>
      sql.transaction(() => {
        put('a')
        throw new Error('boom')
      })
    ).toThrow('boom')
    expect(sql.value("SELECT COUNT(*) FROM settings WHERE key = 'a'")).toBe(0)

    sql.transaction(() => {
      put('outer')
      expect(() =>
        sql.transaction(() => {
          put('inner')
          throw new Error('inner fails')
        })
      ).toThrow('inner fails')
      sql.transaction(() => put('inner2'))
    })
    const keys = sql.all<{ key: string }>('SELECT key FROM settings ORDER BY key').map((r) => r.key)
    expect(keys).toEqual(['inner2', 'outer'])
    expect(sql.inTransaction).toBe(false)
  })

  it('an iteration left before its end lets go of its read snapshot at once (WAL checkpoints are not held back)', () => {
    db = openProfileDatabase(dir)
    const sql = db.sql
    sql.transaction(() => {
      for (let i = 0; i < 500; i++) sql.run("INSERT INTO settings (key, json, updated_at) VALUES (?, '1', 'now')", `k${i}`)
    })
    const other = new Database(db.path)
    try {
      const checkpointBusy = () => (other.prepare('PRAGMA wal_checkpoint(TRUNCATE)').get() as { busy: number }).busy
      const rows = sql.iterate<{ key: string }>('SELECT key FROM settings ORDER BY key')
      expect(rows.next().value).toMatchObject({ key: 'k0' })
      other.prepare("INSERT INTO settings (key, json, updated_at) VALUES ('late', '1', 'now')").run()
      expect(checkpointBusy()).toBe(1)
      rows.return(undefined)
      other.prepare("INSERT INTO settings (key, json, updated_at) VALUES ('later', '1', 'now')").run()
      expect(checkpointBusy()).toBe(0)
    } finally {
      other.close()
    }
  })

  it('returns rows without libsql metadata and binds undefined as NULL', () => {
    db = openProfileDatabase(dir)
    const row = db.sql.get('SELECT 1 AS a, NULL AS b')
    expect(row).toEqual({ a: 1, b: null })
    db.sql.run('INSERT INTO audit_log (at, action, detail_json) VALUES (?, ?, ?)', 'now', 'x', '{}')
    expect(db.sql.value('SELECT ? IS NULL', undefined)).toBe(1)
    expect(db.sql.get('SELECT * FROM audit_log WHERE id = -1')).toBeUndefined()
  })

  it('enforces foreign keys (an event needs its order)', () => {
    db = openProfileDatabase(dir)
    expect(() => db!.sql.run("INSERT INTO order_events (type, order_id, at, new_status, source) VALUES (1, 42, 'now', 0, 'sync')")).toThrow(
      /FOREIGN KEY/i
    )
  })
})
