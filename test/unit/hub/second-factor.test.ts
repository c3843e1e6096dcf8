// TOTP second factors on hub.db with a fixed clock: a current code is taken, a wrong one is
// not, the same code is not taken twice, a code one step either side of now is taken and two
// steps off is not; a recovery code works once; nothing is taken for an operator not enrolled.
import { mkdtempSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Secret, TOTP } from 'otpauth'
import type pg from 'pg'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { openPool } from '../../../src/hub/pg/pg-connection'
import { migrate } from '../../../src/hub/pg/pg-migrations'
import { PgSecondFactors } from '../../../src/hub/pg/pg-second-factor'
import { postgresUnavailable, startPostgres, type PgCluster } from '../../support/postgres-cluster'
import { openHubDatabase } from '../../../src/hub/hub-db'
import { checkSecondFactor, enrolSecondFactor, type Enrolment } from '../../../src/hub/second-factor'
import { SqliteSecondFactors } from '../../../src/hub/sqlite-second-factor'
import { secondFactorKeyIn } from '../../../src/hub/second-factor-key'
import type { Sql } from '../../../src/main/store/sql'

/** The key the PostgreSQL hubs share (each hub's data directory holds the same file). */
const pgKey = secondFactorKeyIn(mkdtempSync(join(tmpdir(), 'rampdesk-2fa-key-')))

const T0 = Date.UTC(2026, 10, 28, 12, 0, 10)
let dir: string
let sql: Sql
let store: SqliteSecondFactors
let e: Enrolment

const codeAt = (ms: number) => new TOTP({ secret: Secret.fromBase32(e.secret), digits: 6, period: 30 }).generate({ timestamp: ms })

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rampdesk-hub-2fa-'))
  sql = openHubDatabase(dir)
  store = new SqliteSecondFactors(sql, secondFactorKeyIn(dir))
  e = await enrolSecondFactor(store, 'ada', 'test-hub', T0)
})
afterEach(async () => {
  sql.close()
  await rm(dir, { recursive: true, force: true })
})

describe('TOTP second factor', () => {
  it('enrols with a 160-bit secret, an otpauth URI and ten recovery codes kept only as hashes', () => {
    expect(Buffer.from(Secret.fromBase32(e.secret).buffer)).toHaveLength(20)
    expect(e.uri).toMatch(
      /^otpauth:\/\/totp\/Rampdesk%20hub:ada%40test-hub\?issuer=Rampdesk%20hub&secret=[A-Z2-7]+&algorithm=SHA1&digits=6&period=30$/
    )
    expect(e.recoveryCodes).toHaveLength(10)
    const kept = sql.all<{ code_hash: string }>('SELECT code_hash FROM recovery_codes WHERE name = ?', 'ada').map((r) => r.code_hash)
    expect(kept).toHaveLength(10)
    for (const c of e.recoveryCodes) expect(kept).not.toContain(c)
  })

  it('takes a current code once, refuses a wrong one and a replay', async () => {
    const code = codeAt(T0)
    const wrong = String((Number(code) + 1) % 1_000_000).padStart(6, '0')
    expect(await checkSecondFactor(store, 'ada', wrong, T0)).toEqual({ ok: false, why: 'wrong' })
    expect(await checkSecondFactor(store, 'ada', code, T0)).toEqual({ ok: true, by: 'totp' })
    expect(await checkSecondFactor(store, 'ada', code, T0 + 5_000)).toEqual({ ok: false, why: 'replayed' })
    // The next step's code is new, and taken.
    expect(await checkSecondFactor(store, 'ada', codeAt(T0 + 30_000), T0 + 30_000)).toEqual({ ok: true, by: 'totp' })
  })

  it('takes a code one step either side of now (clock drift), not two', async () => {
    expect(await checkSecondFactor(store, 'ada', codeAt(T0 - 60_000), T0)).toEqual({ ok: false, why: 'wrong' })
    expect(await checkSecondFactor(store, 'ada', codeAt(T0 - 30_000), T0)).toEqual({ ok: true, by: 'totp' })
    expect(await checkSecondFactor(store, 'ada', codeAt(T0 + 60_000), T0)).toEqual({ ok: false, why: 'wrong' })
    expect(await checkSecondFactor(store, 'ada', codeAt(T0 + 30_000), T0)).toEqual({ ok: true, by: 'totp' })
    // After the step ahead was taken, the current one is not: a code older than the last taken is a replay.
    expect(await checkSecondFactor(store, 'ada', codeAt(T0), T0)).toEqual({ ok: false, why: 'replayed' })
  })

  it('takes each recovery code once, with or without its dash', async () => {
    const [first, second] = e.recoveryCodes as [string, string]
    expect(await checkSecondFactor(store, 'ada', first, T0)).toEqual({ ok: true, by: 'recovery' })
    expect(await checkSecondFactor(store, 'ada', first, T0)).toEqual({ ok: false, why: 'wrong' })
    expect(await checkSecondFactor(store, 'ada', second.replace('-', '').toUpperCase(), T0)).toEqual({ ok: true, by: 'recovery' })
    expect(await checkSecondFactor(store, 'ada', 'abcde-12345', T0)).toEqual({ ok: false, why: 'wrong' })
  })

  it('takes nothing for an operator not enrolled, and enrolling again replaces the secret and codes', async () => {
    expect(await checkSecondFactor(store, 'bo', codeAt(T0), T0)).toEqual({ ok: false, why: 'not_enrolled' })
    const old = e
    e = await enrolSecondFactor(store, 'ada', 'test-hub', T0)
    expect(e.secret).not.toBe(old.secret)
    expect(await checkSecondFactor(store, 'ada', old.recoveryCodes[0]!, T0)).toEqual({ ok: false, why: 'wrong' })
    expect(await checkSecondFactor(store, 'ada', codeAt(T0), T0)).toEqual({ ok: true, by: 'totp' })
  })
})

describe.skipIf(postgresUnavailable !== null)('TOTP second factor on PostgreSQL, two hubs', () => {
  let cluster: PgCluster
  let pools: pg.Pool[] = []
  beforeAll(async () => {
    cluster = await startPostgres()
    const url = await cluster.createDatabase()
    pools = [openPool({ url }, 'hub-x'), openPool({ url }, 'hub-y')]
    await migrate(pools[0]!)
  })
  afterAll(async () => {
    for (const p of pools) await p.end()
    await cluster?.stop()
  })

  it('takes a code on one hub and refuses it as replayed on the other; a recovery code once across both', async () => {
    const [x, y] = pools.map((p) => new PgSecondFactors(p, pgKey)) as [PgSecondFactors, PgSecondFactors]
    e = await enrolSecondFactor(x, 'Ada', 'test-hub', T0)
    const code = codeAt(T0)
    const both = await Promise.all([checkSecondFactor(x, 'ada', code, T0), checkSecondFactor(y, 'ADA', code, T0)])
    expect(both.filter((r) => r.ok)).toHaveLength(1)
    expect(both.find((r) => !r.ok)).toEqual({ ok: false, why: 'replayed' })
    expect(await checkSecondFactor(y, 'ada', e.recoveryCodes[0]!, T0)).toEqual({ ok: true, by: 'recovery' })
    expect(await checkSecondFactor(x, 'ada', e.recoveryCodes[0]!, T0)).toEqual({ ok: false, why: 'wrong' })
    expect(await checkSecondFactor(x, 'bo', code, T0)).toEqual({ ok: false, why: 'not_enrolled' })
  })
})
