// The hub's operators: a name, a role and a bearer token. A token is 32 random bytes
// shown once when the operator is added; only its SHA-256 is stored, so hub.db leaks no
// usable credential. Every request looks its token up afresh: a revocation made by
// another process (the command line) is refused on the very next request. Every token ends
// (token-expiry.ts); one replaced by `operator rotate` is remembered by its hash, so that it
// is refused with the words that say so rather than as unknown.
import { createHash, randomBytes } from 'node:crypto'
import type { Sql } from '../main/store/sql'
import { OperatorName, TeamRole, type TeamOperator } from '../shared/ipc/contract'
import { DEFAULT_LIFETIME_MS, type AccountKind, type TokenRefusal } from './token-expiry'

/** Tokens start with this, so a leaked one is recognisable (secret scanners, logs). */
export const TOKEN_PREFIX = 'rdh_'
/** last_seen_at is written at most this often per operator: not one write per request. */
const SEEN_EVERY_MS = 60_000

export interface Operator extends TeamOperator {
  tokenHash: string
  expiresAt: number
  account: AccountKind
  /**
   * The provider sign-in behind the request, for an operator signed in through the identity
   * provider: its access token (tokenHash) changes at every renewal, this does not.
   */
  sessionId?: string
}

/** What `operator add` may ask beside the name and role. */
export interface NewTokenOptions {
  /** How long the token lasts (default DEFAULT_LIFETIME_MS). */
  lifetimeMs?: number
  account?: AccountKind
}

interface OperatorRow {
  name: string
  role: string
  token_hash: string
  created_at: number
  last_seen_at: number | null
  expires_at: number
  account: string
}

export class OperatorError extends Error {
  /** As the contract's envelope names errors. */
  readonly kind: string
  readonly retryable = false
  constructor(
    readonly code: 'invalid' | 'exists' | 'not_found' | 'last_admin',
    message: string
  ) {
    super(message)
    this.name = 'OperatorError'
    this.kind = code === 'not_found' ? 'not_found' : 'invalid_input'
  }
}

export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex')
}

/** A new operator's name and role, checked (the same rules on every store). */
export function newOperator(name: string, role: string): { name: string; role: TeamRole } {
  const n = OperatorName.safeParse(name)
  if (!n.success) throw new OperatorError('invalid', `operator name: ${n.error.issues[0]?.message ?? 'invalid'}`)
  const r = TeamRole.safeParse(role)
  if (!r.success) throw new OperatorError('invalid', `role must be one of ${TeamRole.options.join(', ')}, not ${JSON.stringify(role)}`)
  return { name: n.data, role: r.data }
}

/** 32 random bytes, recognisable by their prefix. */
export const newToken = (): string => TOKEN_PREFIX + randomBytes(32).toString('base64url')

export const operatorExists = (name: string) =>
  new OperatorError('exists', `an operator named ${name} already exists: revoke it first to issue a new token`)
export const noSuchOperator = (name: string) => new OperatorError('not_found', `no active operator named ${JSON.stringify(name)}`)
export const noRotation = (name: string) =>
  new OperatorError('not_found', `no active operator named ${JSON.stringify(name)} to rotate: add it instead`)
export const lastAdmin = () => new OperatorError('last_admin', 'the last admin cannot revoke itself: add another admin first')

/** Whether this string could be a token at all (checked before any lookup). */
export const tokenShaped = (token: string): boolean => token.startsWith(TOKEN_PREFIX) && token.length <= 200

/** last_seen_at is due to be written again. */
export const seenDue = (lastSeenAt: number | null, at: number): boolean => lastSeenAt === null || at - lastSeenAt >= SEEN_EVERY_MS

export type { OperatorRow }

export const toOperator = (r: OperatorRow): Operator => ({
  name: r.name,
  role: TeamRole.parse(r.role),
  createdAt: r.created_at,
  lastSeenAt: r.last_seen_at,
  expiresAt: Number(r.expires_at),
  account: r.account === 'service' ? 'service' : 'person',
  tokenHash: r.token_hash
})

export const publicOf = ({ tokenHash: _, sessionId: __, ...op }: Operator): TeamOperator => op

/** The end of a token issued at `at`. */
export const expiryOf = (at: number, o: NewTokenOptions): number => at + (o.lifetimeMs ?? DEFAULT_LIFETIME_MS)

/** Why a token that is not active now is refused: it ended, or it was replaced; null when neither (unknown, revoked). */
export function refusalFrom(
  row: Pick<OperatorRow, 'expires_at'> | undefined,
  replacedAt: number | null | undefined,
  at: number
): TokenRefusal | null {
  if (row && Number(row.expires_at) <= at) return { kind: 'expired', at: Number(row.expires_at) }
  if (replacedAt != null) return { kind: 'replaced', at: Number(replacedAt) }
  return null
}

export class OperatorStore {
  constructor(
    private readonly sql: Sql,
    private readonly now: () => number = Date.now
  ) {}

