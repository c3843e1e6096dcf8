// The hub store a command works on: PostgreSQL with --database, else hub.db in the data directory.
import type { DATABASE_OPTIONS, ResolvedOptions } from './cli-options'
import { databaseOf } from './database-option'
import { dataDirOf, type CliIo } from './hub-paths'
import type { HubStore } from './hub-store'
import { openPgHubStore } from './pg/pg-hub-store'
import { openSqliteHubStore } from './sqlite-hub-store'

type StoreOptionName = keyof typeof DATABASE_OPTIONS | 'data-dir'

export async function openStoreFor(o: ResolvedOptions<StoreOptionName>, io: CliIo): Promise<HubStore> {
  const database = databaseOf(o, (m) => io.err(`warning: ${m}`))
  if (!database) return openSqliteHubStore(dataDirOf(o.string('data-dir')))
  return openPgHubStore({ target: database, live: false, onError: (m) => io.err(`error: ${m}`) })
}
