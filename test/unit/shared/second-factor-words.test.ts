// A team hub's second-factor refusals in the desktop's words: each refusal the hub sends has
// words of its own, with no command line (npm run hub -- operator totp enrol), no sign-in
// protocol word (redirect_uri, code_challenge) and no UTC time; a lockout's end is said in the
// operator's clock from the instant sent; a hub message carrying a command or a protocol word
// never reaches the operator's text, whatever its kind.
import { describe, expect, it } from 'vitest'
import { isTechnicalText, operatorErrorText } from '../../../src/shared/api/error-words'
import { SecondFactorRefusal, type ErrorInfo } from '../../../src/shared/ipc/contract'
import { SECOND_FACTOR_WORDS, secondFactorWords } from '../../../src/shared/second-factor-words'

const inKolkata = (ms: number) =>
  new Intl.DateTimeFormat('en-GB', { hour: '2-digit', minute: '2-digit', timeZone: 'Asia/Kolkata' }).format(ms)
const KIND_OF: Record<SecondFactorRefusal, string> = {
  wrong: 'second_factor_invalid',
  replayed: 'second_factor_invalid',
  not_enrolled: 'second_factor_required',
  needed: 'second_factor_required',
  needed_fresh: 'second_factor_required',
  service_account: 'second_factor_required',
  locked: 'second_factor_locked',
  key_mismatch: 'second_factor_unavailable',
  enrolment_missing: 'second_factor_invalid',
  enrolment_expired: 'second_factor_invalid',
  enrolment_dropped: 'second_factor_invalid',
  enrol_starts: 'rate_limited'
}

describe("a team hub's second-factor refusals in the desktop's words", () => {
  it('words every refusal the hub sends without its commands, protocol words or UTC', () => {
    const hubWords = 'ada has no second factor enrolled (npm run hub -- operator totp enrol NAME) until 10:42 UTC'
    const seen = new Set<string>()
    for (const which of SecondFactorRefusal.options) {
      const e: ErrorInfo = { kind: KIND_OF[which], message: hubWords, retryable: false, secondFactor: which }
      const words = operatorErrorText(e, { minute: inKolkata })
      expect(words, which).not.toMatch(/npm|totp|--|UTC|redirect_uri|code_challenge/)
      expect(words, which).toBe(secondFactorWords(e, { minute: inKolkata }))
      seen.add(words)
    }
    // Each refusal its own words, but for the two required ones the desktop words alike.
    expect(seen.size).toBeGreaterThanOrEqual(SecondFactorRefusal.options.length - 1)
  })

  it("says a lockout's end and a start limit's in the operator's clock, from the instant sent", () => {
    const locked: ErrorInfo = {
      kind: 'second_factor_locked',
      message: 'Too many wrong codes: try again after 10:42 UTC, or ask your team lead',
      retryable: false,
      secondFactor: 'locked',
      retryAt: '2026-11-28T10:41:20.000Z'
    }
    expect(operatorErrorText(locked, { minute: inKolkata })).toBe('Too many wrong codes. Try again after 16:12.')
    const starts: ErrorInfo = {
      kind: 'rate_limited',
      message: '5 enrolments were started in the last 15 minutes: try again in 7 min',
      retryable: true,
      secondFactor: 'enrol_starts',
      retryAt: '2026-11-28T10:49:00.000Z'
    }
    expect(operatorErrorText(starts, { minute: inKolkata })).toBe(
      'You started setting up an authenticator too many times. Try again after 16:19.'
    )
  })

  it('says a hub that cannot open its stored second factors cannot check codes, whatever else it sent', () => {
    expect(operatorErrorText({ kind: 'second_factor_unavailable', message: 'internal' })).toBe(SECOND_FACTOR_WORDS.unavailable)
  })

  it("keeps a hub's command lines and sign-in protocol words out of any refusal's text", () => {
    for (const message of [
      'redirect_uri must be http://127.0.0.1:PORT/… or http://[::1]:PORT/… (a desktop on this machine)',
      'code_challenge (S256, 43 characters) is required',
      'no operators yet: add one with `npm run hub -- operator add NAME --role admin`',
      'this hub needs --require-second-factor admins'
    ]) {
      expect(isTechnicalText(message), message).toBe(true)
      expect(operatorErrorText({ kind: 'forbidden', message })).toBe(
        'Something went wrong. Diagnostics and the support log have the details.'
      )
    }
    expect(isTechnicalText('ada is a viewer and may not change the webhook URL')).toBe(false)
  })
})
