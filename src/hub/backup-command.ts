// `npm run hub -- backup DIR` and `npm run hub -- restore DIR --data-dir D`.
//
// Backup is online: the hub may run and write meanwhile. Each SQLite database (hub.db, and
// the order database store/rampdesk.db) is copied with `VACUUM INTO` from a read-only
// connection, which reads one snapshot in one read transaction (WAL mode lets the hub go on
// writing), so each copy is consistent on its own; the two are taken one after the other, a
// moment apart. Each copy is checked (PRAGMA integrity_check) and counted, and a manifest
// says what the backup holds. Nothing is written over: DIR must be new or empty.
//
// Restore goes into a data directory that holds no hub yet (never under a running hub): it
// checks the backup again, copies it in, and opens it as the hub would (migrating a backup
// of an older hub). A desktop that reconnects to the restored hub naming an event id it
// never gave is sent `resync` (event-stream.ts) and reads its views again.
import { SECOND_FACTOR_KEY_FILE } from './second-factor-key'
import Database from 'libsql'
import { chmodSync, copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { DATABASE_FILE, openProfileDatabase } from '../main/store/database'
import { Sql } from '../main/store/sql'
import { InputError, UsageError } from './cli-errors'
import { HUB_DATABASE_FILE, openHubDatabase } from './hub-db'
import { dataDirOf, type CliIo } from './hub-paths'
import type { StoreKind } from './hub-store'
import { DATA_DIR_OPTION, DATABASE_OPTIONS, resolveOptions } from './cli-options'
import { databaseOf } from './database-option'
import { displayUrl, type PgTarget } from './pg/pg-connection'
import { backupPostgres, pgRestoreCommand } from './pg/pg-backup'
import pkg from '../../package.json' with { type: 'json' }

export const MANIFEST_FILE = 'manifest.json'
const MANIFEST_FORMAT = 'rampdesk-hub-backup'
const STORE_DIR = 'store'
const SETTINGS_FILE = 'settings.json'
/** The webhook spool's directory in a data directory (hub.ts). */
export const SPOOL_DIR = 'webhook-spool'

export interface BackupCounts {
  operators: number
  audit: number
  pins: number
  orders: number
  orderEvents: number
}

export interface BackupManifest {
  format: typeof MANIFEST_FORMAT
  version: 1
  store: StoreKind
  createdAt: string
  hubVersion: string
  /** hub.db's schema version and the order database's. */
  hubSchema: number
  orderSchema: number
  counts: BackupCounts
  files: string[]
}

/** The files of a SQLite data directory a backup holds, relative to it. */
const DATABASES = [HUB_DATABASE_FILE, join(STORE_DIR, DATABASE_FILE)] as const

/** A connection of its own to an existing database file (libsql has no read-only mode: nothing here writes). */
function openExisting(path: string): Sql {
  if (!existsSync(path)) throw new InputError(`${path} does not exist`)
  const sql = new Sql(new Database(path))
  // The running hub may hold a write lock a moment: wait for it rather than fail.
  sql.exec('PRAGMA busy_timeout = 5000')
  return sql
}

function integrity(sql: Sql, name: string): void {
  const result = sql
    .all<{ integrity_check: string }>('PRAGMA integrity_check')
    .map((r) => r.integrity_check)
    .join('; ')
  if (result !== 'ok') throw new Error(`${name} failed its integrity check: ${result.slice(0, 300)}`)
}

/** What a data directory's two databases hold, read from copies (or the originals). */
function countsOf(hubDb: Sql, orderDb: Sql): { counts: BackupCounts; hubSchema: number; orderSchema: number } {
  const n = (sql: Sql, q: string) => sql.value<number>(q) ?? 0
  return {
    counts: {
      operators: n(hubDb, 'SELECT COUNT(*) FROM operators WHERE revoked_at IS NULL'),
      audit: n(hubDb, 'SELECT COUNT(*) FROM audit'),
      pins: n(hubDb, 'SELECT COUNT(*) FROM operator_watches'),
      orders: n(orderDb, 'SELECT COUNT(*) FROM orders'),
      orderEvents: n(orderDb, 'SELECT COUNT(*) FROM order_events')
    },
    hubSchema: n(hubDb, 'PRAGMA user_version'),
    orderSchema: n(orderDb, 'SELECT COALESCE(MAX(version), 0) FROM schema_migrations')
  }
}

/** A short account of the counts, for the commands' last line. */
export function describeCounts(c: BackupCounts): string {
  const n = (count: number, one: string, many: string) => `${count.toLocaleString('en-US')} ${count === 1 ? one : many}`
  return `${n(c.operators, 'operator', 'operators')}, ${n(c.audit, 'audit entry', 'audit entries')}, ${n(c.pins, 'pin', 'pins')}, ${n(c.orders, 'order', 'orders')} (${n(c.orderEvents, 'order event', 'order events')})`
}

function emptyOrNew(dir: string, what: string): void {
  if (existsSync(dir) && (!statSync(dir).isDirectory() || readdirSync(dir).length > 0))
    throw new InputError(`${what} ${dir} is not empty: give a new or empty directory (nothing is written over)`)
}

/** Copies a live SQLite data directory into `dir`, consistently while the hub runs. */
export function backupSqlite(dataDir: string, dir: string, now: () => Date = () => new Date()): BackupManifest {
  if (!existsSync(join(dataDir, HUB_DATABASE_FILE))) throw new InputError(`${dataDir} holds no hub (no ${HUB_DATABASE_FILE})`)
  emptyOrNew(dir, 'the backup directory')
  mkdirSync(join(dir, STORE_DIR), { recursive: true, mode: 0o700 })
  chmodSync(dir, 0o700)
  const files: string[] = []
  for (const file of DATABASES) {
    const from = join(dataDir, file)
    if (!existsSync(from)) continue
    const source = openExisting(from)
    try {
      source.exec(`VACUUM INTO '${join(dir, file).replaceAll("'", "''")}'`)
    } finally {
      source.close()
    }
    chmodSync(join(dir, file), 0o600)
    files.push(file)
  }
  if (existsSync(join(dataDir, SETTINGS_FILE))) {
    writeFileSync(join(dir, SETTINGS_FILE), readFileSync(join(dataDir, SETTINGS_FILE)), { mode: 0o600 })
    files.push(SETTINGS_FILE)
  }
  // The key hub.db's second factors are sealed with: a backup without it restores operators
  // whose authenticator codes no hub can check.
  if (existsSync(join(dataDir, SECOND_FACTOR_KEY_FILE))) {
    writeFileSync(join(dir, SECOND_FACTOR_KEY_FILE), readFileSync(join(dataDir, SECOND_FACTOR_KEY_FILE)), { mode: 0o600 })
    files.push(SECOND_FACTOR_KEY_FILE)
  }
  // Deliveries answered 2xx that wait in the spool for the store: the hub moves them on its
  // next start, so a restored hub must have them too. (A line being written as the file is
  // copied is cut short and left out, as after a crash; it was not answered yet.)
  const spoolDir = join(dataDir, SPOOL_DIR)
  const spooled = existsSync(spoolDir) ? readdirSync(spoolDir).filter((f) => /^spool-\d+\.jsonl$/.test(f)) : []
  if (spooled.length) mkdirSync(join(dir, SPOOL_DIR), { recursive: true, mode: 0o700 })
  for (const f of spooled) {
    const file = join(SPOOL_DIR, f)
    writeFileSync(join(dir, file), readFileSync(join(dataDir, file)), { mode: 0o600 })
    files.push(file)
  }
  const manifest: BackupManifest = {
    format: MANIFEST_FORMAT,
    version: 1,
    store: 'sqlite',
    createdAt: now().toISOString(),
    hubVersion: pkg.version,
    ...checkCopies(dir),
    files
  }
  writeFileSync(join(dir, MANIFEST_FILE), JSON.stringify(manifest, null, 2) + '\n', { mode: 0o600 })
  return manifest
}

/** Checks the databases of a backup (or a copy of one) and counts what they hold. */
function checkCopies(dir: string): ReturnType<typeof countsOf> {
  const hubDb = openExisting(join(dir, HUB_DATABASE_FILE))
  let orderDb: Sql | null = null
  try {
    integrity(hubDb, HUB_DATABASE_FILE)
    const orderPath = join(dir, STORE_DIR, DATABASE_FILE)
    if (!existsSync(orderPath)) throw new Error(`the backup has no order database (${STORE_DIR}/${DATABASE_FILE})`)
    orderDb = openExisting(orderPath)
    integrity(orderDb, `${STORE_DIR}/${DATABASE_FILE}`)
    return countsOf(hubDb, orderDb)
  } finally {
    hubDb.close()
    orderDb?.close()
  }
}

export function readManifest(dir: string): BackupManifest {
  let m: BackupManifest
  try {
    m = JSON.parse(readFileSync(join(dir, MANIFEST_FILE), 'utf8')) as BackupManifest
  } catch (e) {
    throw new InputError(`${dir} is not a hub backup: ${MANIFEST_FILE} could not be read (${(e as Error).message})`)
  }
  if (m.format !== MANIFEST_FORMAT || m.version !== 1) throw new InputError(`${dir} is not a hub backup this hub can read`)
  return m
}

/** Restores a backup into a data directory that holds no hub. */
export function restoreSqlite(dir: string, dataDir: string): BackupCounts {
  const manifest = readManifest(dir)
  if (manifest.store !== 'sqlite') throw new InputError(`${dir} is a backup of a ${manifest.store} store, not of a data directory`)
  for (const file of DATABASES)
    if (existsSync(join(dataDir, file)))
      throw new InputError(`${dataDir} already holds a hub (${file}): restore into a new data directory, or move this one away first`)
  checkCopies(dir)
  mkdirSync(join(dataDir, STORE_DIR), { recursive: true, mode: 0o700 })
  chmodSync(dataDir, 0o700)
  for (const file of manifest.files) {
    mkdirSync(dirname(join(dataDir, file)), { recursive: true, mode: 0o700 })
    copyFileSync(join(dir, file), join(dataDir, file))
    chmodSync(join(dataDir, file), 0o600)
  }
  // Opened as the hub opens them: WAL mode, and the migrations of a newer hub applied.
  const hubDb = openHubDatabase(dataDir)
  const orders = openProfileDatabase(join(dataDir, STORE_DIR), { onCorrupt: 'throw' })
  try {
    return countsOf(hubDb, orders.sql).counts
  } finally {
    hubDb.close()
    orders.close()
  }
}

const LOCATION_OPTIONS = { 'data-dir': DATA_DIR_OPTION, ...DATABASE_OPTIONS } as const

/** What backup and restore do with one store: hub.db's data directory or the PostgreSQL database. */
interface BackupStore {
  /** Writes the backup into `dir`, telling what it did; answers the exit code. */
  backup(dir: string, io: CliIo): Promise<number>
  restore(dir: string, io: CliIo): number
}

/** A data directory: its SQLite databases copied online, and restored into a new data directory. */
function dataDirStore(dataDir: string): BackupStore {
  return {
    async backup(dir, io) {
      const started = Date.now()
      const m = backupSqlite(dataDir, dir)
      io.out(`backed up ${dataDir} to ${dir} in ${Date.now() - started} ms: ${describeCounts(m.counts)}`)
      return 0
    },
    restore(dir, io) {
      const counts = restoreSqlite(dir, dataDir)
      io.out(`restored ${dir} into ${dataDir}: ${describeCounts(counts)}`)
      io.out(`start the hub on it with serve --data-dir ${dataDir}`)
      return 0
    }
  }
}

/** The PostgreSQL database several hubs share: pg_dump, and PostgreSQL's own tool to restore. */
function databaseStore(database: PgTarget): BackupStore {
  return {
    async backup(dir, io) {
      const r = await backupPostgres(database, dir)
      if (!r.ran) {
        io.out('pg_dump is not installed here: run this where it is (the password from PGPASSWORD or ~/.pgpass):')
        io.out(r.command)
        return 0
      }
      io.out(`backed up the PostgreSQL database ${displayUrl(database.url)} with pg_dump to ${r.file} in ${r.ms} ms (${r.bytes} bytes)`)
      io.out(`restore into an empty database with: ${pgRestoreCommand(dir)}`)
      return 0
    },
    restore(dir) {
      throw new InputError(
        `a PostgreSQL backup is restored with PostgreSQL's own tool, into an empty database: ${pgRestoreCommand(dir, database.url)}`
      )
    }
  }
}

/** `DIR [--data-dir D | --database URL]`: the backup directory and the store, or a usage error showing `usage`. */
function dirAndStore(args: string[], usage: string, needDataDir: boolean, io: CliIo): { dir: string; store: BackupStore } {
  const o = resolveOptions(args, LOCATION_OPTIONS, { allowPositionals: true, warn: (m) => io.err(`warning: ${m}`) })
  const [dir] = o.positionals
  if (!dir || o.positionals.length > 1) throw new UsageError(usage)
  const database = databaseOf(o, (m) => io.err(`warning: ${m}`))
  if (database) return { dir: resolve(dir), store: databaseStore(database) }
  // restore names its data directory on the command line: never one from the environment.
  if (needDataDir && !args.some((a) => a === '--data-dir' || a.startsWith('--data-dir='))) throw new UsageError(usage)
  return { dir: resolve(dir), store: dataDirStore(dataDirOf(o.string('data-dir'))) }
}

export async function backupCommand(args: string[], io: CliIo): Promise<number> {
  const { dir, store } = dirAndStore(args, 'backup DIR [--data-dir D | --database URL]', false, io)
  return store.backup(dir, io)
}

export function restoreCommand(args: string[], io: CliIo): number {
  const { dir, store } = dirAndStore(args, 'restore DIR --data-dir D (a new data directory)', true, io)
  return store.restore(dir, io)
}
