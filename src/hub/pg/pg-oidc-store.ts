// Sign-in through the identity provider in the PostgreSQL database several hubs share
// (oidc-store.ts says what is kept). A request's session is checked against an in-memory copy
// of the sessions that stand, read again with the operators (every second, and on
// NOTIFY rampdesk_operators, which every change here sends): a session ended or an operator
// revoked on any hub is refused on every hub within about a second.
import type pg from 'pg'
import { TeamRole } from '../../shared/ipc/contract'
import { seenDue, toOperator, type Operator, type OperatorRow } from '../operators'
import { inTransaction } from './pg-connection'
import { OPERATORS_CHANNEL } from './pg-operators'
import {
  BEYOND_CAP,
  END_SESSION,
  FORGET_PREVIOUS,
  nameCandidates,
  newOidcMarker,
  OIDC_MARKER,
  PRUNE_SESSIONS,
  PRUNE_REPLACED,
  CLAIM_RENEWAL,
  RELEASE_RENEWAL,
  EXTEND_RENEWAL,
  END_SESSION_HOLDING,
  REPLACED_LOOKUP,
  SESSION_KEEP_MS,
  type NewSession,
  type OidcOperator,
  type OidcPerson,
  type OidcStore,
  type PreviousRefresh,
  type PreviousSession,
  previousSession,
  SESSION_LOOKUP,
  type SessionRow as LookupRow,
  type StoredSession,
  storedSession
} from '../oidc/oidc-store'

/** pg_advisory_xact_lock key of OIDC sign-ins (they create operators). */
const OIDC_LOCK_KEY = 0x7264_6f69_6463

type SessionRow = OperatorRow & { operator_key: string; session_id: string; access_expires_at: string | number }

const numbered = (sql: string): string => {
  let i = 0
  return sql.replace(/\?/g, () => `$${++i}`)
}

export class PgOidcStore implements OidcStore {
  /** Standing sessions by access token hash, with their operator. */
  private sessions = new Map<string, { row: OperatorRow; operatorKey: string; sessionId: string; expiresAt: number }>()

  constructor(
    private readonly pool: pg.Pool,
    private readonly now: () => number = Date.now,
    private readonly onError: (message: string) => void = () => undefined
  ) {}

  /** Refreshes started and the last one applied: an earlier read that ends later never overwrites a later one. */
  private refreshesStarted = 0
  private refreshApplied = 0

  async refresh(): Promise<void> {
    const mine = ++this.refreshesStarted
    const r = await this.pool.query<SessionRow>(
      `SELECT o.name, o.role, o.created_at, o.last_seen_at, s.access_hash AS token_hash, s.operator_key, s.id AS session_id, s.access_expires_at
       FROM oidc_sessions s JOIN operators o ON o.token_hash = s.operator_key AND o.revoked_at IS NULL
       WHERE s.ended_at IS NULL AND s.access_expires_at > $1`,
      [this.now()]
    )
    if (mine < this.refreshApplied) return
    this.refreshApplied = mine
    this.sessions = new Map(
      r.rows.map((row) => [
        row.token_hash,
        {
          row: { ...row, created_at: Number(row.created_at), last_seen_at: row.last_seen_at === null ? null : Number(row.last_seen_at) },
          operatorKey: row.operator_key,
          sessionId: row.session_id,
          expiresAt: Number(row.access_expires_at)
        }
      ])
    )
  }

  private async changed(): Promise<void> {
    await this.pool.query('SELECT pg_notify($1, $2)', [OPERATORS_CHANNEL, 'oidc'])
    await this.refresh()
  }

  async putPending(key: string, sealed: string, expiresAt: number, cap?: number): Promise<number> {
    await this.pool.query('DELETE FROM oidc_pending WHERE expires_at <= $1', [this.now()])
    await this.pool.query('INSERT INTO oidc_pending (key, sealed, expires_at) VALUES ($1, $2, $3)', [key, sealed, expiresAt])
    if (cap === undefined) return 0
    // Hubs sharing the database may insert at once: each keeps the newest `cap`, so the count stays bounded.
    const r = await this.pool.query(`DELETE FROM oidc_pending WHERE key IN (${BEYOND_CAP} OFFSET $1)`, [cap])
    return r.rowCount ?? 0
  }

  async takePending(key: string, at: number): Promise<string | null> {
    // One DELETE ... RETURNING: of two hubs taking the same key at once, one gets it.
    const r = await this.pool.query<{ sealed: string; expires_at: string }>(
      'DELETE FROM oidc_pending WHERE key = $1 RETURNING sealed, expires_at',
      [key]
    )
    const row = r.rows[0]
    return row && Number(row.expires_at) > at ? row.sealed : null
  }

