// A small typed wrapper over one libsql connection (libsql's better-sqlite3 API) that
// smooths over libsql's differences: rows from get() carry a `_metadata` key, pluck() is
// ignored by get(), there are no nested transactions, and binding an object with a
// missing named parameter aborts the process, so this wrapper binds positional
// parameters only.
import type Database from 'libsql'

/** Values SQLite can bind. `undefined` is bound as NULL. */
export type SqlValue = string | number | bigint | null | undefined | Buffer

export interface RunResult {
  changes: number
  lastInsertRowid: number | bigint
}

type Row = Record<string, unknown>

/**
 * A thin synchronous wrapper over one libsql connection. Statements are prepared once
 * and cached by their SQL text.
 */
export class Sql {
  private readonly statements = new Map<string, Database.Statement>()
  private readonly rawStatements = new Map<string, Database.Statement>()
  private depth = 0
  private savepointSeq = 0

  constructor(readonly raw: Database.Database) {}

  private stmt(sql: string): Database.Statement {
    let s = this.statements.get(sql)
    if (!s) {
      s = this.raw.prepare(sql)
      this.statements.set(sql, s)
    }
    return s
  }

  /** The first row, or undefined. */
  get<T extends object = Row>(sql: string, ...params: SqlValue[]): T | undefined {
    const row = this.stmt(sql).get(...params) as (Row & { _metadata?: unknown }) | undefined
    if (row === undefined || row === null) return undefined
    delete row._metadata
    return row as T
  }

  /** The first column of the first row, or undefined. */
  value<T = unknown>(sql: string, ...params: SqlValue[]): T | undefined {
    let s = this.rawStatements.get(sql)
    if (!s) {
      s = this.raw.prepare(sql).raw(true)
      this.rawStatements.set(sql, s)
    }
    const row = s.get(...params) as unknown[] | undefined
    return row === undefined || row === null ? undefined : (row[0] as T)
  }

  all<T extends object = Row>(sql: string, ...params: SqlValue[]): T[] {
    return this.stmt(sql).all(...params) as T[]
  }

  /**
   * Rows one at a time; the statement is not shared with the cache so iterations may nest.
   * Left before its end (a caller that stops reading: an abandoned export), the statement
   * is reset at once: libsql's iterator has no return(), and a statement stopped mid-way
   * keeps its read snapshot, which holds back every WAL checkpoint until garbage collection.
   * Running it again with get() resets it.
   */
  *iterate<T extends object = Row>(sql: string, ...params: SqlValue[]): Generator<T> {
    const s = this.raw.prepare(sql)
    let finished = false
    try {
      for (const row of s.iterate(...params)) yield row as T
      finished = true
    } finally {
      if (!finished) {
        try {
          s.get(...params)
        } catch {
          // A statement that cannot run again has nothing left to hold.
        }
      }
    }
  }

  run(sql: string, ...params: SqlValue[]): RunResult {
    const r = this.stmt(sql).run(...params)
    return { changes: r.changes, lastInsertRowid: r.lastInsertRowid }
  }

  exec(sql: string): void {
    this.raw.exec(sql)
  }

  get inTransaction(): boolean {
    return this.depth > 0
  }

  /**
   * A stamp that changes whenever the database may have changed: rows written by this
   * connection (total_changes, which also counts statements later rolled back) or a commit
   * by another one (data_version). A key for caching query results; null inside a
   * transaction, whose writes may yet be rolled back, so nothing is cached there.
   */
  writeStamp(): string | null {
    if (this.depth > 0) return null
    return `${this.value<number>('SELECT total_changes()')}:${this.value<number>('PRAGMA data_version')}`
  }

  /**
   * Runs fn in a transaction: BEGIN IMMEDIATE at the outermost level (takes the write
   * lock up front so two connections never deadlock upgrading a read lock), a savepoint
   * when nested. Everything fn wrote is rolled back if it throws. fn must be synchronous.
   */
  transaction<R>(fn: () => R): R {
    const outer = this.depth === 0
    const savepoint = outer ? '' : `sp_${++this.savepointSeq}`
    this.raw.exec(outer ? 'BEGIN IMMEDIATE' : `SAVEPOINT ${savepoint}`)
    this.depth++
    let result: R
    try {
      result = fn()
      if (result instanceof Promise) throw new TypeError('transaction functions must be synchronous')
    } catch (err) {
      this.depth--
      try {
        this.raw.exec(outer ? 'ROLLBACK' : `ROLLBACK TO ${savepoint}; RELEASE ${savepoint}`)
      } catch {
        // The original error matters more; SQLite may already have rolled back.
      }
      throw err
    }
    this.depth--
    if (outer) {
      try {
        this.raw.exec('COMMIT')
      } catch (err) {
        try {
          this.raw.exec('ROLLBACK')
        } catch {
          // already rolled back
        }
        throw err
      }
    } else {
      this.raw.exec(`RELEASE ${savepoint}`)
    }
    return result
  }

  close(): void {
    this.statements.clear()
    this.rawStatements.clear()
    if (this.raw.open) this.raw.close()
  }
}
