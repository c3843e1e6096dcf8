// A hub started with a second-factor.key that does not open the second factors in its store
// (the key file replaced, as on a data directory restored without it), over HTTP and through a
// desktop: the hub logs one line naming its key file and who is concerned, /readyz answers 503
// with generic words (it answers anyone), and the desktop is told, in its operator's words, that the hub cannot check
// codes: never that the operator is not enrolled, nor that the code is wrong. With the right key
// file back and the hub restarted, the same code proves the session.
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { Secret, TOTP } from 'otpauth'
import { request } from 'undici'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { randomSecret } from '../../../src/hub/oidc/oidc-seal'
import { enrolSecondFactor } from '../../../src/hub/second-factor'
import { KEY_NOT_READY } from '../../../src/hub/second-factor-health'
import { SECOND_FACTOR_KEY_FILE } from '../../../src/hub/second-factor-key'
import { operatorErrorText } from '../../../src/shared/api/error-words'
import { startHubFixture, startTeamDesktop, type HubFixture, type TeamDesktop } from './support'

const WORDS = 'The hub cannot check second-factor codes right now: ask your team lead (its key file does not match).'

describe('a hub started with a second-factor.key that does not open its stored second factors', () => {
  let f: HubFixture
  let d: TeamDesktop
  let totp: TOTP
  let keyFile: string
  let rightKey: string
  beforeAll(async () => {
    f = await startHubFixture({ sandbox: { orders: 5 }, server: { requireSecondFactor: 'admins' } })
    const token = await f.addOperator('lead', 'admin')
    const e = await enrolSecondFactor(f.hub.store.secondFactors, 'lead', 'test', Date.now())
    totp = new TOTP({ secret: Secret.fromBase32(e.secret), digits: 6, period: 30 })
    keyFile = join(f.dataDir, SECOND_FACTOR_KEY_FILE)
    rightKey = readFileSync(keyFile, 'utf8')
    await f.stopHub()
    writeFileSync(keyFile, `${randomSecret()}\n`, { mode: 0o600 })
    await f.startHub()
    d = await startTeamDesktop(f.url, token)
  }, 60_000)
  afterAll(async () => {
    await d?.close()
    await f?.close()
  })

  it('logs the key file for the team lead and answers /readyz 503, naming neither the file nor the operator', async () => {
    const line = f.logs.find((l) => l.includes('second-factor.key does not open'))
    expect(line).toContain(`second-factor.key does not open the second factors of lead: ${keyFile} is not the key that sealed them`)
    const r = await request(`${f.url}/readyz`)
    expect(r.statusCode).toBe(503)
    const ready = (await r.body.json()) as { ok: boolean; checks: Record<string, { ok: boolean; detail: string }> }
    expect(ready.ok).toBe(false)
    // /readyz answers anyone: the file and the operators are in the log line only.
    expect(ready.checks.secondFactorKey).toEqual({ ok: false, detail: KEY_NOT_READY })
    expect(JSON.stringify(ready)).not.toContain(f.dataDir)
    // Counted for the team lead's alerts (no metrics token: this machine reads them).
    const metrics = await (await request(`${f.url}/metrics`)).body.text()
    expect(metrics.split('\n')).toContain('rampdesk_hub_second_factor_unopenable 1')
    expect(ready.checks.store?.ok).toBe(true)
  })

  it("tells the desktop the hub cannot check codes, in the operator's words, never 'not enrolled'", async () => {
    const expected = { kind: 'second_factor_unavailable', message: WORDS, secondFactor: 'key_mismatch' }
    const status = await d.envelope('team:secondFactor', {})
    expect(status.ok === false && status.error).toMatchObject(expected)
    const proved = await d.envelope('team:proveSecondFactor', { code: totp.generate() })
    expect(proved.ok === false && proved.error).toMatchObject(expected)
    const admin = await d.envelope('team:operators', {})
    expect(admin.ok === false && admin.error).toMatchObject(expected)
    expect(operatorErrorText(admin.ok === false ? admin.error : { kind: '', message: '', retryable: false })).toBe(WORDS)
    // The hub's file path stays in its log, not in what the desktop is sent.
    expect(JSON.stringify([status, proved, admin])).not.toContain(f.dataDir)
  })

  it('takes the code once the right key file is back and the hub restarted', async () => {
    await f.stopHub()
    writeFileSync(keyFile, rightKey, { mode: 0o600 })
    await f.startHub()
    const ready = (await (await request(`${f.url}/readyz`)).body.json()) as { checks: Record<string, { ok: boolean }> }
    expect(ready.checks.secondFactorKey?.ok).toBe(true)
    expect(await d.call('team:proveSecondFactor', { code: totp.generate() })).toMatchObject({ by: 'totp' })
  })
})
