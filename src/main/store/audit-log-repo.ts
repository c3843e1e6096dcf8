// Who changed what: profile changes, webhook URL set, dummy/resend webhooks, exports, and
// every confirmation asked for a change that weakens security (confirmed or not).
// Details pass through the support log's redactor, then are clipped, before they are stored
// (logging/redact.ts, auditDetail).
import { auditDetail } from '../logging/redact'
import type { Sql } from './sql'

export type AuditAction =
  | 'profile.create'
  | 'profile.update'
  | 'profile.delete'
  | 'profile.activate'
  | 'webhook.setUrl'
  | 'webhook.sendDummy'
  | 'webhook.resend'
  | 'orders.export'
  | 'settings.change'
  | 'secret.set'
  | 'secret.delete'
  | 'order.watch'
  | 'order.unwatch'
  | 'order.claim'
  | 'order.release'
  | 'order.hand'
  | 'order.note'
  | 'sync.resync'
  | 'orders.counts_rebuilt'
  | 'security.confirmation'

export interface AuditEntry {
  id: number
  at: string
  action: AuditAction | (string & {})
  detail: Record<string, unknown>
}

export class AuditLogRepo {
  constructor(
    private readonly sql: Sql,
    private readonly now: () => Date = () => new Date()
  ) {}

  append(action: AuditAction | (string & {}), detail: Record<string, unknown> = {}): AuditEntry {
    const at = this.now().toISOString()
    const safe = auditDetail(detail)
    const r = this.sql.run('INSERT INTO audit_log (at, action, detail_json) VALUES (?, ?, ?)', at, action, JSON.stringify(safe))
    return { id: Number(r.lastInsertRowid), at, action, detail: safe }
  }

  /** Newest first. */
  list(q: { limit?: number; offset?: number; action?: string } = {}): { rows: AuditEntry[]; total: number } {
    const limit = q.limit ?? 100
    const offset = q.offset ?? 0
    const where = q.action === undefined ? '1' : 'action = ?'
    const params = q.action === undefined ? [] : [q.action]
    const total = this.sql.value<number>(`SELECT COUNT(*) FROM audit_log WHERE ${where}`, ...params) ?? 0
    const rows = this.sql
      .all<{ id: number; at: string; action: string; detail_json: string }>(
        `SELECT id, at, action, detail_json FROM audit_log WHERE ${where} ORDER BY id DESC LIMIT ? OFFSET ?`,
        ...params,
        limit,
        offset
      )
      .map((r) => ({ id: r.id, at: r.at, action: r.action, detail: JSON.parse(r.detail_json) as Record<string, unknown> }))
    return { rows, total }
  }
}
