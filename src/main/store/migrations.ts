// Versioned schema of the profile database. Each migration runs once, in order, and is
// recorded in schema_migrations; all pending migrations are applied in one transaction at
// open so a crash mid-upgrade leaves the previous schema intact. Never edit a migration
// that has shipped: append a new one.
import type { Sql } from './sql'
import { ORDER_COUNTS_SCHEMA } from './order-counts'
import { ORDER_GRAMS_SCHEMA } from './order-grams'
import { ORDER_WALLETS_SCHEMA, textIndexWithoutWalletSql } from './order-wallets'

export interface Migration {
  version: number
  name: string
  sql: string
}

/** Migration 5: one order type's trigram index of the searched texts, filled from the orders stored. */
function textIndexSql(type: number): string {
  return `
      CREATE VIRTUAL TABLE orders_text_${type} USING fts5(
        wallet_address, merchant_recognition_id, reference_id, transaction_hash,
        tokenize = 'trigram case_sensitive 1', content = '', contentless_delete = 1
      );
      INSERT INTO orders_text_${type} (rowid, wallet_address, merchant_recognition_id, reference_id, transaction_hash)
        SELECT id, lower(wallet_address), lower(merchant_recognition_id), lower(reference_id), lower(transaction_hash)
        FROM orders WHERE type = ${type};`
}

/** Migration 5: the triggers that keep each type's index as its orders are inserted, changed and deleted. */
function textIndexTriggersSql(types: number[]): string {
  const values = 'lower(new.wallet_address), lower(new.merchant_recognition_id), lower(new.reference_id), lower(new.transaction_hash)'
  return `
      CREATE TRIGGER orders_text_insert AFTER INSERT ON orders BEGIN${types
        .map(
          (t) => `
        INSERT INTO orders_text_${t} (rowid, wallet_address, merchant_recognition_id, reference_id, transaction_hash)
          SELECT new.id, ${values} WHERE new.type = ${t};`
        )
        .join('')}
      END;
      CREATE TRIGGER orders_text_update AFTER UPDATE OF wallet_address, merchant_recognition_id, reference_id, transaction_hash ON orders
      WHEN new.wallet_address IS NOT old.wallet_address OR new.merchant_recognition_id IS NOT old.merchant_recognition_id
        OR new.reference_id IS NOT old.reference_id OR new.transaction_hash IS NOT old.transaction_hash
      BEGIN${types
        .map(
          (t) => `
        UPDATE orders_text_${t} SET (wallet_address, merchant_recognition_id, reference_id, transaction_hash) = (${values})
        WHERE rowid = new.id AND new.type = ${t};`
        )
        .join('')}
      END;
      CREATE TRIGGER orders_text_delete AFTER DELETE ON orders BEGIN${types
        .map(
          (t) => `
        DELETE FROM orders_text_${t} WHERE rowid = old.id AND old.type = ${t};`
        )
        .join('')}
      END;
`
}

