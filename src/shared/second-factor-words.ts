// A team hub's second-factor refusals in the desktop's own words. The hub's message is written
// for its log and may name a command (npm run hub -- operator totp enrol) or say a time in UTC;
// the desktop words each refusal from its kind and `secondFactor` (which refusal it is) and says
// a time in the operator's own clock, from `retryAt`. A hub too old to send `secondFactor` is
// worded from its message where that is plain, and generically where it is not.

/**
 * Which of its refusals a team hub's second factor gave (beside the kind), so that a desktop
 * words it itself: a code wrong or used already, none enrolled, one needed (or a fresh one), a
 * service account that cannot give one, a lockout, codes that cannot be checked (the hub's key
 * does not open them), an enrolment gone or started too often.
 */
export const SECOND_FACTOR_REFUSALS = [
  'wrong',
  'replayed',
  'not_enrolled',
  'needed',
  'needed_fresh',
  'service_account',
  'locked',
  'key_mismatch',
  'enrolment_missing',
  'enrolment_expired',
  'enrolment_dropped',
  'enrol_starts'
] as const
export type SecondFactorRefusal = (typeof SECOND_FACTOR_REFUSALS)[number]

/** Just enough of an error (ErrorInfo) to word it. */
export interface SecondFactorErrorLike {
  kind: string
  message: string
  secondFactor?: SecondFactorRefusal
  /** ISO 8601. */
  retryAt?: string
}

/** Local hours and minutes ("14:05"), when no writer of the operator's locale is given. */
const localMinute = (ms: number): string => new Date(ms).toLocaleTimeString('en-GB', { hour: '2-digit', minute: '2-digit' })

/** The minute after an instant (trying again then works), in the operator's time; undefined when there is none. */
function minuteAfter(iso: string | undefined, minute: (ms: number) => string): string | undefined {
  const ms = iso === undefined ? NaN : Date.parse(iso)
  return Number.isFinite(ms) ? minute(Math.ceil(ms / 60_000) * 60_000) : undefined
}

export const SECOND_FACTOR_WORDS = {
  unavailable: 'The hub cannot check second-factor codes right now: ask your team lead (its key file does not match).',
  replayed: 'That code was just used. Wait for the next one (a new code comes every 30 seconds).',
  wrongCode: 'That code is not right. Type the newest code your authenticator app shows; check that the phone’s clock is right.',
  wrongRecovery: 'That recovery code is not right, or it was used already (each works once).',
  notEnrolled: 'You have no sign-in code set up yet. Set one up in Settings → Sign-in code, or ask your team lead.',
  adminsNotEnrolled:
    'The team hub asks admins for a sign-in code, and you have none set up yet. Set one up in Settings → Sign-in code, or ask your team lead.',
  serviceAccount: 'The team hub asks admins for a sign-in code, and a service account cannot give one. Ask your team lead.',
  needed: 'The team hub asks for the code from your authenticator app first.',
  neededFresh: 'This change needs a new code from your authenticator app.',
  enrolmentMissing: 'The hub no longer has this setup under way. Start again.',
  enrolmentExpired: 'The setup took longer than 10 minutes. Start again.',
  enrolmentDropped: 'Too many wrong codes: the setup was cancelled. Start again.'
} as const

/**
 * The operator's words for a second-factor refusal, or null when `e` is none. `typed`: what the
 * operator sent, when known (a recovery code is worded apart from a six-digit code).
 */
export function secondFactorWords(e: SecondFactorErrorLike, o: { typed?: string; minute?: (ms: number) => string } = {}): string | null {
  const minute = o.minute ?? localMinute
  const W = SECOND_FACTOR_WORDS
  if (e.kind === 'second_factor_unavailable' || e.secondFactor === 'key_mismatch') return W.unavailable
  if (e.kind === 'second_factor_locked') {
    const when = minuteAfter(e.retryAt, minute)
    return when ? `Too many wrong codes. Try again after ${when}.` : 'Too many wrong codes. Try again later, or ask your team lead.'
  }
  if (e.kind === 'rate_limited' && e.secondFactor === 'enrol_starts') {
    const when = minuteAfter(e.retryAt, minute)
    return `You started setting up an authenticator too many times. Try again ${when ? `after ${when}` : 'in a few minutes'}.`
  }
  if (e.secondFactor === 'service_account')
    return e.kind === 'forbidden' ? 'A service account signs in with its token alone: it cannot set up a sign-in code.' : W.serviceAccount
  const recovery = o.typed !== undefined && !/^\d{6}$/.test(o.typed.trim())
  if (e.kind === 'second_factor_invalid') {
    switch (e.secondFactor ?? olderHubsRefusal(e.message)) {
      case 'replayed':
        return W.replayed
      case 'not_enrolled':
        return W.notEnrolled
      case 'enrolment_missing':
        return W.enrolmentMissing
      case 'enrolment_expired':
        return W.enrolmentExpired
      case 'enrolment_dropped':
        return W.enrolmentDropped
      default:
        return recovery ? W.wrongRecovery : W.wrongCode
    }
  }
  if (e.kind === 'second_factor_required') {
    if (e.secondFactor === 'not_enrolled' || (!e.secondFactor && /none enrolled/.test(e.message))) return W.adminsNotEnrolled
    if (e.secondFactor === 'needed_fresh' || (!e.secondFactor && /from the last \d+ minutes/.test(e.message))) return W.neededFresh
    return W.needed
  }
  return null
}

/** Which refusal a hub that does not send `secondFactor` meant, from its words. */
function olderHubsRefusal(message: string): SecondFactorRefusal {
  if (/already used/.test(message)) return 'replayed'
  if (/no second factor enrolled/.test(message)) return 'not_enrolled'
  if (/no enrolment is under way/.test(message)) return 'enrolment_missing'
  if (/took longer than/.test(message)) return 'enrolment_expired'
  if (/enrolment was dropped/.test(message)) return 'enrolment_dropped'
  return 'wrong'
}
