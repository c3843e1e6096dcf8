// The team hub's own database (hub.db in its data directory), beside the merchant's
// order store: operators and their hashed tokens, the audit log with operator names,
// and each operator's pinned orders. libsql in WAL mode, so `npm run hub -- operator
// revoke` in another process writes while the running hub reads, and the hub sees the
// change on its next request.
import Database from 'libsql'
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { Sql } from '../main/store/sql'
import { OIDC_PREVIOUS_REFRESH, OIDC_RENEWALS, OIDC_TABLES } from './oidc/oidc-tables'
import { chainSqliteAudit } from './hub-audit'
import { sealSqliteSecrets } from './sqlite-second-factor'

export const HUB_DATABASE_FILE = 'hub.db'

/**
 * Each entry brings the schema from version i to i + 1; never edit one that has shipped. A
 * function is a migration that needs more than SQL (hashing the rows there, say), given the
 * data directory for what the hub keeps beside the database (its keys).
 */
export const MIGRATIONS: ReadonlyArray<string | ((sql: Sql, dataDir: string) => void)> = [
  `CREATE TABLE operators (
     name TEXT NOT NULL PRIMARY KEY COLLATE NOCASE,
     role TEXT NOT NULL CHECK (role IN ('viewer', 'operator', 'admin')),
     -- SHA-256 of the token, hex: the token itself is shown once and never stored.
     token_hash TEXT NOT NULL UNIQUE,
     created_at INTEGER NOT NULL,
     last_seen_at INTEGER,
     revoked_at INTEGER
   );
   CREATE TABLE audit (
     id INTEGER PRIMARY KEY,
     at INTEGER NOT NULL,
     operator TEXT NOT NULL,
     action TEXT NOT NULL,
     detail_json TEXT NOT NULL
   );
   CREATE INDEX audit_at ON audit (at);
   CREATE TABLE operator_watches (
     operator TEXT NOT NULL COLLATE NOCASE,
     type INTEGER NOT NULL,
     order_id INTEGER NOT NULL,
     added_at INTEGER NOT NULL,
     PRIMARY KEY (operator, type, order_id)
   );`,
  // What the hub's request budget had spent per endpoint, and when: a restarted hub starts
  // from there instead of from a full minute's budget the service has not granted.
  `CREATE TABLE budget_carry (
     endpoint TEXT NOT NULL PRIMARY KEY,
     used INTEGER NOT NULL,
     at INTEGER NOT NULL
   );`,
  // What was relayed to the merchant's receiver (--forward-to), so nothing is relayed twice:
  // 'payload:<sha256>' and 'order:<type>:<id>:<status>' keys (no longer written).
  `CREATE TABLE webhook_relays (
     key TEXT NOT NULL PRIMARY KEY,
     at INTEGER NOT NULL
   );`,
  // Every verified delivery answered 2xx, kept before the answer, and its relay with each
  // attempt (kept/sqlite-kept-store.ts). webhook_relays above is no longer written.
  `CREATE TABLE kept_deliveries (
     id INTEGER PRIMARY KEY,
     content_key TEXT NOT NULL UNIQUE,
     order_key TEXT NOT NULL,
     order_type INTEGER,
     order_id INTEGER,
     status INTEGER,
     received_at INTEGER NOT NULL,
     last_received_at INTEGER NOT NULL,
     kept_at INTEGER NOT NULL,
     times_received INTEGER NOT NULL DEFAULT 1,
     hub TEXT NOT NULL,
     body TEXT NOT NULL,
     headers_json TEXT NOT NULL,
     applied_at INTEGER,
     relay_state TEXT NOT NULL CHECK (relay_state IN ('none', 'waiting', 'sending', 'delivered', 'failed')),
     window_from INTEGER NOT NULL,
     next_at INTEGER,
     claimed_by TEXT,
     attempts INTEGER NOT NULL DEFAULT 0,
     finished_at INTEGER,
     last_answer TEXT
   );
   CREATE INDEX kept_relay_due ON kept_deliveries (next_at) WHERE relay_state IN ('waiting', 'sending');
   CREATE INDEX kept_relay_failed ON kept_deliveries (id) WHERE relay_state = 'failed';
   CREATE INDEX kept_relay_order ON kept_deliveries (order_key, id) WHERE relay_state IN ('waiting', 'sending');
   CREATE INDEX kept_order_status ON kept_deliveries (order_key, status, kept_at);
   CREATE INDEX kept_unapplied ON kept_deliveries (id) WHERE applied_at IS NULL;
   CREATE TABLE relay_attempts (
     id INTEGER PRIMARY KEY,
     kept_id INTEGER NOT NULL,
     at INTEGER NOT NULL,
     hub TEXT NOT NULL,
     http_status INTEGER,
     answer TEXT NOT NULL,
     ms INTEGER NOT NULL
   );
   CREATE INDEX relay_attempts_kept ON relay_attempts (kept_id, id);`,
  // Claims and notes on orders (hub-claims.ts): every change, in the order kept; the hub
  // copies them into its order database, which answers the reads.
  `CREATE TABLE order_handling (
     id INTEGER PRIMARY KEY,
     type INTEGER NOT NULL,
     order_id INTEGER NOT NULL,
     kind TEXT NOT NULL CHECK (kind IN ('claim', 'release', 'hand', 'note')),
     actor TEXT NOT NULL,
     handler TEXT,
     text TEXT,
     at INTEGER NOT NULL
   );`,
  // Outbound alert hooks (alert-hooks/hook-store.ts): the hooks, each alert's episodes (raised
  // or cleared), one message per hook, alert, episode and event, and every attempt at one.
  `CREATE TABLE alert_hooks (
     id INTEGER PRIMARY KEY,
     url TEXT NOT NULL,
     format TEXT NOT NULL CHECK (format IN ('slack', 'json')),
     secret TEXT,
     created_at INTEGER NOT NULL,
     created_by TEXT NOT NULL
   );
   CREATE TABLE alert_episodes (
     alert_id TEXT NOT NULL PRIMARY KEY,
     episode INTEGER NOT NULL,
     state TEXT NOT NULL CHECK (state IN ('raised', 'cleared')),
     alert_json TEXT NOT NULL,
     changed_at INTEGER NOT NULL
   );
   CREATE TABLE alert_hook_messages (
     id INTEGER PRIMARY KEY,
     hook_id INTEGER NOT NULL,
     alert_id TEXT NOT NULL,
     episode INTEGER NOT NULL,
     event TEXT NOT NULL CHECK (event IN ('raised', 'cleared', 'test')),
     body TEXT NOT NULL,
     state TEXT NOT NULL CHECK (state IN ('waiting', 'sending', 'delivered', 'failed')),
     created_at INTEGER NOT NULL,
     next_at INTEGER,
     claimed_by TEXT,
     claim_until INTEGER,
     attempts INTEGER NOT NULL DEFAULT 0,
     finished_at INTEGER,
     last_answer TEXT,
     UNIQUE (hook_id, alert_id, episode, event)
   );
   CREATE INDEX alert_hook_due ON alert_hook_messages (next_at) WHERE state IN ('waiting', 'sending');
   CREATE INDEX alert_hook_order ON alert_hook_messages (hook_id, alert_id, id);
   CREATE TABLE alert_hook_attempts (
     id INTEGER PRIMARY KEY,
     message_id INTEGER NOT NULL,
     at INTEGER NOT NULL,
     hub TEXT NOT NULL,
     http_status INTEGER,
     answer TEXT NOT NULL,
     ms INTEGER NOT NULL
   );
   CREATE INDEX alert_hook_attempts_message ON alert_hook_attempts (message_id, id);`,
  // People signed in through the team's identity provider (oidc/): who each is at the
  // provider, which operator row is theirs (operators.token_hash holds a marker no token
  // hashes to), the short-lived state of sign-ins under way, and their sessions.
  `${OIDC_TABLES}`,
  // The audit log chained by hash (audit-chain.ts): seq, prev_hash and hash on every entry,
  // the entries already there chained in the order of their ids, and the chain's anchor and
  // head in audit_chain.
  chainSqliteAudit,
  // Every token ends (token-expiry.ts). The tokens there already get 90 days from this
  // upgrade, not an end that has passed: nobody is locked out by upgrading. A token replaced
  // by `operator rotate` is remembered by its hash, to be refused as replaced, not unknown.
  `ALTER TABLE operators ADD COLUMN expires_at INTEGER NOT NULL DEFAULT 0;
   ALTER TABLE operators ADD COLUMN account TEXT NOT NULL DEFAULT 'person' CHECK (account IN ('person', 'service'));
   UPDATE operators SET expires_at = CAST(strftime('%s', 'now') AS INTEGER) * 1000 + 90 * 86400000;
   CREATE TABLE replaced_tokens (
     token_hash TEXT NOT NULL PRIMARY KEY,
     name TEXT NOT NULL COLLATE NOCASE,
     replaced_at INTEGER NOT NULL
   );`,
  // TOTP second factors (second-factor.ts): the secret, the last step taken (a code is taken
  // once), and one-time recovery codes as SHA-256 hashes.
  `CREATE TABLE second_factors (
     name TEXT NOT NULL PRIMARY KEY COLLATE NOCASE,
     secret TEXT NOT NULL,
     enrolled_at INTEGER NOT NULL,
     last_step INTEGER NOT NULL
   );
   CREATE TABLE recovery_codes (
     name TEXT NOT NULL COLLATE NOCASE,
     code_hash TEXT NOT NULL,
     used_at INTEGER,
     PRIMARY KEY (name, code_hash)
   );`,
  // Wrong second-factor codes per operator and the lockout they lead to (second-factor.ts):
  // kept beside the secret so that a restart does not forget them.
  `ALTER TABLE second_factors ADD COLUMN wrong_count INTEGER NOT NULL DEFAULT 0;
   ALTER TABLE second_factors ADD COLUMN wrong_since INTEGER;
   ALTER TABLE second_factors ADD COLUMN locked_until INTEGER NOT NULL DEFAULT 0;`,
  // TOTP secrets sealed at rest with second-factor.key beside hub.db (second-factor-key.ts).
  sealSqliteSecrets,
  // Which session took a code (it may send it again when an answer was lost), enrolments under
  // way (the secret sealed like an enrolled one) and the enrolments started, and proven
  // sessions: kept in the store so that another hub, or a restarted one, carries on
  // (second-factor.ts, second-factor-enrolment.ts, second-factor-gate.ts).
  `ALTER TABLE second_factors ADD COLUMN last_step_by TEXT;
   ALTER TABLE recovery_codes ADD COLUMN used_by TEXT;
   CREATE TABLE second_factor_pending (
     name TEXT NOT NULL PRIMARY KEY COLLATE NOCASE,
     secret TEXT NOT NULL,
     recovery_hashes TEXT NOT NULL,
     expires_at INTEGER NOT NULL,
     wrong INTEGER NOT NULL DEFAULT 0
   );
   CREATE TABLE second_factor_starts (
     name TEXT NOT NULL COLLATE NOCASE,
     started_at INTEGER NOT NULL
   );
   CREATE INDEX second_factor_starts_name ON second_factor_starts (name, started_at);
   CREATE TABLE second_factor_proofs (
     proof TEXT NOT NULL PRIMARY KEY,
     name TEXT NOT NULL COLLATE NOCASE,
     proven_at INTEGER NOT NULL
   );
   CREATE INDEX second_factor_proofs_at ON second_factor_proofs (proven_at);`,
  // A session's refresh token before its last renewal, taken again for a short while (oidc/oidc-tables.ts).
  OIDC_PREVIOUS_REFRESH,
  // A renewal under way, claimed by the hub asking the provider; every refresh token replaced (oidc/oidc-tables.ts).
  OIDC_RENEWALS
]

