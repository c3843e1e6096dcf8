// Operators in PostgreSQL, shared by every hub on the database and by the command line.
// A request's token is checked against an in-memory copy of the active operators (every
// request must be answered without a round trip), which is read again every second and at
// once when a hub or the command line NOTIFYs rampdesk_operators after a change: a
// revocation anywhere is refused everywhere within about a second. Adds and revocations
// are serialised across hubs by a transaction-level advisory lock, so two hubs cannot
// each revoke one of the last two admins.
import type pg from 'pg'
import type { TeamOperator } from '../../shared/ipc/contract'
import type { OperatorDirectory } from '../hub-store'
import {
  hashToken,
  lastAdmin,
  newOperator,
  newToken,
  noSuchOperator,
  operatorExists,
  seenDue,
  tokenShaped,
  toOperator,
  type Operator,
  type OperatorRow
} from '../operators'
import { inTransaction } from './pg-connection'

export const OPERATORS_CHANNEL = 'rampdesk_operators'
/** pg_advisory_xact_lock key of operator changes. */
const OPERATORS_LOCK_KEY = 0x7264_6f70_6572

const publicOf = ({ tokenHash: _, ...op }: Operator): TeamOperator => op

export class PgOperators implements OperatorDirectory {
  /** Active operators by token hash: what authenticate() reads. */
  private active = new Map<string, OperatorRow>()
  private loaded = false

  constructor(
    private readonly pool: pg.Pool,
    private readonly now: () => number = Date.now,
    private readonly onError: (message: string) => void = () => undefined
  ) {}

  /** Reads the active operators again (every second, on a notification, after a change here). */
  async refresh(): Promise<void> {
    const r = await this.pool.query<OperatorRow>(
      'SELECT name, role, token_hash, created_at, last_seen_at FROM operators WHERE revoked_at IS NULL'
    )
    this.active = new Map(r.rows.map((row) => [row.token_hash, row]))
    this.loaded = true
  }

  get ready(): boolean {
    return this.loaded
  }

  async add(name: string, role: string): Promise<{ operator: TeamOperator; token: string }> {
    const n = newOperator(name, role)
    const token = newToken()
    const at = this.now()
    await inTransaction(this.pool, async (c) => {
      await c.query('SELECT pg_advisory_xact_lock($1)', [OPERATORS_LOCK_KEY])
      const existing = await c.query('SELECT 1 FROM operators WHERE lower(name) = lower($1) AND revoked_at IS NULL', [n.name])
      if (existing.rowCount) throw operatorExists(n.name)
      await c.query('DELETE FROM operators WHERE lower(name) = lower($1)', [n.name])
      await c.query('INSERT INTO operators (name, role, token_hash, created_at) VALUES ($1, $2, $3, $4)', [
        n.name,
        n.role,
        hashToken(token),
        at
      ])
      await c.query('SELECT pg_notify($1, $2)', [OPERATORS_CHANNEL, n.name])
    })
    await this.refresh()
    return { operator: { name: n.name, role: n.role, createdAt: at, lastSeenAt: null }, token }
  }

  async list(): Promise<TeamOperator[]> {
    const r = await this.pool.query<OperatorRow>(
      'SELECT name, role, token_hash, created_at, last_seen_at FROM operators WHERE revoked_at IS NULL ORDER BY lower(name)'
    )
    return r.rows.map((row) => publicOf(toOperator(row)))
  }

  async revoke(name: string, opts: { allowLastAdmin?: boolean } = {}): Promise<TeamOperator> {
    const op = await inTransaction(this.pool, async (c) => {
      await c.query('SELECT pg_advisory_xact_lock($1)', [OPERATORS_LOCK_KEY])
      const r = await c.query<OperatorRow>(
        'SELECT name, role, token_hash, created_at, last_seen_at FROM operators WHERE lower(name) = lower($1) AND revoked_at IS NULL',
        [name.trim()]
      )
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
    if (!row) return null
    const at = this.now()
    if (seenDue(row.last_seen_at, at)) {
      row.last_seen_at = at
      this.pool
        .query('UPDATE operators SET last_seen_at = $1 WHERE token_hash = $2', [at, row.token_hash])
        .catch((e: unknown) => this.onError(`could not record when ${row.name} was last seen: ${(e as Error).message}`))
    }
    return toOperator(row)
  }

  isActive(tokenHash: string): boolean {
    return this.active.has(tokenHash)
  }
}
