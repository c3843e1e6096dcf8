// The lockout after wrong second-factor codes, with a fixed clock: the fifth wrong code in
// fifteen minutes locks the operator out for fifteen minutes, during which even the right
// code (or a recovery code) is refused unchecked; it ends on time; a right code before the
// fifth starts the count again; the lockout outlasts a restart (hub.db) and is one for two
// hubs on one PostgreSQL database, also for codes sent together; the gate says until when.
import { mkdtempSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Secret, TOTP } from 'otpauth'
import type pg from 'pg'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { openHubDatabase } from '../../../src/hub/hub-db'
import type { Operator } from '../../../src/hub/operators'
import { openPool } from '../../../src/hub/pg/pg-connection'
import { migrate } from '../../../src/hub/pg/pg-migrations'
import { PgSecondFactors } from '../../../src/hub/pg/pg-second-factor'
import { checkSecondFactor, enrolSecondFactor, LOCKOUT_MS, type Enrolment } from '../../../src/hub/second-factor'
import { SecondFactorGate } from '../../../src/hub/second-factor-gate'
import { SqliteSecondFactors } from '../../../src/hub/sqlite-second-factor'
import { secondFactorKeyIn } from '../../../src/hub/second-factor-key'
import type { Sql } from '../../../src/main/store/sql'
import { postgresUnavailable, startPostgres, type PgCluster } from '../../support/postgres-cluster'

/** The key the PostgreSQL hubs share (each hub's data directory holds the same file). */
const pgKey = secondFactorKeyIn(mkdtempSync(join(tmpdir(), 'rampdesk-2fa-key-')))

const T0 = Date.UTC(2026, 10, 28, 10, 26, 40)
const MIN = 60_000
let dir: string
let sql: Sql
let store: SqliteSecondFactors
let e: Enrolment

const codeAt = (ms: number) => new TOTP({ secret: Secret.fromBase32(e.secret), digits: 6, period: 30 }).generate({ timestamp: ms })
/** A six-digit code that is none of the three taken at `ms`. */
const wrongAt = (ms: number) => {
  const taken = [-30_000, 0, 30_000].map((d) => codeAt(ms + d))
  for (let n = 0; ; n++) {
    const c = String(n).padStart(6, '0')
    if (!taken.includes(c)) return c
  }
}
const wrongTimes = async (s: SqliteSecondFactors | PgSecondFactors, n: number, at: number) => {
  const answers = []
  for (let i = 0; i < n; i++) answers.push(await checkSecondFactor(s, 'ada', wrongAt(at + i * 1_000), at + i * 1_000))
  return answers
}

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rampdesk-hub-2fa-lock-'))
  sql = openHubDatabase(dir)
  store = new SqliteSecondFactors(sql, secondFactorKeyIn(dir))
  e = await enrolSecondFactor(store, 'ada', 'test-hub', T0 - MIN)
})
afterEach(async () => {
  sql.close()
  await rm(dir, { recursive: true, force: true })
})

describe('second-factor lockout', () => {
  it('locks out at the fifth wrong code; the right code and a recovery code are then refused unchecked', async () => {
    const four = await wrongTimes(store, 4, T0)
    expect(four).toEqual(Array(4).fill({ ok: false, why: 'wrong' }))
    const until = T0 + 4_000 + LOCKOUT_MS
    expect(await checkSecondFactor(store, 'ada', wrongAt(T0 + 4_000), T0 + 4_000)).toEqual({
      ok: false,
      why: 'locked',
      until,
      lockedNow: true
    })
    const at = T0 + 5 * MIN
    expect(await checkSecondFactor(store, 'ada', codeAt(at), at)).toEqual({ ok: false, why: 'locked', until, lockedNow: false })
    expect(await checkSecondFactor(store, 'ada', e.recoveryCodes[0]!, at)).toEqual({ ok: false, why: 'locked', until, lockedNow: false })
    // Unchecked: the recovery code was not used up, and works once the lockout is over.
    expect(await checkSecondFactor(store, 'ada', e.recoveryCodes[0]!, until)).toEqual({ ok: true, by: 'recovery' })
  })

  it('ends the lockout fifteen minutes after it began, and counts afresh from there', async () => {
    await wrongTimes(store, 5, T0)
    const until = T0 + 4_000 + LOCKOUT_MS
    expect(await checkSecondFactor(store, 'ada', codeAt(until - 1), until - 1)).toMatchObject({ why: 'locked', until })
    expect(await checkSecondFactor(store, 'ada', codeAt(until), until)).toEqual({ ok: true, by: 'totp' })
    const after = await wrongTimes(store, 4, until + MIN)
    expect(after).toEqual(Array(4).fill({ ok: false, why: 'wrong' }))
  })

  it('starts the count again at a right code before the fifth wrong one', async () => {
    await wrongTimes(store, 4, T0)
    expect(await checkSecondFactor(store, 'ada', codeAt(T0 + 10_000), T0 + 10_000)).toEqual({ ok: true, by: 'totp' })
    expect(await wrongTimes(store, 4, T0 + 20_000)).toEqual(Array(4).fill({ ok: false, why: 'wrong' }))
    expect(await checkSecondFactor(store, 'ada', wrongAt(T0 + 30_000), T0 + 30_000)).toMatchObject({ why: 'locked', lockedNow: true })
  })

  it('counts the wrong codes of fifteen minutes only; a replayed code counts as wrong', async () => {
    await wrongTimes(store, 4, T0)
    // The window began at T0: at T0 + 15 min a wrong code is the first of a new count.
    expect(await wrongTimes(store, 3, T0 + 15 * MIN)).toEqual(Array(3).fill({ ok: false, why: 'wrong' }))
    const at = T0 + 16 * MIN
    expect(await checkSecondFactor(store, 'ada', codeAt(at), at)).toEqual({ ok: true, by: 'totp' })
    await wrongTimes(store, 4, at + 1_000)
    expect(await checkSecondFactor(store, 'ada', codeAt(at), at + 5_000)).toMatchObject({ why: 'locked', lockedNow: true })
  })

  it('keeps the lockout in hub.db across a restart', async () => {
    await wrongTimes(store, 5, T0)
    sql.close()
    sql = openHubDatabase(dir)
    store = new SqliteSecondFactors(sql, secondFactorKeyIn(dir))
    expect(await checkSecondFactor(store, 'ada', codeAt(T0 + MIN), T0 + MIN)).toEqual({
      ok: false,
      why: 'locked',
      until: T0 + 4_000 + LOCKOUT_MS,
      lockedNow: false
    })
  })

  it('refuses codes with the lockout in words and its end, and reports the lockout once', async () => {
    let now = T0
    const gate = new SecondFactorGate({ policy: 'admins', store, now: () => now })
    const op: Operator = {
      name: 'ada',
      role: 'admin',
      createdAt: T0,
      lastSeenAt: null,
      tokenHash: 'h',
      expiresAt: T0 + 86_400_000,
      account: 'person'
    }
    const lockouts: number[] = []
    const on = { lockedOut: (until: number) => lockouts.push(until) }
    for (let i = 0; i < 4; i++) {
      now = T0 + i * 1_000
      expect(await gate.check(op, 'sync:state', {}, wrongAt(now), on)).toEqual({
        kind: 'second_factor_invalid',
        message: 'the second-factor code is wrong',
        secondFactor: 'wrong'
      })
    }
    now = T0 + 4_000
    const locked = {
      kind: 'second_factor_locked',
      message: 'Too many wrong codes: try again after 10:42 UTC, or ask your team lead',
      secondFactor: 'locked',
      // The instant, for a desktop to word in its operator's time; the words above stay for older ones.
      retryAt: new Date(T0 + 4_000 + LOCKOUT_MS).toISOString()
    }
    expect(await gate.check(op, 'sync:state', {}, wrongAt(now), on)).toEqual(locked)
    now = T0 + MIN
    expect(await gate.check(op, 'sync:state', {}, codeAt(now), on)).toEqual(locked)
    expect(lockouts).toEqual([T0 + 4_000 + LOCKOUT_MS])
  })
})

