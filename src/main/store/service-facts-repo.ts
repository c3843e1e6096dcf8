// What a profile has learned about its service, kept between runs: the JSON type each
// request parameter is accepted in (api/param-encoding.ts), limits the spec does not
// show (api/rate-budget.ts), how it reads merchantHistory (monitor/history-readings.ts).
// One small key-value table: each family (kind) stores JSON values under its own keys
// and reads them back whole at start-up.
import type { Sql } from './sql'

export type FactKind = 'param' | 'limit' | 'sandbox' | 'history'

export class ServiceFactsRepo {
  constructor(
    private readonly sql: Sql,
    private readonly now: () => Date = () => new Date()
  ) {}

  /** Every fact of one family, by key. Values that no longer parse are skipped. */
  all<T>(kind: FactKind): Record<string, T> {
    const out: Record<string, T> = {}
    for (const r of this.sql.all<{ key: string; value_json: string }>('SELECT key, value_json FROM service_facts WHERE kind = ?', kind)) {
      try {
        out[r.key] = JSON.parse(r.value_json) as T
      } catch {
        // A damaged value is relearned, not fatal.
      }
    }
    return out
  }

  put(kind: FactKind, key: string, value: unknown): void {
    this.sql.run(
      `INSERT INTO service_facts (kind, key, value_json, updated_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (kind, key) DO UPDATE SET value_json = excluded.value_json, updated_at = excluded.updated_at`,
      kind,
      key,
      JSON.stringify(value),
      this.now().toISOString()
    )
  }
}
