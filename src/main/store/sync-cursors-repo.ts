// Where history sync stands for each (type, fiat type) scope: the newest updatedAt read
// (cursor) and the ids read at exactly that instant, a repair position owed after an
// order moved under offset paging, the last success, error and reconcile. The cursor is
// advanced by OrdersRepo.applyHistoryPage inside the page's own transaction, so a sync
// killed at any instant resumes from what was committed.
import type { Sql } from './sql'
import type { OrderType } from '../../shared/ipc/contract'

export interface SyncCursor {
  type: OrderType
  fiatType: number
  /** The newest updatedAt read (ISO with ms), null before the first page. */
  cursor: string | null
  /** How many distinct orders with updatedAt exactly equal to cursor have been read. */
  seenAtCursor: number
  pagesApplied: number
  lastPageAt: string | null
  lastSuccessAt: string | null
  lastError: string | null
  nextRunAt: string | null
  /** Where a repair pass still has to start from (an order moved out of a long run of equal updatedAt), or null. */
  repairFrom: string | null
  /** When the recent window was last read again end to end. */
  lastReconcileAt: string | null
}

/** One record's place in the listing, readable or not. */
export interface ListedRecord {
  orderId: number
  updatedAt: string
}

interface CursorDbRow {
  type: number
  fiat_type: number
  cursor: string | null
  seen_at_cursor: number
  pages_applied: number
  last_page_at: string | null
  last_success_at: string | null
  last_error: string | null
  next_run_at: string | null
  repair_from: string | null
  last_reconcile_at: string | null
}

function toCursor(type: OrderType, fiatType: number, r: CursorDbRow | undefined): SyncCursor {
  return {
    type,
    fiatType,
    cursor: r?.cursor ?? null,
    seenAtCursor: r?.seen_at_cursor ?? 0,
    pagesApplied: r?.pages_applied ?? 0,
    lastPageAt: r?.last_page_at ?? null,
    lastSuccessAt: r?.last_success_at ?? null,
    lastError: r?.last_error ?? null,
    nextRunAt: r?.next_run_at ?? null,
    repairFrom: r?.repair_from ?? null,
    lastReconcileAt: r?.last_reconcile_at ?? null
  }
}

export class SyncCursorsRepo {
  constructor(
    private readonly sql: Sql,
    private readonly now: () => Date = () => new Date()
  ) {}

  get(type: OrderType, fiatType: number): SyncCursor {
    return toCursor(
      type,
      fiatType,
      this.sql.get<CursorDbRow>('SELECT * FROM sync_cursors WHERE type = ? AND fiat_type = ?', type, fiatType)
    )
  }

  list(): SyncCursor[] {
    return this.sql
      .all<CursorDbRow>('SELECT * FROM sync_cursors ORDER BY type, fiat_type')
      .map((r) => toCursor(r.type as OrderType, r.fiat_type, r))
  }

  /**
   * The ids read at exactly the cursor instant by their position in that run of equal
   * updatedAt (the service's order), or null when a position is unknown (a run read
   * before positions were kept, or one never read from its start).
   */
  /** The ids read at the cursor's instant, in any order (those whose position is known or not). */
  idsAtCursor(type: OrderType, fiatType: number): number[] {
    return this.sql
      .all<{ order_id: number }>('SELECT order_id FROM sync_cursor_ids WHERE type = ? AND fiat_type = ? ORDER BY order_id', type, fiatType)
      .map((r) => r.order_id)
  }

  runAtCursor(type: OrderType, fiatType: number): number[] | null {
    const rows = this.sql.all<{ order_id: number; position: number | null }>(
      'SELECT order_id, position FROM sync_cursor_ids WHERE type = ? AND fiat_type = ? ORDER BY position',
      type,
      fiatType
    )
    const ids: number[] = []
    for (const r of rows) {
      if (r.position === null || r.position !== ids.length) return null
      ids.push(r.order_id)
    }
    return ids
  }

