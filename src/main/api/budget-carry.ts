// The request budget across a restart. The service counts a sliding minute per endpoint
// and does not forget a client that restarted; a fresh budget would allow a full minute's
// requests at once and earn a 429. So the budget's use is written to a store as it changes
// (the desktop's profile database, the hub's hub.db, or PostgreSQL:
// hub/pg/pg-budget-carry.ts), and a restarted app or hub takes that many slots again
// before it sends anything. They are taken at the restart instant, so they free up later
// than the originals would have: the carried budget is stricter than the truth, never
// looser.
import type { EndpointName } from '../../shared/api/endpoints'
import type { BudgetSnapshot, RateBudget, Timers } from './rate-budget'

/** A value, or a promise of it: the SQLite stores answer at once, PostgreSQL's later. */
export type Awaitable<T> = T | Promise<T>

/** The budget's window (RateBudget's default): older use has expired at the service. */
export const CARRY_WINDOW_MS = 61_000
/**
 * The budget changes at every request and every slot that frees: its use is written at most
 * once in this time (the latest state), and once more when tracking stops. A crash loses at
 * most this much of the carried use.
 */
export const CARRY_WRITE_MS = 1000

/** Timers that do not keep the process alive for a pending write (the last one is made when tracking stops). */
const unrefTimers: Timers = {
  setTimeout: (fn, ms) => setTimeout(fn, ms).unref(),
  clearTimeout: (h) => clearTimeout(h as ReturnType<typeof setTimeout>)
}

export interface CarryRow {
  endpoint: string
  used: number
}

/** A row as read back: with when it was written (ms; PostgreSQL's bigint arrives as text). */
export interface CarriedRow extends CarryRow {
  at: number | string
}

/** Where the carried use is kept (the store implements it: store/budget-carry-table.ts; PostgreSQL: hub/pg/pg-budget-carry.ts). */
export interface CarryTable {
  /** The use written after `since`. */
  read(since: number): Awaitable<CarriedRow[]>
  /** Writes each endpoint's use as of `at` (not awaited: the budget's listener is synchronous). */
  write(rows: readonly CarryRow[], at: number): void
}

export class BudgetCarry {
  constructor(
    private readonly table: CarryTable,
    private readonly now: () => number = Date.now,
    private readonly timers: Timers = unrefTimers
  ) {}

  /** Takes again the slots the last run used within the window; returns how many. */
  async restore(budget: RateBudget): Promise<number> {
    const rows = await this.table.read(this.now() - CARRY_WINDOW_MS)
    let taken = 0
    // Dated when they were written, not now: a session reopened seconds later (a profile
    // edited, the app restarted at once) frees them when the originals leave the window.
    for (const r of rows) taken += budget.carryOver(r.endpoint as EndpointName, r.used, Number(r.at))
    return taken
  }

  /**
   * Keeps the budget's use in the store, the latest state at most once every CARRY_WRITE_MS;
   * returns the unsubscribe function, which writes the state not written yet.
   */
  track(budget: RateBudget): () => void {
    let pending: { snap: BudgetSnapshot; at: number } | null = null
    let timer: unknown = null
    const flush = () => {
      if (timer !== null) this.timers.clearTimeout(timer)
      timer = null
      const last = pending
      pending = null
      if (!last) return
      const rows = last.snap.endpoints.filter((e) => e.usedInWindow > 0).map((e) => ({ endpoint: e.endpoint, used: e.usedInWindow }))
      if (rows.length) this.table.write(rows, last.at)
    }
    const unsubscribe = budget.onChange((snap) => {
      pending = { snap, at: this.now() }
      timer ??= this.timers.setTimeout(flush, CARRY_WRITE_MS)
    })
    return () => {
      unsubscribe()
      flush()
    }
  }
}
