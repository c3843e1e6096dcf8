// Second factors for two hubs on one store (two connections to one hub.db: a hub and its
// restart; two pools on one PostgreSQL database: two hubs), with a fixed clock:
//   - a code sent again by the session it proved (its answer was lost, the desktop asked the
//     other hub) is answered as the first time, and refused as replayed to any other session;
//     a recovery code likewise, for a minute and a half;
//   - an enrolment started on one hub is confirmed on the other, its secret sealed in the
//     store; its wrong codes and the enrolments started are counted for both; it expires;
//   - a session proven on one hub is proven on the other, and proofs older than a session are
//     dropped from the store when the next is kept.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Secret, TOTP, URI } from 'otpauth'
import type pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openHubDatabase } from '../../../src/hub/hub-db'
import type { Operator } from '../../../src/hub/operators'
import { openPool } from '../../../src/hub/pg/pg-connection'
import { migrate } from '../../../src/hub/pg/pg-migrations'
import { PgSecondFactors } from '../../../src/hub/pg/pg-second-factor'
import { checkSecondFactor, enrolSecondFactor, RESEND_MS, type SecondFactorStore } from '../../../src/hub/second-factor'
import { ENROL_WINDOW_MS, ENROLMENT_MS, SecondFactorEnrolments } from '../../../src/hub/second-factor-enrolment'
import { proofKey, SecondFactorGate, SESSION_MS } from '../../../src/hub/second-factor-gate'
import { secondFactorKeyIn } from '../../../src/hub/second-factor-key'
import { SqliteSecondFactors } from '../../../src/hub/sqlite-second-factor'
import type { TeamOperator } from '../../../src/shared/ipc/contract'
import { postgresUnavailable, startPostgres, type PgCluster } from '../../support/postgres-cluster'

const T0 = Date.UTC(2026, 10, 28, 12, 0, 10)
const admin = (tokenHash: string): Operator => ({
  name: 'Ada',
  role: 'admin',
  createdAt: T0,
  lastSeenAt: null,
  tokenHash,
  expiresAt: T0 + 86_400_000,
  account: 'person'
})
const bo: TeamOperator = { name: 'bo', role: 'admin', createdAt: 0, lastSeenAt: null }
const totpOf = (secret: string) => new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30 })
const wrongFor = (t: TOTP, at: number) =>
  ['000000', '111111', '222222', '333333'].find((c) => ![-30_000, 0, 30_000].some((d) => t.generate({ timestamp: at + d }) === c))!

interface TwoHubs {
  x: SecondFactorStore
  y: SecondFactorStore
  /** Rows of a table, for what the store keeps. */
  rows(table: string): Promise<Record<string, unknown>[]>
  close(): Promise<void>
}

const sqliteHubs = async (): Promise<TwoHubs> => {
  const dir = mkdtempSync(join(tmpdir(), 'rampdesk-2fa-two-'))
  const [a, b] = [openHubDatabase(dir), openHubDatabase(dir)]
  return {
    x: new SqliteSecondFactors(a, secondFactorKeyIn(dir)),
    y: new SqliteSecondFactors(b, secondFactorKeyIn(dir)),
    rows: async (table) => a.all(`SELECT * FROM ${table}`),
    close: async () => {
      a.close()
      b.close()
      rmSync(dir, { recursive: true, force: true })
    }
  }
}

let cluster: PgCluster | undefined
const pgHubs = async (): Promise<TwoHubs> => {
  const url = await cluster!.createDatabase()
  const pools: pg.Pool[] = [openPool({ url }, 'hub-x'), openPool({ url }, 'hub-y')]
  await migrate(pools[0]!)
  // Each hub's data directory holds the same key file.
  const keyDir = mkdtempSync(join(tmpdir(), 'rampdesk-2fa-key-'))
  const key = secondFactorKeyIn(keyDir)
  return {
    x: new PgSecondFactors(pools[0]!, key),
    y: new PgSecondFactors(pools[1]!, key),
    rows: async (table) => (await pools[0]!.query(`SELECT * FROM ${table}`)).rows as Record<string, unknown>[],
    close: async () => {
      for (const p of pools) await p.end()
      rmSync(keyDir, { recursive: true, force: true })
    }
  }
}

