// The Sql wrapper on a file two connections share, as the hub's hub.db is shared with its
// command line (writesInOwnTransaction): a write that met the other's lock must not leave this
// connection holding it.
import Database from 'libsql'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { Sql } from '../../../../src/main/store/sql'

let dir: string
let file: string
let sql: Sql

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rampdesk-sql-'))
  file = join(dir, 'shared.db')
  sql = new Sql(new Database(file), { writesInOwnTransaction: true })
  sql.exec('PRAGMA journal_mode = WAL')
  sql.exec('PRAGMA busy_timeout = 50')
  sql.exec('CREATE TABLE t (x INTEGER)')
  sql.exec('INSERT INTO t VALUES (1), (2)')
})
afterEach(() => {
  sql.close()
  rmSync(dir, { recursive: true, force: true })
})

/** Another process's write transaction, held until released. */
function holdWriteLock(): () => void {
  const other = new Database(file)
  other.exec('BEGIN IMMEDIATE')
  return () => {
    other.exec('ROLLBACK')
    other.close()
  }
}

/** Whether a third connection can take the write lock right now. */
function lockIsFree(): boolean {
  const probe = new Database(file)
  probe.exec('PRAGMA busy_timeout = 0')
  try {
    probe.exec('BEGIN IMMEDIATE')
    probe.exec('ROLLBACK')
    return true
  } catch {
    return false
  } finally {
    probe.close()
  }
}

describe("a write that meets another connection's lock", () => {
  const failedWrites: Array<[string, () => unknown]> = [
    ['run', () => sql.run('DELETE FROM t WHERE x > ?', 100)],
    ['get with RETURNING', () => sql.get('UPDATE t SET x = x WHERE x > ? RETURNING x', 100)],
    ['value with RETURNING', () => sql.value('DELETE FROM t WHERE x > ? RETURNING x', 100)],
    [
      'all of a common table expression',
      () => sql.all('WITH big AS (SELECT 100 AS n) DELETE FROM t WHERE x > (SELECT n FROM big) RETURNING x')
    ]
  ]
  for (const [how, write] of failedWrites)
    it(`(${how}) fails, and leaves the lock free once the other lets go, after this connection writes again`, () => {
      const release = holdWriteLock()
      try {
        expect(write).toThrow(/database is locked/)
      } finally {
        release()
      }
      sql.run('INSERT INTO t VALUES (?)', 3)
      expect(lockIsFree()).toBe(true)
      expect(sql.value<number>('SELECT COUNT(*) FROM t')).toBe(3)
      // And what this connection wrote is committed: another connection reads it.
      const reader = new Database(file, { readonly: true })
      expect((reader.prepare('SELECT COUNT(*) AS n FROM t').get() as { n: number }).n).toBe(3)
      reader.close()
    })

  it('leaves reads outside a transaction as they were: they do not take the write lock', () => {
    const release = holdWriteLock()
    try {
      expect(sql.all<{ x: number }>('SELECT x FROM t ORDER BY x').map((r) => r.x)).toEqual([1, 2])
      expect(sql.value<number>('SELECT COUNT(*) FROM t')).toBe(2)
    } finally {
      release()
    }
  })

  it('inside a transaction is part of it: rolled back with it', () => {
    expect(() =>
      sql.transaction(() => {
        sql.run('INSERT INTO t VALUES (?)', 9)
        throw new Error('no')
      })
    ).toThrow('no')
    expect(sql.value<number>('SELECT COUNT(*) FROM t')).toBe(2)
    expect(lockIsFree()).toBe(true)
  })
})
