// Second-factor enrolments in PostgreSQL, shared by every hub on it (second-factor.ts says what
// is kept and why). A step is taken by one conditional UPDATE, so a code accepted by one hub is
// refused as replayed by every other; a code is counted against the lockout the same way, so
// the count is one for every hub. Enrolments under way and proven sessions are kept here too,
// so that a desktop moved to another hub on the database carries on where it was.
import type pg from 'pg'
import {
  LOCKOUT_MS,
  MAX_WRONG_CODES,
  RESEND_MS,
  WRONG_CODE_WINDOW_MS,
  type CodeAttempt,
  type PendingEnrolment,
  type SecondFactorStore
} from '../second-factor'
import {
  isSealedSecret,
  KeyMismatchHeard,
  sealSecret,
  type SecondFactorKeyCheck,
  type SecondFactorKeyMismatch,
  type SecondFactorKeyOf
} from '../second-factor-key'
import { inTransaction } from './pg-connection'

/** The migration that seals the secrets kept in clear before, with this hub's key. */
export async function sealPgSecrets(c: pg.PoolClient, ctx: { secondFactorKey: SecondFactorKeyOf }): Promise<void> {
  const r = await c.query<{ name: string; secret: string }>('SELECT name, secret FROM second_factors')
  const rows = r.rows.filter((row) => !isSealedSecret(row.secret))
  if (!rows.length) return
  const key = ctx.secondFactorKey()
  for (const row of rows) await c.query('UPDATE second_factors SET secret = $1 WHERE name = $2', [sealSecret(key, row.secret), row.name])
}

export class PgSecondFactors implements SecondFactorStore {
  private readonly opener: KeyMismatchHeard

  constructor(
    private readonly pool: pg.Pool,
    private readonly key: SecondFactorKeyOf
  ) {
    this.opener = new KeyMismatchHeard(key)
  }

  async enrol(name: string, secret: string, recoveryHashes: readonly string[], at: number): Promise<void> {
    const sealed = sealSecret(this.key(), secret)
    await inTransaction(this.pool, async (c) => {
      await c.query('DELETE FROM second_factors WHERE lower(name) = lower($1)', [name])
      await c.query('DELETE FROM recovery_codes WHERE lower(name) = lower($1)', [name])
      await c.query('INSERT INTO second_factors (name, secret, enrolled_at, last_step) VALUES ($1, $2, $3, 0)', [name, sealed, at])
      for (const h of recoveryHashes) await c.query('INSERT INTO recovery_codes (name, code_hash) VALUES ($1, $2)', [name, h])
    })
  }

  async secretOf(name: string): Promise<string | null> {
    const r = await this.pool.query<{ secret: string }>('SELECT secret FROM second_factors WHERE lower(name) = lower($1)', [name])
    const stored = r.rows[0]?.secret
    return stored === undefined ? null : this.opener.open(stored, name)
  }

  async takeStep(name: string, step: number, by: string): Promise<boolean> {
    const r = await this.pool.query(
      `UPDATE second_factors SET last_step = $1, last_step_by = $3
       WHERE lower(name) = lower($2) AND (last_step < $1 OR (last_step = $1 AND last_step_by = $3))`,
      [step, name, by]
    )
    return r.rowCount === 1
  }

  async useRecoveryCode(name: string, hash: string, at: number, by: string): Promise<boolean> {
    const r = await this.pool.query(
      `UPDATE recovery_codes SET used_at = COALESCE(used_at, $1::bigint), used_by = $4
       WHERE lower(name) = lower($2) AND code_hash = $3 AND (used_at IS NULL OR (used_by = $4 AND used_at > $5::bigint))`,
      [at, name, hash, by, at - RESEND_MS]
    )
    return r.rowCount === 1
  }

  async countAttempt(name: string, at: number): Promise<CodeAttempt> {
    const counted = await this.pool.query(
      `UPDATE second_factors SET
         wrong_count = CASE WHEN wrong_since IS NULL OR wrong_since <= $2::bigint THEN 1 ELSE wrong_count + 1 END,
         wrong_since = CASE WHEN wrong_since IS NULL OR wrong_since <= $2::bigint THEN $1::bigint ELSE wrong_since END
       WHERE lower(name) = lower($3) AND locked_until <= $1::bigint
         AND (wrong_since IS NULL OR wrong_since <= $2::bigint OR wrong_count < $4::int)`,
      [at, at - WRONG_CODE_WINDOW_MS, name, MAX_WRONG_CODES]
    )
    if (counted.rowCount === 1) return { kind: 'counted' }
    const r = await this.pool.query<{ locked_until: string }>('SELECT locked_until FROM second_factors WHERE lower(name) = lower($1)', [
      name
    ])
    const row = r.rows[0]
    if (row === undefined) return { kind: 'not_enrolled' }
    // Not locked yet, but the window's codes are spent: the last of them is being checked
    // (by this hub or another) and locks the operator out from about now if it is wrong.
    const until = Number(row.locked_until)
    return { kind: 'locked', until: until > at ? until : at + LOCKOUT_MS }
  }

