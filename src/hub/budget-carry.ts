// The hub's request budget across a restart. The service counts a sliding minute per
// endpoint and does not forget a hub that restarted; a fresh budget would allow a full
// minute's requests at once and earn the team 429s. So the budget's use is written to
// hub.db as it changes, and a restarted hub takes that many slots again before it sends
// anything. They are taken at the restart instant, so they free up later than the
// originals would have: the carried budget is stricter than the truth, never looser.
import type { RateBudget } from '../main/api/rate-budget'
import type { Sql } from '../main/store/database'
import type { EndpointName } from '../shared/api/endpoints'

/** The budget's window (RateBudget's default): older use has expired at the service. */
const WINDOW_MS = 61_000

export class BudgetCarry {
  constructor(
    private readonly sql: Sql,
    private readonly now: () => number = Date.now
  ) {}

  /** Takes again the slots the last run used within the window; returns how many. */
  async restore(budget: RateBudget): Promise<number> {
    const rows = this.sql.all<{ endpoint: string; used: number; at: number }>(
      'SELECT endpoint, used, at FROM budget_carry WHERE at > ?',
      this.now() - WINDOW_MS
    )
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

  /** Keeps the budget's use on disk; returns the unsubscribe function. */
  track(budget: RateBudget): () => void {
    return budget.onChange((snap) => {
      const at = this.now()
      this.sql.transaction(() => {
        for (const e of snap.endpoints)
          if (e.usedInWindow > 0)
            this.sql.run(
              'INSERT INTO budget_carry (endpoint, used, at) VALUES (?, ?, ?) ON CONFLICT (endpoint) DO UPDATE SET used = excluded.used, at = excluded.at',
              e.endpoint,
              e.usedInWindow,
              at
            )
      })
    })
  }
}
