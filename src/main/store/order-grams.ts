// orders_grams_N (desktop migration 15): an index of each order's six-character grams
// (merchant reference, reference id, hash; lower-cased), for a search of six characters or
// more. The trigram index (orders_text_N) finds such a text too, but a trigram of a hex
// hash is in about one order in seventy, so its lists grow with the store and a search at
// a million orders read ten times what it read at a hundred thousand; a six-character gram
// is in a handful of orders at any size. A search takes the grams that cover its text, the
// orders holding all of them, and keeps those whose texts hold it (instr), so the index
// only narrows and never decides.
//
// Each gram is one token of its UTF-8 bytes in hex (FTS5's ascii tokenizer would split a
// gram at anything but a letter or a digit), one row an order with every gram of its
// texts, without positions (detail=none): a few hundred bytes an order. The triggers make
// the grams in SQL (generate_series over the positions of each text; a trigger cannot hold
// a CTE). An upgraded profile's orders from before the migration are added in steps while
// the app runs (fillGramsStep, by GramFiller); until then searches take the trigram index.
//
// Every write to `orders` must fire these triggers (see order-counts.ts for what that rules out).
import type { Sql } from './sql'

/** The length of a gram: a search this long or longer is found through orders_grams_N. */
export const GRAM_LENGTH = 6

/** At most this many grams narrow a search: a pasted 88-character hash needs no fifteen. */
const MAX_QUERY_GRAMS = 6

const TYPES = [1, 2] as const

/** The grams of an order's texts as one string of tokens, or NULL when no text is GRAM_LENGTH long. */
const gramsOf = (row: string): string =>
  `(SELECT group_concat(hex(substr(x, value, ${GRAM_LENGTH})), ' ')
      FROM (SELECT lower(${row}.merchant_recognition_id) AS x UNION ALL SELECT lower(${row}.reference_id)
            UNION ALL SELECT lower(${row}.transaction_hash))
      JOIN generate_series(1, length(x) - ${GRAM_LENGTH - 1}))`

const insertNew = (t: number): string =>
  `INSERT INTO orders_grams_${t} (rowid, grams) SELECT new.id, g FROM (SELECT ${gramsOf('new')} AS g) WHERE new.type = ${t} AND g IS NOT NULL;`
const deleteOld = (t: number): string => `DELETE FROM orders_grams_${t} WHERE rowid = old.id AND old.type = ${t};`

/** Migration 15: the indexes, the triggers that keep them, and where the fill of the orders already held starts. */
export const ORDER_GRAMS_SCHEMA = `
  ${TYPES.map(
    (t) => `CREATE VIRTUAL TABLE orders_grams_${t} USING fts5(
    grams, tokenize = 'ascii', content = '', contentless_delete = 1, detail = none
  );`
  ).join('\n  ')}
  -- The orders held before the migration still to be indexed: every id up to through_id
  -- (fillGramsStep works down from it). No row: every order is in the index.
  CREATE TABLE orders_grams_fill (through_id INTEGER NOT NULL);
  INSERT INTO orders_grams_fill (through_id) SELECT MAX(id) FROM orders HAVING MAX(id) IS NOT NULL;
  CREATE TRIGGER orders_grams_insert AFTER INSERT ON orders BEGIN
    ${TYPES.map(insertNew).join('\n    ')}
  END;
  CREATE TRIGGER orders_grams_update AFTER UPDATE OF type, merchant_recognition_id, reference_id, transaction_hash ON orders
  WHEN new.type IS NOT old.type OR new.merchant_recognition_id IS NOT old.merchant_recognition_id
    OR new.reference_id IS NOT old.reference_id OR new.transaction_hash IS NOT old.transaction_hash
  BEGIN
    ${TYPES.map(deleteOld).join('\n    ')}
    ${TYPES.map(insertNew).join('\n    ')}
  END;
  CREATE TRIGGER orders_grams_delete AFTER DELETE ON orders BEGIN
    ${TYPES.map(deleteOld).join('\n    ')}
  END;`

/** Whether every order held is in the gram index (no fill pending). */
export function gramsReady(sql: Sql): boolean {
  return (sql.value<number>('SELECT COUNT(*) FROM orders_grams_fill') ?? 0) === 0
}

/**
 * Indexes the next `batch` orders (by id, downwards) of those held before the migration,
 * in one transaction: `looked` is how many orders it looked at (those with no text of
 * GRAM_LENGTH characters have no row), `done` once none is left. An order written since
 * has its grams from the triggers already; it is indexed again, the same (REPLACE).
 */
export function fillGramsStep(sql: Sql, batch: number): { looked: number; done: boolean } {
  return sql.transaction(() => {
    const through = sql.value<number>('SELECT through_id FROM orders_grams_fill')
    if (through === undefined || through === null) return { looked: 0, done: true }
    const next = sql.get<{ from: number | null; n: number }>(
      'SELECT MIN(id) AS "from", COUNT(*) AS n FROM (SELECT id FROM orders WHERE id <= ? ORDER BY id DESC LIMIT ?)',
      through,
      batch
    )
    const from = next?.from ?? null
    if (from === null) {
      sql.run('DELETE FROM orders_grams_fill')
      return { looked: 0, done: true }
    }
    for (const t of TYPES)
      sql.run(
        `INSERT OR REPLACE INTO orders_grams_${t} (rowid, grams)
         SELECT id, g FROM (SELECT o.id, ${gramsOf('o')} AS g FROM orders o WHERE o.type = ${t} AND o.id BETWEEN ? AND ?) WHERE g IS NOT NULL`,
        from,
        through
      )
    sql.run('UPDATE orders_grams_fill SET through_id = ?', from - 1)
    return { looked: next!.n, done: false }
  })
}

/** One token of a gram: its UTF-8 bytes in hex, as hex() writes them in the triggers (the tokenizer folds the case). */
const token = (gram: string): string => Buffer.from(gram, 'utf8').toString('hex')

/**
 * The FTS5 query of the grams covering a text (already folded as lower() folds it) of
 * GRAM_LENGTH characters or more: one every GRAM_LENGTH characters and the last, so every
 * character is in one, up to MAX_QUERY_GRAMS spread over it. Characters as SQLite counts
 * them (code points), as substr() cut the indexed grams.
 */
export function gramQuery(text: string): string {
  const chars = [...text]
  const last = chars.length - GRAM_LENGTH
  if (last < 0) throw new RangeError(`a gram query needs ${GRAM_LENGTH} characters or more`)
  const starts = new Set<number>()
  for (let p = 0; p < last; p += GRAM_LENGTH) starts.add(p)
  starts.add(last)
  let picked = [...starts]
  if (picked.length > MAX_QUERY_GRAMS) {
    const step = (picked.length - 1) / (MAX_QUERY_GRAMS - 1)
    picked = Array.from({ length: MAX_QUERY_GRAMS }, (_, i) => picked[Math.round(i * step)]!)
  }
  return [...new Set(picked.map((p) => token(chars.slice(p, p + GRAM_LENGTH).join(''))))].map((g) => `"${g}"`).join(' AND ')
}
