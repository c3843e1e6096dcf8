// The hub's schema in PostgreSQL, versioned. Each entry brings the schema from version i to
// i + 1; never edit one that has shipped. The versions applied are rows of rampdesk_hub_schema.
// Migrating runs in one transaction under a transaction-level advisory lock, so hubs that
// start together take turns: the first migrates, the others find the work done. A database
// that a newer hub migrated further is refused with the versions named, before anything is
// touched.
import type pg from 'pg'
import { chainPgAudit } from './pg-audit-chain'
import { inTransaction } from './pg-connection'
import { OIDC_PREVIOUS_REFRESH, OIDC_RENEWALS, OIDC_TABLES } from '../oidc/oidc-tables'
import { NO_SECOND_FACTOR_KEY, type SecondFactorKeyOf } from '../second-factor-key'
import { sealPgSecrets } from './pg-second-factor'

/** pg_advisory_xact_lock key of migrations ('rdhubmig' as a number). */
export const MIGRATION_LOCK_KEY = 0x7264_6875_626d

/** What a migration may need beyond the database: the key the hub seals secrets with. */
export interface PgMigrationContext {
  secondFactorKey: SecondFactorKeyOf
}

/** A migration that needs more than SQL (hashing the rows there, say), run in the migration's transaction. */
export type PgMigrationStep = (c: pg.PoolClient, ctx: PgMigrationContext) => Promise<void>

