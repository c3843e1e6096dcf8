// The warning a week before a team operator's token ends, and the words for a token that ended
// or was replaced.
import { describe, expect, it } from 'vitest'
import { accessEndingWarning, refusalSentence, refusalWords } from '../../../src/shared/access-end'

const DAY = 86_400_000
const ENDS = Date.UTC(2026, 11, 3, 9, 30)

describe('accessEndingWarning', () => {
  it('warns from a week before the end, in the operator’s time zone, and not before nor after', () => {
    expect(accessEndingWarning(ENDS, ENDS - 7 * DAY - 1, 'UTC')).toBeNull()
    expect(accessEndingWarning(ENDS, ENDS - 7 * DAY, 'UTC')).toBe(
      'Your access to the hub ends on 3 Dec; ask your team lead for a new token'
    )
    expect(accessEndingWarning(ENDS, ENDS - 1, 'UTC')).toMatch(/ends on 3 Dec;/)
    // 9:30 UTC on 3 Dec is already 4 Dec east of UTC+14:30.
    expect(accessEndingWarning(ENDS, ENDS - DAY, 'Pacific/Kiritimati')).toMatch(/ends on 3 Dec;/)
    expect(accessEndingWarning(Date.UTC(2026, 11, 3, 23, 0), ENDS - DAY, 'Pacific/Kiritimati')).toMatch(/ends on 4 Dec;/)
    // Ended: the refusal says so instead. A hub that does not say: nothing.
    expect(accessEndingWarning(ENDS, ENDS, 'UTC')).toBeNull()
    expect(accessEndingWarning(undefined, ENDS, 'UTC')).toBeNull()
  })
})

describe('refusal words', () => {
  it('says which, in the hub’s words, with what to do; nothing special for a revoked token', () => {
    expect(
      refusalSentence({ message: 'this token expired on 3 Dec 2026 09:30 UTC; ask your team lead for a new one', reason: 'expired' })
    ).toBe(
      'This token expired on 3 Dec 2026 09:30 UTC; ask your team lead for a new one. Store the new operator token in Settings → Credentials.'
    )
    expect(
      refusalSentence({
        message: 'the team hub refused this operator token: this token was replaced on 3 Dec 2026 09:30 UTC; ask for the new one',
        reason: 'replaced'
      })
    ).toBe('This token was replaced on 3 Dec 2026 09:30 UTC; ask for the new one. Store the new operator token in Settings → Credentials.')
    expect(refusalWords('expired')?.title).toBe('Your access to the hub has ended')
    expect(refusalSentence({ message: 'this operator token is unknown or was revoked' })).toBeNull()
    expect(refusalWords(undefined)).toBeNull()
  })

  it('says a sign-in the hub ended once, with where to sign in again', () => {
    expect(refusalSentence({ message: 'Test IdP ended your sign-in. Sign in again.', reason: 'signed-out' })).toBe(
      'Test IdP ended your sign-in. Sign in again from Settings → Credentials.'
    )
    expect(
      refusalSentence({
        message: 'Your Example SSO account has no Rampdesk role: ask your team lead to add you to one of: rd-viewers',
        reason: 'signed-out'
      })
    ).toBe(
      'Your Example SSO account has no Rampdesk role: ask your team lead to add you to one of: rd-viewers. Sign in again from Settings → Credentials.'
    )
    expect(refusalWords('signed-out')?.title).toBe('Your sign-in has ended')
  })
})
