// Per-profile settings as JSON values under string keys.
import type { Sql } from './database'

export class SettingsRepo {
  constructor(
    private readonly sql: Sql,
    private readonly now: () => Date = () => new Date()
  ) {}

  get<T = unknown>(key: string): T | undefined {
    const json = this.sql.value<string>('SELECT json FROM settings WHERE key = ?', key)
    return json === undefined ? undefined : (JSON.parse(json) as T)
  }

  set(key: string, value: unknown): void {
    if (value === undefined) throw new TypeError('use delete() to remove a setting')
    this.sql.run(
      `INSERT INTO settings (key, json, updated_at) VALUES (?, ?, ?)
       ON CONFLICT (key) DO UPDATE SET json = excluded.json, updated_at = excluded.updated_at`,
      key,
      JSON.stringify(value),
      this.now().toISOString()
    )
  }

  delete(key: string): boolean {
    return this.sql.run('DELETE FROM settings WHERE key = ?', key).changes > 0
  }

  all(): Record<string, unknown> {
    const out: Record<string, unknown> = {}
    for (const r of this.sql.all<{ key: string; json: string }>('SELECT key, json FROM settings ORDER BY key'))
      out[r.key] = JSON.parse(r.json)
    return out
  }
}
