// Second-factor enrolments in hub.db (second-factor.ts says what is kept and why; the secret
// is sealed with the data directory's key, second-factor-key.ts).
import type { Sql } from '../main/store/sql'
import { LOCKOUT_MS, MAX_WRONG_CODES, WRONG_CODE_WINDOW_MS, type CodeAttempt, type SecondFactorStore } from './second-factor'
import { isSealedSecret, loadSecondFactorKey, openSecret, sealSecret, type SecondFactorKeyOf } from './second-factor-key'

/** The migration that seals the secrets hub.db kept in clear before, with the data directory's key. */
export function sealSqliteSecrets(sql: Sql, dataDir: string): void {
  const rows = sql.all<{ name: string; secret: string }>('SELECT name, secret FROM second_factors').filter((r) => !isSealedSecret(r.secret))
  if (!rows.length) return
  const key = loadSecondFactorKey(dataDir)
  for (const r of rows) sql.run('UPDATE second_factors SET secret = ? WHERE name = ?', sealSecret(key, r.secret), r.name)
}

export class SqliteSecondFactors implements SecondFactorStore {
  constructor(
    private readonly sql: Sql,
    private readonly key: SecondFactorKeyOf
  ) {}

  enrol(name: string, secret: string, recoveryHashes: readonly string[], at: number): void {
    const sealed = sealSecret(this.key(), secret)
    this.sql.transaction(() => {
      this.remove(name)
      this.sql.run('INSERT INTO second_factors (name, secret, enrolled_at, last_step) VALUES (?, ?, ?, 0)', name, sealed, at)
      for (const h of recoveryHashes) this.sql.run('INSERT INTO recovery_codes (name, code_hash) VALUES (?, ?)', name, h)
    })
  }

  secretOf(name: string): string | null {
    const stored = this.sql.value<string>('SELECT secret FROM second_factors WHERE name = ?', name)
    return stored === undefined ? null : openSecret(this.key(), stored, name)
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

  countAttempt(name: string, at: number): CodeAttempt {
    const windowStart = at - WRONG_CODE_WINDOW_MS
    const counted = this.sql.run(
      `UPDATE second_factors SET
         wrong_count = CASE WHEN wrong_since IS NULL OR wrong_since <= ? THEN 1 ELSE wrong_count + 1 END,
         wrong_since = CASE WHEN wrong_since IS NULL OR wrong_since <= ? THEN ? ELSE wrong_since END
       WHERE name = ? AND locked_until <= ? AND (wrong_since IS NULL OR wrong_since <= ? OR wrong_count < ?)`,
      windowStart,
      windowStart,
      at,
      name,
      at,
      windowStart,
      MAX_WRONG_CODES
    )
    if (counted.changes === 1) return { kind: 'counted' }
    const row = this.sql.get<{ locked_until: number }>('SELECT locked_until FROM second_factors WHERE name = ?', name)
    if (row === undefined) return { kind: 'not_enrolled' }
    // Not locked yet, but the window's codes are spent: the last of them is being checked
    // (by this hub or another) and locks the operator out from about now if it is wrong.
    return { kind: 'locked', until: row.locked_until > at ? row.locked_until : at + LOCKOUT_MS }
  }

  lockIfSpent(name: string, at: number): number | null {
    const row = this.sql.get<{ locked_until: number }>(
      `UPDATE second_factors SET locked_until = ?, wrong_count = 0, wrong_since = NULL
       WHERE name = ? AND locked_until <= ? AND wrong_count >= ? AND wrong_since > ?
       RETURNING locked_until`,
      at + LOCKOUT_MS,
      name,
      at,
      MAX_WRONG_CODES,
      at - WRONG_CODE_WINDOW_MS
    )
    return row?.locked_until ?? null
  }

  clearAttempts(name: string): void {
    this.sql.run('UPDATE second_factors SET wrong_count = 0, wrong_since = NULL WHERE name = ?', name)
  }

  recoveryCodesLeft(name: string): number {
    return this.sql.value<number>('SELECT COUNT(*) FROM recovery_codes WHERE name = ? AND used_at IS NULL', name) ?? 0
  }

  remove(name: string): void {
    this.sql.run('DELETE FROM second_factors WHERE name = ?', name)
    this.sql.run('DELETE FROM recovery_codes WHERE name = ?', name)
  }
}
