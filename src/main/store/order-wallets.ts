// order_wallets (desktop migration 14): each distinct wallet address of an order type
// (lower-cased, as every search folds it), how many orders hold it, and a trigram index of
// those values alone. A wallet repeats across a customer's orders (thousands at a million
// orders), so a search for part of one finds the few wallets first, in an index that grows
// with the customers rather than with the orders; their orders are then read in the
// updated order straight from orders_wallet (type, lower(wallet), updated_at, order_id),
// and counted as the sum of n. The per-order trigram index (orders_text_N) no longer holds
// wallets: a wallet's trigrams, the same in each of its orders, made every doclist they
// touch grow with the store.
//
// Every write to `orders` must fire these triggers (see order-counts.ts for what that rules out).

/** The wallet as it is kept and compared: lower(), no wallet as NULL. */
const folded = (row: 'new' | 'old'): string => `lower(${row}.wallet_address)`
const held = (row: 'new' | 'old'): string => `${row}.wallet_address IS NOT NULL AND ${row}.wallet_address <> ''`

const add = `INSERT INTO order_wallets (type, wallet, n) SELECT new.type, ${folded('new')}, 1 WHERE ${held('new')}
    ON CONFLICT (type, wallet) DO UPDATE SET n = n + 1;`
const remove = `UPDATE order_wallets SET n = n - 1 WHERE ${held('old')} AND type = old.type AND wallet = ${folded('old')};
  DELETE FROM order_wallets WHERE n <= 0 AND ${held('old')} AND type = old.type AND wallet = ${folded('old')};`

/** The table and its index, filled from the orders held, and the triggers that keep them (migration 14). */
export const ORDER_WALLETS_SCHEMA = `
  CREATE TABLE order_wallets (
    id INTEGER PRIMARY KEY,
    type INTEGER NOT NULL,
    wallet TEXT NOT NULL,
    n INTEGER NOT NULL,
    UNIQUE (type, wallet)
  );
  CREATE VIRTUAL TABLE order_wallets_text USING fts5(
    wallet, tokenize = 'trigram case_sensitive 1', content = '', contentless_delete = 1
  );
  INSERT INTO order_wallets (type, wallet, n)
    SELECT type, lower(wallet_address), COUNT(*) FROM orders
    WHERE wallet_address IS NOT NULL AND wallet_address <> '' GROUP BY 1, 2;
  INSERT INTO order_wallets_text (rowid, wallet) SELECT id, wallet FROM order_wallets;
  CREATE TRIGGER order_wallets_text_insert AFTER INSERT ON order_wallets BEGIN
    INSERT INTO order_wallets_text (rowid, wallet) VALUES (new.id, new.wallet);
  END;
  CREATE TRIGGER order_wallets_text_delete AFTER DELETE ON order_wallets BEGIN
    DELETE FROM order_wallets_text WHERE rowid = old.id;
  END;
  CREATE TRIGGER order_wallets_insert AFTER INSERT ON orders BEGIN
    ${add}
  END;
  CREATE TRIGGER order_wallets_delete AFTER DELETE ON orders BEGIN
    ${remove}
  END;
  CREATE TRIGGER order_wallets_update AFTER UPDATE OF type, wallet_address ON orders
  WHEN new.type IS NOT old.type OR ${folded('new')} IS NOT ${folded('old')} BEGIN
    ${remove}
    ${add}
  END;
  -- A wallet's orders in the order the orders view shows by default, so a window of them
  -- is read from the index; its leading columns still serve the one- and two-character
  -- prefix search.
  DROP INDEX orders_wallet;
  CREATE INDEX orders_wallet ON orders (type, lower(wallet_address), updated_at, order_id);`

/**
 * The per-order trigram index without the wallet: its column stays, empty for every order
 * written from now, and emptied for an older order whose wallet changes (else the index
 * would still find it by the wallet it no longer holds). Rebuilding the index would hold a profile's first start on this version
 * for about a minute at a million orders; an upgraded profile's older orders keep their
 * wallet there, which only finds them again beside the wallets' own index (a search's
 * sources are unioned, and a search counted from its wallets leaves out the other sources'
 * matches those wallets hold).
 */
export function textIndexWithoutWalletSql(types: readonly number[]): string {
  const values = 'NULL, lower(new.merchant_recognition_id), lower(new.reference_id), lower(new.transaction_hash)'
  return `
  DROP TRIGGER orders_text_insert;
  DROP TRIGGER orders_text_update;
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
  END;`
}
