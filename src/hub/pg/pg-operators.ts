// Operators in PostgreSQL, shared by every hub on the database and by the command line.
// A request's token is checked against an in-memory copy of the active operators (every
// request must be answered without a round trip), which is read again every second and at
// once when a hub or the command line NOTIFYs rampdesk_operators after a change: a
// revocation anywhere is refused everywhere within about a second. Adds and revocations
// are serialised across hubs by a transaction-level advisory lock, so two hubs cannot
// each revoke one of the last two admins. The copy holds the tokens that have ended and those
// a rotation replaced too, so that a refusal says which without a round trip.
import type pg from 'pg'
import type { TeamOperator } from '../../shared/ipc/contract'
import type { OperatorDirectory } from '../hub-store'
import {
  expiryOf,
  hashToken,
  lastAdmin,
  newOperator,
  newToken,
  noRotation,
  noSuchOperator,
  operatorExists,
  publicOf,
  refusalFrom,
  seenDue,
  tokenShaped,
  toOperator,
  type NewTokenOptions,
  type Operator,
  type OperatorRow
} from '../operators'
import type { TokenRefusal } from '../token-expiry'
import { inTransaction } from './pg-connection'

export const OPERATORS_CHANNEL = 'rampdesk_operators'
/** pg_advisory_xact_lock key of operator changes. */
const OPERATORS_LOCK_KEY = 0x7264_6f70_6572

const COLUMNS = 'name, role, token_hash, created_at, last_seen_at, expires_at, account'

export class PgOperators implements OperatorDirectory {
  /** Active operators by token hash: what authenticate() reads. */
  private active = new Map<string, OperatorRow>()
  /** When each token a rotation replaced was replaced, by its hash. */
  private replaced = new Map<string, number>()
  private loaded = false

  constructor(
    private readonly pool: pg.Pool,
    private readonly now: () => number = Date.now,
    private readonly onError: (message: string) => void = () => undefined
  ) {}

  /** Reads the active operators again (every second, on a notification, after a change here). */
  async refresh(): Promise<void> {
    const [r, replaced] = await Promise.all([
      this.pool.query<OperatorRow>(`SELECT ${COLUMNS} FROM operators WHERE revoked_at IS NULL`),
      this.pool.query<{ token_hash: string; replaced_at: number }>('SELECT token_hash, replaced_at FROM replaced_tokens')
    ])
    this.active = new Map(r.rows.map((row) => [row.token_hash, row]))
    this.replaced = new Map(replaced.rows.map((row) => [row.token_hash, Number(row.replaced_at)]))
    this.loaded = true
  }

  get ready(): boolean {
    return this.loaded
  }

  async add(name: string, role: string, o: NewTokenOptions = {}): Promise<{ operator: TeamOperator; token: string }> {
    const n = newOperator(name, role)
    const token = newToken()
    const at = this.now()
    const expiresAt = expiryOf(at, o)
    const account = o.account ?? 'person'
    await inTransaction(this.pool, async (c) => {
      await c.query('SELECT pg_advisory_xact_lock($1)', [OPERATORS_LOCK_KEY])
      const existing = await c.query('SELECT 1 FROM operators WHERE lower(name) = lower($1) AND revoked_at IS NULL', [n.name])
      if (existing.rowCount) throw operatorExists(n.name)
      await c.query('DELETE FROM operators WHERE lower(name) = lower($1)', [n.name])
      // A new start for a revoked name: the last holder's second factor is not theirs.
      await c.query('DELETE FROM second_factors WHERE lower(name) = lower($1)', [n.name])
      await c.query('DELETE FROM recovery_codes WHERE lower(name) = lower($1)', [n.name])
      await c.query('DELETE FROM second_factor_pending WHERE lower(name) = lower($1)', [n.name])
      await c.query('INSERT INTO operators (name, role, token_hash, created_at, expires_at, account) VALUES ($1, $2, $3, $4, $5, $6)', [
        n.name,
        n.role,
        hashToken(token),
        at,
        expiresAt,
        account
      ])
      await c.query('SELECT pg_notify($1, $2)', [OPERATORS_CHANNEL, n.name])
    })
    await this.refresh()
    return { operator: { name: n.name, role: n.role, createdAt: at, lastSeenAt: null, expiresAt, account }, token }
  }

