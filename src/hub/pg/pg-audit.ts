// The audit log in PostgreSQL. A request's action is appended without waiting for the
// database: entries are queued in order and written by one writer. A failed write is logged
// and tried again (every second, in order: nothing is dropped while the hub runs); close()
// writes what is left, and writes each entry it could not write (already redacted) to the
// hub's log if the database is gone by then, so no entry is lost silently. Each batch is
// chained onto the log's head under its row lock (pg-audit-chain.ts), whichever hub writes.
import type pg from 'pg'
import { auditDetail } from '../../main/logging/redact'
import type { ChainedEntry } from '../audit-chain'
import { AUDIT_KEEP_MS, AUDIT_MAX_ENTRIES, type ChainBounds, type HubAuditEntry } from '../hub-audit'
import type { AuditLog } from '../hub-store'
import { appendChained, chainBounds, chainedPage, pruneChained } from './pg-audit-chain'
import { inTransaction } from './pg-connection'

interface Pending {
  at: number
  operator: string
  action: string
  detailJson: string
}

const RETRY_MS = 1_000

export class PgAudit implements AuditLog {
  private queue: Pending[] = []
  private writing: Promise<void> | null = null
  private failing = false
  private retry: NodeJS.Timeout | null = null

  constructor(
    private readonly pool: pg.Pool,
    private readonly now: () => number = Date.now,
    private readonly onError: (message: string) => void = () => undefined
  ) {}

  append(operator: string, action: string, detail: Record<string, unknown> = {}): void {
    this.queue.push({ at: this.now(), operator, action, detailJson: JSON.stringify(auditDetail(detail)) })
    this.kick()
  }

  /** Entries not written yet. */
  get pending(): number {
    return this.queue.length
  }

  private kick(): void {
    if (this.writing || this.retry) return
    this.writing = this.drain().finally(() => {
      this.writing = null
    })
  }

  private async drain(): Promise<void> {
    while (this.queue.length) {
      const batch = this.queue.slice(0, 100)
      try {
        const rows = batch.map((e) => ({ at: e.at, operator: e.operator, action: e.action, detail_json: e.detailJson }))
        await inTransaction(this.pool, (c) => appendChained(c, rows))
        this.queue.splice(0, batch.length)
        if (this.failing) this.onError(`the audit log is written again (${batch.length} held entries written)`)
        this.failing = false
      } catch (e) {
        if (!this.failing)
          this.onError(`could not write the audit log: ${(e as Error).message}; ${this.queue.length} entries held, retrying every second`)
        this.failing = true
        this.retry = setTimeout(() => {
          this.retry = null
          this.kick()
        }, RETRY_MS)
        this.retry.unref()
        return
      }
    }
  }

  /** Waits for what is queued to be written (tests, close). */
  async flush(): Promise<void> {
    if (this.retry) {
      clearTimeout(this.retry)
      this.retry = null
    }
    this.kick()
    await this.writing
  }

  async list(limit: number): Promise<HubAuditEntry[]> {
    await this.flush()
    const r = await this.pool.query<{ id: number; at: number; operator: string; action: string; detail_json: string }>(
      'SELECT id, at, operator, action, detail_json FROM audit ORDER BY seq DESC LIMIT $1',
      [limit]
    )
    return r.rows.map((row) => ({
      id: row.id,
      at: row.at,
      operator: row.operator,
      action: row.action,
      detail: JSON.parse(row.detail_json) as Record<string, unknown>
    }))
  }

  async prune(keepMs = AUDIT_KEEP_MS, maxEntries = AUDIT_MAX_ENTRIES): Promise<number> {
    await this.flush()
    return inTransaction(this.pool, (c) => pruneChained(c, this.now() - keepMs, maxEntries))
  }

  /** The chained entries after this seq, oldest first, from `sinceAt` (epoch ms) on. */
  async page(afterSeq: number, limit: number, sinceAt?: number): Promise<ChainedEntry[]> {
    return chainedPage(this.pool, afterSeq, limit, sinceAt)
  }

  async bounds(): Promise<ChainBounds> {
    return chainBounds(this.pool)
  }

  /** Writes what is queued; says how many entries could not be written. */
  async close(): Promise<void> {
    await this.flush()
    if (this.retry) clearTimeout(this.retry)
    if (!this.queue.length) return
    this.onError(`${this.queue.length} audit entries could not be written to the database before the hub stopped; they follow`)
    for (const e of this.queue.splice(0))
      this.onError(`unwritten audit entry: ${new Date(e.at).toISOString()} ${e.operator} ${e.action} ${e.detailJson}`)
  }
}
