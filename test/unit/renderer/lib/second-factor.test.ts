// The second-factor prompt: an operator with none enrolled is not asked; calls refused
// together wait for one answer; a wrong code, a used code and a lockout are told in words and
// the operator may try again; a recovery code is said to be used, with how many are left,
// before the call goes on; cancelling lets the refusal stand.
import { describe, expect, it } from 'vitest'
import type { ErrorInfo } from '../../../../src/shared/ipc/contract'
import { codeProblem, secondFactorAsk } from '../../../../src/renderer/src/lib/second-factor.svelte'

const REQUIRED: ErrorInfo = {
  kind: 'second_factor_required',
  message: 'adding an admin needs a code from your authenticator app from the last 5 minutes',
  retryable: false
}
const refused = (kind: string, message: string) => Object.assign(new Error(message), { info: { kind, message, retryable: false } })
const LOCKED = 'Too many wrong codes: try again after 10:42 UTC, or ask your team lead'

/** A hub as the dialog meets it: codes it takes, and what it says of the rest. */
function hub(enrolled: boolean) {
  const sent: string[] = []
  const ask = secondFactorAsk(
    async (code) => {
      sent.push(code)
      if (code === '123456') return { by: 'totp', recoveryCodesLeft: 10 }
      if (code === 'abcde-12345') return { by: 'recovery', recoveryCodesLeft: 2 }
      if (code === '999999') throw refused('second_factor_locked', LOCKED)
      if (code === '555555') throw refused('second_factor_invalid', 'that second-factor code was already used: wait for the next one')
      throw refused('second_factor_invalid', 'the second-factor code is wrong')
    },
    async () => ({ enrolled, recoveryCodesLeft: enrolled ? 10 : 0 })
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
    expect(ask.prompt).toMatchObject({ why: REQUIRED.message, problem: null })
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
    expect(ask.prompt).toMatchObject({ problem: LOCKED })
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
    expect(codeProblem({ kind: 'hub_unreachable', message: 'the team hub is unreachable', retryable: true }, '123456')).toBe(
      'the team hub is unreachable'
    )
  })
})
