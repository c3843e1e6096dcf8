// The readiness check of the hub's store: its own tables (hub.db, or the PostgreSQL database
// several hubs share) and its order database (the SQLite working copy in the data directory)
// each answer a query and are at the schema version this hub migrates to. A hub started on a
// store a newer hub wrote refuses to start; one whose files were swapped under it says so here.
import type { Sql } from '../main/store/sql'
import { migrations } from '../main/store/migrations'
import { HUB_SCHEMA_VERSION } from './hub-db'
import type { ReadinessCheck } from './readiness'

export const ORDER_SCHEMA_VERSION = Math.max(...migrations.map((m) => m.version))

/** hub.db: answers and is migrated. */
export function sqliteHubCheck(hubDb: Sql): ReadinessCheck {
  const hub = hubDb.value<number>('PRAGMA user_version') ?? 0
  if (hub !== HUB_SCHEMA_VERSION)
    return { ok: false, detail: `hub.db is at schema ${hub}, this hub expects ${HUB_SCHEMA_VERSION}`, hubSchema: hub }
  return { ok: true, detail: 'hub.db answers, migrated', hubSchema: hub }
}

/** The hub's own tables' check, then the order database's; facts of both in the answer. */
export function storeCheck(kind: string, hubTables: () => ReadinessCheck, orderDb: () => Sql): () => ReadinessCheck {
  return () => {
    const hub = hubTables()
    const orders = orderDb().value<number>('SELECT COALESCE(MAX(version), 0) FROM schema_migrations') ?? 0
    const { ok: _ok, detail: _detail, ...hubFacts } = hub
    const facts = { kind, ...hubFacts, orderSchema: orders }
    if (!hub.ok) return { ...facts, ok: false, detail: hub.detail }
    if (orders !== ORDER_SCHEMA_VERSION)
      return { ...facts, ok: false, detail: `the order database is at schema ${orders}, this hub expects ${ORDER_SCHEMA_VERSION}` }
    return { ...facts, ok: true, detail: `${hub.detail}; the order database answers, migrated` }
  }
}