  async signIn(p: OidcPerson, at: number): Promise<OidcOperator> {
    const op = await inTransaction(this.pool, async (c) => {
      await c.query('SELECT pg_advisory_xact_lock($1)', [OIDC_LOCK_KEY])
      const known = (
        await c.query<{ operator: string }>('SELECT operator FROM oidc_identities WHERE issuer = $1 AND subject = $2', [
          p.issuer,
          p.subject
        ])
      ).rows[0]?.operator
      if (known !== undefined) {
        const row = (
          await c.query<OperatorRow & { revoked_at: string | null }>('SELECT * FROM operators WHERE lower(name) = lower($1)', [known])
        ).rows[0]
        if (row && row.revoked_at === null && row.token_hash.startsWith(OIDC_MARKER)) {
          const previous = TeamRole.parse(row.role)
          if (previous !== p.role) await c.query('UPDATE operators SET role = $1 WHERE token_hash = $2', [p.role, row.token_hash])
          return { name: row.name, role: p.role, key: row.token_hash, created: false, previousRole: previous !== p.role ? previous : null }
        }
        if (!row || row.revoked_at !== null) return this.create(c, p, at, known)
      }
      return this.create(c, p, at, null)
    })
    await this.changed()
    return op
  }

  private async create(c: pg.PoolClient, p: OidcPerson, at: number, reuse: string | null): Promise<OidcOperator> {
    const free = async (n: string) =>
      !(await c.query('SELECT 1 FROM operators WHERE lower(name) = lower($1) AND revoked_at IS NULL', [n])).rowCount &&
      !(
        await c.query('SELECT 1 FROM oidc_identities WHERE lower(operator) = lower($1) AND NOT (issuer = $2 AND subject = $3)', [
          n,
          p.issuer,
          p.subject
        ])
      ).rowCount
    let name: string | undefined = reuse !== null && (await free(reuse)) ? reuse : undefined
    if (!name)
      for (const n of nameCandidates(p.preferredName))
        if (await free(n)) {
          name = n
          break
        }
    if (!name) throw new Error(`no free operator name for ${p.preferredName}`)
    const key = newOidcMarker()
    await c.query('DELETE FROM operators WHERE lower(name) = lower($1)', [name])
    await c.query('INSERT INTO operators (name, role, token_hash, created_at) VALUES ($1, $2, $3, $4)', [name, p.role, key, at])
    await c.query(
      'INSERT INTO oidc_identities (issuer, subject, operator, created_at) VALUES ($1, $2, $3, $4) ON CONFLICT (issuer, subject) DO UPDATE SET operator = excluded.operator',
      [p.issuer, p.subject, name, at]
    )
    return { name, role: p.role, key, created: true, previousRole: null }
  }

  async setRole(operatorKey: string, role: TeamRole): Promise<void> {
    await this.pool.query('UPDATE operators SET role = $1 WHERE token_hash = $2', [role, operatorKey])
    await this.changed()
  }

  async createSession(s: NewSession, at: number): Promise<void> {
    await this.pool.query(numbered(PRUNE_SESSIONS), [at - SESSION_KEEP_MS, at - SESSION_KEEP_MS])
    await this.pool.query(PRUNE_REPLACED)
    await this.forgetPrevious(at)
    await this.pool.query(
      'INSERT INTO oidc_sessions (id, operator_key, access_hash, access_expires_at, refresh_hash, sealed, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7)',
      [s.id, s.operatorKey, s.accessHash, s.accessExpiresAt, s.refreshHash, s.sealed, at]
    )
    await this.changed()
  }

  async sessionByRefresh(refreshHash: string): Promise<StoredSession | null> {
    const r = await this.sessionRow('refresh_hash', refreshHash)
    return r && storedSession(r)
  }

  async sessionByPreviousRefresh(refreshHash: string): Promise<PreviousSession | null> {
    // A copy whose grace passed is never read, and not kept either.
    await this.forgetPrevious(this.now())
    const r = await this.sessionRow('previous_refresh_hash', refreshHash)
    return r && previousSession(r)
  }

  async sessionByAccess(accessHash: string): Promise<StoredSession | null> {
    const r = await this.sessionRow('access_hash', accessHash)
    return r && storedSession(r)
  }

  private async sessionRow(column: 'refresh_hash' | 'previous_refresh_hash' | 'access_hash', hash: string): Promise<LookupRow | null> {
    return (await this.pool.query<LookupRow>(`${SESSION_LOOKUP} WHERE s.${column} = $1`, [hash])).rows[0] ?? null
  }