  /** A new token for an active operator (a new lifetime, role and account kept); the old one is refused as replaced. */
  async rotate(name: string, o: Pick<NewTokenOptions, 'lifetimeMs'> = {}): Promise<{ operator: TeamOperator; token: string }> {
    const token = newToken()
    const at = this.now()
    const expiresAt = expiryOf(at, o)
    const row = await inTransaction(this.pool, async (c) => {
      await c.query('SELECT pg_advisory_xact_lock($1)', [OPERATORS_LOCK_KEY])
      const r = await c.query<OperatorRow>(`SELECT ${COLUMNS} FROM operators WHERE lower(name) = lower($1) AND revoked_at IS NULL`, [
        name.trim()
      ])
      const row = r.rows[0]
      if (!row) throw noRotation(name.trim())
      await c.query(
        `INSERT INTO replaced_tokens (token_hash, name, replaced_at) VALUES ($1, $2, $3)
         ON CONFLICT (token_hash) DO UPDATE SET replaced_at = EXCLUDED.replaced_at`,
        [row.token_hash, row.name, at]
      )
      await c.query('UPDATE operators SET token_hash = $1, expires_at = $2 WHERE name = $3', [hashToken(token), expiresAt, row.name])
      await c.query('SELECT pg_notify($1, $2)', [OPERATORS_CHANNEL, row.name])
      return row
    })
    this.active.delete(row.token_hash)
    this.replaced.set(row.token_hash, at)
    await this.refresh()
    return { operator: { ...publicOf(toOperator(row)), expiresAt }, token }
  }

  async list(): Promise<TeamOperator[]> {
    const r = await this.pool.query<OperatorRow>(`SELECT ${COLUMNS} FROM operators WHERE revoked_at IS NULL ORDER BY lower(name)`)
    return r.rows.map((row) => publicOf(toOperator(row)))
  }

  async revoke(name: string, opts: { allowLastAdmin?: boolean } = {}): Promise<TeamOperator> {
    const op = await inTransaction(this.pool, async (c) => {
      await c.query('SELECT pg_advisory_xact_lock($1)', [OPERATORS_LOCK_KEY])
      const r = await c.query<OperatorRow>(`SELECT ${COLUMNS} FROM operators WHERE lower(name) = lower($1) AND revoked_at IS NULL`, [
        name.trim()
      ])
      const row = r.rows[0]
      if (!row) throw noSuchOperator(name.trim())
      if (row.role === 'admin' && !opts.allowLastAdmin) {
        const admins = await c.query<{ n: number }>("SELECT COUNT(*)::int AS n FROM operators WHERE role = 'admin' AND revoked_at IS NULL")
        if ((admins.rows[0]?.n ?? 0) <= 1) throw lastAdmin()
      }
      await c.query('UPDATE operators SET revoked_at = $1 WHERE name = $2', [this.now(), row.name])
      await c.query('SELECT pg_notify($1, $2)', [OPERATORS_CHANNEL, row.name])
      return publicOf(toOperator(row))
    })
    this.active.forEach((row, hash) => row.name === op.name && this.active.delete(hash))
    await this.refresh()
    return op
  }

  authenticate(token: string): Operator | null {
    if (!tokenShaped(token)) return null
    const row = this.active.get(hashToken(token))
    const at = this.now()
    if (!row || Number(row.expires_at) <= at) return null
    if (seenDue(row.last_seen_at, at)) {
      row.last_seen_at = at
      this.pool
        .query('UPDATE operators SET last_seen_at = $1 WHERE token_hash = $2', [at, row.token_hash])
        .catch((e: unknown) => this.onError(`could not record when ${row.name} was last seen: ${(e as Error).message}`))
    }
    return toOperator(row)
  }

  isActive(tokenHash: string): boolean {
    const row = this.active.get(tokenHash)
    return row !== undefined && Number(row.expires_at) > this.now()
  }

  refusalOf(token: string): TokenRefusal | null {
    if (!tokenShaped(token)) return null
    const hash = hashToken(token)
    return refusalFrom(this.active.get(hash), this.replaced.get(hash), this.now())
  }
}
