// TOTP secrets at rest: what hub.db and PostgreSQL hold is sealed with second-factor.key (0600,
// beside the database, not in it), so the raw row and the database file hold no secret; the
// migration seals the rows an older hub kept in clear (found by identity in the migration
// lists), and codes still check afterwards; a store given another key says so in words. On
// PostgreSQL, an enrolment from a desktop is kept sealed and its recovery codes counted.
import Database from 'libsql'
import { mkdtempSync, readFileSync, rmSync, statSync, existsSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Secret, TOTP, URI } from 'otpauth'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { HUB_DATABASE_FILE, MIGRATIONS, openHubDatabase } from '../../../src/hub/hub-db'
import { openPool } from '../../../src/hub/pg/pg-connection'
import { migrate, PG_MIGRATIONS } from '../../../src/hub/pg/pg-migrations'
import { PgSecondFactors, sealPgSecrets } from '../../../src/hub/pg/pg-second-factor'
import { checkSecondFactor, enrolSecondFactor } from '../../../src/hub/second-factor'
import { SecondFactorEnrolments } from '../../../src/hub/second-factor-enrolment'
import { SECOND_FACTOR_KEY_FILE, secondFactorKeyIn } from '../../../src/hub/second-factor-key'
import { sealSqliteSecrets, SqliteSecondFactors } from '../../../src/hub/sqlite-second-factor'
import { Sql } from '../../../src/main/store/sql'
import { postgresUnavailable, startPostgres, type PgCluster } from '../../support/postgres-cluster'

const T0 = Date.UTC(2026, 10, 28, 12, 0, 10)
const SECRET = new Secret({ size: 20 }).base32
const codeAt = (ms: number) => new TOTP({ secret: Secret.fromBase32(SECRET), digits: 6, period: 30 }).generate({ timestamp: ms })

let dir: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rampdesk-2fa-seal-'))
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))

describe('TOTP secrets sealed in hub.db', () => {
  it('keeps no secret in the raw row nor in the database file, and the key 0600 beside it', async () => {
    const sql = openHubDatabase(dir)
    const store = new SqliteSecondFactors(sql, secondFactorKeyIn(dir))
    const e = await enrolSecondFactor(store, 'ada', 'test-hub', T0)
    const raw = sql.value<string>('SELECT secret FROM second_factors WHERE name = ?', 'ada')!
    expect(raw).toMatch(/^k1:[0-9a-f]{12}:/)
    expect(raw).not.toContain(e.secret)
    sql.exec('PRAGMA wal_checkpoint(TRUNCATE)')
    for (const f of [HUB_DATABASE_FILE, `${HUB_DATABASE_FILE}-wal`])
      if (existsSync(join(dir, f))) expect(readFileSync(join(dir, f)).includes(Buffer.from(e.secret))).toBe(false)
    expect(statSync(join(dir, SECOND_FACTOR_KEY_FILE)).mode & 0o777).toBe(0o600)
    // Still the secret the authenticator holds: its code is taken.
    const code = new TOTP({ secret: Secret.fromBase32(e.secret), digits: 6, period: 30 }).generate({ timestamp: T0 })
    expect(await checkSecondFactor(store, 'ada', code, T0)).toEqual({ ok: true, by: 'totp' })
    sql.close()
  })

  it('seals the rows an older hub.db kept in clear, and their codes still check', async () => {
    const at = MIGRATIONS.indexOf(sealSqliteSecrets)
    expect(at).toBeGreaterThan(0)
    const old = new Sql(new Database(join(dir, HUB_DATABASE_FILE)))
    for (const m of MIGRATIONS.slice(0, at)) {
      if (typeof m === 'string') old.exec(m)
      else m(old, dir)
    }
    old.run('INSERT INTO second_factors (name, secret, enrolled_at, last_step) VALUES (?, ?, ?, 0)', 'bo', SECRET, T0)
    old.exec(`PRAGMA user_version = ${at}`)
    old.close()
    const sql = openHubDatabase(dir)
    const raw = sql.value<string>('SELECT secret FROM second_factors WHERE name = ?', 'bo')!
    expect(raw).not.toContain(SECRET)
    const store = new SqliteSecondFactors(sql, secondFactorKeyIn(dir))
    expect(await store.secretOf('bo')).toBe(SECRET)
    expect(await checkSecondFactor(store, 'bo', codeAt(T0), T0)).toEqual({ ok: true, by: 'totp' })
    sql.close()
  })

  it('says in words that another key sealed a secret', async () => {
    const sql = openHubDatabase(dir)
    await enrolSecondFactor(new SqliteSecondFactors(sql, secondFactorKeyIn(dir)), 'ada', 'test-hub', T0)
    const other = mkdtempSync(join(tmpdir(), 'rampdesk-2fa-other-'))
    try {
      const store = new SqliteSecondFactors(sql, secondFactorKeyIn(other))
      expect(() => store.secretOf('ada')).toThrow(/the second factor of ada was sealed with another key .* copy second-factor\.key/)
    } finally {
      sql.close()
      rmSync(other, { recursive: true, force: true })
    }
  })
})

