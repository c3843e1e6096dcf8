// What the hub keeps of sign-in through the team's identity provider, on either store: who
// each person is at the provider and which operator they are here, the sign-ins under way,
// and the sessions. An operator signed in this way is a row of `operators` like any other (it
// is listed, audited, revoked the same way), whose token_hash is a marker no token hashes to:
// nobody can present a bearer token for it, only a session's.
import { randomBytes } from 'node:crypto'
import type { Awaitable } from '../../main/api/budget-carry'
import { OperatorName, TeamRole } from '../../shared/ipc/contract'
import type { Operator } from '../operators'

/** Every OIDC operator's token_hash starts with this (a token's hash is 64 hex digits). */
export const OIDC_MARKER = 'oidc:'
export const newOidcMarker = (): string => OIDC_MARKER + randomBytes(24).toString('base64url')

/** Session access tokens and refresh tokens start with these, so they are told from operator tokens at once. */
export const ACCESS_PREFIX = 'rds_'
export const REFRESH_PREFIX = 'rdr_'

/**
 * Hand-over codes are filed under this prefix; sign-ins under way under their state's bare
 * hash. Only the latter are capped: anyone may start a sign-in, only a person the provider
 * signed in gets a hand-over code.
 */
export const HANDOFF_PREFIX = 'handoff:'
/** The sign-ins under way beyond the newest `cap` (given once: ? or $1): the ones to drop. */
export const BEYOND_CAP = `SELECT key FROM oidc_pending WHERE key NOT LIKE '${HANDOFF_PREFIX}%' ORDER BY expires_at DESC, key`

export const sessionShaped = (token: string): boolean => token.startsWith(ACCESS_PREFIX) && token.length <= 200

export interface OidcPerson {
  issuer: string
  subject: string
  /** What the operator is called when first created (preferred_username, email, name or subject). */
  preferredName: string
  role: TeamRole
}

export interface OidcOperator {
  name: string
  role: TeamRole
  /** The operator row's token_hash (its marker). */
  key: string
  /** Created by this sign-in (first sign-in, or after a revocation). */
  created: boolean
  /** Its role before this sign-in, when it changed. */
  previousRole: TeamRole | null
}

export interface NewSession {
  id: string
  operatorKey: string
  accessHash: string
  accessExpiresAt: number
  refreshHash: string
  sealed: string
}

export interface StoredSession {
  id: string
  operatorKey: string
  sealed: string
  ended: boolean
  /** The operator, or null when it was revoked since. */
  operator: { name: string; role: TeamRole } | null
}

/** A session found by the refresh token it held before its last renewal. */
export interface PreviousSession extends StoredSession {
  /**
   * The session's current tokens, sealed with that previous refresh token: null once they were
   * handed out again (they are, once), the grace passed or the session ended. The token's hash
   * stays, so that presenting it again is still known as reuse.
   */
  previousSealed: string | null
  /** Until when the previous refresh token is taken. */
  previousUntil: number
}

/** What a renewal keeps of the refresh token it replaces (oidc-tables.ts, OIDC_PREVIOUS_REFRESH). */
export interface PreviousRefresh {
  sealed: string
  until: number
}

/** A session as the lookups read it, with its operator when not revoked. */
export interface SessionRow {
  id: string
  operator_key: string
  sealed: string
  ended_at: number | string | null
  previous_sealed: string | null
  previous_until: number | string | null
  name: string | null
  role: string | null
}

export function storedSession(r: SessionRow): StoredSession {
  return {
    id: r.id,
    operatorKey: r.operator_key,
    sealed: r.sealed,
    ended: r.ended_at !== null,
    operator: r.name !== null && r.role !== null ? { name: r.name, role: TeamRole.parse(r.role) } : null
  }
}

export function previousSession(r: SessionRow): PreviousSession | null {
  if (r.previous_until === null) return null
  return { ...storedSession(r), previousSealed: r.previous_sealed, previousUntil: Number(r.previous_until) }
}

/** The lookups' SELECT of a session and its operator (the WHERE is the caller's). */
export const SESSION_LOOKUP = `SELECT s.id, s.operator_key, s.sealed, s.ended_at, s.previous_sealed, s.previous_until, o.name, o.role
  FROM oidc_sessions s LEFT JOIN operators o ON o.token_hash = s.operator_key AND o.revoked_at IS NULL`

