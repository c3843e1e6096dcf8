// A search's matching ids, collected once per search (until the next write) as one JSON
// array SQLite reads back as a set: its total is the set's size, and its window walks the
// sort's index testing each entry against the set, or reads and sorts the set's orders
// when they are few. Every source of matches (searchSources in order-query.ts) is read
// once, up to a bound: a search with more matches than that (a first keystroke, "0x")
// is not collected, and keeps the plan that tests each order (order-query.ts, `broad`).
// A search whose wallet matches are a few distinct wallets is not collected either: it is
// counted from the wallets' counts and the other sources' few ids, and its window read from
// the wallets' own index (order-wallets.ts), until a filter or a sort needs its ids.
import type { OrderType } from '../../shared/ipc/contract'
import { matchingWalletsParams, matchingWalletsSql, searchSources, walletsOrdersSql, type SearchTerm } from './order-query'
import type { Sql } from './sql'

/** What collecting a search's matches found. */
export type SearchSet =
  /** Every match: `ids` a JSON array of order row ids, `size` of them. */
  | {
      kind: 'collected'
      ids: string
      size: number
      /** A counted source (order ids, texts) reached the broad threshold: the total shown is capped, as for any broad search. */
      broad: boolean
    }
  /**
   * The orders of a few distinct wallets (lower-cased), and `others`: a JSON array of the
   * ids the other sources match that none of those wallets holds. `size` counts both.
   */
  | { kind: 'wallets'; wallets: string[]; others: string; size: number; broad: boolean }
  /** A source has more matches than the bound: not collected. */
  | { kind: 'past bound' }

/**
 * The search's matches of one type: each source read up to `bound` + 1 ids (one pass of
 * the trigram index or an index range), then the sources' ids unioned. `broadAt` is the
 * count of one counted source that makes the search broad (searchProbes' threshold). When
 * its matching wallets number 1 to `maxWallets`, with `bound` orders at most, the wallets'
 * orders are counted, not read ('wallets').
 */
export function collectSearchSet(
  sql: Sql,
  type: OrderType,
  term: SearchTerm | null,
  bound: number,
  broadAt: number,
  maxWallets = 0
): SearchSet {
  if (!term) return { kind: 'collected', ids: '[]', size: 0, broad: false }
  const wallets = term.match !== 'start' && maxWallets > 0 ? fewWallets(sql, type, term, maxWallets) : null
  const walletOrders = wallets?.reduce((n, w) => n + w.n, 0) ?? 0
  const byWallet = wallets !== null && wallets.length > 0 && walletOrders <= bound
  const found: Array<{ ids: string; n: number }> = []
  let broad = byWallet && walletOrders >= broadAt
  for (const s of searchSources(type, term)) {
    // Counted from the wallets, or known to be none.
    if (s.wallet && wallets !== null && (byWallet || wallets.length === 0)) continue
    const r = sql.get<{ n: number; ids: string }>(
      `SELECT COUNT(*) AS n, json_group_array(id) AS ids FROM (SELECT id FROM (${s.sql}) LIMIT ?)`,
      ...s.params,
      bound + 1
    )
    const n = r?.n ?? 0
    if (n > bound) return { kind: 'past bound' }
    if (s.probed && n >= broadAt) broad = true
    if (r && n > 0) found.push({ ids: r.ids, n })
  }
  const union = unionOf(sql, found)
  if (!byWallet) return { kind: 'collected', ...union, broad }
  const values = wallets.map((w) => w.wallet)
  // The other sources' matches that a matching wallet holds are counted with the wallets.
  const others =
    union.size === 0
      ? union
      : (sql.get<{ size: number; ids: string }>(
          `SELECT COUNT(*) AS size, json_group_array(id) AS ids FROM orders WHERE id IN (SELECT value FROM json_each(?))
           AND IFNULL(lower(wallet_address), '') NOT IN (${values.map(() => '?').join(', ')})`,
          union.ids,
          ...values
        ) ?? { size: 0, ids: '[]' })
  return { kind: 'wallets', wallets: values, others: others.ids, size: walletOrders + others.size, broad }
}

/** A 'wallets' set's every match, collected (for a filter or a sort its window cannot serve). */
export function collectWallets(sql: Sql, type: OrderType, set: Extract<SearchSet, { kind: 'wallets' }>): SearchSet {
  const r = sql.get<{ ids: string }>(
    `SELECT json_group_array(id) AS ids FROM (${walletsOrdersSql(set.wallets)} UNION ALL SELECT value FROM json_each(?))`,
    type,
    ...set.wallets,
    set.others
  )
  return { kind: 'collected', ids: r?.ids ?? '[]', size: set.size, broad: set.broad }
}

/** The distinct wallets holding the text, or null when there are more than `max`. */
function fewWallets(sql: Sql, type: OrderType, term: SearchTerm, max: number): Array<{ wallet: string; n: number }> | null {
  const rows = sql.all<{ wallet: string; n: number }>(matchingWalletsSql(), ...matchingWalletsParams(type, term), max + 1)
  return rows.length > max ? null : rows
}

function unionOf(sql: Sql, found: Array<{ ids: string; n: number }>): { ids: string; size: number } {
  if (found.length === 0) return { ids: '[]', size: 0 }
  if (found.length === 1) return { ids: found[0]!.ids, size: found[0]!.n }
  const union = sql.get<{ n: number; ids: string }>(
    `SELECT COUNT(*) AS n, json_group_array(id) AS ids FROM (${found.map(() => 'SELECT value AS id FROM json_each(?)').join(' UNION ')})`,
    ...found.map((f) => f.ids)
  )
  return { ids: union?.ids ?? '[]', size: union?.n ?? 0 }
}
