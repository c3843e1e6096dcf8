// The per-profile SQLite database: opening it with the pragmas Rampdesk relies on and
// applying migrations. Statements go through the Sql wrapper (sql.ts).
import Database from 'libsql'
import { existsSync, mkdirSync, renameSync } from 'node:fs'
import { join } from 'node:path'
import { applyMigrations } from './migrations'
import { Sql } from './sql'

/** The name of the database file inside a profile's directory. */
export const DATABASE_FILE = 'rampdesk.db'

/** How long a statement waits for a lock held by another connection before SQLITE_BUSY. */
const BUSY_TIMEOUT_MS = 5000

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
  // 16 MB page cache: it holds the interior pages of the orders table and its indexes at a
  // million orders (over a thousand of the table's alone), so each of a window's 100 rows,
  // scattered over the file, costs one read of its leaf page. With 4 MB, enough at 143,500
  // orders (the renderer bench's 342 queries: 32 MB gave p50/p95 6.1/9.3 ms, 8 MB 7.1/11.4,
  // 4 MB 7.1/11.9, 2 MB 7.2/12.0), a wallet's window at 1,000,000 read those pages again
  // from the OS: 2.1-4.0 ms against 1.0-1.5 with 16 MB (the scale bench's statements,
  // timed), and the searches' p95 was 1.6x the 100,000 figure instead of 1.5x. 32 MB held
  // ~30 MB more RSS after a first sync (the history bench's peak); 16 MB, about 12 MB more.
  sql.exec('PRAGMA cache_size = -16384')
  sql.exec('PRAGMA temp_store = MEMORY')
}