/** The schema version this hub migrates hub.db to. */
export const HUB_SCHEMA_VERSION = MIGRATIONS.length

export function openHubDatabase(dataDir: string, busyTimeoutMs = 5_000): Sql {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 })
  const sql = new Sql(new Database(join(dataDir, HUB_DATABASE_FILE)), { writesInOwnTransaction: true })
  try {
    if (sql.value<string>('PRAGMA journal_mode = WAL') !== 'wal') throw new Error('could not switch hub.db to WAL mode')
    sql.exec('PRAGMA synchronous = NORMAL')
    // The command line and the running hub write the same file: wait for each other.
    sql.exec(`PRAGMA busy_timeout = ${Math.round(busyTimeoutMs)}`)
    sql.transaction(() => {
      const version = sql.value<number>('PRAGMA user_version') ?? 0
      if (version > MIGRATIONS.length) throw new Error(`hub.db was written by a newer Rampdesk hub (schema ${version})`)
      for (let v = version; v < MIGRATIONS.length; v++) {
        const m = MIGRATIONS[v]!
        if (typeof m === 'string') sql.exec(m)
        else m(sql, dataDir)
      }
      sql.exec(`PRAGMA user_version = ${MIGRATIONS.length}`)
    })
    return sql
  } catch (e) {
    sql.close()
    throw e
  }
}

/** Another connection to an hub.db that openHubDatabase has opened (and migrated). */
export function openHubConnection(dataDir: string, o: { busyTimeoutMs: number; synchronous: 'NORMAL' | 'FULL' }): Sql {
  const sql = new Sql(new Database(join(dataDir, HUB_DATABASE_FILE)), { writesInOwnTransaction: true })
  sql.exec(`PRAGMA busy_timeout = ${Math.round(o.busyTimeoutMs)}`)
  sql.exec(`PRAGMA synchronous = ${o.synchronous}`)
  return sql
}