export const PG_MIGRATIONS: ReadonlyArray<string | PgMigrationStep> = [
  `CREATE TABLE operators (
     name TEXT NOT NULL PRIMARY KEY,
     role TEXT NOT NULL CHECK (role IN ('viewer', 'operator', 'admin')),
     -- SHA-256 of the token, hex: the token itself is shown once and never stored.
     token_hash TEXT NOT NULL UNIQUE,
     created_at BIGINT NOT NULL,
     last_seen_at BIGINT,
     revoked_at BIGINT
   );
   -- Names are unique whatever their case (SQLite's COLLATE NOCASE in hub.db).
   CREATE UNIQUE INDEX operators_name_nocase ON operators (lower(name));
   CREATE TABLE audit (
     id BIGSERIAL PRIMARY KEY,
     at BIGINT NOT NULL,
     operator TEXT NOT NULL,
     action TEXT NOT NULL,
     detail_json TEXT NOT NULL
   );
   CREATE INDEX audit_at ON audit (at);
   CREATE TABLE operator_watches (
     operator TEXT NOT NULL,
     type INTEGER NOT NULL,
     order_id BIGINT NOT NULL,
     added_at BIGINT NOT NULL,
     seq BIGSERIAL,
     PRIMARY KEY (operator, type, order_id)
   );
   CREATE TABLE budget_carry (
     endpoint TEXT NOT NULL PRIMARY KEY,
     used INTEGER NOT NULL,
     at BIGINT NOT NULL
   );
   CREATE TABLE webhook_relays (
     key TEXT NOT NULL PRIMARY KEY,
     at BIGINT NOT NULL
   );`,
  // Every hub's sends per endpoint in the service's window (pg-shared-budget.ts): one budget
  // however many hubs spend it. Times are the database's clock, epoch ms.
  `CREATE TABLE budget_sends (
     id BIGSERIAL PRIMARY KEY,
     endpoint TEXT NOT NULL,
     at BIGINT NOT NULL
   );
   CREATE INDEX budget_sends_endpoint_at ON budget_sends (endpoint, at);`,
  // The leader's order events with their ids, and each order's latest row as the leader's
  // order database holds it (pg-order-feed.ts): every hub streams them and applies them to
  // its own copy, so an event id means the same change on every hub.
  `CREATE TABLE order_rows (
     type INTEGER NOT NULL,
     order_id BIGINT NOT NULL,
     row_json TEXT NOT NULL,
     PRIMARY KEY (type, order_id)
   );
   CREATE TABLE order_events (
     id BIGINT PRIMARY KEY,
     type INTEGER NOT NULL,
     order_id BIGINT NOT NULL,
     at TEXT NOT NULL,
     order_updated_at TEXT,
     old_status INTEGER,
     new_status INTEGER NOT NULL,
     source TEXT NOT NULL
   );`,
  `-- Verified webhook deliveries a follower received, for the leader to apply to the orders
   -- (pg-webhook-inbox.ts): one row per delivery whichever hubs it reached.
   CREATE TABLE webhook_inbox (
     id BIGSERIAL PRIMARY KEY,
     dedupe_key TEXT NOT NULL UNIQUE,
     body TEXT NOT NULL,
     received_at BIGINT NOT NULL,
     applied_at BIGINT
   );
   CREATE INDEX webhook_inbox_pending ON webhook_inbox (id) WHERE applied_at IS NULL;`,
  `-- The leader's answers to the reads every hub shares, configuration and prices
   -- (pg-shared-reads.ts): one row per request; a follower that wants it fetched again sets
   -- asked_at, the leader fetches and writes the answer or the error. Times are the database's.
   CREATE TABLE shared_reads (
     key TEXT PRIMARY KEY,
     name TEXT NOT NULL,
     input TEXT NOT NULL,
     answer TEXT,
     fetched_at BIGINT,
     error TEXT,
     failed_at BIGINT,
     asked_at BIGINT
   );`,
  `-- The webhook delivery log every hub writes and reads (pg-delivery-log.ts): one row per
   -- delivery by the inbox's dedupe key, however many hubs received it, counted.
   CREATE TABLE webhook_deliveries (
     id BIGSERIAL PRIMARY KEY,
     dedupe_key TEXT NOT NULL UNIQUE,
     received_at TEXT NOT NULL,
     last_received_at TEXT NOT NULL,
     times_received INTEGER NOT NULL DEFAULT 1,
     delivery TEXT NOT NULL
   );
   CREATE INDEX webhook_deliveries_last ON webhook_deliveries (last_received_at);`,
  `-- The team's settings (the polling keys of HUB_SETTING_KEYS), one row every hub applies
   -- (pg-team-settings.ts); version counts the changes.
   CREATE TABLE team_settings (
     id INTEGER PRIMARY KEY CHECK (id = 1),
     json TEXT NOT NULL,
     version BIGINT NOT NULL
   );`,
  `-- Whether the team's copy holds every order, as the leader sees it (pg-leader-coverage.ts):
   -- one row the leader writes and the other hubs answer sync:coverage with.
   CREATE TABLE leader_coverage (
     id INTEGER PRIMARY KEY CHECK (id = 1),
     json TEXT NOT NULL,
     version BIGINT NOT NULL
   );`,
  `-- When the leader last wrote its coverage or vouched for it unchanged, by the database's
   -- clock (epoch ms): a follower says whether every order is here is not known when it is
   -- old. NULL: written by a hub that does not say (an older version).
   ALTER TABLE leader_coverage ADD COLUMN written_at BIGINT;`,
  `-- Each order row's version, from one sequence, set by the database on every insert and
   -- every update of the row (whoever writes it): a follower applies the rows whose version is
   -- above the last it applied, so a change that brought no order event (an amount, a
   -- confirmation) reaches it too (pg-order-feed.ts).
   CREATE SEQUENCE order_rows_version;
   ALTER TABLE order_rows ADD COLUMN version BIGINT;
   UPDATE order_rows SET version = nextval('order_rows_version');
   ALTER TABLE order_rows ALTER COLUMN version SET NOT NULL;
   CREATE INDEX order_rows_by_version ON order_rows (version);
   CREATE FUNCTION order_rows_versioned() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     NEW.version := nextval('order_rows_version');
     RETURN NEW;
   END
   $$;
   CREATE TRIGGER order_rows_versioned BEFORE INSERT OR UPDATE ON order_rows
     FOR EACH ROW EXECUTE FUNCTION order_rows_versioned();`,
  `-- The leader's status confirmations and checks, compactly (pg-order-confirmations.ts): one
   -- entry per round rather than a new version of every open order's row at every history
   -- poll. Versions come from the order rows' sequence, so a follower applies both in one
   -- order. Kept an hour (every poll confirms again).
   CREATE TABLE order_confirmations (
     version BIGINT PRIMARY KEY DEFAULT nextval('order_rows_version'),
     written_at TIMESTAMPTZ NOT NULL DEFAULT now(),
     json TEXT NOT NULL
   );
   -- The leader's sync states, written with its coverage (pg-leader-coverage.ts): a follower
   -- answers sync:state with them. NULL: none written.
   ALTER TABLE leader_coverage ADD COLUMN sync_json TEXT;`,
  `-- Every verified webhook delivery a hub answered 2xx, kept before the answer, once per
   -- content (pg-kept-store.ts): the leader applies its order from here, and the hubs with
   -- --forward-to relay it from here, in order per order, each attempt in relay_attempts.
   -- Times are the database's clock (epoch ms), but for received_at and last_received_at (the
   -- receiving hub's, for people to read).
   CREATE TABLE kept_deliveries (
     id BIGSERIAL PRIMARY KEY,
     content_key TEXT NOT NULL UNIQUE,
     order_key TEXT NOT NULL,
     order_type INTEGER,
     order_id BIGINT,
     status INTEGER,
     received_at BIGINT NOT NULL,
     last_received_at BIGINT NOT NULL,
     kept_at BIGINT NOT NULL,
     times_received INTEGER NOT NULL DEFAULT 1,
     hub TEXT NOT NULL,
     body TEXT NOT NULL,
     headers_json TEXT NOT NULL,
     applied_at BIGINT,
     relay_state TEXT NOT NULL CHECK (relay_state IN ('none', 'waiting', 'sending', 'delivered', 'failed')),
     window_from BIGINT NOT NULL,
     next_at BIGINT,
     claimed_by TEXT,
     attempts INTEGER NOT NULL DEFAULT 0,
     finished_at BIGINT,
     last_answer TEXT
   );
   CREATE INDEX kept_relay_due ON kept_deliveries (next_at) WHERE relay_state IN ('waiting', 'sending');
   CREATE INDEX kept_relay_failed ON kept_deliveries (id) WHERE relay_state = 'failed';
   CREATE INDEX kept_relay_order ON kept_deliveries (order_key, id) WHERE relay_state IN ('waiting', 'sending');
   CREATE INDEX kept_order_status ON kept_deliveries (order_key, status, kept_at);
   CREATE INDEX kept_unapplied ON kept_deliveries (id) WHERE applied_at IS NULL;
   CREATE TABLE relay_attempts (
     id BIGSERIAL PRIMARY KEY,
     kept_id BIGINT NOT NULL REFERENCES kept_deliveries (id) ON DELETE CASCADE,
     at BIGINT NOT NULL,
     hub TEXT NOT NULL,
     http_status INTEGER,
     answer TEXT NOT NULL,
     ms INTEGER NOT NULL
   );
   CREATE INDEX relay_attempts_kept ON relay_attempts (kept_id, id);`,
  `-- The leadership lease (pg-lease.ts): one row, its holder, an epoch every takeover raises,
   -- and a deadline the leader renews, on the database's clock (epoch ms). holder_pid is the
   -- backend of the holder's lease connection: gone, the lease may be taken at once. The
   -- epoch is a key (UNIQUE), so a takeover's update conflicts with the fenced writes'
   -- FOR KEY SHARE lock and waits for them, while a renewal, which changes no key, does not.
   CREATE TABLE hub_lease (
     id INTEGER PRIMARY KEY CHECK (id = 1),
     holder TEXT NOT NULL,
     holder_pid INTEGER,
     epoch BIGINT NOT NULL UNIQUE,
     deadline BIGINT NOT NULL,
     taken_at BIGINT NOT NULL,
     renewed_at BIGINT NOT NULL
   );
   -- The lease epoch a leader-only send was claimed under (NULL: a send any hub may make).
   ALTER TABLE budget_sends ADD COLUMN epoch BIGINT;
   -- Where the leader's history sync stands per scope (sync-position.ts): a hub that takes
   -- over goes on from there rather than reading the whole history again. Written under the
   -- lease's epoch, after the order rows it accounts for.
   CREATE TABLE leader_sync_position (
     id INTEGER PRIMARY KEY CHECK (id = 1),
     json TEXT NOT NULL,
     epoch BIGINT NOT NULL,
     written_at BIGINT NOT NULL
   );`,
  // Claims and notes on orders (pg-handling-log.ts): every change, in the order kept; each
  // hub copies them into its order database, which answers the reads.
  `CREATE TABLE order_handling (
     id BIGSERIAL PRIMARY KEY,
     type SMALLINT NOT NULL,
     order_id BIGINT NOT NULL,
     kind TEXT NOT NULL CHECK (kind IN ('claim', 'release', 'hand', 'note')),
     actor TEXT NOT NULL,
     handler TEXT,
     text TEXT,
     at BIGINT NOT NULL
   );`,
  // Outbound alert hooks (alert-hooks/hook-store.ts): the hooks, each alert's episodes (raised
  // or cleared), one message per hook, alert, episode and event, and every attempt at one.
  `CREATE TABLE alert_hooks (
     id BIGSERIAL PRIMARY KEY,
     url TEXT NOT NULL,
     format TEXT NOT NULL CHECK (format IN ('slack', 'json')),
     secret TEXT,
     created_at BIGINT NOT NULL,
     created_by TEXT NOT NULL
   );
   CREATE TABLE alert_episodes (
     alert_id TEXT NOT NULL PRIMARY KEY,
     episode INTEGER NOT NULL,
     state TEXT NOT NULL CHECK (state IN ('raised', 'cleared')),
     alert_json TEXT NOT NULL,
     changed_at BIGINT NOT NULL
   );
   CREATE TABLE alert_hook_messages (
     id BIGSERIAL PRIMARY KEY,
     hook_id BIGINT NOT NULL,
     alert_id TEXT NOT NULL,
     episode INTEGER NOT NULL,
     event TEXT NOT NULL CHECK (event IN ('raised', 'cleared', 'test')),
     body TEXT NOT NULL,
     state TEXT NOT NULL CHECK (state IN ('waiting', 'sending', 'delivered', 'failed')),
     created_at BIGINT NOT NULL,
     next_at BIGINT,
     claimed_by TEXT,
     claim_until BIGINT,
     attempts INTEGER NOT NULL DEFAULT 0,
     finished_at BIGINT,
     last_answer TEXT,
     UNIQUE (hook_id, alert_id, episode, event)
   );
   CREATE INDEX alert_hook_due ON alert_hook_messages (next_at) WHERE state IN ('waiting', 'sending');
   CREATE INDEX alert_hook_order ON alert_hook_messages (hook_id, alert_id, id);
   CREATE TABLE alert_hook_attempts (
     id BIGSERIAL PRIMARY KEY,
     message_id BIGINT NOT NULL,
     at BIGINT NOT NULL,
     hub TEXT NOT NULL,
     http_status INTEGER,
     answer TEXT NOT NULL,
     ms INTEGER NOT NULL
   );
   CREATE INDEX alert_hook_attempts_message ON alert_hook_attempts (message_id, id);`,
  `-- People signed in through the team's identity provider (oidc/): their identities, the
   -- state of sign-ins under way and their sessions.
   ${OIDC_TABLES}`,
  // The audit log chained by hash (audit-chain.ts, pg-audit-chain.ts): seq, prev_hash and
  // hash on every entry, the entries already there chained in the order of their ids, and
  // the chain's anchor and head in audit_chain, whose row every append locks.
  chainPgAudit,
  // Every token ends (token-expiry.ts). The tokens there already get 90 days from this
  // upgrade, not an end that has passed: nobody is locked out by upgrading. A token replaced
  // by `operator rotate` is remembered by its hash, to be refused as replaced, not unknown.
  `ALTER TABLE operators ADD COLUMN expires_at BIGINT NOT NULL DEFAULT 0;
   ALTER TABLE operators ADD COLUMN account TEXT NOT NULL DEFAULT 'person' CHECK (account IN ('person', 'service'));
   UPDATE operators SET expires_at = (extract(epoch FROM now()) * 1000)::bigint + 90 * 86400000::bigint;
   CREATE TABLE replaced_tokens (
     token_hash TEXT NOT NULL PRIMARY KEY,
     name TEXT NOT NULL,
     replaced_at BIGINT NOT NULL
   );`,
  // TOTP second factors (second-factor.ts): the secret, the last step taken (a code is taken
  // once), and one-time recovery codes as SHA-256 hashes.
  `CREATE TABLE second_factors (
     name TEXT NOT NULL,
     secret TEXT NOT NULL,
     enrolled_at BIGINT NOT NULL,
     last_step BIGINT NOT NULL
   );
   CREATE UNIQUE INDEX second_factors_name_nocase ON second_factors (lower(name));
   CREATE TABLE recovery_codes (
     name TEXT NOT NULL,
     code_hash TEXT NOT NULL,
     used_at BIGINT,
     PRIMARY KEY (name, code_hash)
   );`,
  // Wrong second-factor codes per operator and the lockout they lead to (second-factor.ts):
  // kept beside the secret so that every hub on the database, and a restarted one, sees them.
  `ALTER TABLE second_factors ADD COLUMN wrong_count INTEGER NOT NULL DEFAULT 0;
   ALTER TABLE second_factors ADD COLUMN wrong_since BIGINT;
   ALTER TABLE second_factors ADD COLUMN locked_until BIGINT NOT NULL DEFAULT 0;`,
  // TOTP secrets sealed at rest with the hub's second-factor.key (second-factor-key.ts).
  sealPgSecrets,
  // Which session took a code (it may send it again when an answer was lost), enrolments under
  // way (the secret sealed like an enrolled one) and the enrolments started, and proven
  // sessions: shared by every hub on the database (second-factor.ts, second-factor-gate.ts).
  `ALTER TABLE second_factors ADD COLUMN last_step_by TEXT;
   ALTER TABLE recovery_codes ADD COLUMN used_by TEXT;
   CREATE TABLE second_factor_pending (
     name TEXT NOT NULL,
     secret TEXT NOT NULL,
     recovery_hashes TEXT NOT NULL,
     expires_at BIGINT NOT NULL,
     wrong INTEGER NOT NULL DEFAULT 0
   );
   CREATE UNIQUE INDEX second_factor_pending_name_nocase ON second_factor_pending (lower(name));
   CREATE TABLE second_factor_starts (
     name TEXT NOT NULL,
     started_at BIGINT NOT NULL
   );
   CREATE INDEX second_factor_starts_name ON second_factor_starts (lower(name), started_at);
   CREATE TABLE second_factor_proofs (
     proof TEXT NOT NULL PRIMARY KEY,
     name TEXT NOT NULL,
     proven_at BIGINT NOT NULL
   );
   CREATE INDEX second_factor_proofs_at ON second_factor_proofs (proven_at);`,
  // A session's refresh token before its last renewal, taken again for a short while (oidc/oidc-tables.ts).
  OIDC_PREVIOUS_REFRESH,
  // A renewal under way, claimed by the hub asking the provider; every refresh token replaced (oidc/oidc-tables.ts).
  OIDC_RENEWALS
]

