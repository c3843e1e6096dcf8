// --database URL and --database-password-file F (or RAMPDESK_HUB_DATABASE[_FILE] and
// RAMPDESK_HUB_DATABASE_PASSWORD_FILE): the PostgreSQL database the hub's own tables are in.
// The URL is never repeated in an error (it may carry a password); the password is best in
// its file (first line, chmod 600), where no `ps` and no log shows it.
import { UsageError } from './cli-errors'
import type { DATABASE_OPTIONS, ResolvedOptions } from './cli-options'
import { isPostgresUrl, type PgTarget } from './pg/pg-connection'
import { readFirstLine } from './secret-input'

export function databaseOf(o: ResolvedOptions<keyof typeof DATABASE_OPTIONS>, warn: (m: string) => void): PgTarget | undefined {
  const url = o.string('database')
  const passwordFile = o.string('database-password-file')
  if (url === undefined) {
    if (passwordFile !== undefined) throw new UsageError(`${o.from('database-password-file')} goes with --database`)
    return undefined
  }
  if (!isPostgresUrl(url)) throw new UsageError(`${o.from('database')} must be a postgres://USER@HOST:PORT/DB URL`)
  if (new URL(url).password) warn(`the database URL carries a password: it shows in ps and shell history; prefer --database-password-file`)
  return passwordFile === undefined ? { url } : { url, password: readFirstLine(passwordFile, warn) }
}