describe.skipIf(postgresUnavailable !== null)('TOTP secrets sealed in PostgreSQL', () => {
  let cluster: PgCluster
  beforeAll(async () => {
    cluster = await startPostgres()
  })
  afterAll(() => cluster?.stop())

  it('keeps no secret in the raw row, and the migration seals rows kept in clear', async () => {
    const pool = openPool({ url: await cluster.createDatabase() })
    try {
      const key = secondFactorKeyIn(dir)
      const at = PG_MIGRATIONS.indexOf(sealPgSecrets)
      expect(at).toBeGreaterThan(0)
      await migrate(pool, PG_MIGRATIONS.slice(0, at))
      await pool.query('INSERT INTO second_factors (name, secret, enrolled_at, last_step) VALUES ($1, $2, $3, 0)', ['Bo', SECRET, T0])
      await migrate(pool, PG_MIGRATIONS, { secondFactorKey: key })
      const store = new PgSecondFactors(pool, key)
      const e = await enrolSecondFactor(store, 'ada', 'test-hub', T0)
      const rows = (await pool.query<{ name: string; secret: string }>('SELECT name, secret FROM second_factors ORDER BY lower(name)')).rows
      expect(rows.map((r) => r.name)).toEqual(['ada', 'Bo'])
      for (const r of rows) {
        expect(r.secret).toMatch(/^k1:[0-9a-f]{12}:/)
        expect(r.secret).not.toContain(SECRET)
        expect(r.secret).not.toContain(e.secret)
      }
      expect(await checkSecondFactor(store, 'bo', codeAt(T0), T0)).toEqual({ ok: true, by: 'totp' })
      // Enrolling from a desktop on this store: kept once confirmed, its recovery codes counted.
      const enrolments = new SecondFactorEnrolments(store, () => T0)
      const started = await enrolments.start({ name: 'Cy', role: 'admin', createdAt: 0, lastSeenAt: null })
      expect(await enrolments.status('cy')).toEqual({ enrolled: false, recoveryCodesLeft: 0 })
      const phone = URI.parse(started.uri) as TOTP
      await enrolments.confirm({ name: 'Cy', role: 'admin', createdAt: 0, lastSeenAt: null }, phone.generate({ timestamp: T0 }))
      expect(await checkSecondFactor(store, 'CY', started.recoveryCodes[1]!, T0)).toEqual({ ok: true, by: 'recovery' })
      expect(await enrolments.status('cy')).toEqual({ enrolled: true, recoveryCodesLeft: 9 })
      const raw = (await pool.query<{ secret: string }>("SELECT secret FROM second_factors WHERE name = 'Cy'")).rows[0]!.secret
      expect(raw).not.toContain(phone.secret.base32)
    } finally {
      await pool.end()
    }
  })
})