  async rotate(
    id: string,
    oldRefreshHash: string,
    next: Omit<NewSession, 'id' | 'operatorKey'>,
    previous?: PreviousRefresh
  ): Promise<boolean> {
    await this.forgetPrevious(this.now())
    // One UPDATE with the old hash in its WHERE: of two hubs renewing with the same token at once,
    // one rotates; the replaced token's hash is kept in the same statement.
    const r = await this.pool.query(
      `WITH rotated AS (
         UPDATE oidc_sessions SET access_hash = $1, access_expires_at = $2, refresh_hash = $3, sealed = $4,
           previous_refresh_hash = $5, previous_sealed = $6, previous_until = $7, renewing_until = NULL
         WHERE id = $8 AND refresh_hash = $9 AND ended_at IS NULL
         RETURNING id
       ), kept AS (
         INSERT INTO oidc_replaced_refresh (refresh_hash, session_id, replaced_at)
         SELECT $9, id, $10 FROM rotated ON CONFLICT DO NOTHING
       )
       SELECT id FROM rotated`,
      [
        next.accessHash,
        next.accessExpiresAt,
        next.refreshHash,
        next.sealed,
        previous ? oldRefreshHash : null,
        previous?.sealed ?? null,
        previous?.until ?? null,
        id,
        oldRefreshHash,
        this.now()
      ]
    )
    await this.changed()
    return r.rowCount === 1
  }

  async claimRenewal(id: string, refreshHash: string, until: number, at: number): Promise<boolean> {
    return (await this.pool.query(numbered(CLAIM_RENEWAL), [until, id, refreshHash, at])).rowCount === 1
  }

  async extendRenewal(id: string, refreshHash: string, mine: number, until: number): Promise<boolean> {
    return (await this.pool.query(numbered(EXTEND_RENEWAL), [until, id, refreshHash, mine])).rowCount === 1
  }

  async releaseRenewal(id: string, refreshHash: string, mine: number): Promise<void> {
    await this.pool.query(numbered(RELEASE_RENEWAL), [id, refreshHash, mine])
  }

  async sessionByReplacedRefresh(refreshHash: string): Promise<StoredSession | null> {
    const r = (await this.pool.query<LookupRow>(numbered(REPLACED_LOOKUP), [refreshHash])).rows[0]
    return r ? storedSession(r) : null
  }

  async takePrevious(id: string, refreshHash: string, at: number): Promise<string | null> {
    // One UPDATE ... RETURNING the value it clears: of two hubs taking it at once, the second's
    // row lock waits for the first and then finds it cleared, so one of them gets it.
    const r = await this.pool.query<{ previous_sealed: string }>(
      `UPDATE oidc_sessions s SET previous_sealed = NULL
       FROM (SELECT id, previous_sealed FROM oidc_sessions
             WHERE id = $1 AND previous_refresh_hash = $2 AND previous_sealed IS NOT NULL AND previous_until >= $3 AND ended_at IS NULL
             FOR UPDATE) taken
       WHERE s.id = taken.id
       RETURNING taken.previous_sealed`,
      [id, refreshHash, at]
    )
    return r.rows[0]?.previous_sealed ?? null
  }

  async forgetPrevious(at: number): Promise<number> {
    return (await this.pool.query(numbered(FORGET_PREVIOUS), [at])).rowCount ?? 0
  }

  async end(id: string, at: number, refreshHash?: string): Promise<boolean> {
    const r =
      refreshHash === undefined
        ? await this.pool.query(numbered(END_SESSION), [at, id])
        : await this.pool.query(numbered(END_SESSION_HOLDING), [at, id, refreshHash])
    await this.changed()
    return r.rowCount === 1
  }

  authenticate(accessHash: string): Operator | null {
    const s = this.sessions.get(accessHash)
    const at = this.now()
    if (!s || s.expiresAt <= at) return null
    if (seenDue(s.row.last_seen_at, at)) {
      s.row.last_seen_at = at
      this.pool
        .query('UPDATE operators SET last_seen_at = $1 WHERE token_hash = $2', [at, s.operatorKey])
        .catch((e: unknown) => this.onError(`could not record when ${s.row.name} was last seen: ${(e as Error).message}`))
    }
    return { ...toOperator(s.row), sessionId: s.sessionId }
  }

  isActive(accessHash: string): boolean {
    const s = this.sessions.get(accessHash)
    return s !== undefined && s.expiresAt > this.now()
  }

  async oidcNames(): Promise<Set<string>> {
    const r = await this.pool.query<{ name: string }>("SELECT name FROM operators WHERE revoked_at IS NULL AND token_hash LIKE 'oidc:%'")
    return new Set(r.rows.map((row) => row.name))
  }
}
