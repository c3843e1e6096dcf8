// How long an operator token lasts, and what a refused one is told. Every token ends: one that
// never did outlived the person it was given to until an admin remembered to revoke it. The
// default is 90 days and the longest a year, for people and service accounts alike: automation
// renews its token with `operator rotate` on a schedule, as it would a certificate. A token
// that has ended, or that `operator rotate` replaced, is refused with words that say which and
// when, so the person holding it knows whom to ask for what (the desktop shows those words).
import { UsageError } from './cli-errors'

export const DAY_MS = 86_400_000
/** A token's lifetime when none is asked for. */
export const DEFAULT_TOKEN_DAYS = 90
/** The longest lifetime a token may be given. */
export const MAX_TOKEN_DAYS = 365

/** Who holds a token: a person at a desktop, or automation (no interactive sign-in, no second factor). */
export type AccountKind = 'person' | 'service'

/** Why a token that once worked is refused now. */
export type TokenRefusal = { kind: 'expired'; at: number } | { kind: 'replaced'; at: number }

/**
 * A lifetime as `--expires-in` takes it: whole days ("30d") or weeks ("12w"), 1 day to
 * MAX_TOKEN_DAYS. "never" is refused with the reason.
 */
export function parseExpiresIn(text: string): number {
  const t = text.trim().toLowerCase()
  if (t === 'never')
    throw new UsageError(
      `--expires-in never: every hub token ends (at most ${MAX_TOKEN_DAYS}d); renew a long-lived one with operator rotate before it does`
    )
  const m = /^(\d{1,4})([dw])$/.exec(t)
  if (!m) throw new UsageError(`--expires-in takes days or weeks, such as 90d or 12w, not ${JSON.stringify(text)}`)
  const days = Number(m[1]) * (m[2] === 'w' ? 7 : 1)
  if (days < 1 || days > MAX_TOKEN_DAYS)
    throw new UsageError(`--expires-in must be between 1d and ${MAX_TOKEN_DAYS}d (${(MAX_TOKEN_DAYS / 7) | 0}w), not ${text}`)
  return days * DAY_MS
}

export const DEFAULT_LIFETIME_MS = DEFAULT_TOKEN_DAYS * DAY_MS

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec']

/** "3 Dec 2026 14:05 UTC": a moment as a person reads it, the same on every hub whatever its time zone. */
export function utcMoment(ms: number): string {
  const d = new Date(ms)
  const hh = String(d.getUTCHours()).padStart(2, '0')
  const mm = String(d.getUTCMinutes()).padStart(2, '0')
  return `${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()} ${hh}:${mm} UTC`
}

/** What the hub answers a token that once worked and does not now. */
export function refusalMessage(r: TokenRefusal): string {
  switch (r.kind) {
    case 'expired':
      return `this token expired on ${utcMoment(r.at)}; ask your team lead for a new one`
    case 'replaced':
      return `this token was replaced on ${utcMoment(r.at)}; ask for the new one`
  }
}

/** A token's end as `operator list` gives it (ISO, as its other columns). */
export const endsText = (expiresAt: number, now: number): string =>
  `${expiresAt <= now ? 'expired' : 'expires'} ${new Date(expiresAt).toISOString()}`
