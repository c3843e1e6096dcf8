// A hub that requires a second factor of admins (--require-second-factor admins), over HTTP:
// an admin with none enrolled cannot set the webhook URL nor take any admin action, and is
// told why; once enrolled, a current code in X-Rampdesk-Second-Factor proves the session, a
// wrong or replayed code is refused, and setting the webhook URL asks for a code from the last
// five minutes. Reads stay open to the admin meanwhile; a service account admin is refused.
// Five wrong codes lock the operator out, audited, and the right code is then refused with
// the lockout's end in words.
import { Secret, TOTP } from 'otpauth'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { enrolSecondFactor } from '../../../src/hub/second-factor'
import { startHubFixture, type HubFixture } from './support'

const HEADER = 'x-rampdesk-second-factor'

describe('a hub that requires a second factor of admins', () => {
  let f: HubFixture
  beforeAll(async () => {
    f = await startHubFixture({ sandbox: { orders: 10 }, server: { requireSecondFactor: 'admins' } })
  })
  afterAll(() => f?.close())

  const setUrl = (token: string, headers: Record<string, string> = {}) =>
    f.rpc(token, 'webhooks:setUrl', { url: 'https://receiver.example.com/hook' }, headers)

  it('refuses an admin without a second factor the webhook URL and every admin action, and says why', async () => {
    const token = await f.addOperator('nofactor', 'admin')
    const r = await setUrl(token)
    expect(r.status).toBe(403)
    expect(r.json?.error).toMatchObject({ kind: 'second_factor_required' })
    expect(r.json?.error?.message).toMatch(/setting the webhook URL needs a code from your authenticator app/)
    const ops = await f.rpc(token, 'team:operators')
    expect(ops.status).toBe(403)
    expect(ops.json?.error?.message).toBe(
      'this hub requires a second factor for admins, and nofactor has none enrolled yet: set one up in Settings (Sign-in code), or ask your team lead to run operator totp enrol nofactor'
    )
    // What an operator may do stays open.
    expect((await f.rpc(token, 'sync:state')).status).toBe(200)
    expect((await f.hub.audit.list(10)).some((e) => e.operator === 'nofactor' && e.action === 'refused')).toBe(true)
  })

  it('takes a current code once, then lets the admin set the webhook URL within five minutes', async () => {
    const token = await f.addOperator('withfactor', 'admin')
    const e = await enrolSecondFactor(f.hub.store.secondFactors, 'withfactor', 'test', Date.now())
    const totp = new TOTP({ secret: Secret.fromBase32(e.secret), digits: 6, period: 30 })
    expect((await setUrl(token)).status).toBe(403)
    const wrong = await setUrl(token, { [HEADER]: '000000' === totp.generate() ? '111111' : '000000' })
    expect(wrong.json?.error).toMatchObject({ kind: 'second_factor_invalid', message: 'the second-factor code is wrong' })
    const code = totp.generate()
    const ok = await setUrl(token, { [HEADER]: code })
    expect(ok.status, ok.text).toBe(200)
    expect(ok.json?.ok).toBe(true)
    // Proven for the session: admin reads need no code now. The same code sent again by this
    // session (its answer lost on the way) is answered as the first time; from another session
    // (the token rotated: a new one) it is a replay.
    expect((await f.rpc(token, 'team:operators')).status).toBe(200)
    const again = await f.rpc(token, 'team:operators', {}, { [HEADER]: code })
    expect(again.status, again.text).toBe(200)
    const { token: rotated } = await f.hub.store.operators.rotate('withfactor')
    const replay = await f.rpc(rotated, 'team:operators', {}, { [HEADER]: code })
    expect(replay.json?.error).toMatchObject({
      kind: 'second_factor_invalid',
      message: expect.stringMatching(/already used/),
      secondFactor: 'replayed'
    })
  })

  it('locks an operator out after five wrong codes, says until when, and audits the lockout', async () => {
    const token = await f.addOperator('guesser', 'operator')
    const e = await enrolSecondFactor(f.hub.store.secondFactors, 'guesser', 'test', Date.now())
    const totp = new TOTP({ secret: Secret.fromBase32(e.secret), digits: 6, period: 30 })
    const now = Date.now()
    const taken = [-60_000, -30_000, 0, 30_000, 60_000].map((d) => totp.generate({ timestamp: now + d }))
    const wrong = Array.from({ length: 10 }, (_, i) => String(i * 111_111).padStart(6, '0')).filter((c) => !taken.includes(c))
    const read = (code: string) => f.rpc(token, 'sync:state', {}, { [HEADER]: code })
    for (const c of wrong.slice(0, 4)) expect((await read(c)).json?.error).toMatchObject({ kind: 'second_factor_invalid' })
    const fifth = await read(wrong[4]!)
    expect(fifth.status).toBe(403)
    const message = /^Too many wrong codes: try again after \d\d:\d\d UTC, or ask your team lead$/
    expect(fifth.json?.error).toMatchObject({ kind: 'second_factor_locked', message: expect.stringMatching(message) })
    // The instant beside the words, for a desktop to say in its operator's time; the words name the minute after it.
    const retryAt = Date.parse((fifth.json?.error as { retryAt?: string } | undefined)?.retryAt ?? '')
    expect(retryAt).toBeGreaterThanOrEqual(now + 15 * 60_000)
    expect(fifth.json?.error?.message).toContain(new Date(Math.ceil(retryAt / 60_000) * 60_000).toISOString().slice(11, 16))
    const right = await read(totp.generate())
    expect(right.json?.error).toMatchObject({ kind: 'second_factor_locked', message: fifth.json?.error?.message })
    const mine = (await f.hub.audit.list(50)).filter((a) => a.operator === 'guesser')
    const lockouts = mine.filter((a) => a.action === 'secondFactor:lockedOut')
    expect(lockouts).toHaveLength(1)
    expect(lockouts[0]!.detail).toEqual({ until: expect.any(Number), wrongCodes: 5 })
    expect(lockouts[0]!.detail.until as number).toBeGreaterThanOrEqual(now + 15 * 60_000)
    expect(mine.some((a) => a.action === 'secondFactor:proven')).toBe(false)
  })

  it('refuses a service account admin the admin actions: it cannot prove a second factor', async () => {
    const token = (await f.hub.operators.add('robot', 'admin', { account: 'service' })).token
    const r = await f.rpc(token, 'settings:update', { historyPollSeconds: 40 })
    expect(r.status).toBe(403)
    expect(r.json?.error?.message).toMatch(/robot is a service account, which cannot prove one/)
  })
})
