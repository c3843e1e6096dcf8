// Sign-in through the identity provider in hub.db (oidc-store.ts says what is kept). Every
// read is the database's, so a revocation from the command line is refused at the next request.
import type { Sql } from '../../main/store/sql'
import { TeamRole } from '../../shared/ipc/contract'
import { seenDue, toOperator, type Operator, type OperatorRow } from '../operators'
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
  KEEP_REPLACED,
  REPLACED_LOOKUP,
  SESSION_KEEP_MS,
  type NewSession,
  type OidcOperator,
  type OidcPerson,
  type OidcStore,
  type PreviousRefresh,
  type PreviousSession,
  type StoredSession,
  previousSession,
  type SessionRow,
  SESSION_LOOKUP,
  storedSession
} from './oidc-store'

const SESSION_OPERATOR = `SELECT o.name, o.role, o.created_at, o.last_seen_at, s.access_hash AS token_hash, s.operator_key, s.id AS session_id
  FROM oidc_sessions s JOIN operators o ON o.token_hash = s.operator_key AND o.revoked_at IS NULL
  WHERE s.access_hash = ? AND s.ended_at IS NULL AND s.access_expires_at > ?`

export class SqliteOidcStore implements OidcStore {
  constructor(
    private readonly sql: Sql,
    private readonly now: () => number = Date.now
  ) {}

  putPending(key: string, sealed: string, expiresAt: number, cap?: number): number {
    return this.sql.transaction(() => {
      this.sql.run('DELETE FROM oidc_pending WHERE expires_at <= ?', this.now())
      this.sql.run('INSERT INTO oidc_pending (key, sealed, expires_at) VALUES (?, ?, ?)', key, sealed, expiresAt)
      if (cap === undefined) return 0
      return this.sql.run(`DELETE FROM oidc_pending WHERE key IN (${BEYOND_CAP} LIMIT -1 OFFSET ?)`, cap).changes
    })
  }

  takePending(key: string, at: number): string | null {
    return this.sql.transaction(() => {
      const row = this.sql.get<{ sealed: string; expires_at: number }>('SELECT sealed, expires_at FROM oidc_pending WHERE key = ?', key)
      if (!row) return null
      this.sql.run('DELETE FROM oidc_pending WHERE key = ?', key)
      return row.expires_at > at ? row.sealed : null
    })
  }

  signIn(p: OidcPerson, at: number): OidcOperator {
    return this.sql.transaction(() => {
      const known = this.sql.value<string>('SELECT operator FROM oidc_identities WHERE issuer = ? AND subject = ?', p.issuer, p.subject)
      if (known !== undefined) {
        const row = this.sql.get<OperatorRow & { revoked_at: number | null }>('SELECT * FROM operators WHERE name = ?', known)
        if (row && row.revoked_at === null && row.token_hash.startsWith(OIDC_MARKER)) {
          const previous = TeamRole.parse(row.role)
          if (previous !== p.role) this.sql.run('UPDATE operators SET role = ? WHERE token_hash = ?', p.role, row.token_hash)
          return { name: row.name, role: p.role, key: row.token_hash, created: false, previousRole: previous !== p.role ? previous : null }
        }
        // Revoked (or its name given to a token operator since): a new start under a free name.
        if (!row || row.revoked_at !== null) return this.create(p, at, known)
      }
      return this.create(p, at, null)
    })
  }

  private create(p: OidcPerson, at: number, reuse: string | null): OidcOperator {
    const free = (n: string) =>
      this.sql.get('SELECT 1 FROM operators WHERE name = ? AND revoked_at IS NULL', n) === undefined &&
      this.sql.get(
        'SELECT 1 FROM oidc_identities WHERE operator = ? COLLATE NOCASE AND NOT (issuer = ? AND subject = ?)',
        n,
        p.issuer,
        p.subject
      ) === undefined
    let name: string | undefined = reuse !== null && free(reuse) ? reuse : undefined
    for (const n of nameCandidates(p.preferredName)) {
      if (name) break
      if (free(n)) name = n
    }
    if (!name) throw new Error(`no free operator name for ${p.preferredName}`)
    const key = newOidcMarker()
    this.sql.run('DELETE FROM operators WHERE name = ?', name)
    this.sql.run('INSERT INTO operators (name, role, token_hash, created_at) VALUES (?, ?, ?, ?)', name, p.role, key, at)
    this.sql.run(
      'INSERT INTO oidc_identities (issuer, subject, operator, created_at) VALUES (?, ?, ?, ?) ON CONFLICT (issuer, subject) DO UPDATE SET operator = excluded.operator',
      p.issuer,
      p.subject,
      name,
      at
    )
    return { name, role: p.role, key, created: true, previousRole: null }
  }

  setRole(operatorKey: string, role: TeamRole): void {
    this.sql.run('UPDATE operators SET role = ? WHERE token_hash = ?', role, operatorKey)
  }

