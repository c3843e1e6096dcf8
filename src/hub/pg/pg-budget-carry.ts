// The budget carried over a restart (main/api/budget-carry.ts), kept in PostgreSQL. Writes follow the
// budget's changes without being awaited; only the latest use per endpoint matters, so a
// write waiting behind another is replaced by the newer one, and a failure is logged.
import type pg from 'pg'
import type { CarriedRow, CarryRow, CarryTable } from '../../main/api/budget-carry'

export function pgCarryTable(pool: pg.Pool, onError: (message: string) => void): CarryTable & { flush(): Promise<void> } {
  let next: { rows: readonly CarryRow[]; at: number } | null = null
  let writing: Promise<void> | null = null
  let failing = false

  async function drain(): Promise<void> {
    while (next) {
      const { rows, at } = next
      next = null
      try {
        await pool.query(
          `INSERT INTO budget_carry (endpoint, used, at)
             SELECT e, u, $3 FROM unnest($1::text[], $2::int[]) AS t (e, u)
           ON CONFLICT (endpoint) DO UPDATE SET used = excluded.used, at = excluded.at`,
          [rows.map((r) => r.endpoint), rows.map((r) => r.used), at]
        )
        failing = false
      } catch (e) {
        if (!failing) onError(`could not keep the budget's use in the database: ${(e as Error).message}`)
        failing = true
      }
    }
  }

  return {
    async read(since) {
      const r = await pool.query<CarriedRow>('SELECT endpoint, used, at FROM budget_carry WHERE at > $1', [since])
      return r.rows
    },
    write(rows, at) {
      next = { rows, at }
      writing ??= drain().finally(() => {
        writing = null
      })
    },
    async flush() {
      await writing
    }
  }
}
