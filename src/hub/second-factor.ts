// A second factor for token operators where there is no identity provider: TOTP (RFC 6238,
// the codes of any authenticator app) through the otpauth package, and ten one-time recovery
// codes. The TOTP secret is kept in the hub's store and never logged, returned or shown again
// after enrolment; recovery codes are kept as SHA-256 hashes only. A code is accepted one step
// either side of now (clocks drift), and once: the store takes the step only if it is later
// than the last one taken for that operator, in one statement, so two hubs on one database
// cannot both accept it. What the hub asks of whom, and when, is second-factor-gate.ts.
//
// Wrong codes are limited per operator, not only per request rate, so that a stolen token
// cannot keep guessing: each code sent is counted in the store before it is checked (so
// requests sent together cannot get past the count), a right code starts the count again,
// and the MAX_WRONG_CODES-th wrong one in WRONG_CODE_WINDOW_MS locks the operator out for
// LOCKOUT_MS, during which codes are refused unchecked. The count is kept beside the secret,
// so every hub on one database, and a restarted hub, sees it.
//
// A code is taken once, but the store keeps which session took it: the same session sending
// the same code again (its answer was lost and the desktop asked another hub) is answered as
// the first time, while any other session is refused it as replayed.
import { createHash, randomBytes, randomUUID } from 'node:crypto'
import { Secret, TOTP } from 'otpauth'
import type { Awaitable } from '../main/api/budget-carry'
import type { SecondFactorKeyCheck, SecondFactorKeyMismatch } from './second-factor-key'

export const TOTP_PERIOD_S = 30
/** Steps accepted either side of now. */
export const TOTP_WINDOW = 1
const RECOVERY_CODES = 10
/** Wrong codes (or recovery codes) that lock an operator out... */
export const MAX_WRONG_CODES = 5
/** ...when sent within this long of the first of them... */
export const WRONG_CODE_WINDOW_MS = 15 * 60_000
/** ...for this long. */
export const LOCKOUT_MS = 15 * 60_000

/** How long after a recovery code was used the session that used it may send it again. */
export const RESEND_MS = (2 * TOTP_WINDOW + 1) * TOTP_PERIOD_S * 1000

/** An enrolment under way (second-factor-enrolment.ts), as the store gives it back: opened. */
export interface PendingEnrolment {
  secret: string
  recoveryHashes: string[]
  expiresAt: number
  /** Wrong codes sent to confirm it. */
  wrong: number
}

/** Whether a code sent may be checked: it was counted; or not, while the operator is locked out. */
export type CodeAttempt = { kind: 'counted' } | { kind: 'locked'; until: number } | { kind: 'not_enrolled' }

export interface SecondFactorStore {
  /** Enrols (or enrols again, replacing the secret and every recovery code). */
  enrol(name: string, secret: string, recoveryHashes: readonly string[], at: number): Awaitable<void>
  /** The operator's secret (base32), or null when not enrolled. */
  secretOf(name: string): Awaitable<string | null>
  /**
   * Takes this step for the operator, for the session `by`, if it is later than the last one
   * taken, or if `by` took this very step last (the same code sent again); answers whether it did.
   */
  takeStep(name: string, step: number, by: string): Awaitable<boolean>
  /** Marks an unused recovery code used by `by` (or one `by` used within RESEND_MS); answers whether there was one. */
  useRecoveryCode(name: string, hash: string, at: number, by: string): Awaitable<boolean>
  /**
   * Counts a code about to be checked, in one statement, unless the operator is locked out
   * at `at` or has MAX_WRONG_CODES counted in the WRONG_CODE_WINDOW_MS since the first.
   */
  countAttempt(name: string, at: number): Awaitable<CodeAttempt>
  /**
   * After a wrong code: when MAX_WRONG_CODES are counted in the window, locks the operator out
   * until `at` + LOCKOUT_MS and starts the count again; answers that end, or null when this
   * call did not lock.
   */
  lockIfSpent(name: string, at: number): Awaitable<number | null>
  /** After a right code: the count starts again. */
  clearAttempts(name: string): Awaitable<void>
  /** Recovery codes the operator has not used yet. */
  recoveryCodesLeft(name: string): Awaitable<number>
  /** Drops the operator's enrolment (when it is revoked). */
  remove(name: string): Awaitable<void>

  /** Keeps an enrolment under way (the secret sealed), replacing any earlier one of the operator's. */
  putPending(name: string, p: Omit<PendingEnrolment, 'wrong'>): Awaitable<void>
  /** The enrolment under way, expired or not, or null. */
  pendingOf(name: string): Awaitable<PendingEnrolment | null>
  /** Counts a wrong code sent to confirm it; answers the count (0: there is none). */
  pendingWrong(name: string): Awaitable<number>
  dropPending(name: string): Awaitable<void>
  /**
   * Records an enrolment started at `at` unless `max` were started since `since` (older ones
   * are forgotten); answers null when recorded, else when the oldest of those was started.
   */
  recordStart(name: string, at: number, since: number, max: number): Awaitable<number | null>