  createSession(s: NewSession, at: number): void {
    this.sql.run(PRUNE_SESSIONS, at - SESSION_KEEP_MS, at - SESSION_KEEP_MS)
    this.sql.run(PRUNE_REPLACED)
    this.forgetPrevious(at)
    this.sql.run(
      'INSERT INTO oidc_sessions (id, operator_key, access_hash, access_expires_at, refresh_hash, sealed, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
      s.id,
      s.operatorKey,
      s.accessHash,
      s.accessExpiresAt,
      s.refreshHash,
      s.sealed,
      at
    )
  }

  sessionByRefresh(refreshHash: string): StoredSession | null {
    const r = this.sessionRow('refresh_hash', refreshHash)
    return r && storedSession(r)
  }

  sessionByPreviousRefresh(refreshHash: string): PreviousSession | null {
    // A copy whose grace passed is never read, and not kept either.
    this.forgetPrevious(this.now())
    const r = this.sessionRow('previous_refresh_hash', refreshHash)
    return r && previousSession(r)
  }

  sessionByAccess(accessHash: string): StoredSession | null {
    const r = this.sessionRow('access_hash', accessHash)
    return r && storedSession(r)
  }

  private sessionRow(column: 'refresh_hash' | 'previous_refresh_hash' | 'access_hash', hash: string): SessionRow | null {
    return this.sql.get<SessionRow>(`${SESSION_LOOKUP} WHERE s.${column} = ?`, hash) ?? null
  }

  claimRenewal(id: string, refreshHash: string, until: number, at: number): boolean {
    return this.sql.run(CLAIM_RENEWAL, until, id, refreshHash, at).changes === 1
  }

  extendRenewal(id: string, refreshHash: string, mine: number, until: number): boolean {
    return this.sql.run(EXTEND_RENEWAL, until, id, refreshHash, mine).changes === 1
  }

  releaseRenewal(id: string, refreshHash: string, mine: number): void {
    this.sql.run(RELEASE_RENEWAL, id, refreshHash, mine)
  }

  sessionByReplacedRefresh(refreshHash: string): StoredSession | null {
    const r = this.sql.get<SessionRow>(REPLACED_LOOKUP, refreshHash)
    return r ? storedSession(r) : null
  }

  rotate(id: string, oldRefreshHash: string, next: Omit<NewSession, 'id' | 'operatorKey'>, previous?: PreviousRefresh): boolean {
    this.forgetPrevious(this.now())
    return this.sql.transaction(() => {
      const rotated = this.rotateRow(id, oldRefreshHash, next, previous)
      if (rotated) this.sql.run(KEEP_REPLACED, oldRefreshHash, id, this.now())
      return rotated
    })
  }

  private rotateRow(id: string, oldRefreshHash: string, next: Omit<NewSession, 'id' | 'operatorKey'>, previous?: PreviousRefresh): boolean {
    return (
      this.sql.run(
        `UPDATE oidc_sessions SET access_hash = ?, access_expires_at = ?, refresh_hash = ?, sealed = ?,
           previous_refresh_hash = ?, previous_sealed = ?, previous_until = ?, renewing_until = NULL
         WHERE id = ? AND refresh_hash = ? AND ended_at IS NULL`,
        next.accessHash,
        next.accessExpiresAt,
        next.refreshHash,
        next.sealed,
        previous ? oldRefreshHash : null,
        previous?.sealed ?? null,
        previous?.until ?? null,
        id,
        oldRefreshHash
      ).changes === 1
    )
  }

  takePrevious(id: string, refreshHash: string, at: number): string | null {
    // Read and cleared in one transaction: a second process on hub.db (the command line) waits for it.
    return this.sql.transaction(() => {
      const sealed = this.sql.value<string>(
        `SELECT previous_sealed FROM oidc_sessions
         WHERE id = ? AND previous_refresh_hash = ? AND previous_sealed IS NOT NULL AND previous_until >= ? AND ended_at IS NULL`,
        id,
        refreshHash,
        at
      )
      if (sealed === undefined) return null
      this.sql.run('UPDATE oidc_sessions SET previous_sealed = NULL WHERE id = ?', id)
      return sealed
    })
  }

  forgetPrevious(at: number): number {
    return this.sql.run(FORGET_PREVIOUS, at).changes
  }

  end(id: string, at: number, refreshHash?: string): boolean {
    if (refreshHash !== undefined) return this.sql.run(END_SESSION_HOLDING, at, id, refreshHash).changes === 1
    return this.sql.run(END_SESSION, at, id).changes === 1
  }

  authenticate(accessHash: string): Operator | null {
    const at = this.now()
    const row = this.sql.get<OperatorRow & { operator_key: string; session_id: string }>(SESSION_OPERATOR, accessHash, at)
    if (!row) return null
    if (seenDue(row.last_seen_at, at)) {
      this.sql.run('UPDATE operators SET last_seen_at = ? WHERE token_hash = ?', at, row.operator_key)
      row.last_seen_at = at
    }
    return { ...toOperator(row), sessionId: row.session_id }
  }

  isActive(accessHash: string): boolean {
    return this.sql.get(SESSION_OPERATOR, accessHash, this.now()) !== undefined
  }

  oidcNames(): Set<string> {
    return new Set(
      this.sql.all<{ name: string }>("SELECT name FROM operators WHERE revoked_at IS NULL AND token_hash LIKE 'oidc:%'").map((r) => r.name)
    )
  }
}
