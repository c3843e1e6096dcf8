// The readiness check of the hub's SQLite store: hub.db and the order database each answer
// a query, and each is at the schema version this hub migrates to (a hub started on a data
// directory a newer hub wrote refuses to start; one whose files were swapped under it says
// so here). A PostgreSQL store gives its own check of the same shape.
import type { Sql } from '../main/store/database'
import { migrations } from '../main/store/migrations'
import { HUB_SCHEMA_VERSION } from './hub-db'
import type { ReadinessCheck } from './readiness'

export const ORDER_SCHEMA_VERSION = Math.max(...migrations.map((m) => m.version))

export function sqliteStoreCheck(hubDb: Sql, orderDb: () => Sql): () => ReadinessCheck {
  return () => {
    const hub = hubDb.value<number>('PRAGMA user_version') ?? 0
    const orders = orderDb().value<number>('SELECT COALESCE(MAX(version), 0) FROM schema_migrations') ?? 0
    const facts = { kind: 'sqlite', hubSchema: hub, orderSchema: orders }
    if (hub !== HUB_SCHEMA_VERSION)
      return { ok: false, detail: `hub.db is at schema ${hub}, this hub expects ${HUB_SCHEMA_VERSION}`, ...facts }
    if (orders !== ORDER_SCHEMA_VERSION)
      return { ok: false, detail: `the order database is at schema ${orders}, this hub expects ${ORDER_SCHEMA_VERSION}`, ...facts }
    return { ok: true, detail: 'hub.db and the order database answer, migrated', ...facts }
  }
}
