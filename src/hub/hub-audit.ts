// The hub's audit log: every operator action (and every refusal) with the operator's
// name, newest first for admins (audit:list). Details pass through the support log's
// redactor (credentials, payloads, signatures, wallet addresses), then are clipped, before
// they are stored: the same as the desktop's own audit log (logging/redact.ts, auditDetail).
import type { Sql } from '../main/store/sql'
import { auditDetail } from '../main/logging/redact'

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

/** What the audit log keeps: a year, and a million entries at most (the oldest go first). */
export const AUDIT_KEEP_MS = 365 * 24 * 60 * 60_000
export const AUDIT_MAX_ENTRIES = 1_000_000

export class HubAudit {
  constructor(
    private readonly sql: Sql,
    private readonly now: () => number = Date.now
  ) {}

  append(operator: string, action: string, detail: Record<string, unknown> = {}): HubAuditEntry {
    const at = this.now()
    const safe = auditDetail(detail)
    const r = this.sql.run(
      'INSERT INTO audit (at, operator, action, detail_json) VALUES (?, ?, ?, ?)',
      at,
      operator,
      action,
      JSON.stringify(safe)
    )
    return { id: Number(r.lastInsertRowid), at, operator, action, detail: safe }
  }

  list(limit: number): HubAuditEntry[] {
    return this.sql
      .all<{ id: number; at: number; operator: string; action: string; detail_json: string }>(
        'SELECT * FROM audit ORDER BY id DESC LIMIT ?',
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

  /** Drops entries older than keepMs, then the oldest past maxEntries; answers how many went. */
  prune(keepMs = AUDIT_KEEP_MS, maxEntries = AUDIT_MAX_ENTRIES): number {
    const old = this.sql.run('DELETE FROM audit WHERE at < ?', this.now() - keepMs).changes
    const newestGone = this.sql.value<number>('SELECT id FROM audit ORDER BY id DESC LIMIT 1 OFFSET ?', maxEntries)
    const over = newestGone === undefined ? 0 : this.sql.run('DELETE FROM audit WHERE id <= ?', newestGone).changes
    return old + over
  }
}