export interface OidcStore {
  /**
   * Files a sealed value under a key, until `expiresAt`; drops the expired ones and, given a
   * cap, the oldest sign-ins under way beyond it. Answers how many it dropped so.
   */
  putPending(key: string, sealed: string, expiresAt: number, cap?: number): Awaitable<number>
  /** Takes a value once: null when there is none, it expired, or it was taken already. */
  takePending(key: string, at: number): Awaitable<string | null>
  /** The operator this person is: found, re-created after a revocation, or created; its role set to the claim's. */
  signIn(p: OidcPerson, at: number): Awaitable<OidcOperator>
  /** Sets the role of an OIDC operator (its provider's claim changed). */
  setRole(operatorKey: string, role: TeamRole): Awaitable<void>
  createSession(s: NewSession, at: number): Awaitable<void>
  sessionByRefresh(refreshHash: string): Awaitable<StoredSession | null>
  /** The session whose refresh token before its last renewal hashes to this, ended or not. */
  sessionByPreviousRefresh(refreshHash: string): Awaitable<PreviousSession | null>
  /** The session that holds (or last held) this access token, lapsed, ended or not. */
  sessionByAccess(accessHash: string): Awaitable<StoredSession | null>
  /**
   * Replaces a session's tokens, if its refresh token is still the one given: false when another
   * refresh came first. `previous`: the replaced refresh token stays good for a while (else it is
   * forgotten). The replaced token's hash is kept with the session either way, and any renewal
   * claim goes.
   */
  rotate(id: string, oldRefreshHash: string, next: Omit<NewSession, 'id' | 'operatorKey'>, previous?: PreviousRefresh): Awaitable<boolean>
  /**
   * Claims a renewal of session `id` with the refresh token hashing to `refreshHash` until
   * `until`: true when it still holds that token, stands, and no other renewal's claim runs past
   * `at`. The claim goes when the session rotates or it is released.
   */
  claimRenewal(id: string, refreshHash: string, until: number, at: number): Awaitable<boolean>
  /** Keeps a claim (the one lasting until `mine`) until `until`: false when it is no longer held. */
  extendRenewal(id: string, refreshHash: string, mine: number, until: number): Awaitable<boolean>
  /** Lets a claimed renewal (the one lasting until `mine`) go without rotating: the provider was not reached, or refused. */
  releaseRenewal(id: string, refreshHash: string, mine: number): Awaitable<void>
  /** The session a renewal took this refresh token from, at any time before its last one; ended or not. */
  sessionByReplacedRefresh(refreshHash: string): Awaitable<StoredSession | null>
  /**
   * Takes the session a renewal left sealed for the refresh token it replaced, once: the sealed
   * copy when session `id` stands, its previous refresh token hashes to `refreshHash`, `at` is
   * within its grace and nobody (on this hub or another) took it before; else null. The copy is
   * gone after, the hash stays.
   */
  takePrevious(id: string, refreshHash: string, at: number): Awaitable<string | null>
  /** Forgets the sealed copies whose grace passed before `at` or whose session ended (their hashes stay); answers how many. */
  forgetPrevious(at: number): Awaitable<number>
  /**
   * Ends a session (and forgets its sealed copy); answers whether it stood until now. Given
   * `refreshHash`, only while the session still holds that refresh token (a renewal that ends it
   * must not end the one another renewal made meanwhile).
   */
  end(id: string, at: number, refreshHash?: string): Awaitable<boolean>
  /** The operator holding this access token while its session stands, or null: answered at once. */
  authenticate(accessHash: string): Operator | null
  /** Whether the session behind this access token's hash still stands (open event streams ask). */
  isActive(accessHash: string): boolean
  /** The names of the operators who sign in through the provider. */
  oidcNames(): Awaitable<Set<string>>
}

/** Forgets the renewed sessions sealed for refresh tokens no longer taken: past their grace, or their session ended (`at`: ? or $1). */
export const FORGET_PREVIOUS = `UPDATE oidc_sessions SET previous_sealed = NULL
  WHERE previous_sealed IS NOT NULL AND (previous_until < ? OR ended_at IS NOT NULL)`

/** Ends a session and forgets its sealed copy (at, id: ? or $1 $2). */
export const END_SESSION = 'UPDATE oidc_sessions SET ended_at = ?, previous_sealed = NULL WHERE id = ? AND ended_at IS NULL'

/** Sessions ended or lapsed this long ago are dropped. */
export const SESSION_KEEP_MS = 30 * 24 * 60 * 60_000
/** Drops the sessions ended, or not renewed, before the cut-off (given twice, ? or $1 $2). */
export const PRUNE_SESSIONS =
  'DELETE FROM oidc_sessions WHERE (ended_at IS NOT NULL AND ended_at < ?) OR (ended_at IS NULL AND access_expires_at < ?)'
/** Drops the replaced refresh tokens of sessions no longer kept. */
export const PRUNE_REPLACED = 'DELETE FROM oidc_replaced_refresh WHERE session_id NOT IN (SELECT id FROM oidc_sessions)'

/** Claims a renewal (until, id, refresh hash, at: ? or $1-$4). */
export const CLAIM_RENEWAL = `UPDATE oidc_sessions SET renewing_until = ?
  WHERE id = ? AND refresh_hash = ? AND ended_at IS NULL AND (renewing_until IS NULL OR renewing_until <= ?)`
/** Extends a renewal's claim (until, id, refresh hash, mine: ? or $1-$4). */
export const EXTEND_RENEWAL = 'UPDATE oidc_sessions SET renewing_until = ? WHERE id = ? AND refresh_hash = ? AND renewing_until = ?'
/** Releases a renewal's claim (id, refresh hash, mine: ? or $1-$3). */
export const RELEASE_RENEWAL = 'UPDATE oidc_sessions SET renewing_until = NULL WHERE id = ? AND refresh_hash = ? AND renewing_until = ?'
/** Ends a session still holding a refresh token (at, id, refresh hash: ? or $1-$3). */
export const END_SESSION_HOLDING = `${END_SESSION} AND refresh_hash = ?`
/** Keeps a replaced refresh token's hash with its session (hash, session id, at: ? or $1-$3). */
export const KEEP_REPLACED =
  'INSERT INTO oidc_replaced_refresh (refresh_hash, session_id, replaced_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING'
/** The lookup of a session by a refresh token a renewal replaced (? or $1). */
export const REPLACED_LOOKUP = `${SESSION_LOOKUP} JOIN oidc_replaced_refresh r ON r.session_id = s.id WHERE r.refresh_hash = ?`

/** A name the operator rules accept, from what the provider calls the person. */
export function operatorNameFrom(preferred: string): string {
  let n = preferred
    .trim()
    .replace(/[^A-Za-z0-9._@-]+/g, '-')
    .replace(/^[^A-Za-z0-9]+/, '')
    .slice(0, 56)
  if (!OperatorName.safeParse(n).success) n = 'oidc-user'
  return n
}

/** The names to try for a new operator: the name, then name-2, name-3... */
export function* nameCandidates(preferred: string): Generator<string> {
  const base = operatorNameFrom(preferred)
  yield base
  for (let i = 2; i < 1000; i++) yield `${base}-${i}`
}
