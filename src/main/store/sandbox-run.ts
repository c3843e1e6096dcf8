// The sandbox profile's database holds the orders of one run of the embedded simulator.
// Each start of the app starts a new simulator: its orders reuse the ids of the last run's
// with other histories, so syncing them into the same tables would mix two sandboxes
// (impossible timelines such as "timed out → created"). The run is recorded in the
// database; a database of another run (or of none) forgets that run's orders, watches,
// sync positions and prices before the new run syncs, and keeps what does not depend on
// the run (the configuration cache, settings, the audit log).
import type { LocalStore } from './local-store'

/** What one sandbox run leaves that another run's orders must not meet. */
const RUN_TABLES = ['order_events', 'orders', 'sync_cursor_ids', 'sync_cursors', 'unreadable_orders', 'watches', 'ticker_history'] as const

const KIND = 'sandbox'
const KEY = 'run'

/** Makes the store the given run's; true when it held another run's data, now forgotten. */
export function keepSandboxRunApart(store: Pick<LocalStore, 'database' | 'serviceFacts'>, run: string): boolean {
  const sql = store.database.sql
  const recorded = store.serviceFacts.all<string>(KIND)[KEY]
  if (recorded === run) return false
  return sql.transaction(() => {
    const held = RUN_TABLES.some((t) => (sql.value<number>(`SELECT EXISTS (SELECT 1 FROM ${t})`) ?? 0) === 1)
    for (const t of RUN_TABLES) sql.run(`DELETE FROM ${t}`)
    store.serviceFacts.put(KIND, KEY, run)
    return held
  })
}
