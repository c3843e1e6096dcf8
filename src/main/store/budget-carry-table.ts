// The budget's carried use (api/budget-carry.ts) kept in the profile database's or the
// hub's budget_carry table.
import type { CarriedRow, CarryTable } from '../api/budget-carry'
import type { Sql } from './sql'

/**
 * The carried use in a SQLite table. A write that fails (the file locked by another process
 * past its busy wait, the disk full) is reported, once until one succeeds again, and never
 * thrown: it runs from a timer, where a throw would end the process, and the next change
 * writes the whole state again.
 */
export function sqliteCarryTable(sql: Sql, onError: (message: string) => void = () => undefined): CarryTable {
  let failing = false
  return {
    read: (since) => sql.all<CarriedRow>('SELECT endpoint, used, at FROM budget_carry WHERE at > ?', since),
    write: (rows, at) => {
      try {
        sql.transaction(() => {
          for (const r of rows)
            sql.run(
              'INSERT INTO budget_carry (endpoint, used, at) VALUES (?, ?, ?) ON CONFLICT (endpoint) DO UPDATE SET used = excluded.used, at = excluded.at',
              r.endpoint,
              r.used,
              at
            )
        })
        failing = false
      } catch (e) {
        if (!failing) onError(`could not keep the budget's use in the database: ${(e as Error).message}`)
        failing = true
      }
    }
  }
}
