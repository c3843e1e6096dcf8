// Second-factor enrolments in hub.db (second-factor.ts says what is kept and why).
import type { Sql } from '../main/store/sql'
import type { SecondFactorStore } from './second-factor'

export class SqliteSecondFactors implements SecondFactorStore {
  constructor(private readonly sql: Sql) {}

  enrol(name: string, secret: string, recoveryHashes: readonly string[], at: number): void {
    this.sql.transaction(() => {
      this.remove(name)
      this.sql.run('INSERT INTO second_factors (name, secret, enrolled_at, last_step) VALUES (?, ?, ?, 0)', name, secret, at)
      for (const h of recoveryHashes) this.sql.run('INSERT INTO recovery_codes (name, code_hash) VALUES (?, ?)', name, h)
    })
  }

  secretOf(name: string): string | null {
    return this.sql.value<string>('SELECT secret FROM second_factors WHERE name = ?', name) ?? null
  }

  takeStep(name: string, step: number): boolean {
    return this.sql.run('UPDATE second_factors SET last_step = ? WHERE name = ? AND last_step < ?', step, name, step).changes === 1
  }

  useRecoveryCode(name: string, hash: string, at: number): boolean {
    return (
      this.sql.run('UPDATE recovery_codes SET used_at = ? WHERE name = ? AND code_hash = ? AND used_at IS NULL', at, name, hash).changes ===
      1
    )
  }

  remove(name: string): void {
    this.sql.run('DELETE FROM second_factors WHERE name = ?', name)
    this.sql.run('DELETE FROM recovery_codes WHERE name = ?', name)
  }
}