export const PG_SCHEMA_VERSION = PG_MIGRATIONS.length

export class NewerSchemaError extends Error {
  constructor(readonly found: number) {
    super(
      `the PostgreSQL database was migrated by a newer Rampdesk hub (schema ${found}; this hub knows ${PG_SCHEMA_VERSION}): upgrade this hub, or point it at another database`
    )
    this.name = 'NewerSchemaError'
  }
}

/** The schema version the database is at (0: never migrated). */
export async function schemaVersion(c: pg.Pool | pg.PoolClient): Promise<number> {
  const exists = await c.query<{ t: string | null }>("SELECT to_regclass('rampdesk_hub_schema')::text AS t")
  if (!exists.rows[0]?.t) return 0
  const r = await c.query<{ v: number | null }>('SELECT MAX(version) AS v FROM rampdesk_hub_schema')
  return r.rows[0]?.v ?? 0
}

/** Brings the database to PG_SCHEMA_VERSION; answers the versions applied by this call. */
export async function migrate(
  pool: pg.Pool,
  migrations: ReadonlyArray<string | PgMigrationStep> = PG_MIGRATIONS,
  ctx: PgMigrationContext = { secondFactorKey: NO_SECOND_FACTOR_KEY }
): Promise<number[]> {
  return inTransaction(pool, async (c) => {
    await c.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK_KEY])
    await c.query(`CREATE TABLE IF NOT EXISTS rampdesk_hub_schema (
       version INTEGER NOT NULL PRIMARY KEY,
       applied_at TIMESTAMPTZ NOT NULL DEFAULT now()
     )`)
    const at = await schemaVersion(c)
    if (at > migrations.length) throw new NewerSchemaError(at)
    const applied: number[] = []
    for (let v = at; v < migrations.length; v++) {
      const m = migrations[v]!
      if (typeof m === 'string') await c.query(m)
      else await m(c, ctx)
      await c.query('INSERT INTO rampdesk_hub_schema (version) VALUES ($1)', [v + 1])
      applied.push(v + 1)
    }
    return applied
  })
}
