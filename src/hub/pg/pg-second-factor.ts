// Second-factor enrolments in PostgreSQL, shared by every hub on it (second-factor.ts says what
// is kept and why). A step is taken by one conditional UPDATE, so a code accepted by one hub is
// refused as replayed by every other.
import type pg from 'pg'
import type { SecondFactorStore } from '../second-factor'
import { inTransaction } from './pg-connection'

export class PgSecondFactors implements SecondFactorStore {
  constructor(private readonly pool: pg.Pool) {}

  async enrol(name: string, secret: string, recoveryHashes: readonly string[], at: number): Promise<void> {
    await inTransaction(this.pool, async (c) => {
      await c.query('DELETE FROM second_factors WHERE lower(name) = lower($1)', [name])
      await c.query('DELETE FROM recovery_codes WHERE lower(name) = lower($1)', [name])
      await c.query('INSERT INTO second_factors (name, secret, enrolled_at, last_step) VALUES ($1, $2, $3, 0)', [name, secret, at])
      for (const h of recoveryHashes) await c.query('INSERT INTO recovery_codes (name, code_hash) VALUES ($1, $2)', [name, h])
    })
  }

  async secretOf(name: string): Promise<string | null> {
    const r = await this.pool.query<{ secret: string }>('SELECT secret FROM second_factors WHERE lower(name) = lower($1)', [name])
    return r.rows[0]?.secret ?? null
  }

  async takeStep(name: string, step: number): Promise<boolean> {
    const r = await this.pool.query('UPDATE second_factors SET last_step = $1 WHERE lower(name) = lower($2) AND last_step < $1', [
      step,
      name
    ])
    return r.rowCount === 1
  }

  async useRecoveryCode(name: string, hash: string, at: number): Promise<boolean> {
    const r = await this.pool.query(
      'UPDATE recovery_codes SET used_at = $1 WHERE lower(name) = lower($2) AND code_hash = $3 AND used_at IS NULL',
      [at, name, hash]
    )
    return r.rowCount === 1
  }

  async remove(name: string): Promise<void> {
    await this.pool.query('DELETE FROM second_factors WHERE lower(name) = lower($1)', [name])
    await this.pool.query('DELETE FROM recovery_codes WHERE lower(name) = lower($1)', [name])
  }
}
