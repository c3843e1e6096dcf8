// A search's matching ids, collected once per search (until the next write) as one JSON
// array SQLite reads back as a set: its total is the set's size, and its window walks the
// sort's index testing each entry against the set, or reads and sorts the set's orders
// when they are few. Every source of matches (searchSources in order-query.ts) is read
// once, up to a bound: a search with more matches than that (a first keystroke, "0x")
// is not collected, and keeps the plan that tests each order (order-query.ts, `broad`).
import type { OrderType } from '../../shared/ipc/contract'
import { searchSources, searchTerm } from './order-query'
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
  /** A source has more matches than the bound: not collected. */
  | { kind: 'past bound' }

/**
 * The search's matches of one type: each source read up to `bound` + 1 ids (one pass of
 * the trigram index or an index range), then the sources' ids unioned. `broadAt` is the
 * count of one counted source that makes the search broad (searchProbes' threshold).
 */
export function collectSearchSet(sql: Sql, type: OrderType, search: string, bound: number, broadAt: number): SearchSet {
  const term = searchTerm(search)
  if (!term) return { kind: 'collected', ids: '[]', size: 0, broad: false }
  const found: Array<{ ids: string; n: number }> = []
  let broad = false
  for (const s of searchSources(type, term)) {
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
  if (found.length === 0) return { kind: 'collected', ids: '[]', size: 0, broad }
  if (found.length === 1) return { kind: 'collected', ids: found[0]!.ids, size: found[0]!.n, broad }
  const union = sql.get<{ n: number; ids: string }>(
    `SELECT COUNT(*) AS n, json_group_array(id) AS ids FROM (${found.map(() => 'SELECT value AS id FROM json_each(?)').join(' UNION ')})`,
    ...found.map((f) => f.ids)
  )
  return { kind: 'collected', ids: union?.ids ?? '[]', size: union?.n ?? 0, broad }
}
