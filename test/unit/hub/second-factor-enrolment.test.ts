// Enrolling one's own second factor with a fixed clock: nothing is stored until a right code,
// a code from the otpauth URI's secret (as an authenticator reads it) confirms it and is then
// taken; five wrong codes drop the enrolment, so do ten minutes; five starts in fifteen
// minutes are the most; a service account cannot start one.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { TOTP } from 'otpauth'
import { URI } from 'otpauth'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { openHubDatabase } from '../../../src/hub/hub-db'
import { checkSecondFactor } from '../../../src/hub/second-factor'
import { ENROLMENT_MS, SecondFactorEnrolments } from '../../../src/hub/second-factor-enrolment'
import { secondFactorKeyIn } from '../../../src/hub/second-factor-key'
import { SqliteSecondFactors } from '../../../src/hub/sqlite-second-factor'
import type { Sql } from '../../../src/main/store/sql'
import type { TeamOperator } from '../../../src/shared/ipc/contract'

const T0 = Date.UTC(2026, 10, 28, 12, 0, 10)
const ada: TeamOperator = { name: 'ada', role: 'operator', createdAt: 0, lastSeenAt: null }
let dir: string
let sql: Sql
let store: SqliteSecondFactors
let now: number
let e: SecondFactorEnrolments

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rampdesk-2fa-enrol-'))
  sql = openHubDatabase(dir)
  store = new SqliteSecondFactors(sql, secondFactorKeyIn(dir))
  now = T0
  e = new SecondFactorEnrolments(store, () => now)
})
afterEach(() => {
  sql.close()
  rmSync(dir, { recursive: true, force: true })
})

const phoneOf = (uri: string) => URI.parse(uri) as TOTP
const wrong = (t: TOTP) =>
  ['000000', '111111', '222222'].find((c) => ![-30_000, 0, 30_000].some((d) => t.generate({ timestamp: now + d }) === c))!

describe('enrolling from a desktop', () => {
  it('stores nothing until a right code, then stores it and takes that code', async () => {
    const started = await e.start(ada)
    expect(started.expiresAt).toBe(T0 + ENROLMENT_MS)
    expect(await e.status('ada')).toEqual({ enrolled: false, recoveryCodesLeft: 0 })
    const phone = phoneOf(started.uri)
    await expect(e.confirm(ada, wrong(phone))).rejects.toMatchObject({ kind: 'second_factor_invalid' })
    expect(await e.status('ada')).toEqual({ enrolled: false, recoveryCodesLeft: 0 })
    const code = phone.generate({ timestamp: now })
    expect(await e.confirm(ada, code)).toEqual({ enrolled: true, recoveryCodesLeft: 10 })
    expect(await checkSecondFactor(store, 'ada', code, now)).toEqual({ ok: false, why: 'replayed' })
    expect(await checkSecondFactor(store, 'ada', started.recoveryCodes[0]!, now)).toEqual({ ok: true, by: 'recovery' })
    expect(await e.status('ada')).toEqual({ enrolled: true, recoveryCodesLeft: 9 })
  })

  it('drops the enrolment after five wrong codes, and after ten minutes', async () => {
    const phone = phoneOf((await e.start(ada)).uri)
    for (let i = 0; i < 4; i++) await expect(e.confirm(ada, wrong(phone))).rejects.toThrow(/does not match/)
    await expect(e.confirm(ada, wrong(phone))).rejects.toThrow('5 wrong codes: the enrolment was dropped, start again')
    await expect(e.confirm(ada, phone.generate({ timestamp: now }))).rejects.toThrow(/no enrolment is under way/)
    const late = phoneOf((await e.start(ada)).uri)
    now += ENROLMENT_MS
    await expect(e.confirm(ada, late.generate({ timestamp: now }))).rejects.toThrow(/took longer than 10 minutes/)
    expect(await e.status('ada')).toEqual({ enrolled: false, recoveryCodesLeft: 0 })
  })

  it('starts at most five in fifteen minutes, and none for a service account', async () => {
    for (let i = 0; i < 5; i++) await e.start(ada)
    await expect(e.start(ada)).rejects.toThrow(/5 enrolments were started in the last 15 minutes: try again in 15 min/)
    now += 15 * 60_000 + 1
    await expect(e.start(ada)).resolves.toMatchObject({ expiresAt: now + ENROLMENT_MS })
    await expect(e.start({ ...ada, name: 'ci', account: 'service' })).rejects.toThrow(/service account/)
  })
})
