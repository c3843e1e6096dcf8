// The backend of the only hub on its data directory (hub-backend.ts): its tables in hub.db,
// and every part its own. It leads for good; its settings are its settings.json; its desktops
// are shown its own monitor's coverage and states; it sends its own reads and runs its own
// sync actions; its delivery log is its order database's; and its order events go to
// desktops as its monitor writes them, with the id of their row in order_events.
import type { EventPayload, OrderRow, OrderType } from '../shared/ipc/contract'
import type { Sql } from '../main/store/sql'
import { HANDLING_COLUMNS, handlingValues, toStoredHandling, type HandlingRow } from './handling-rows'
import { OWN_VIEW, type HandlingLog, type HubBackend, type HubOrderFeed, type OrderFeedOptions } from './hub-backend'
import type { HubLog } from './hub-log'
import { soleHubRole } from './hub-role'
import { openSqliteHubStore } from './sqlite-hub-store'

export interface SqliteBackendOptions {
  dataDir: string
  now: () => number
  log: HubLog
}

export function openSqliteBackend(o: SqliteBackendOptions): HubBackend {
  const store = openSqliteHubStore(o.dataDir, { now: o.now, busyTimeoutMs: 250, onError: (m) => o.log.error(m) })
  return {
    store,
    startRole: async () => soleHubRole(o.now),
    teamSettings: () => ({
      load: async () => null,
      watch: () => undefined,
      save: async () => undefined,
      close: async () => undefined
    }),
    sharedReads: () => ({ reads: undefined, serve: () => undefined, close: async () => undefined }),
    leaderView: () => OWN_VIEW,
    syncRequests: (s) => ({
      ask: async (action) => s.runHere(action),
      close: async () => undefined
    }),
    deliveryLog: (d) => ({
      share: () => undefined,
      list: async (q) => d.local().list(q),
      prune: async () => undefined,
      flushed: async () => undefined
    }),
    fenceBy: () => undefined,
    orderFeed: localOrderFeed,
    leaderSweep: async () => undefined,
    handlingLog: () => sqliteHandlingLog(store.sql)
  }
}

/** Claims and notes in hub.db: only this hub writes them. */
function sqliteHandlingLog(sql: Sql): HandlingLog {
  return {
    append: async (e) =>
      Number(
        sql.run(`INSERT INTO order_handling (${HANDLING_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)`, ...handlingValues(e)).lastInsertRowid
      ),
    after: async (id, limit) =>
      sql
        .all<HandlingRow>(`SELECT id, ${HANDLING_COLUMNS} FROM order_handling WHERE id > ? ORDER BY id LIMIT ?`, id, limit)
        .map(toStoredHandling),
    watch: () => undefined,
    close: async () => undefined
  }
}

/** Order events as this hub's monitor writes them, each with the id of its row in order_events (written just before). */
function localOrderFeed(o: OrderFeedOptions): HubOrderFeed {
  // The first sighting for order:created, the latest matching transition for order:changed.
  const createdEventId = (type: OrderType, orderId: number): number | null =>
    o.local().value<number>('SELECT MIN(id) FROM order_events WHERE type = ? AND order_id = ? AND old_status IS NULL', type, orderId) ??
    null
  const changedEventId = (p: EventPayload<'order:changed'>): number | null =>
    o
      .local()
      .value<number>(
        'SELECT MAX(id) FROM order_events WHERE type = ? AND order_id = ? AND new_status = ?',
        p.row.type,
        p.row.orderId,
        p.newStatus
      ) ?? null
  return {
    ordered(event, payload) {
      const id =
        event === 'order:created'
          ? createdEventId((payload as OrderRow).type, (payload as OrderRow).orderId)
          : changedEventId(payload as EventPayload<'order:changed'>)
      o.publish({ id, event, payload })
    },
    start: async () => undefined,
    replayUpTo: () => Infinity,
    latestId: () => o.local().value<number>('SELECT MAX(id) FROM order_events') ?? 0,
    takeOver: async () => undefined,
    close: async () => undefined
  }
}