describe.skipIf(postgresUnavailable !== null)('second-factor lockout on PostgreSQL, two hubs', () => {
  let cluster: PgCluster
  let pools: pg.Pool[] = []
  let x: PgSecondFactors
  let y: PgSecondFactors
  beforeAll(async () => {
    cluster = await startPostgres()
  })
  beforeEach(async () => {
    const url = await cluster.createDatabase()
    pools = [openPool({ url }, 'hub-x'), openPool({ url }, 'hub-y')]
    await migrate(pools[0]!)
    ;[x, y] = pools.map((p) => new PgSecondFactors(p, pgKey)) as [PgSecondFactors, PgSecondFactors]
    e = await enrolSecondFactor(x, 'Ada', 'test-hub', T0 - MIN)
  })
  afterEach(async () => {
    for (const p of pools) await p.end()
  })
  afterAll(async () => {
    await cluster?.stop()
  })

  it('shares the count: wrong codes on both hubs lock out on both, and a right code on one resets it for the other', async () => {
    await wrongTimes(x, 3, T0)
    expect(await checkSecondFactor(y, 'ADA', codeAt(T0 + 5_000), T0 + 5_000)).toEqual({ ok: true, by: 'totp' })
    // Reset by y: four more wrong on x do not lock, the fifth on y does.
    expect(await wrongTimes(x, 4, T0 + 10_000)).toEqual(Array(4).fill({ ok: false, why: 'wrong' }))
    const until = T0 + 20_000 + LOCKOUT_MS
    expect(await checkSecondFactor(y, 'ada', wrongAt(T0 + 20_000), T0 + 20_000)).toEqual({
      ok: false,
      why: 'locked',
      until,
      lockedNow: true
    })
    expect(await checkSecondFactor(x, 'ada', codeAt(T0 + MIN), T0 + MIN)).toEqual({ ok: false, why: 'locked', until, lockedNow: false })
    expect(await checkSecondFactor(x, 'ada', codeAt(until), until)).toEqual({ ok: true, by: 'totp' })
  })

  it('checks no more than five of ten wrong codes sent together to two hubs, and locks out once', async () => {
    // The operator's row is held while the ten are sent, so that all ten wait on it at once
    // and then race for it, rather than running one after another.
    const holder = await pools[0]!.connect()
    await holder.query('BEGIN')
    await holder.query("SELECT 1 FROM second_factors WHERE lower(name) = 'ada' FOR UPDATE")
    const sent = Promise.all(Array.from({ length: 10 }, (_, i) => checkSecondFactor(i % 2 ? x : y, 'ada', wrongAt(T0), T0)))
    const waiting = async () =>
      (
        await pools[1]!.query<{ n: number }>(
          "SELECT COUNT(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()"
        )
      ).rows[0]!.n
    try {
      for (let tries = 0; (await waiting()) < 10; tries++) {
        if (tries > 200) throw new Error('the ten checks never all waited on the row')
        await new Promise((r) => setTimeout(r, 25))
      }
    } finally {
      await holder.query('COMMIT')
      holder.release()
    }
    const answers = await sent
    const why = (w: string, now?: boolean) =>
      answers.filter((a) => !a.ok && a.why === w && (now === undefined || ('lockedNow' in a && a.lockedNow === now))).length
    expect(why('wrong')).toBe(4)
    expect(why('locked', true)).toBe(1)
    expect(why('locked', false)).toBe(5)
  })
})
