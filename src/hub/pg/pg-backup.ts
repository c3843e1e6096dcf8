// `npm run hub -- backup DIR --database URL`: the hub's tables in PostgreSQL are backed up with
// PostgreSQL's own tool. When pg_dump is installed (on PATH, or Debian's
// /usr/lib/postgresql/<version>/bin), the command runs it: one consistent snapshot, custom
// format, DIR/hub.pgdump (0600, DIR 0700). Otherwise it prints the command to run where
// pg_dump is. The password never appears on a command line: it goes to pg_dump through
// PGPASSWORD in its environment only, and the URL shown has none.
import { execFile } from 'node:child_process'
import { chmodSync, existsSync, mkdirSync, readdirSync, statSync } from 'node:fs'
import { delimiter, join } from 'node:path'
import { promisify } from 'node:util'
import { InputError } from '../cli-errors'
import { displayUrl, type PgTarget } from './pg-connection'

export const PG_DUMP_FILE = 'hub.pgdump'

/** pg_dump on PATH, else the newest of /usr/lib/postgresql/<version>/bin; null when there is none. */
export function findPgDump(env: NodeJS.ProcessEnv = process.env): string | null {
  for (const d of (env.PATH ?? '').split(delimiter)) if (d && existsSync(join(d, 'pg_dump'))) return join(d, 'pg_dump')
  const base = '/usr/lib/postgresql'
  if (!existsSync(base)) return null
  const versions = readdirSync(base)
    .filter((v) => existsSync(join(base, v, 'bin', 'pg_dump')))
    .sort((x, y) => Number(y) - Number(x))
  return versions.length ? join(base, versions[0]!, 'bin', 'pg_dump') : null
}

const quote = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`

/** The command that backs the database up into dir, as a shell line (no password in it). */
export function pgDumpCommand(target: PgTarget, dir: string, bin = 'pg_dump'): string {
  return `${bin} --format=custom --no-owner --file ${quote(join(dir, PG_DUMP_FILE))} ${quote(displayUrl(target.url))}`
}

/** Restores such a backup into an empty database. */
export function pgRestoreCommand(dir: string, url = 'postgres://USER@HOST:PORT/NEW_DB'): string {
  return `pg_restore --no-owner --exit-on-error --dbname ${quote(displayUrl(url))} ${quote(join(dir, PG_DUMP_FILE))}`
}

export type PgBackupOutcome = { ran: true; file: string; bytes: number; ms: number } | { ran: false; command: string }

export async function backupPostgres(target: PgTarget, dir: string, pgDump: string | null = findPgDump()): Promise<PgBackupOutcome> {
  if (existsSync(dir) && (!statSync(dir).isDirectory() || readdirSync(dir).length > 0))
    throw new InputError(`the backup directory ${dir} is not empty: give a new or empty directory (nothing is written over)`)
  if (!pgDump) return { ran: false, command: pgDumpCommand(target, dir) }
  mkdirSync(dir, { recursive: true, mode: 0o700 })
  chmodSync(dir, 0o700)
  const url = new URL(target.url)
  const password = target.password ?? (url.password ? decodeURIComponent(url.password) : undefined)
  const started = Date.now()
  const file = join(dir, PG_DUMP_FILE)
  try {
    await promisify(execFile)(pgDump, ['--format=custom', '--no-owner', '--file', file, displayUrl(target.url)], {
      env: { ...process.env, ...(password !== undefined ? { PGPASSWORD: password } : {}) },
      timeout: 60 * 60_000
    })
  } catch (e) {
    const stderr = String((e as { stderr?: string }).stderr ?? (e as Error).message).trim()
    throw new Error(`pg_dump failed: ${password ? stderr.split(password).join('***') : stderr}`, { cause: e })
  }
  chmodSync(file, 0o600)
  return { ran: true, file, bytes: statSync(file).size, ms: Date.now() - started }
}
