// The hub's own tables in hub.db (SQLite, in the data directory): the store of a hub that is
// the only one on its data directory, and the default.
import { secondFactorKeyIn } from './second-factor-key'
import { join } from 'node:path'
import { BudgetCarry } from '../main/api/budget-carry'
import { sqliteCarryTable } from '../main/store/budget-carry-table'
import { HubAudit } from './hub-audit'
import { openHubConnection, openHubDatabase } from './hub-db'
import type { HubStore } from './hub-store'
import { OperatorWatches } from './operator-watches'
import { OperatorStore } from './operators'
import { SqliteSecondFactors } from './sqlite-second-factor'
import { SqliteKeptStore } from './kept/sqlite-kept-store'
import { sqliteHubCheck } from './store-check'
import { HUB_DATABASE_FILE } from './hub-db'
import type { Sql } from '../main/store/sql'
import { AlertHookStore } from './alert-hooks/hook-store'
import { SqliteOidcStore } from './oidc/sqlite-oidc-store'

export interface SqliteHubStore extends HubStore {
  readonly kind: 'sqlite'
  /** hub.db itself (the backup and the tests read it). */
  readonly sql: Sql
}

export interface SqliteHubStoreOptions {
  now?: () => number
  /**
   * How long a write waits for a lock another process holds (default 5 s, the command line's).
   * A running hub waits a quarter of a second: libsql waits on the event loop, and every
   * request waits with it; the command line's writes take milliseconds.
   */
  busyTimeoutMs?: number
  onError?: (message: string) => void
}

export function openSqliteHubStore(dataDir: string, o: SqliteHubStoreOptions = {}): SqliteHubStore {
  const now = o.now ?? Date.now
  const sql = openHubDatabase(dataDir, o.busyTimeoutMs)
  // Deliveries are kept on a connection of their own: every commit on disk before the answer,
  // and a lock held elsewhere waited for briefly (the spool takes over after that; libsql
  // waits on the event loop).
  const keptSql = openHubConnection(dataDir, { busyTimeoutMs: 200, synchronous: 'FULL' })
  let closed = false
  return {
    kind: 'sqlite',
    where: join(dataDir, HUB_DATABASE_FILE),
    notes: { started: null, revocation: 'a running hub refuses the token from now on' },
    sql,
    operators: new OperatorStore(sql, now),
    audit: new HubAudit(sql, now),
    secondFactors: new SqliteSecondFactors(sql, secondFactorKeyIn(dataDir)),
    watches: new OperatorWatches(sql, now),
    kept: new SqliteKeptStore(keptSql, now),
    budgetCarry: new BudgetCarry(sqliteCarryTable(sql, o.onError), now),
    sharedBudget: null,
    alertHooks: new AlertHookStore({
      all: async <T>(text: string, params: Array<string | number | null>) => sql.all(text, ...params) as T[],
      run: async (text, params) => sql.run(text, ...params).changes
    }),
    oidc: new SqliteOidcStore(sql, now),
    check: () => sqliteHubCheck(sql),
    async close() {
      if (!closed) {
        keptSql.close()
        sql.close()
      }
      closed = true
    }
  }
}
