// The audit log's hash chain in PostgreSQL (audit-chain.ts), where several hubs and the
// command line append to one log: each append takes the row lock on the chain's head
// (audit_chain, FOR UPDATE) in the transaction that writes its entries and the new head, so
// two hubs never chain onto the same entry; the unique seq refuses it if anything else tried.
import type pg from 'pg'
import { chainAfter, entryOfRow, GENESIS_HASH, type ChainedEntry, type ChainedRow, type UnchainedRow } from '../audit-chain'
import { pruneThrough, type ChainBounds } from '../hub-audit'

/** The migration to the chained log: the entries already there chained in the order of their ids. */
export async function chainPgAudit(c: pg.PoolClient): Promise<void> {
  await c.query(`ALTER TABLE audit ADD COLUMN seq BIGINT, ADD COLUMN prev_hash TEXT, ADD COLUMN hash TEXT`)
  await c.query(`CREATE TABLE audit_chain (
     id INTEGER PRIMARY KEY CHECK (id = 1),
     anchor_seq BIGINT NOT NULL,
     anchor_hash TEXT NOT NULL,
     head_seq BIGINT NOT NULL,
     head_hash TEXT NOT NULL
   )`)
  let head = { seq: 0, hash: GENESIS_HASH }
  let afterId = 0
  for (;;) {
    const r = await c.query<UnchainedRow & { id: string }>(
      'SELECT id, at, operator, action, detail_json FROM audit WHERE id > $1 ORDER BY id LIMIT 1000',
      [afterId]
    )
    if (r.rows.length === 0) break
    const rows = r.rows.map((row) => ({ ...row, at: Number(row.at) }))
    const links = chainAfter(head, rows)
    await c.query(
      `UPDATE audit SET seq = v.seq, prev_hash = v.prev_hash, hash = v.hash
         FROM unnest($1::bigint[], $2::bigint[], $3::text[], $4::text[]) AS v(id, seq, prev_hash, hash)
        WHERE audit.id = v.id`,
      [rows.map((x) => x.id), links.map((l) => l.seq), links.map((l) => l.prev_hash), links.map((l) => l.hash)]
    )
    head = { seq: links.at(-1)!.seq, hash: links.at(-1)!.hash }
    afterId = Number(rows.at(-1)!.id)
  }
  await c.query(`ALTER TABLE audit ALTER COLUMN seq SET NOT NULL, ALTER COLUMN prev_hash SET NOT NULL, ALTER COLUMN hash SET NOT NULL`)
  await c.query('CREATE UNIQUE INDEX audit_seq ON audit (seq)')
  await c.query('INSERT INTO audit_chain VALUES (1, 0, $1, $2, $3)', [GENESIS_HASH, head.seq, head.hash])
}

async function lockedBounds(c: pg.PoolClient | pg.Pool, lock: boolean): Promise<ChainBounds> {
  const r = await c.query<{ anchor_seq: string; anchor_hash: string; head_seq: string; head_hash: string }>(
    `SELECT anchor_seq, anchor_hash, head_seq, head_hash FROM audit_chain WHERE id = 1${lock ? ' FOR UPDATE' : ''}`
  )
  const row = r.rows[0]
  if (!row) throw new Error('the database has no audit chain row (audit_chain)')
  return { start: { seq: Number(row.anchor_seq), hash: row.anchor_hash }, head: { seq: Number(row.head_seq), hash: row.head_hash } }
}

export const chainBounds = (pool: pg.Pool): Promise<ChainBounds> => lockedBounds(pool, false)

/** Chains and writes these entries, in order, after the head; called inside a transaction. */
export async function appendChained(c: pg.PoolClient, batch: readonly UnchainedRow[]): Promise<void> {
  const { head } = await lockedBounds(c, true)
  const links = chainAfter(head, batch)
  const values: unknown[] = []
  const rows = batch.map((e, i) => {
    values.push(links[i]!.seq, e.at, e.operator, e.action, e.detail_json, links[i]!.prev_hash, links[i]!.hash)
    const b = i * 7
    return `($${b + 1}, $${b + 2}, $${b + 3}, $${b + 4}, $${b + 5}, $${b + 6}, $${b + 7})`
  })
  await c.query(`INSERT INTO audit (seq, at, operator, action, detail_json, prev_hash, hash) VALUES ${rows.join(', ')}`, values)
  const last = links.at(-1)!
  await c.query('UPDATE audit_chain SET head_seq = $1, head_hash = $2 WHERE id = 1', [last.seq, last.hash])
}

/** The chained entries after this seq, oldest first, from `sinceAt` (epoch ms) on. */
export async function chainedPage(pool: pg.Pool, afterSeq: number, limit: number, sinceAt = -Infinity): Promise<ChainedEntry[]> {
  const r = await pool.query<ChainedRow>(
    'SELECT seq, at, operator, action, detail_json, prev_hash, hash FROM audit WHERE seq > $1 AND at >= $2 ORDER BY seq LIMIT $3',
    [afterSeq, Number.isFinite(sinceAt) ? sinceAt : Number.MIN_SAFE_INTEGER, limit]
  )
  return r.rows.map(entryOfRow)
}

/** Drops the prefix of the chain older than the cutoff or past the count; records its last entry as the anchor. */
export async function pruneChained(c: pg.PoolClient, cutoff: number, maxEntries: number): Promise<number> {
  const { head } = await lockedBounds(c, true)
  const first = await c.query<{ s: string | null }>('SELECT MIN(seq) AS s FROM audit WHERE at >= $1', [cutoff])
  const s = first.rows[0]?.s
  const through = pruneThrough({ firstKeptByAge: s == null ? null : Number(s), maxSeq: head.seq, maxEntries })
  const last = await c.query<{ hash: string }>('SELECT hash FROM audit WHERE seq = $1', [through])
  if (!last.rows[0]) return 0
  const gone = await c.query('DELETE FROM audit WHERE seq <= $1', [through])
  await c.query('UPDATE audit_chain SET anchor_seq = $1, anchor_hash = $2 WHERE id = 1', [through, last.rows[0].hash])
  return gone.rowCount ?? 0
}