  /** Holds the session `proof` (a hash) proven at `at`, and forgets every proof from before `forgetBefore`. */
  prove(proof: string, name: string, at: number, forgetBefore: number): Awaitable<void>
  /** When the session `proof` was last proven, or null. */
  provenAt(proof: string): Awaitable<number | null>

  /**
   * Drops the enrolments under way that expired by `at` (nobody can finish them), then tries this
   * hub's key on every stored second factor left (enrolled or under way).
   */
  keyCheck(at: number): Awaitable<SecondFactorKeyCheck>
  /** Hears of each stored second factor found not to open when it was needed. */
  onKeyMismatch(listener: (e: SecondFactorKeyMismatch) => void): void
}

export interface Enrolment {
  /** base32: what an authenticator takes typed in. */
  secret: string
  /** otpauth://totp/…: what the QR code holds. */
  uri: string
  /** Shown once; each signs in once in place of a code. */
  recoveryCodes: string[]
}

const totpOf = (secret: string, label = 'operator') =>
  new TOTP({ issuer: 'Rampdesk hub', label, algorithm: 'SHA1', digits: 6, period: TOTP_PERIOD_S, secret: Secret.fromBase32(secret) })

export const hashRecoveryCode = (code: string): string =>
  createHash('sha256').update(code.trim().toLowerCase().replace(/[\s-]/g, ''), 'utf8').digest('hex')

/** A new secret (160 bits, as RFC 4226 recommends), its URI and recovery codes; nothing is stored yet. */
export function newEnrolment(name: string, hubLabel: string): Enrolment {
  const secret = new Secret({ size: 20 }).base32
  const totp = totpOf(secret, `${name}@${hubLabel}`)
  const recoveryCodes = Array.from({ length: RECOVERY_CODES }, () => {
    const hex = randomBytes(5).toString('hex')
    return `${hex.slice(0, 5)}-${hex.slice(5)}`
  })
  return { secret, uri: totp.toString(), recoveryCodes }
}

/** Enrols an operator: keeps the secret and the recovery codes' hashes, answers what to show once. */
export async function enrolSecondFactor(store: SecondFactorStore, name: string, hubLabel: string, at: number): Promise<Enrolment> {
  const e = newEnrolment(name, hubLabel)
  await store.enrol(name, e.secret, e.recoveryCodes.map(hashRecoveryCode), at)
  return e
}

/** How a second factor was proven, or why not. `lockedNow`: this code's refusal locked the operator out. */
export type SecondFactorCheck =
  | { ok: true; by: 'totp' | 'recovery' }
  | { ok: false; why: 'not_enrolled' | 'wrong' | 'replayed' }
  | { ok: false; why: 'locked'; until: number; lockedNow: boolean }

/**
 * Checks a six-digit code (or a recovery code) for this operator at `at` (ms), counting it
 * against the lockout first; a replayed code counts as a wrong one. `by`: the session sending
 * it (a hash), which may send a code it was answered for once more; a caller that names none
 * (the command line) is a session of its own that never sends one again.
 */
export async function checkSecondFactor(
  store: SecondFactorStore,
  name: string,
  code: string,
  at: number,
  by: string = randomUUID()
): Promise<SecondFactorCheck> {
  const secret = await store.secretOf(name)
  if (secret === null) return { ok: false, why: 'not_enrolled' }
  const attempt = await store.countAttempt(name, at)
  if (attempt.kind === 'not_enrolled') return { ok: false, why: 'not_enrolled' }
  if (attempt.kind === 'locked') return { ok: false, why: 'locked', until: attempt.until, lockedNow: false }
  const r = await verifyCode(store, name, secret, code, at, by)
  if (r.ok) {
    await store.clearAttempts(name)
    return r
  }
  const until = await store.lockIfSpent(name, at)
  return until === null ? r : { ok: false, why: 'locked', until, lockedNow: true }
}

/** The step offset a six-digit code matches at `at` (within TOTP_WINDOW), or null. */
export function totpDelta(secret: string, code: string, at: number): number | null {
  const c = code.trim()
  if (!/^\d{6}$/.test(c)) return null
  return totpOf(secret).validate({ token: c, timestamp: at, window: TOTP_WINDOW })
}

async function verifyCode(
  store: SecondFactorStore,
  name: string,
  secret: string,
  code: string,
  at: number,
  by: string
): Promise<{ ok: true; by: 'totp' | 'recovery' } | { ok: false; why: 'wrong' | 'replayed' }> {
  const c = code.trim()
  if (/^\d{6}$/.test(c)) {
    const delta = totpDelta(secret, c, at)
    if (delta === null) return { ok: false, why: 'wrong' }
    const step = Math.floor(at / 1000 / TOTP_PERIOD_S) + delta
    return (await store.takeStep(name, step, by)) ? { ok: true, by: 'totp' } : { ok: false, why: 'replayed' }
  }
  if (/^[0-9a-f]{5}-?[0-9a-f]{5}$/i.test(c) && (await store.useRecoveryCode(name, hashRecoveryCode(c), at, by)))
    return { ok: true, by: 'recovery' }
  return { ok: false, why: 'wrong' }
}
