// The second-factor prompt: an operator with none enrolled is not asked; calls refused
// together wait for one answer; a wrong code, a used code and a lockout are told in the
// desktop's words (the lockout's end in the operator's own clock, not the hub's UTC) and the
// operator may try again; a recovery code is said to be used, with how many are left, before
// the call goes on; cancelling lets the refusal stand; a hub that cannot check codes (its key
// file does not match) is said so, and the operator is never taken for not enrolled.
import { describe, expect, it } from 'vitest'
import type { ErrorInfo } from '../../../../src/shared/ipc/contract'
import { codeProblem, secondFactorAsk } from '../../../../src/renderer/src/lib/second-factor.svelte'

const REQUIRED: ErrorInfo = {
  kind: 'second_factor_required',
  message: 'adding an admin needs a code from your authenticator app from the last 5 minutes',
  retryable: false
}
const refused = (kind: string, message: string, extra: Partial<ErrorInfo> = {}) =>
  Object.assign(new Error(message), { info: { kind, message, retryable: false, ...extra } })
const LOCKED = 'Too many wrong codes: try again after 10:42 UTC, or ask your team lead'
/** The lockout's end as the hub sends it: 10:41:20 UTC, so trying again works from 10:42 UTC. */
const LOCKED_UNTIL = '2026-11-28T10:41:20.000Z'
/** An operator in India: 10:42 UTC is 16:12 on their clock. */
const kolkata = (ms: number) =>
  new Intl.DateTimeFormat('en-GB', { hour: '2-digit', minute: '2-digit', timeZone: 'Asia/Kolkata' }).format(ms)
const UNAVAILABLE = 'The hub cannot check second-factor codes right now: ask your team lead (its key file does not match).'

/** A hub as the dialog meets it: codes it takes, and what it says of the rest. */
function hub(enrolled: boolean | 'unavailable') {
  const sent: string[] = []
  const ask = secondFactorAsk(
    async (code) => {
      sent.push(code)
      if (code === '123456') return { by: 'totp', recoveryCodesLeft: 10 }
      if (code === 'abcde-12345') return { by: 'recovery', recoveryCodesLeft: 2 }
      if (code === '999999') throw refused('second_factor_locked', LOCKED, { secondFactor: 'locked', retryAt: LOCKED_UNTIL })
      if (code === '555555') throw refused('second_factor_invalid', 'that second-factor code was already used: wait for the next one')
      throw refused('second_factor_invalid', 'the second-factor code is wrong')
    },
    async () => {
      if (enrolled === 'unavailable') throw refused('second_factor_unavailable', UNAVAILABLE, { secondFactor: 'key_mismatch' })
      return { enrolled, recoveryCodesLeft: enrolled ? 10 : 0 }
    },
    kolkata
  )
  return { ask, sent }
}

describe('the second-factor prompt', () => {
  it('does not ask an operator with no second factor enrolled', async () => {
    const { ask } = hub(false)
    expect(await ask.ask(REQUIRED)).toBe(false)
    expect(ask.prompt).toEqual({ kind: 'closed' })
  })

  it('asks once for calls refused together, tells a wrong code, a used one and a lockout in words, then takes a right one', async () => {
    const { ask, sent } = hub(true)
    const first = ask.ask(REQUIRED)
    const second = ask.ask(REQUIRED)
    await expect.poll(() => ask.prompt.kind).toBe('asking')
    // The desktop's words, not the hub's ("... from the last 5 minutes").
    expect(ask.prompt).toMatchObject({ why: 'This change needs a new code from your authenticator app.', problem: null })
    await ask.submit('111111')
    expect(ask.prompt).toMatchObject({
      kind: 'asking',
      problem: 'That code is not right. Type the newest code your authenticator app shows; check that the phone’s clock is right.'
    })
    await ask.submit('555555')
    expect(ask.prompt).toMatchObject({ problem: 'That code was just used. Wait for the next one (a new code comes every 30 seconds).' })
    await ask.submit('fffff-00000')
    expect(ask.prompt).toMatchObject({ problem: 'That recovery code is not right, or it was used already (each works once).' })
    await ask.submit('999999')
    // The lockout's end in the operator's clock, from the instant the hub sent, not its UTC words.
    expect(ask.prompt).toMatchObject({ problem: 'Too many wrong codes. Try again after 16:12.' })
    await ask.submit(' 123456 ')
    expect(await first).toBe(true)
    expect(await second).toBe(true)
    expect(ask.prompt).toEqual({ kind: 'closed' })
    expect(sent).toEqual(['111111', '555555', 'fffff-00000', '999999', '123456'])
  })

  it('says a recovery code was used and how many are left before the call goes on', async () => {
    const { ask } = hub(true)
    const proven = ask.ask(REQUIRED)
    await expect.poll(() => ask.prompt.kind).toBe('asking')
    await ask.submit('abcde-12345')
    expect(ask.prompt).toEqual({ kind: 'recovered', left: 2 })
    ask.carryOn()
    expect(await proven).toBe(true)
  })

  it('lets the refusal stand when the operator cancels', async () => {
    const { ask } = hub(true)
    const proven = ask.ask(REQUIRED)
    await expect.poll(() => ask.prompt.kind).toBe('asking')
    ask.cancel()
    expect(await proven).toBe(false)
    // Not the hub's or the transport's words: the desktop's own.
    expect(codeProblem({ kind: 'hub_unreachable', message: 'the team hub is unreachable', retryable: true }, '123456')).toBe(
      "Your team's hub is unreachable. Rampdesk reconnects by itself; if it stays away, ask your team's admin whether the hub is running."
    )
  })

  it('says the hub cannot check codes when its key file does not match, and never takes the operator for not enrolled', async () => {
    const { ask } = hub('unavailable')
    await expect(ask.ask(REQUIRED)).rejects.toMatchObject({ info: { kind: 'second_factor_unavailable' } })
    expect(ask.prompt).toEqual({ kind: 'closed' })
    expect(codeProblem({ kind: 'second_factor_unavailable', message: UNAVAILABLE, retryable: false }, '123456')).toBe(UNAVAILABLE)
  })

  it("words an older hub's lockout without its UTC time, and a refusal naming a command without the command", () => {
    expect(codeProblem({ kind: 'second_factor_locked', message: LOCKED, retryable: false }, '123456', kolkata)).toBe(
      'Too many wrong codes. Try again later, or ask your team lead.'
    )
    const notEnrolled = {
      kind: 'second_factor_invalid',
      message: 'ada has no second factor enrolled (npm run hub -- operator totp enrol NAME)',
      retryable: false
    }
    expect(codeProblem(notEnrolled, '123456')).toBe(
      'You have no sign-in code set up yet. Set one up in Settings → Sign-in code, or ask your team lead.'
    )
    expect(codeProblem({ ...notEnrolled, secondFactor: 'not_enrolled' }, '123456')).not.toMatch(/npm|totp|UTC/)
  })
})
