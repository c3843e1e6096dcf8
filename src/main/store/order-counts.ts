// order_counts (desktop migration 12): how many orders hold each combination of the filter
// columns, kept by triggers in the same statement as the order, so that a filter's total
// is a sum over a few hundred rows instead of a COUNT over every matching index entry.
// Its SQL lives here because the completeness audit rebuilds it from the rows when it
// finds it disagreeing with them (OrdersRepo.countScope with fromRows).
//
// Every write to `orders` must fire these triggers: never INSERT OR REPLACE / UPDATE OR
// REPLACE on orders (a REPLACE deletes without firing delete triggers unless
// recursive_triggers is on), and a migration that rebuilds the orders table must rebuild
// this one with it.
import type { Sql } from './sql'

/**
 * order_counts' fiat_type for an order without one: -2^53, outside the safe integers that
 * every filter's ids must be (order-query.ts), so no filter can ask for it by value.
 */
export const NO_FIAT = -9_007_199_254_740_992

const COLUMNS = 'type, status, fiat_type, coin_id, chain_id, gone, n'

/**
 * Counts the orders held into an empty order_counts, the orders not gone and the gone ones
 * apart: gone_at is in no covering index, so testing it per order would read every row of
 * the table (bench/query-probe.ts measures both).
 */
export const COUNT_ORDERS_SQL = `
  INSERT INTO order_counts (${COLUMNS})
    SELECT type, status, IFNULL(fiat_type, ${NO_FIAT}), coin_id, chain_id, 0, COUNT(*) FROM orders
    WHERE id NOT IN (SELECT id FROM orders WHERE gone_at IS NOT NULL) GROUP BY 1, 2, 3, 4, 5;
  INSERT INTO order_counts (${COLUMNS})
    SELECT type, status, IFNULL(fiat_type, ${NO_FIAT}), coin_id, chain_id, 1, COUNT(*) FROM orders
    WHERE gone_at IS NOT NULL GROUP BY 1, 2, 3, 4, 5;`

const add = `INSERT INTO order_counts (${COLUMNS})
  VALUES (new.type, new.status, IFNULL(new.fiat_type, ${NO_FIAT}), new.coin_id, new.chain_id, new.gone_at IS NOT NULL, 1)
  ON CONFLICT DO UPDATE SET n = n + 1;`
const remove = `UPDATE order_counts SET n = n - 1
  WHERE type = old.type AND status = old.status AND fiat_type = IFNULL(old.fiat_type, ${NO_FIAT})
    AND coin_id = old.coin_id AND chain_id = old.chain_id AND gone = (old.gone_at IS NOT NULL);`

/** The table, its first count, and the triggers that keep it (migration 12). Rows whose n falls to 0 stay. */
export const ORDER_COUNTS_SCHEMA = `
  CREATE TABLE order_counts (
    type INTEGER NOT NULL,
    status INTEGER NOT NULL,
    fiat_type INTEGER NOT NULL,
    coin_id INTEGER NOT NULL,
    chain_id INTEGER NOT NULL,
    gone INTEGER NOT NULL,
    n INTEGER NOT NULL,
    PRIMARY KEY (type, status, fiat_type, coin_id, chain_id, gone)
  ) WITHOUT ROWID;
  ${COUNT_ORDERS_SQL}
  CREATE TRIGGER order_counts_insert AFTER INSERT ON orders BEGIN ${add} END;
  CREATE TRIGGER order_counts_delete AFTER DELETE ON orders BEGIN ${remove} END;
  CREATE TRIGGER order_counts_update AFTER UPDATE OF type, status, fiat_type, coin_id, chain_id, gone_at ON orders
  WHEN old.type IS NOT new.type OR old.status IS NOT new.status OR old.fiat_type IS NOT new.fiat_type
    OR old.coin_id IS NOT new.coin_id OR old.chain_id IS NOT new.chain_id
    OR (old.gone_at IS NULL) IS NOT (new.gone_at IS NULL)
  BEGIN ${remove} ${add} END;`

/** Counts order_counts afresh from the orders held, in one transaction. */
export function rebuildOrderCounts(sql: Sql): void {
  sql.transaction(() => {
    sql.exec('DELETE FROM order_counts')
    sql.exec(COUNT_ORDERS_SQL)
  })
}

/** Orders held per fiat type of one order type (null: records that named none), from order_counts: a few hundred rows, not every order of the type. */
export function heldPerFiat(sql: Sql, type: number): { fiatType: number | null; orders: number }[] {
  return sql
    .all<{ fiat_type: number; n: number }>(
      'SELECT fiat_type, SUM(n) AS n FROM order_counts WHERE type = ? GROUP BY fiat_type HAVING SUM(n) > 0 ORDER BY fiat_type',
      type
    )
    .map((r) => ({ fiatType: r.fiat_type === NO_FIAT ? null : r.fiat_type, orders: r.n }))
}

/**
 * Orders the service still lists (not gone) per type and status, from order_counts: one
 * statement over a few hundred rows answers every status group of both types at once.
 */
export function listedPerStatus(sql: Sql): { type: number; status: number; orders: number }[] {
  return sql
    .all<{ type: number; status: number; n: number }>(
      'SELECT type, status, SUM(n) AS n FROM order_counts WHERE gone = 0 GROUP BY type, status HAVING SUM(n) > 0'
    )
    .map((r) => ({ type: r.type, status: r.status, orders: r.n }))
}