  async lockIfSpent(name: string, at: number): Promise<number | null> {
    const r = await this.pool.query<{ locked_until: string }>(
      `UPDATE second_factors SET locked_until = $1::bigint, wrong_count = 0, wrong_since = NULL
       WHERE lower(name) = lower($2) AND locked_until <= $3::bigint AND wrong_count >= $4::int AND wrong_since > $5::bigint
       RETURNING locked_until`,
      [at + LOCKOUT_MS, name, at, MAX_WRONG_CODES, at - WRONG_CODE_WINDOW_MS]
    )
    const row = r.rows[0]
    return row === undefined ? null : Number(row.locked_until)
  }

  async clearAttempts(name: string): Promise<void> {
    await this.pool.query('UPDATE second_factors SET wrong_count = 0, wrong_since = NULL WHERE lower(name) = lower($1)', [name])
  }

  async recoveryCodesLeft(name: string): Promise<number> {
    const r = await this.pool.query<{ n: string }>(
      'SELECT COUNT(*) AS n FROM recovery_codes WHERE lower(name) = lower($1) AND used_at IS NULL',
      [name]
    )
    return Number(r.rows[0]?.n ?? 0)
  }

  async remove(name: string): Promise<void> {
    await this.pool.query('DELETE FROM second_factors WHERE lower(name) = lower($1)', [name])
    await this.pool.query('DELETE FROM recovery_codes WHERE lower(name) = lower($1)', [name])
    await this.pool.query('DELETE FROM second_factor_proofs WHERE lower(name) = lower($1)', [name])
  }

  async putPending(name: string, p: Omit<PendingEnrolment, 'wrong'>): Promise<void> {
    await this.pool.query(
      `INSERT INTO second_factor_pending (name, secret, recovery_hashes, expires_at, wrong) VALUES ($1, $2, $3, $4, 0)
       ON CONFLICT (lower(name)) DO UPDATE SET name = excluded.name, secret = excluded.secret,
         recovery_hashes = excluded.recovery_hashes, expires_at = excluded.expires_at, wrong = 0`,
      [name, sealSecret(this.key(), p.secret), JSON.stringify(p.recoveryHashes), p.expiresAt]
    )
  }

  async pendingOf(name: string): Promise<PendingEnrolment | null> {
    const r = await this.pool.query<{ secret: string; recovery_hashes: string; expires_at: string; wrong: number }>(
      'SELECT secret, recovery_hashes, expires_at, wrong FROM second_factor_pending WHERE lower(name) = lower($1)',
      [name]
    )
    const row = r.rows[0]
    if (row === undefined) return null
    return {
      secret: this.opener.open(row.secret, name),
      recoveryHashes: JSON.parse(row.recovery_hashes) as string[],
      expiresAt: Number(row.expires_at),
      wrong: row.wrong
    }
  }

  async pendingWrong(name: string): Promise<number> {
    const r = await this.pool.query<{ wrong: number }>(
      'UPDATE second_factor_pending SET wrong = wrong + 1 WHERE lower(name) = lower($1) RETURNING wrong',
      [name]
    )
    return r.rows[0]?.wrong ?? 0
  }

  async dropPending(name: string): Promise<void> {
    await this.pool.query('DELETE FROM second_factor_pending WHERE lower(name) = lower($1)', [name])
  }

  async recordStart(name: string, at: number, since: number, max: number): Promise<number | null> {
    return inTransaction(this.pool, async (c) => {
      // One operator's starts are counted one hub at a time, so that hubs asked together start no more than max.
      await c.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`rampdesk-2fa-start:${name.toLowerCase()}`])
      await c.query('DELETE FROM second_factor_starts WHERE started_at <= $1', [since])
      const r = await c.query<{ started_at: string }>(
        'SELECT started_at FROM second_factor_starts WHERE lower(name) = lower($1) ORDER BY started_at',
        [name]
      )
      if (r.rows.length >= max) return Number(r.rows[0]!.started_at)
      await c.query('INSERT INTO second_factor_starts (name, started_at) VALUES ($1, $2)', [name, at])
      return null
    })
  }

  async prove(proof: string, name: string, at: number, forgetBefore: number): Promise<void> {
    await this.pool.query('DELETE FROM second_factor_proofs WHERE proven_at < $1', [forgetBefore])
    await this.pool.query(
      `INSERT INTO second_factor_proofs (proof, name, proven_at) VALUES ($1, $2, $3)
       ON CONFLICT (proof) DO UPDATE SET proven_at = GREATEST(second_factor_proofs.proven_at, excluded.proven_at)`,
      [proof, name, at]
    )
  }

  async provenAt(proof: string): Promise<number | null> {
    const r = await this.pool.query<{ proven_at: string }>('SELECT proven_at FROM second_factor_proofs WHERE proof = $1', [proof])
    const row = r.rows[0]
    return row === undefined ? null : Number(row.proven_at)
  }

  async keyCheck(at: number): Promise<SecondFactorKeyCheck> {
    await this.pool.query('DELETE FROM second_factor_pending WHERE expires_at <= $1', [at])
    const r = await this.pool.query<{ name: string; secret: string }>(
      'SELECT name, secret FROM second_factors UNION ALL SELECT name, secret FROM second_factor_pending WHERE expires_at > $1',
      [at]
    )
    return this.opener.check(r.rows)
  }

  onKeyMismatch(listener: (e: SecondFactorKeyMismatch) => void): void {
    this.opener.listeners.push(listener)
  }
}