  /** Adds an operator (or gives a revoked name a new start) and returns its token: the only time it exists outside the operator's hands. */
  add(name: string, role: string, o: NewTokenOptions = {}): { operator: TeamOperator; token: string } {
    const n = newOperator(name, role)
    const token = newToken()
    const at = this.now()
    const expiresAt = expiryOf(at, o)
    const account = o.account ?? 'person'
    this.sql.transaction(() => {
      const existing = this.sql.get<{ revoked_at: number | null }>('SELECT revoked_at FROM operators WHERE name = ?', n.name)
      if (existing && existing.revoked_at === null) throw operatorExists(n.name)
      this.sql.run('DELETE FROM operators WHERE name = ?', n.name)
      // A new start for a revoked name: the last holder's second factor is not theirs.
      this.sql.run('DELETE FROM second_factors WHERE name = ?', n.name)
      this.sql.run('DELETE FROM recovery_codes WHERE name = ?', n.name)
      this.sql.run('DELETE FROM second_factor_pending WHERE name = ?', n.name)
      this.sql.run(
        'INSERT INTO operators (name, role, token_hash, created_at, expires_at, account) VALUES (?, ?, ?, ?, ?, ?)',
        n.name,
        n.role,
        hashToken(token),
        at,
        expiresAt,
        account
      )
    })
    return { operator: { name: n.name, role: n.role, createdAt: at, lastSeenAt: null, expiresAt, account }, token }
  }

  /**
   * Gives an active operator a new token (a new lifetime from now, its role and account kept);
   * the old one is refused from the next request on, as replaced.
   */
  rotate(name: string, o: Pick<NewTokenOptions, 'lifetimeMs'> = {}): { operator: TeamOperator; token: string } {
    const token = newToken()
    const at = this.now()
    const expiresAt = expiryOf(at, o)
    const row = this.sql.transaction(() => {
      const row = this.sql.get<OperatorRow>('SELECT * FROM operators WHERE name = ? AND revoked_at IS NULL', name.trim())
      if (!row) throw noRotation(name.trim())
      this.sql.run('INSERT OR REPLACE INTO replaced_tokens (token_hash, name, replaced_at) VALUES (?, ?, ?)', row.token_hash, row.name, at)
      this.sql.run('UPDATE operators SET token_hash = ?, expires_at = ? WHERE name = ?', hashToken(token), expiresAt, row.name)
      return row
    })
    return { operator: { ...publicOf(toOperator(row)), expiresAt }, token }
  }

  /** Active operators, by name (an expired one too, until it is revoked or rotated: `operator list` says so). */
  list(): TeamOperator[] {
    return this.sql
      .all<OperatorRow>('SELECT * FROM operators WHERE revoked_at IS NULL ORDER BY name COLLATE NOCASE')
      .map((r) => publicOf(toOperator(r)))
  }

  /**
   * Revokes an operator's token. The last admin cannot be revoked through the contract
   * (`allowLastAdmin` is the command line's: whoever holds the data directory decides).
   */
  revoke(name: string, opts: { allowLastAdmin?: boolean } = {}): TeamOperator {
    return this.sql.transaction(() => {
      const row = this.sql.get<OperatorRow>('SELECT * FROM operators WHERE name = ? AND revoked_at IS NULL', name.trim())
      if (!row) throw noSuchOperator(name.trim())
      if (row.role === 'admin' && !opts.allowLastAdmin) {
        const admins = this.sql.value<number>("SELECT COUNT(*) FROM operators WHERE role = 'admin' AND revoked_at IS NULL") ?? 0
        if (admins <= 1) throw lastAdmin()
      }
      this.sql.run('UPDATE operators SET revoked_at = ? WHERE name = ?', this.now(), row.name)
      return publicOf(toOperator(row))
    })
  }

  /** The active operator holding this token, or null. */
  authenticate(token: string): Operator | null {
    if (!tokenShaped(token)) return null
    const at = this.now()
    const row = this.sql.get<OperatorRow>(
      'SELECT * FROM operators WHERE token_hash = ? AND revoked_at IS NULL AND expires_at > ?',
      hashToken(token),
      at
    )
    if (!row) return null
    if (seenDue(row.last_seen_at, at)) {
      this.sql.run('UPDATE operators SET last_seen_at = ? WHERE token_hash = ?', at, row.token_hash)
      row.last_seen_at = at
    }
    return toOperator(row)
  }

  /** Whether the token behind this hash is still valid (open event streams ask this). */
  isActive(tokenHash: string): boolean {
    return (
      this.sql.value<number>(
        'SELECT 1 FROM operators WHERE token_hash = ? AND revoked_at IS NULL AND expires_at > ?',
        tokenHash,
        this.now()
      ) === 1
    )
  }

  /** Why authenticate() refused this token, when it once worked: expired, or replaced by a rotation. */
  refusalOf(token: string): TokenRefusal | null {
    if (!tokenShaped(token)) return null
    const hash = hashToken(token)
    const row = this.sql.get<OperatorRow>('SELECT * FROM operators WHERE token_hash = ? AND revoked_at IS NULL', hash)
    const replaced = row ? null : this.sql.value<number>('SELECT replaced_at FROM replaced_tokens WHERE token_hash = ?', hash)
    return refusalFrom(row, replaced, this.now())
  }
}
