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
  /** Whether each statement run so far writes (see step()). */
  private readonly writing = new Map<string, boolean>()
  private depth = 0
  private savepointSeq = 0

  /**
   * `writesInOwnTransaction`: for a connection to a file other processes write too (the hub's
   * hub.db, which its command line writes): see step(). The desktop's profile database has one
   * writer, this connection, so no statement of it meets another's lock, and the two statements
   * more per write would cost a sync about a tenth of its time.
   */
  constructor(
    readonly raw: Database.Database,
    private readonly o: { writesInOwnTransaction?: boolean } = {}
  ) {}

  private stmt(sql: string): Database.Statement {
    let s = this.statements.get(sql)
    if (!s) {
      s = this.raw.prepare(sql)
      this.statements.set(sql, s)
    }
    return s
  }

  /**
   * Runs a statement; one that writes, outside a transaction, runs in one of its own on a
   * connection that asked for it.
   *
   * libsql does not reset a statement that failed with "database is locked" (another
   * process held the write lock longer than the busy timeout): it stays active, and the
   * connection's next write, though it succeeds, is then never committed and keeps the
   * write lock, so every other connection is locked out until that one statement runs
   * again (a sweep's write every fifteen seconds held a hub's webhook spool back that long).
   * BEGIN IMMEDIATE through exec fails cleanly instead, and once it holds the lock the
   * statement cannot meet another writer.
   */
  private step<R>(sql: string, s: Database.Statement, go: () => R): R {
    if (this.depth > 0 || !this.o.writesInOwnTransaction) return go()
    let w = this.writing.get(sql)
    if (w === undefined) this.writing.set(sql, (w = writes(sql, s)))
    return w ? this.transaction(go) : go()
  }

  /** The first row, or undefined. */
  get<T extends object = Row>(sql: string, ...params: SqlValue[]): T | undefined {
    const s = this.stmt(sql)
    const row = this.step(sql, s, () => s.get(...params)) as (Row & { _metadata?: unknown }) | undefined
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
    const raw = s
    const row = this.step(sql, raw, () => raw.get(...params)) as unknown[] | undefined
    return row === undefined || row === null ? undefined : (row[0] as T)
  }

  all<T extends object = Row>(sql: string, ...params: SqlValue[]): T[] {
    const s = this.stmt(sql)
    return this.step(sql, s, () => s.all(...params)) as T[]
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
    const s = this.stmt(sql)
    const r = this.step(sql, s, () => s.run(...params))
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
    this.writing.clear()
    if (this.raw.open) this.raw.close()
  }
}

const WRITE_VERB = /^\s*(?:INSERT|UPDATE|DELETE|REPLACE|CREATE|DROP|ALTER)\b/i

/** Whether a statement may write: by its verb, or a common table expression's statement that returns no rows or returns what it wrote. */
function writes(sql: string, s: Database.Statement): boolean {
  if (WRITE_VERB.test(sql)) return true
  return /^\s*WITH\b/i.test(sql) && (!s.reader || /\bRETURNING\b/i.test(sql))
}
