// A team operator's access that ends: the warning a week before, and the words when a hub
// refuses a token that ended or that a rotation replaced. Pure, so the views, the tray and the
// error texts say the same thing and each case is unit-tested.

/** How long before its token ends the operator is warned. */
export const ACCESS_WARNING_MS = 7 * 86_400_000

/** "3 Dec" in the operator's own time zone (or the one given, for tests). */
export function dayText(ms: number, timeZone?: string): string {
  return new Date(ms).toLocaleDateString('en-GB', { day: 'numeric', month: 'short', ...(timeZone ? { timeZone } : {}) })
}

/** The warning while the token ends within a week (null before, and once it has ended: the refusal says that). */
export function accessEndingWarning(expiresAt: number | undefined, now: number, timeZone?: string): string | null {
  if (expiresAt === undefined || expiresAt <= now || expiresAt - now > ACCESS_WARNING_MS) return null
  return `Your access to the hub ends on ${dayText(expiresAt, timeZone)}; ask your team lead for a new token`
}

/** Why a hub refuses a token that once worked (ErrorInfo's reason). */
export type RefusalReason = 'expired' | 'replaced' | 'signed-out'

export interface RefusalWords {
  /** A notice's title. */
  title: string
  /** The tray's one line. */
  headline: string
  /** What to do, after the hub's own words. */
  todo: string
}

const WORDS: Record<RefusalReason, RefusalWords> = {
  expired: {
    title: 'Your access to the hub has ended',
    headline: 'Your access has ended: ask your team lead for a new token',
    todo: 'Store the new operator token in Settings → Credentials.'
  },
  replaced: {
    title: 'Your operator token was replaced',
    headline: 'Your token was replaced: ask for the new one',
    todo: 'Store the new operator token in Settings → Credentials.'
  },
  'signed-out': {
    title: 'Your sign-in has ended',
    headline: 'Your sign-in ended: sign in again',
    todo: 'Sign in again from Settings → Credentials.'
  }
}

/** The words for a refused token that ended or was replaced; null for a revoked or unknown one. */
export function refusalWords(reason: RefusalReason | null | undefined): RefusalWords | null {
  return reason ? WORDS[reason] : null
}

/** The hub's words ("this token expired on …; ask …") as a sentence, with what to do. */
export function refusalSentence(e: { message: string; reason?: RefusalReason }): string | null {
  const w = refusalWords(e.reason)
  if (!w) return null
  const hub = e.message
    .replace(/^the team hub refused this operator token: /, '')
    // A sign-in the hub ended says "Sign in again" itself; the todo says where.
    .replace(/\.?\s*Sign in again\.?$/, '')
  return `${hub.charAt(0).toUpperCase()}${hub.slice(1)}. ${w.todo}`
}