  /**
   * After a page: the cursor moves forward to the newest updatedAt of the page (never
   * back: a look-back or reconcile pass re-reads older records), and the ids at that
   * instant are added to those seen there. Call inside the page's transaction.
   */
  advance(
    type: OrderType,
    fiatType: number,
    records: readonly ListedRecord[],
    at: string = this.now().toISOString(),
    runPositions?: ReadonlyMap<number, number>
  ): SyncCursor {
    const before = this.get(type, fiatType)
    let maxAt: string | null = null
    for (const r of records) if (maxAt === null || r.updatedAt > maxAt) maxAt = r.updatedAt
    let cursor = before.cursor
    if (maxAt !== null && (cursor === null || maxAt > cursor)) {
      cursor = maxAt
      this.sql.run('DELETE FROM sync_cursor_ids WHERE type = ? AND fiat_type = ?', type, fiatType)
    }
    if (cursor !== null) {
      for (const r of records) {
        if (r.updatedAt !== cursor) continue
        const position = runPositions?.get(r.orderId) ?? null
        this.sql.run(
          `INSERT INTO sync_cursor_ids (type, fiat_type, order_id, position) VALUES (?, ?, ?, ?)
           ON CONFLICT (type, fiat_type, order_id) DO UPDATE SET position = COALESCE(excluded.position, position)`,
          type,
          fiatType,
          r.orderId,
          position
        )
      }
    }
    const seen = this.sql.value<number>('SELECT COUNT(*) FROM sync_cursor_ids WHERE type = ? AND fiat_type = ?', type, fiatType) ?? 0
    this.sql.run(
      `INSERT INTO sync_cursors (type, fiat_type, cursor, seen_at_cursor, pages_applied, last_page_at)
       VALUES (?, ?, ?, ?, 1, ?)
       ON CONFLICT (type, fiat_type) DO UPDATE SET cursor = excluded.cursor, seen_at_cursor = excluded.seen_at_cursor,
         pages_applied = pages_applied + 1, last_page_at = excluded.last_page_at`,
      type,
      fiatType,
      cursor,
      seen,
      at
    )
    return this.get(type, fiatType)
  }

  /** Sets (or clears, with null) where a repair pass has to start from. */
  setRepairFrom(type: OrderType, fiatType: number, since: string | null): SyncCursor {
    this.upsert(type, fiatType, 'repair_from', since)
    return this.get(type, fiatType)
  }

  /** A sync run reached the end of the history: clears the last error. */
  markSuccess(type: OrderType, fiatType: number, opts: { at?: string; nextRunAt?: string | null; reconciled?: boolean } = {}): SyncCursor {
    const at = opts.at ?? this.now().toISOString()
    this.sql.run(
      `INSERT INTO sync_cursors (type, fiat_type, last_success_at, last_error, next_run_at) VALUES (?, ?, ?, NULL, ?)
       ON CONFLICT (type, fiat_type) DO UPDATE SET last_success_at = excluded.last_success_at, last_error = NULL,
         next_run_at = excluded.next_run_at`,
      type,
      fiatType,
      at,
      opts.nextRunAt ?? null
    )
    if (opts.reconciled) this.upsert(type, fiatType, 'last_reconcile_at', at)
    return this.get(type, fiatType)
  }

  /** A sync run failed: the cursor stays where the last committed page left it. */
  markError(type: OrderType, fiatType: number, error: string, opts: { nextRunAt?: string | null } = {}): SyncCursor {
    this.sql.run(
      `INSERT INTO sync_cursors (type, fiat_type, last_error, next_run_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (type, fiat_type) DO UPDATE SET last_error = excluded.last_error, next_run_at = excluded.next_run_at`,
      type,
      fiatType,
      error,
      opts.nextRunAt ?? null
    )
    return this.get(type, fiatType)
  }

  /** Forgets the sync position (a full re-sync follows; stored orders stay and dedupe by hash). */
  reset(type: OrderType, fiatType: number): void {
    this.sql.transaction(() => {
      this.sql.run('DELETE FROM sync_cursor_ids WHERE type = ? AND fiat_type = ?', type, fiatType)
      this.sql.run('DELETE FROM sync_cursors WHERE type = ? AND fiat_type = ?', type, fiatType)
    })
  }

  private upsert(type: OrderType, fiatType: number, column: 'repair_from' | 'last_reconcile_at', value: string | null): void {
    this.sql.run(
      `INSERT INTO sync_cursors (type, fiat_type, ${column}) VALUES (?, ?, ?)
       ON CONFLICT (type, fiat_type) DO UPDATE SET ${column} = excluded.${column}`,
      type,
      fiatType,
      value
    )
  }
}
