// The per-profile SQLite database: opening it with the pragmas Rampdesk relies on,
// applying migrations, and a small typed wrapper over libsql's better-sqlite3 API that
// smooths over libsql's differences (rows from get() carry a `_metadata` key, pluck()
// is ignored by get(), no nested transactions, and binding an object with a missing
// named parameter aborts the process, so this wrapper binds positional parameters only).
import Database from 'libsql'
import { existsSync, mkdirSync, renameSync } from 'node:fs'
import { join } from 'node:path'
import { applyMigrations } from './migrations'

/** Values SQLite can bind. `undefined` is bound as NULL. */
export type SqlValue = string | number | bigint | null | undefined | Buffer

export interface RunResult {
  changes: number
  lastInsertRowid: number | bigint
}

type Row = Record<string, unknown>

/** The name of the database file inside a profile's directory. */
export const DATABASE_FILE = 'rampdesk.db'

/** How long a statement waits for a lock held by another connection before SQLITE_BUSY. */
const BUSY_TIMEOUT_MS = 5000

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

export interface ProfileDatabase {
  readonly sql: Sql
  readonly path: string
  /** Schema version after migrations. */
  readonly schemaVersion: number
  /** Where an unreadable database file was moved before a fresh one was created, or null. */
  readonly recoveredFrom: string | null
  /** PRAGMA integrity_check; 'ok' when the file is sound. */
  integrityCheck(): string
  close(): void
}

export interface OpenDatabaseOptions {
  /**
   * What to do with a file SQLite cannot read (not a database, or damaged): 'moveAside'
   * (default) renames it, with its -wal and -shm files, to rampdesk.db.corrupt-<time> and
   * starts a fresh database, so the app still starts and the file is kept for support;
   * 'throw' leaves it alone.
   */
  onCorrupt?: 'moveAside' | 'throw'
  now?: () => Date
}

/**
 * Opens (creating if needed) the database of one profile in `dir` and brings its schema
 * up to date. Throws if the file was written by a newer Rampdesk (unknown migrations).
 */
export function openProfileDatabase(dir: string, opts: OpenDatabaseOptions = {}): ProfileDatabase {
  mkdirSync(dir, { recursive: true, mode: 0o700 })
  const path = join(dir, DATABASE_FILE)
  try {
    return openAt(path, null)
  } catch (err) {
    if (!isCorruption(err) || opts.onCorrupt === 'throw') throw err
    const aside = `${path}.corrupt-${(opts.now?.() ?? new Date()).getTime()}`
    for (const suffix of ['', '-wal', '-shm']) {
      if (existsSync(path + suffix)) renameSync(path + suffix, aside + suffix)
    }
    return openAt(path, aside)
  }
}

function isCorruption(err: unknown): boolean {
  const code = (err as { code?: unknown }).code
  return code === 'SQLITE_NOTADB' || code === 'SQLITE_CORRUPT'
}

function openAt(path: string, recoveredFrom: string | null): ProfileDatabase {
  const raw = new Database(path)
  const sql = new Sql(raw)
  try {
    configure(sql)
    const schemaVersion = applyMigrations(sql)
    return {
      sql,
      path,
      schemaVersion,
      recoveredFrom,
      integrityCheck: () => {
        const rows = sql.all<{ integrity_check: string }>('PRAGMA integrity_check')
        return rows.map((r) => r.integrity_check).join('; ')
      },
      close: () => {
        try {
          // Refreshes the planner's statistics where they drifted; cheap, and what SQLite
          // recommends before closing a long-lived connection.
          if (raw.open) sql.exec('PRAGMA optimize')
        } catch {
          // A closing app must not fail on a statistics refresh.
        }
        sql.close()
      }
    }
  } catch (err) {
    sql.close()
    throw err
  }
}

function configure(sql: Sql): void {
  // WAL: readers never block the writer (the UI queries while sync writes), and a crash
  // can only lose whole transactions, never corrupt the file.
  const mode = sql.value<string>('PRAGMA journal_mode = WAL')
  if (mode !== 'wal') throw new Error(`could not switch the database to WAL mode (got ${String(mode)})`)
  // synchronous=NORMAL in WAL mode: a commit is durable once it is in the WAL file, which
  // survives the app being killed; only an OS crash or power loss can drop the last few
  // commits (the WAL is fsynced at checkpoints, not at every commit). The database stays
  // consistent either way, and since every synced page commits together with its sync
  // cursor, a lost commit only means re-fetching that page. FULL would fsync every commit
  // for no benefit here.
  sql.exec('PRAGMA synchronous = NORMAL')
  sql.exec('PRAGMA foreign_keys = ON')
  sql.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`)
  // 4 MB page cache. It was 32 MB, for 100,000-row window queries, but the file's pages
  // stay in the OS cache anyway, so a miss costs a read() and no disk. Measured over
  // 143,500 orders (the renderer bench's filters, searches and deep offsets, 342 queries):
  // 32 MB gave p50/p95 6.1/9.3 ms, 8 MB 7.1/11.4, 4 MB 7.1/11.9, 2 MB 7.2/12.0, while
  // 32 MB held ~30 MB more RSS once a first sync had filled it (the history bench's peak).
  // ~1-2 ms a query is not worth 30 MB in the main process; below 8 MB nothing changed.
  sql.exec('PRAGMA cache_size = -4096')
  sql.exec('PRAGMA temp_store = MEMORY')
}