const stores: [string, () => Promise<TwoHubs>, boolean][] = [
  ['hub.db', sqliteHubs, false],
  ['PostgreSQL', pgHubs, postgresUnavailable !== null]
]

describe.each(stores)('second factors for two hubs on one %s', (_name, open, skip) => {
  beforeAll(async () => {
    if (!skip && open === pgHubs) cluster = await startPostgres()
  })
  afterAll(async () => {
    if (open === pgHubs) await cluster?.stop()
  })

  it.skipIf(skip)('answers a code sent again by the session it proved, and refuses it to any other session', async () => {
    const h = await open()
    try {
      const e = await enrolSecondFactor(h.x, 'Ada', 'test-hub', T0 - 60_000)
      const code = totpOf(e.secret).generate({ timestamp: T0 })
      expect(await checkSecondFactor(h.x, 'Ada', code, T0, 'session-1')).toEqual({ ok: true, by: 'totp' })
      // The answer was lost; the desktop sends the same code to the other hub.
      expect(await checkSecondFactor(h.y, 'ada', code, T0 + 2_000, 'session-1')).toEqual({ ok: true, by: 'totp' })
      expect(await checkSecondFactor(h.y, 'ADA', code, T0 + 3_000, 'session-2')).toEqual({ ok: false, why: 'replayed' })
      // Once another session took a later code, the earlier one is used for everyone.
      const next = totpOf(e.secret).generate({ timestamp: T0 + 30_000 })
      expect(await checkSecondFactor(h.x, 'ada', next, T0 + 30_000, 'session-2')).toEqual({ ok: true, by: 'totp' })
      expect(await checkSecondFactor(h.y, 'ada', code, T0 + 31_000, 'session-1')).toEqual({ ok: false, why: 'replayed' })

      const recovery = e.recoveryCodes[0]!
      expect(await checkSecondFactor(h.x, 'ada', recovery, T0, 'session-1')).toEqual({ ok: true, by: 'recovery' })
      expect(await checkSecondFactor(h.y, 'ada', recovery, T0 + 5_000, 'session-1')).toEqual({ ok: true, by: 'recovery' })
      expect(await h.y.recoveryCodesLeft('ada')).toBe(9)
      expect(await checkSecondFactor(h.y, 'ada', recovery, T0 + 6_000, 'session-2')).toEqual({ ok: false, why: 'wrong' })
      expect(await checkSecondFactor(h.x, 'ada', recovery, T0 + RESEND_MS + 1, 'session-1')).toEqual({ ok: false, why: 'wrong' })
    } finally {
      await h.close()
    }
  })

  it.skipIf(skip)(
    'confirms on one hub an enrolment started on the other, sealed in the store, counted for both, until it expires',
    async () => {
      const h = await open()
      let now = T0
      const [ex, ey] = [new SecondFactorEnrolments(h.x, () => now), new SecondFactorEnrolments(h.y, () => now)]
      try {
        const started = await ex.start(bo)
        const phone = URI.parse(started.uri) as TOTP
        const [row] = await h.rows('second_factor_pending')
        expect(String(row!.secret)).toMatch(/^k1:[0-9a-f]{12}:/)
        expect(JSON.stringify(row)).not.toContain(phone.secret.base32)
        // Wrong codes on either hub count for both: the fifth drops it.
        for (let i = 0; i < 4; i++)
          await expect((i % 2 ? ex : ey).confirm(bo, wrongFor(phone, now))).rejects.toMatchObject({ secondFactor: 'wrong' })
        await expect(ey.confirm(bo, wrongFor(phone, now))).rejects.toMatchObject({ secondFactor: 'enrolment_dropped' })
        await expect(ex.confirm(bo, phone.generate({ timestamp: now }))).rejects.toMatchObject({ secondFactor: 'enrolment_missing' })

        const again = URI.parse((await ey.start(bo)).uri) as TOTP
        now += 60_000
        expect(await ex.confirm(bo, again.generate({ timestamp: now }))).toEqual({ enrolled: true, recoveryCodesLeft: 10 })
        expect(await ey.status('BO')).toEqual({ enrolled: true, recoveryCodesLeft: 10 })
        expect(await h.rows('second_factor_pending')).toEqual([])

        const late = URI.parse((await ex.start(bo)).uri) as TOTP
        now += ENROLMENT_MS
        await expect(ey.confirm(bo, late.generate({ timestamp: now }))).rejects.toMatchObject({ secondFactor: 'enrolment_expired' })
        // Starts are counted for both hubs: three here, two there, the sixth refused until the first is 15 minutes old.
        expect(await ey.status('bo')).toEqual({ enrolled: true, recoveryCodesLeft: 10 })
        await ex.start(bo)
        await ey.start(bo)
        await expect(ey.start(bo)).rejects.toMatchObject({
          kind: 'rate_limited',
          secondFactor: 'enrol_starts',
          retryAt: new Date(T0 + ENROL_WINDOW_MS).toISOString()
        })
      } finally {
        await h.close()
      }
    }
  )

  it.skipIf(skip)('holds a session proven on one hub on the other, and drops proofs older than a session', async () => {
    const h = await open()
    let now = T0
    const e = await enrolSecondFactor(h.x, 'Ada', 'test-hub', T0 - 60_000)
    const [gx, gy] = [h.x, h.y].map((store) => new SecondFactorGate({ policy: 'admins', store, now: () => now }))
    try {
      const one = admin('a'.repeat(64))
      expect(await gy!.check(one, 'team:operators', {}, undefined)).toMatchObject({ secondFactor: 'needed' })
      expect(await gx!.check(one, 'team:operators', {}, totpOf(e.secret).generate({ timestamp: now }))).toBeNull()
      expect(await gy!.check(one, 'team:operators', {}, undefined)).toBeNull()
      // Another session of the same operator is not proven by it.
      const two = admin('b'.repeat(64))
      expect(await gy!.check(two, 'team:operators', {}, undefined)).toMatchObject({ kind: 'second_factor_required' })
      expect((await h.rows('second_factor_proofs')).map((r) => r.proof)).toEqual([proofKey(one)])

      now += SESSION_MS + 1
      expect(await gy!.check(one, 'team:operators', {}, undefined)).toMatchObject({ kind: 'second_factor_required' })
      expect(await gy!.check(two, 'team:operators', {}, totpOf(e.secret).generate({ timestamp: now }))).toBeNull()
      expect((await h.rows('second_factor_proofs')).map((r) => r.proof)).toEqual([proofKey(two)])
    } finally {
      await h.close()
    }
  })

  it.skipIf(skip)('stops holding a proven session on either hub once its second factor is removed through the other', async () => {
    const h = await open()
    const now = T0
    const e = await enrolSecondFactor(h.x, 'Ada', 'test-hub', T0 - 60_000)
    const [gx, gy] = [h.x, h.y].map((store) => new SecondFactorGate({ policy: 'admins', store, now: () => now }))
    try {
      const one = admin('c'.repeat(64))
      expect(await gx!.check(one, 'team:operators', {}, totpOf(e.secret).generate({ timestamp: now }))).toBeNull()
      expect(await gy!.check(one, 'team:operators', {}, undefined)).toBeNull()
      // Removed (the team lead's reset, through hub x's store): neither hub holds the proof any more.
      await h.x.remove('Ada')
      for (const g of [gx!, gy!])
        expect(await g.check(one, 'team:operators', {}, undefined)).toMatchObject({ secondFactor: 'not_enrolled' })
    } finally {
      await h.close()
    }
  })
})
