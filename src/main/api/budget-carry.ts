// The request budget across a restart. The service counts a sliding minute per endpoint
// and does not forget a client that restarted; a fresh budget would allow a full minute's
// requests at once and earn a 429. So the budget's use is written to a store as it changes
// (the desktop's profile database, the hub's hub.db, or PostgreSQL:
// hub/pg/pg-budget-carry.ts), and a restarted app or hub takes that many slots again
// before it sends anything. They are taken at the restart instant, so they free up later
// than the originals would have: the carried budget is stricter than the truth, never
// looser.
import type { EndpointName } from '../../shared/api/endpoints'
import type { Sql } from '../store/database'
import type { RateBudget } from './rate-budget'

/** A value, or a promise of it: the SQLite stores answer at once, PostgreSQL's later. */
export type Awaitable<T> = T | Promise<T>

/** The budget's window (RateBudget's default): older use has expired at the service. */
export const CARRY_WINDOW_MS = 61_000

export interface CarryRow {
  endpoint: string
  used: number
}

/** Where the carried use is kept. */
export interface CarryTable {
  /** The use written after `since`. */
  read(since: number): Awaitable<CarryRow[]>
  /** Writes each endpoint's use as of `at` (not awaited: the budget's listener is synchronous). */
  write(rows: readonly CarryRow[], at: number): void
}

export function sqliteCarryTable(sql: Sql): CarryTable {
  return {
    read: (since) => sql.all<CarryRow>('SELECT endpoint, used FROM budget_carry WHERE at > ?', since),
    write: (rows, at) =>
      sql.transaction(() => {
        for (const r of rows)
          sql.run(
            'INSERT INTO budget_carry (endpoint, used, at) VALUES (?, ?, ?) ON CONFLICT (endpoint) DO UPDATE SET used = excluded.used, at = excluded.at',
            r.endpoint,
            r.used,
            at
          )
      })
  }
}

export class BudgetCarry {
  constructor(
    private readonly table: CarryTable,
    private readonly now: () => number = Date.now
  ) {}

  /** Takes again the slots the last run used within the window; returns how many. */
  async restore(budget: RateBudget): Promise<number> {
    const rows = await this.table.read(this.now() - CARRY_WINDOW_MS)
    let taken = 0
    for (const r of rows)
      for (let i = 0; i < r.used; i++) {
        try {
          await budget.acquire(r.endpoint as EndpointName, { priority: 'interactive', maxWaitMs: 0 })
          taken++
        } catch {
          break
        }
      }
    return taken
  }

  /** Keeps the budget's use in the store; returns the unsubscribe function. */
  track(budget: RateBudget): () => void {
    return budget.onChange((snap) => {
      const rows = snap.endpoints.filter((e) => e.usedInWindow > 0).map((e) => ({ endpoint: e.endpoint, used: e.usedInWindow }))
      if (rows.length) this.table.write(rows, this.now())
    })
  }
}
