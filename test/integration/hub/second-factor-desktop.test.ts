// A desktop's own second factor on a hub that requires one of admins: enrolling from the
// desktop (a secret and recovery codes handed over once, kept only after a right code; a
// wrong code refused; the code never in the audit; replacing the factor asks for the old one),
// then proving the session through team:proveSecondFactor (the code in the hub's header),
// after which the admin action the hub refused goes through; a recovery code proves it once
// and says how many are left; a wrong code and the lockout are told in words. The desktop is
// the real services with a Team profile on the hub.
import { Secret, TOTP, URI } from 'otpauth'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { operatorErrorText } from '../../../src/shared/api/error-words'
import { startHubFixture, startTeamDesktop, type HubFixture, type TeamDesktop } from './support'

const totpOf = (uri: string) => {
  const t = URI.parse(uri) as TOTP
  return new TOTP({ secret: Secret.fromBase32(t.secret.base32), digits: 6, period: 30 })
}
/** A six-digit code the authenticator does not show around now. */
const wrongCode = (t: TOTP) => {
  const near = [-30_000, 0, 30_000].map((d) => t.generate({ timestamp: Date.now() + d }))
  return ['000000', '111111', '222222', '333333'].find((c) => !near.includes(c))!
}

describe('second factor from a desktop', () => {
  let f: HubFixture
  let d: TeamDesktop
  beforeAll(async () => {
    f = await startHubFixture({ sandbox: { orders: 5 }, server: { requireSecondFactor: 'admins' } })
    d = await startTeamDesktop(f.url, await f.addOperator('lead', 'admin'))
  }, 60_000)
  afterAll(async () => {
    await d?.close()
    await f?.close()
  })

  it('enrols only after a right code, keeps no code in the audit, and then proves the session for admin actions', async () => {
    expect(await d.call('team:secondFactor', {})).toEqual({ enrolled: false, recoveryCodesLeft: 0 })
    const refused = await d.envelope('team:operators', {})
    expect(refused.ok === false && refused.error.kind).toBe('second_factor_required')

    const e = await d.call('team:enrolSecondFactor', {})
    expect(e.uri).toMatch(/^otpauth:\/\/totp\/Rampdesk%20hub:lead%40rampdesk-hub\?/)
    expect(e.recoveryCodes).toHaveLength(10)
    const totp = totpOf(e.uri)
    // Not kept until confirmed.
    expect(await d.call('team:secondFactor', {})).toEqual({ enrolled: false, recoveryCodesLeft: 0 })
    const wrong = await d.envelope('team:confirmSecondFactor', { code: wrongCode(totp) })
    expect(wrong.ok === false && wrong.error).toMatchObject({
      kind: 'second_factor_invalid',
      message: expect.stringMatching(/does not match/)
    })
    const confirmCode = totp.generate()
    expect(await d.call('team:confirmSecondFactor', { code: confirmCode })).toEqual({ enrolled: true, recoveryCodesLeft: 10 })
    const audit = JSON.stringify(await f.hub.audit.list(50))
    expect(audit).toContain('team:confirmSecondFactor')
    expect(audit).not.toContain(confirmCode)
    expect(audit).not.toContain(Secret.fromBase32((URI.parse(e.uri) as TOTP).secret.base32).base32)

    // Replacing it asks for a fresh code of this one.
    const again = await d.envelope('team:enrolSecondFactor', {})
    expect(again.ok === false && again.error).toMatchObject({
      kind: 'second_factor_required',
      message: expect.stringMatching(/replacing your second factor/)
    })

    // A wrong code is refused in words; a right one proves the session and the admin read goes through.
    const bad = await d.envelope('team:proveSecondFactor', { code: wrongCode(totp) })
    expect(bad.ok === false && bad.error).toMatchObject({ kind: 'second_factor_invalid', message: 'the second-factor code is wrong' })
    // The code that confirmed is used; the next step's is the next to take.
    const next = totp.generate({ timestamp: Date.now() + 30_000 })
    expect(await d.call('team:proveSecondFactor', { code: next })).toEqual({ by: 'totp', recoveryCodesLeft: 10 })
    expect((await d.call('team:operators', {})).operators.map((o) => o.name)).toContain('lead')
  })

  it('proves with a recovery code once, saying how many are left', async () => {
    const token = await f.addOperator('second', 'admin')
    const other = await startTeamDesktop(f.url, token, 'Second')
    try {
      const e = await other.call('team:enrolSecondFactor', {})
      await other.call('team:confirmSecondFactor', { code: totpOf(e.uri).generate() })
      expect(await other.call('team:proveSecondFactor', { code: e.recoveryCodes[3]! })).toEqual({ by: 'recovery', recoveryCodesLeft: 9 })
      // Sent again by this desktop's session (an answer lost): answered alike, no second code spent.
      expect(await other.call('team:proveSecondFactor', { code: e.recoveryCodes[3]! })).toEqual({ by: 'recovery', recoveryCodesLeft: 9 })
      // From another session (the token rotated), it is used.
      const { token: rotated } = await f.hub.store.operators.rotate('second')
      const elsewhere = await startTeamDesktop(f.url, rotated, 'Second again')
      try {
        const used = await elsewhere.envelope('team:proveSecondFactor', { code: e.recoveryCodes[3]! })
        expect(used.ok === false && used.error).toMatchObject({ kind: 'second_factor_invalid', secondFactor: 'wrong' })
      } finally {
        await elsewhere.close()
      }
    } finally {
      await other.close()
    }
  })

  it("carries a lockout's end to the desktop as an instant, said in the operator's clock", async () => {
    const token = await f.addOperator('locked', 'operator')
    const desk = await startTeamDesktop(f.url, token, 'Locked')
    try {
      const e = await desk.call('team:enrolSecondFactor', {})
      const t = totpOf(e.uri)
      await desk.call('team:confirmSecondFactor', { code: t.generate() })
      const near = [-60_000, -30_000, 0, 30_000, 60_000].map((d) => t.generate({ timestamp: Date.now() + d }))
      const wrong = Array.from({ length: 10 }, (_, i) => String(i * 111_111).padStart(6, '0')).filter((c) => !near.includes(c))
      let last = await desk.envelope('team:proveSecondFactor', { code: wrong[0]! })
      for (const c of wrong.slice(1, 5)) last = await desk.envelope('team:proveSecondFactor', { code: c })
      const error = last.ok === false ? last.error : null
      expect(error).toMatchObject({ kind: 'second_factor_locked', secondFactor: 'locked', retryAt: expect.any(String) })
      const minute = (ms: number) =>
        new Intl.DateTimeFormat('en-GB', { hour: '2-digit', minute: '2-digit', timeZone: 'Asia/Kolkata' }).format(ms)
      const at = minute(Math.ceil(Date.parse(error!.retryAt!) / 60_000) * 60_000)
      expect(operatorErrorText(error!, { minute })).toBe(`Too many wrong codes. Try again after ${at}.`)
    } finally {
      await desk.close()
    }
  })
})
