// Second-factor enrolments in hub.db (second-factor.ts says what is kept and why; the secret
// is sealed with the data directory's key, second-factor-key.ts).
import type { Sql } from '../main/store/sql'
import {
  LOCKOUT_MS,
  MAX_WRONG_CODES,
  RESEND_MS,
  WRONG_CODE_WINDOW_MS,
  type CodeAttempt,
  type PendingEnrolment,
  type SecondFactorStore
} from './second-factor'
import {
  isSealedSecret,
  KeyMismatchHeard,
  loadSecondFactorKey,
  sealSecret,
  type SecondFactorKeyCheck,
  type SecondFactorKeyMismatch,
  type SecondFactorKeyOf
} from './second-factor-key'

/** The migration that seals the secrets hub.db kept in clear before, with the data directory's key. */
export function sealSqliteSecrets(sql: Sql, dataDir: string): void {
  const rows = sql.all<{ name: string; secret: string }>('SELECT name, secret FROM second_factors').filter((r) => !isSealedSecret(r.secret))
  if (!rows.length) return
  const key = loadSecondFactorKey(dataDir)
  for (const r of rows) sql.run('UPDATE second_factors SET secret = ? WHERE name = ?', sealSecret(key, r.secret), r.name)
}

export class SqliteSecondFactors implements SecondFactorStore {
  private readonly opener: KeyMismatchHeard

  constructor(
    private readonly sql: Sql,
    private readonly key: SecondFactorKeyOf
  ) {
    this.opener = new KeyMismatchHeard(key)
  }

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
    return stored === undefined ? null : this.opener.open(stored, name)
  }

  takeStep(name: string, step: number, by: string): boolean {
    return (
      this.sql.run(
        'UPDATE second_factors SET last_step = ?, last_step_by = ? WHERE name = ? AND (last_step < ? OR (last_step = ? AND last_step_by = ?))',
        step,
        by,
        name,
        step,
        step,
        by
      ).changes === 1
    )
  }

  useRecoveryCode(name: string, hash: string, at: number, by: string): boolean {
    return (
      this.sql.run(
        `UPDATE recovery_codes SET used_at = COALESCE(used_at, ?), used_by = ?
         WHERE name = ? AND code_hash = ? AND (used_at IS NULL OR (used_by = ? AND used_at > ?))`,
        at,
        by,
        name,
        hash,
        by,
        at - RESEND_MS
      ).changes === 1
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
    this.sql.run('DELETE FROM second_factor_proofs WHERE name = ?', name)
  }

  putPending(name: string, p: Omit<PendingEnrolment, 'wrong'>): void {
    this.sql.run(
      `INSERT INTO second_factor_pending (name, secret, recovery_hashes, expires_at, wrong) VALUES (?, ?, ?, ?, 0)
       ON CONFLICT (name) DO UPDATE SET secret = excluded.secret, recovery_hashes = excluded.recovery_hashes,
         expires_at = excluded.expires_at, wrong = 0`,
      name,
      sealSecret(this.key(), p.secret),
      JSON.stringify(p.recoveryHashes),
      p.expiresAt
    )
  }

  pendingOf(name: string): PendingEnrolment | null {
    const row = this.sql.get<{ secret: string; recovery_hashes: string; expires_at: number; wrong: number }>(
      'SELECT secret, recovery_hashes, expires_at, wrong FROM second_factor_pending WHERE name = ?',
      name
    )
    if (row === undefined) return null
    return {
      secret: this.opener.open(row.secret, name),
      recoveryHashes: JSON.parse(row.recovery_hashes) as string[],
      expiresAt: row.expires_at,
      wrong: row.wrong
    }
  }

  pendingWrong(name: string): number {
    return (
      this.sql.get<{ wrong: number }>('UPDATE second_factor_pending SET wrong = wrong + 1 WHERE name = ? RETURNING wrong', name)?.wrong ?? 0
    )
  }

  dropPending(name: string): void {
    this.sql.run('DELETE FROM second_factor_pending WHERE name = ?', name)
  }

  recordStart(name: string, at: number, since: number, max: number): number | null {
    return this.sql.transaction(() => {
      this.sql.run('DELETE FROM second_factor_starts WHERE started_at <= ?', since)
      const rows = this.sql.all<{ started_at: number }>(
        'SELECT started_at FROM second_factor_starts WHERE name = ? ORDER BY started_at',
        name
      )
      if (rows.length >= max) return rows[0]!.started_at
      this.sql.run('INSERT INTO second_factor_starts (name, started_at) VALUES (?, ?)', name, at)
      return null
    })
  }

  prove(proof: string, name: string, at: number, forgetBefore: number): void {
    this.sql.run('DELETE FROM second_factor_proofs WHERE proven_at < ?', forgetBefore)
    this.sql.run(
      `INSERT INTO second_factor_proofs (proof, name, proven_at) VALUES (?, ?, ?)
       ON CONFLICT (proof) DO UPDATE SET proven_at = MAX(proven_at, excluded.proven_at)`,
      proof,
      name,
      at
    )
  }

  provenAt(proof: string): number | null {
    return this.sql.value<number>('SELECT proven_at FROM second_factor_proofs WHERE proof = ?', proof) ?? null
  }

  keyCheck(at: number): SecondFactorKeyCheck {
    return this.sql.transaction(() => {
      this.sql.run('DELETE FROM second_factor_pending WHERE expires_at <= ?', at)
      const rows = this.sql.all<{ name: string; secret: string }>(
        'SELECT name, secret FROM second_factors UNION ALL SELECT name, secret FROM second_factor_pending'
      )
      return this.opener.check(rows)
    })
  }

  onKeyMismatch(listener: (e: SecondFactorKeyMismatch) => void): void {
    this.opener.listeners.push(listener)
  }
}