export const migrations: readonly Migration[] = [
  {
    version: 1,
    name: 'initial schema',
    sql: `
      -- Orders of both types. Amounts are TEXT decimal strings exactly as normalised by the
      -- schemas; sort_fiat / sort_crypto are REAL copies used only to ORDER BY, never read
      -- back as money. record_json is the full normalised record (unknown keys included).
      CREATE TABLE orders (
        id INTEGER PRIMARY KEY,
        type INTEGER NOT NULL CHECK (type IN (1, 2)),
        order_id INTEGER NOT NULL,
        status INTEGER NOT NULL,
        fiat_type INTEGER,
        coin_id INTEGER NOT NULL,
        chain_id INTEGER NOT NULL,
        payment_type INTEGER,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        wallet_address TEXT,
        merchant_recognition_id TEXT,
        reference_id TEXT,
        transaction_hash TEXT,
        hash_id TEXT,
        user_id INTEGER,
        app_id INTEGER,
        kyc_needed INTEGER,
        trials INTEGER,
        webhook_trials INTEGER,
        fiat_amount TEXT,
        expected_crypto_amount TEXT,
        actual_crypto_amount TEXT,
        expected_price TEXT,
        actual_price TEXT,
        expected_quantity TEXT,
        actual_quantity TEXT,
        actual_fiat_amount TEXT,
        onramp_fee TEXT,
        gas_fee TEXT,
        client_fee TEXT,
        gateway_fee TEXT,
        tds_fee TEXT,
        sort_fiat REAL,
        sort_crypto REAL,
        record_json TEXT NOT NULL,
        content_hash TEXT NOT NULL,
        status_source TEXT NOT NULL DEFAULT 'sync' CHECK (status_source IN ('sync', 'watch', 'webhook')),
        first_seen_at TEXT NOT NULL,
        last_changed_at TEXT NOT NULL,
        UNIQUE (type, order_id)
      );
      -- The orders table reads windows of up to 100,000 rows: each sort key has an index
      -- that also carries every filter column, so the window's ids come from one ordered
      -- covering index scan (filters are checked on index entries, no table lookups),
      -- and only the rows of the window are read from the table.
      CREATE INDEX orders_by_created ON orders (type, created_at, order_id, status, fiat_type, coin_id, chain_id);
      CREATE INDEX orders_by_updated ON orders (type, updated_at, order_id, status, fiat_type, coin_id, chain_id, created_at);
      CREATE INDEX orders_by_status ON orders (type, status, created_at, order_id, fiat_type, coin_id, chain_id);
      CREATE INDEX orders_by_order_id ON orders (type, order_id, status, fiat_type, coin_id, chain_id, created_at);
      CREATE INDEX orders_by_fiat_amount ON orders (type, sort_fiat, order_id, status, fiat_type, coin_id, chain_id, created_at);
      CREATE INDEX orders_by_crypto_amount ON orders (type, sort_crypto, order_id, status, fiat_type, coin_id, chain_id, created_at);
      -- Case-insensitive exact/prefix search: queries use the same lower(...) expressions.
      CREATE INDEX orders_wallet ON orders (type, lower(wallet_address));
      CREATE INDEX orders_merchant_ref ON orders (type, lower(merchant_recognition_id));
      CREATE INDEX orders_reference ON orders (type, lower(reference_id));
      CREATE INDEX orders_tx_hash ON orders (type, lower(transaction_hash));

      -- Observed status transitions (old_status NULL = first sighting).
      CREATE TABLE order_events (
        id INTEGER PRIMARY KEY,
        type INTEGER NOT NULL,
        order_id INTEGER NOT NULL,
        at TEXT NOT NULL,
        order_updated_at TEXT,
        old_status INTEGER,
        new_status INTEGER NOT NULL,
        source TEXT NOT NULL CHECK (source IN ('sync', 'watch', 'webhook')),
        FOREIGN KEY (type, order_id) REFERENCES orders (type, order_id) ON DELETE CASCADE
      );
      CREATE INDEX order_events_order ON order_events (type, order_id, id);
      CREATE INDEX order_events_at ON order_events (at);

      -- History sync position per (type, fiat type): cursor is the last updatedAt seen;
      -- sync_cursor_ids holds the ids already seen at exactly that instant, so thousands of
      -- orders sharing one updatedAt are crossed page by page without loop or gap.
      CREATE TABLE sync_cursors (
        type INTEGER NOT NULL,
        fiat_type INTEGER NOT NULL,
        cursor TEXT,
        seen_at_cursor INTEGER NOT NULL DEFAULT 0,
        pages_applied INTEGER NOT NULL DEFAULT 0,
        last_page_at TEXT,
        last_success_at TEXT,
        last_error TEXT,
        next_run_at TEXT,
        PRIMARY KEY (type, fiat_type)
      );
      CREATE TABLE sync_cursor_ids (
        type INTEGER NOT NULL,
        fiat_type INTEGER NOT NULL,
        order_id INTEGER NOT NULL,
        PRIMARY KEY (type, fiat_type, order_id)
      ) WITHOUT ROWID;

      -- Pinned orders; an order may be pinned before sync has seen it.
      CREATE TABLE watches (
        type INTEGER NOT NULL CHECK (type IN (1, 2)),
        order_id INTEGER NOT NULL,
        label TEXT,
        added_at TEXT NOT NULL,
        last_status INTEGER,
        last_checked_at TEXT,
        PRIMARY KEY (type, order_id)
      );

      CREATE TABLE config_cache (
        key TEXT PRIMARY KEY,
        json TEXT NOT NULL,
        fetched_at TEXT NOT NULL,
        etag TEXT,
        hash TEXT NOT NULL
      );

      CREATE TABLE ticker_history (
        id INTEGER PRIMARY KEY,
        fiat_type INTEGER NOT NULL,
        coin_id INTEGER NOT NULL,
        side TEXT NOT NULL CHECK (side IN ('buy', 'sell')),
        price TEXT NOT NULL,
        at TEXT NOT NULL
      );
      CREATE INDEX ticker_series ON ticker_history (fiat_type, coin_id, side, at);
      CREATE INDEX ticker_at ON ticker_history (at);

      CREATE TABLE webhook_deliveries (
        id INTEGER PRIMARY KEY,
        received_at TEXT NOT NULL,
        last_received_at TEXT NOT NULL,
        times_received INTEGER NOT NULL DEFAULT 1,
        headers_json TEXT NOT NULL,
        payload_header TEXT,
        body TEXT NOT NULL,
        verified INTEGER NOT NULL CHECK (verified IN (0, 1)),
        reason TEXT,
        order_type INTEGER,
        order_id INTEGER,
        order_status INTEGER,
        dedupe_key TEXT NOT NULL UNIQUE
      );
      CREATE INDEX webhook_deliveries_received ON webhook_deliveries (received_at);
      CREATE INDEX webhook_deliveries_order ON webhook_deliveries (order_type, order_id);

      CREATE TABLE audit_log (
        id INTEGER PRIMARY KEY,
        at TEXT NOT NULL,
        action TEXT NOT NULL,
        detail_json TEXT NOT NULL
      );
      CREATE INDEX audit_log_at ON audit_log (at);

      CREATE TABLE settings (
        key TEXT PRIMARY KEY,
        json TEXT NOT NULL,
        updated_at TEXT NOT NULL
      );
    `
  },
  {
    version: 2,
    name: 'sync repair position',
    sql: `
      -- Where a history-sync repair pass must restart (an order moved under offset paging),
      -- committed with the page that found it so a restart does not forget it.
      ALTER TABLE sync_cursors ADD COLUMN repair_from TEXT;
    `
  },
  {
    version: 3,
    name: 'service facts, unreadable orders, reconcile position',
    sql: `
      -- What this profile has learned about its service, kept across restarts: the JSON
      -- type each parameter is accepted in, limits the spec does not show, the shapes its
      -- answers come in. kind names the family, key the item (e.g. 'param',
      -- 'merchantHistory.fiatType').
      CREATE TABLE service_facts (
        kind TEXT NOT NULL,
        key TEXT NOT NULL,
        value_json TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        PRIMARY KEY (kind, key)
      ) WITHOUT ROWID;

      -- History records that did not match their schema: kept raw with the reason, never
      -- blocking their page, shown to the operator, parsed again by a newer Rampdesk.
      -- record_key is 'id:<orderId>' when the id could be read (a newer copy replaces the
      -- older), otherwise 'raw:<sha256 of the raw JSON>'.
      CREATE TABLE unreadable_orders (
        type INTEGER NOT NULL CHECK (type IN (1, 2)),
        record_key TEXT NOT NULL,
        fiat_type INTEGER NOT NULL,
        order_id INTEGER,
        updated_at TEXT,
        raw_json TEXT NOT NULL,
        reason TEXT NOT NULL,
        app_version TEXT NOT NULL,
        first_seen_at TEXT NOT NULL,
        last_seen_at TEXT NOT NULL,
        times_seen INTEGER NOT NULL DEFAULT 1,
        PRIMARY KEY (type, record_key)
      ) WITHOUT ROWID;

      -- When the recent window was last read again end to end (reconcile).
      ALTER TABLE sync_cursors ADD COLUMN last_reconcile_at TEXT;
      -- Where each id read at the cursor instant stands in that run of equal updatedAt, so
      -- a sync can resume inside a run longer than a page and check it by overlap.
      ALTER TABLE sync_cursor_ids ADD COLUMN position INTEGER;
    `
  },
  {
    version: 4,
    name: 'webhook delivery forms, replays, bounded bodies',
    sql: `
      -- How each verified delivery's signed payload was written (compact, spaced,
      -- slash-escaped, body only, ...) and notes such as a JSON body that differed from it.
      ALTER TABLE webhook_deliveries ADD COLUMN payload_form TEXT;
      ALTER TABLE webhook_deliveries ADD COLUMN notes_json TEXT NOT NULL DEFAULT '[]';
      -- Refused as a replay (signed payload outside the 5 min window, or an exact repeat).
      ALTER TABLE webhook_deliveries ADD COLUMN replay INTEGER NOT NULL DEFAULT 0 CHECK (replay IN (0, 1));
      -- Deliveries that fail verification keep only the first 2 KiB of their body, with the
      -- whole body's length and SHA-256. Rows from before keep their length; the bodies of
      -- unverified ones are cut to the same bound (their hash was never taken: NULL).
      ALTER TABLE webhook_deliveries ADD COLUMN body_bytes INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE webhook_deliveries ADD COLUMN body_sha256 TEXT;
      ALTER TABLE webhook_deliveries ADD COLUMN body_truncated INTEGER NOT NULL DEFAULT 0 CHECK (body_truncated IN (0, 1));
      UPDATE webhook_deliveries SET body_bytes = length(CAST(body AS BLOB));
      UPDATE webhook_deliveries SET body = substr(body, 1, 2048), body_truncated = 1 WHERE verified = 0 AND length(body) > 2048;
      -- Pruning by age reads the oldest first.
      CREATE INDEX webhook_deliveries_last_received ON webhook_deliveries (last_received_at);
    `
  },
  {
    version: 5,
    name: 'substring search index of the order texts',
    sql: `
      -- What a customer reads out (the last characters of a wallet or a hash, part of a
      -- reference) is found anywhere in the value: an FTS5 trigram index of the four
      -- searched texts per order type, keyed by orders.id, so that counting a type's
      -- matches reads the index alone. The texts go in lower-cased by SQLite's lower() and
      -- the index is case-sensitive: the index and the plan that tests orders one by one
      -- (instr over the same lower()) fold case the same way. Contentless: the texts stay
      -- in orders; contentless_delete lets the triggers below replace and remove entries.
${[1, 2].map(textIndexSql).join('')}${textIndexTriggersSql([1, 2])}    `
  },
  {
    version: 6,
    name: 'status confirmations',
    sql: `
      -- When and how each order's status was last confirmed by the service: a history
      -- answer that included it, a verified webhook, or orderStatus. Open orders are
      -- confirmed again within the freshness bound (monitor/freshness.ts); rows from
      -- before start from their last change.
      ALTER TABLE orders ADD COLUMN status_confirmed_at TEXT;
      ALTER TABLE orders ADD COLUMN status_confirmed_by TEXT CHECK (status_confirmed_by IN ('history', 'webhook', 'orderStatus'));
      UPDATE orders SET status_confirmed_at = last_changed_at,
        status_confirmed_by = CASE status_source WHEN 'watch' THEN 'orderStatus' WHEN 'webhook' THEN 'webhook' ELSE 'history' END;
    `
  },
  {
    version: 7,
    name: 'status checks',
    sql: `
      -- The freshness sweep's last orderStatus request about an order, and how many in a row
      -- failed since its status was last confirmed: an order the service cannot tell about
      -- takes its turn behind the others instead of holding the head of the queue, and after
      -- a few failures is named as a gap of its own (monitor/freshness.ts). Rows from before
      -- were never asked.
      ALTER TABLE orders ADD COLUMN status_checked_at TEXT;
      ALTER TABLE orders ADD COLUMN status_check_failures INTEGER NOT NULL DEFAULT 0;
    `
  },
  {
    version: 8,
    name: 'request budget carried over a restart',
    sql: `
      -- What the request budget spent per endpoint, and when (ms since the epoch): a
      -- restarted app takes those slots again before it sends anything, since the service
      -- still counts the last minute's requests (api/budget-carry.ts). The hub's hub.db
      -- has the same table.
      CREATE TABLE budget_carry (
        endpoint TEXT NOT NULL PRIMARY KEY,
        used INTEGER NOT NULL,
        at INTEGER NOT NULL
      );
    `
  },
  {
    version: 9,
    name: 'orders gone at the service; open orders by confirmation',
    sql: `
      -- When orderStatus answered that an order the service no longer lists does not exist
      -- (417, "Invalid orderId"): the row is kept and shown as no longer listed, and the
      -- completeness audit leaves it out of its count (monitor/completeness-audit.ts).
      -- Listed again, it is cleared.
      ALTER TABLE orders ADD COLUMN gone_at TEXT;
      -- The open orders of each type in the order their status was last confirmed: the
      -- freshness sweep reads the oldest few each tick without walking the terminal ones
      -- (monitor/freshness.ts). The conditions are the status table's terminal statuses
      -- (shared/domain/status.ts), as OrdersRepo writes them: it reads them INDEXED BY, so a
      -- status table that no longer matches fails its queries (freshness.test.ts).
      CREATE INDEX orders_open_1_by_confirmation ON orders (status_confirmed_at, gone_at)
        WHERE type = 1 AND status NOT IN (-4, -3, -2, -1, 4, 5, 15, 16);
      CREATE INDEX orders_open_2_by_confirmation ON orders (status_confirmed_at, gone_at)
        WHERE type = 2 AND status NOT IN (-4, -2, -1, 6, 7, 14, 15, 19, 40, 41);
    `
  },
  {
    version: 10,
    name: 'how a webhook status was matched to its order',
    sql: `
      -- Written with a status a verified webhook set: 'whole' when the body was a whole
      -- record whose identity fields all agreed with the order held under its id, 'partial'
      -- when it was no whole record and only the few identity fields it gave could be
      -- compared (monitor/webhook-ingest.ts); NULL for any other source. Only a 'whole'
      -- webhook's status stands over a history snapshot of equal updatedAt
      -- (OrdersRepo.upsert); rows from before (NULL) do not.
      ALTER TABLE orders ADD COLUMN webhook_match TEXT CHECK (webhook_match IN ('whole', 'partial'));
    `
  },
  {
    version: 11,
    name: 'orders gone at the service, by themselves',
    sql: `
      -- The few orders marked gone: the open status groups and the audit's count leave them
      -- out by id (order-query.ts NOT_GONE), so those counts stay covering index scans instead
      -- of reading every row for its gone_at.
      CREATE INDEX orders_gone ON orders (gone_at) WHERE gone_at IS NOT NULL;
    `
  },
  {
    version: 12,
    name: 'order counts by filter column',
    // How many orders hold each combination of the filter columns (order-counts.ts): a
    // filter's total without search or dates is a sum over a few hundred rows instead of a
    // COUNT over every matching index entry (100-200 ms for a status group at 1,000,000).
    sql: ORDER_COUNTS_SCHEMA
  },
  {
    version: 13,
    name: 'order claims and notes',
    // Who handles an order and the notes on it (order-claims-repo.ts): the log of every
    // change, and the current claim per order for the table's mark and its search. On a team
    // hub, source_id is the id of the entry in the hub's backend.
    sql: `
      CREATE TABLE order_handling (
        id INTEGER PRIMARY KEY,
        source_id INTEGER UNIQUE,
        type INTEGER NOT NULL,
        order_id INTEGER NOT NULL,
        kind TEXT NOT NULL CHECK (kind IN ('claim', 'release', 'hand', 'note')),
        actor TEXT NOT NULL,
        handler TEXT,
        text TEXT,
        at INTEGER NOT NULL
      );
      CREATE INDEX order_handling_order ON order_handling (type, order_id, at);
      CREATE TABLE order_claims (
        type INTEGER NOT NULL,
        order_id INTEGER NOT NULL,
        operator TEXT NOT NULL,
        since INTEGER NOT NULL,
        PRIMARY KEY (type, order_id)
      );
    `
  },
  {
    version: 14,
    name: 'distinct wallets and their index',
    // A wallet's part is found among the distinct wallets, and its orders counted and
    // windowed from their own index (order-wallets.ts), not from every order's trigrams.
    sql: ORDER_WALLETS_SCHEMA + textIndexWithoutWalletSql([1, 2])
  },
  {
    version: 15,
    name: 'six-character grams of the order texts',
    // A search of six characters or more costs the same at a million orders as at a hundred
    // thousand (order-grams.ts). The orders already held are indexed in steps while the app
    // runs, not here: at a million orders that would hold the profile's opening for a minute.
    sql: ORDER_GRAMS_SCHEMA
  }
]

/** Applies pending migrations in one transaction; returns the resulting schema version. */
export function applyMigrations(sql: Sql, list: readonly Migration[] = migrations): number {
  sql.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    applied_at TEXT NOT NULL
  )`)
  const known = list.length === 0 ? 0 : Math.max(...list.map((m) => m.version))
  return sql.transaction(() => {
    const current = sql.value<number>('SELECT COALESCE(MAX(version), 0) FROM schema_migrations') ?? 0
    if (current > known) {
      throw new Error(`this database has schema version ${current}, newer than this Rampdesk understands (${known}); update Rampdesk`)
    }
    // Every migration not recorded yet, in order: not only those above the newest recorded,
    // so a database that got a later version before an earlier one landed (two branches
    // merged in turn) still gets the earlier one.
    const applied = new Set(sql.all<{ version: number }>('SELECT version FROM schema_migrations').map((r) => r.version))
    for (const m of [...list].sort((a, b) => a.version - b.version)) {
      if (applied.has(m.version)) continue
      sql.exec(m.sql)
      sql.run('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)', m.version, m.name, new Date().toISOString())
    }
    return Math.max(current, known)
  })
}
