// The hub's audit log: every operator action (and every refusal) with the operator's
// name, newest first for admins (audit:list). Details pass through the support log's
// redactor (credentials, payloads, signatures, wallet addresses), then are clipped, before
// they are stored: the same as the desktop's own audit log (logging/redact.ts, auditDetail).
// Each entry is chained by hash to the one before (audit-chain.ts): the append reads the
// chain's head and writes the entry and the new head in one transaction, which in hub.db
// holds the write lock, so the command line and the running hub never chain onto the same
// entry. Pruning drops a prefix of the chain and records its last entry as the anchor the
// chain now starts from.
import type { Sql } from '../main/store/sql'
import { auditDetail } from '../main/logging/redact'
import { chainAfter, entryOfRow, GENESIS_HASH, type ChainedEntry, type ChainedRow, type ChainLink } from './audit-chain'

/** Who acts when no operator does: the hub's command line and the hub itself. */
export const CLI_ACTOR = '(command line)'
export const HUB_ACTOR = '(hub)'

export interface HubAuditEntry {
  id: number
  at: number
  operator: string
  action: string
  detail: Record<string, unknown>
}

/** Where the chain starts (the last entry pruned, or none) and its newest entry, as the store records them. */
export interface ChainBounds {
  start: ChainLink
  head: ChainLink
}

/** What the audit log keeps: a year, and a million entries at most (the oldest go first). */
export const AUDIT_KEEP_MS = 365 * 24 * 60 * 60_000
export const AUDIT_MAX_ENTRIES = 1_000_000

/** The last seq a prune drops: the longest prefix older than the cutoff, or past the count. */
export function pruneThrough(o: { firstKeptByAge: number | null; maxSeq: number; maxEntries: number }): number {
  const byAge = o.firstKeptByAge === null ? o.maxSeq : o.firstKeptByAge - 1
  return Math.max(byAge, o.maxSeq - o.maxEntries)
}

/** hub.db's migration to the chained log: the entries there chained in the order of their ids. */
export function chainSqliteAudit(sql: Sql): void {
  sql.exec(`CREATE TABLE audit_chained (
     id INTEGER PRIMARY KEY,
     seq INTEGER NOT NULL UNIQUE,
     at INTEGER NOT NULL,
     operator TEXT NOT NULL,
     action TEXT NOT NULL,
     detail_json TEXT NOT NULL,
     prev_hash TEXT NOT NULL,
     hash TEXT NOT NULL
   )`)
  const rows = sql.all<{ id: number; at: number; operator: string; action: string; detail_json: string }>('SELECT * FROM audit ORDER BY id')
  const links = chainAfter({ seq: 0, hash: GENESIS_HASH }, rows)
  rows.forEach((r, i) =>
    sql.run(
      'INSERT INTO audit_chained (id, seq, at, operator, action, detail_json, prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
      r.id,
      links[i]!.seq,
      r.at,
      r.operator,
      r.action,
      r.detail_json,
      links[i]!.prev_hash,
      links[i]!.hash
    )
  )
  const head = links.at(-1) ?? { seq: 0, hash: GENESIS_HASH }
  sql.exec(`DROP TABLE audit;
    ALTER TABLE audit_chained RENAME TO audit;
    CREATE INDEX audit_at ON audit (at);
    CREATE TABLE audit_chain (
      id INTEGER PRIMARY KEY CHECK (id = 1),
      anchor_seq INTEGER NOT NULL,
      anchor_hash TEXT NOT NULL,
      head_seq INTEGER NOT NULL,
      head_hash TEXT NOT NULL
    );`)
  sql.run('INSERT INTO audit_chain VALUES (1, 0, ?, ?, ?)', GENESIS_HASH, head.seq, head.hash)
}

export class HubAudit {
  constructor(
    private readonly sql: Sql,
    private readonly now: () => number = Date.now
  ) {}

  append(operator: string, action: string, detail: Record<string, unknown> = {}): HubAuditEntry {
    const at = this.now()
    const safe = auditDetail(detail)
    const detailJson = JSON.stringify(safe)
    return this.sql.transaction(() => {
      const [link] = chainAfter(this.bounds().head, [{ at, operator, action, detail_json: detailJson }])
      const r = this.sql.run(
        'INSERT INTO audit (seq, at, operator, action, detail_json, prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?, ?)',
        link!.seq,
        at,
        operator,
        action,
        detailJson,
        link!.prev_hash,
        link!.hash
      )
      this.sql.run('UPDATE audit_chain SET head_seq = ?, head_hash = ? WHERE id = 1', link!.seq, link!.hash)
      return { id: Number(r.lastInsertRowid), at, operator, action, detail: JSON.parse(detailJson) as Record<string, unknown> }
    })
  }

  list(limit: number): HubAuditEntry[] {
    return this.sql
      .all<{ id: number; at: number; operator: string; action: string; detail_json: string }>(
        'SELECT * FROM audit ORDER BY seq DESC LIMIT ?',
        limit
      )
      .map((r) => ({
        id: r.id,
        at: r.at,
        operator: r.operator,
        action: r.action,
        detail: JSON.parse(r.detail_json) as Record<string, unknown>
      }))
  }

  /** The chained entries after this seq, oldest first, from `sinceAt` (epoch ms) on. */
  page(afterSeq: number, limit: number, sinceAt = -Infinity): ChainedEntry[] {
    return this.sql
      .all<ChainedRow>(
        'SELECT seq, at, operator, action, detail_json, prev_hash, hash FROM audit WHERE seq > ? AND at >= ? ORDER BY seq LIMIT ?',
        afterSeq,
        Number.isFinite(sinceAt) ? sinceAt : Number.MIN_SAFE_INTEGER,
        limit
      )
      .map(entryOfRow)
  }

  bounds(): ChainBounds {
    const r = this.sql.get<{ anchor_seq: number; anchor_hash: string; head_seq: number; head_hash: string }>(
      'SELECT * FROM audit_chain WHERE id = 1'
    )
    if (!r) throw new Error('hub.db has no audit chain row (audit_chain)')
    return { start: { seq: r.anchor_seq, hash: r.anchor_hash }, head: { seq: r.head_seq, hash: r.head_hash } }
  }

  /** Every append is written before it returns. */
  flush(): void {}

  /** Drops entries older than keepMs, then the oldest past maxEntries; answers how many went. */
  prune(keepMs = AUDIT_KEEP_MS, maxEntries = AUDIT_MAX_ENTRIES): number {
    return this.sql.transaction(() => {
      const firstKeptByAge = this.sql.value<number>('SELECT MIN(seq) FROM audit WHERE at >= ?', this.now() - keepMs) ?? null
      const maxSeq = this.bounds().head.seq
      const through = pruneThrough({ firstKeptByAge, maxSeq, maxEntries })
      const last = this.sql.value<string>('SELECT hash FROM audit WHERE seq = ?', through)
      if (last === undefined) return 0
      const gone = this.sql.run('DELETE FROM audit WHERE seq <= ?', through).changes
      this.sql.run('UPDATE audit_chain SET anchor_seq = ?, anchor_hash = ? WHERE id = 1', through, last)
      return gone
    })
  }
}
