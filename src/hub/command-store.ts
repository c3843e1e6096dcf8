// The hub store a command works on: PostgreSQL with --database, else hub.db in the data directory.
import type { DATABASE_OPTIONS, ResolvedOptions } from './cli-options'
import { databaseOf } from './database-option'
import { dataDirOf, type CliIo } from './hub-paths'
import type { HubStore } from './hub-store'
import { openPgHubStore } from './pg/pg-hub-store'
import { openSqliteHubStore } from './sqlite-hub-store'
import { secondFactorKeyIn } from './second-factor-key'

type StoreOptionName = keyof typeof DATABASE_OPTIONS | 'data-dir'

export async function openStoreFor(o: ResolvedOptions<StoreOptionName>, io: CliIo): Promise<HubStore> {
  const database = databaseOf(o, (m) => io.err(`warning: ${m}`))
  const dataDir = dataDirOf(o.string('data-dir'))
  if (!database) return openSqliteHubStore(dataDir)
  // TOTP secrets are sealed with the data directory's key, which every hub on the database shares.
  return openPgHubStore({
    target: database,
    live: false,
    onError: (m) => io.err(`error: ${m}`),
    secondFactorKey: secondFactorKeyIn(dataDir)
  })
}
