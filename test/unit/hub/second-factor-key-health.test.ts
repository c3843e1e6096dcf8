// A hub whose second-factor.key does not open the second factors in its store (hub.db, and two
// hubs on one PostgreSQL database with different key files): at start it logs one line naming
// its key file and the operators concerned and, when its key opens none of them, reports not
// ready in words that name neither; a second factor enrolled by the other hub since is noticed
// when it is first needed; a desktop is refused as second_factor_unavailable in the operator's
// words, never as not enrolled or a wrong code; once every stored second factor opens again, the
// hub is ready and says so. When only some do not open, it stays ready and counts them; an
// expired enrolment under way is dropped, not counted.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Secret, TOTP } from 'otpauth'
import type pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openHubDatabase } from '../../../src/hub/hub-db'
import type { Operator } from '../../../src/hub/operators'
import { openPool } from '../../../src/hub/pg/pg-connection'
import { migrate } from '../../../src/hub/pg/pg-migrations'
import { PgSecondFactors } from '../../../src/hub/pg/pg-second-factor'
import { enrolSecondFactor, hashRecoveryCode, type SecondFactorStore } from '../../../src/hub/second-factor'
import { SecondFactorEnrolments } from '../../../src/hub/second-factor-enrolment'
import { SecondFactorGate } from '../../../src/hub/second-factor-gate'
import { KEY_NOT_READY, watchSecondFactorKey } from '../../../src/hub/second-factor-health'
import { loadSecondFactorKey, secondFactorKeyIn } from '../../../src/hub/second-factor-key'
import { SqliteSecondFactors } from '../../../src/hub/sqlite-second-factor'
import { toEnvelopeError } from '../../../src/shared/ipc/contract/envelope'
import { postgresUnavailable, startPostgres, type PgCluster } from '../../support/postgres-cluster'

const T0 = Date.UTC(2026, 10, 28, 12, 0, 10)
const WORDS = 'The hub cannot check second-factor codes right now: ask your team lead (its key file does not match).'
const ada: Operator = {
  name: 'ada',
  role: 'admin',
  createdAt: T0,
  lastSeenAt: null,
  tokenHash: 'a'.repeat(64),
  expiresAt: T0 + 86_400_000,
  account: 'person'
}

/** Two hubs on one store, each with its own data directory, hence its own key file. */
interface TwoKeys {
  right: SecondFactorStore
  wrong: SecondFactorStore
  rightDir: string
  wrongDir: string
  close(): Promise<void>
}

const sqliteStores = async (): Promise<TwoKeys> => {
  const rightDir = mkdtempSync(join(tmpdir(), 'rampdesk-2fa-right-'))
  const wrongDir = mkdtempSync(join(tmpdir(), 'rampdesk-2fa-wrong-'))
  const [a, b] = [openHubDatabase(rightDir), openHubDatabase(rightDir)]
  return {
    right: new SqliteSecondFactors(a, secondFactorKeyIn(rightDir)),
    // hub.db restored into a data directory without its key file: another key is made there.
    wrong: new SqliteSecondFactors(b, secondFactorKeyIn(wrongDir)),
    rightDir,
    wrongDir,
    close: async () => {
      a.close()
      b.close()
      for (const d of [rightDir, wrongDir]) rmSync(d, { recursive: true, force: true })
    }
  }
}

let cluster: PgCluster | undefined
const pgStores = async (): Promise<TwoKeys> => {
  const url = await cluster!.createDatabase()
  const pools: pg.Pool[] = [openPool({ url }, 'hub-right'), openPool({ url }, 'hub-wrong')]
  await migrate(pools[0]!)
  const rightDir = mkdtempSync(join(tmpdir(), 'rampdesk-2fa-right-'))
  const wrongDir = mkdtempSync(join(tmpdir(), 'rampdesk-2fa-wrong-'))
  return {
    right: new PgSecondFactors(pools[0]!, secondFactorKeyIn(rightDir)),
    wrong: new PgSecondFactors(pools[1]!, secondFactorKeyIn(wrongDir)),
    rightDir,
    wrongDir,
    close: async () => {
      for (const p of pools) await p.end()
      for (const d of [rightDir, wrongDir]) rmSync(d, { recursive: true, force: true })
    }
  }
}

const logOf = () => {
  const lines: { level: 'error' | 'info'; message: string }[] = []
  return {
    lines,
    log: {
      error: (message: string) => lines.push({ level: 'error', message }),
      info: (message: string) => lines.push({ level: 'info', message })
    }
  }
}

describe.each([
  ['hub.db', sqliteStores, false],
  ['PostgreSQL', pgStores, postgresUnavailable !== null]
] as const)('a hub whose second-factor.key does not open the second factors in its store (%s)', (_name, open, skip) => {
  beforeAll(async () => {
    if (!skip && open === pgStores) cluster = await startPostgres()
  })
  afterAll(async () => {
    if (open === pgStores) await cluster?.stop()
  })

  it.skipIf(skip)('says so at start, naming its key file, reports not ready, and refuses codes as unavailable', async () => {
    const s = await open()
    const { lines, log } = logOf()
    try {
      const e = await enrolSecondFactor(s.right, 'ada', 'test-hub', T0)
      const health = await watchSecondFactorKey({ store: s.wrong, log, recheckMs: 3_600_000 })
      const wrongKey = loadSecondFactorKey(s.wrongDir)
      const rightKey = loadSecondFactorKey(s.rightDir)
      expect(lines).toEqual([
        {
          level: 'error',
          message: expect.stringContaining(
            `second-factor.key does not open the second factors of ada: ${wrongKey.file} is not the key that sealed them (key id ${rightKey.id}); copy second-factor.key from the hub that enrolled them`
          )
        }
      ])
      // /readyz answers anyone: neither the key file nor the operator in it.
      expect(health.check()).toEqual({ ok: false, detail: KEY_NOT_READY })
      expect(health.unopenable()).toBe(1)

      const gate = new SecondFactorGate({ policy: 'admins', store: s.wrong, now: () => T0 })
      const code = new TOTP({ secret: Secret.fromBase32(e.secret), digits: 6, period: 30 }).generate({ timestamp: T0 })
      const unavailable = { kind: 'second_factor_unavailable', message: WORDS, secondFactor: 'key_mismatch' }
      expect(await gate.check(ada, 'sync:state', {}, code)).toEqual(unavailable)
      expect(await gate.check(ada, 'team:operators', {}, undefined)).toEqual(unavailable)
      // What the desktop asks to learn whether to ask for a code: not "not enrolled".
      const status = await new SecondFactorEnrolments(s.wrong, () => T0).status('ada').catch(toEnvelopeError)
      expect(status).toEqual({ kind: 'second_factor_unavailable', message: WORDS, retryable: false, secondFactor: 'key_mismatch' })
      // The right key's hub still takes the code: the wrong one neither took nor counted it.
      expect(
        await new SecondFactorGate({ policy: 'admins', store: s.right, now: () => T0 }).check(ada, 'team:operators', {}, code)
      ).toBeNull()
      expect(lines.filter((l) => l.level === 'error')).toHaveLength(1)
      health.close()
    } finally {
      await s.close()
    }
  })

  it.skipIf(skip)('notices a second factor enrolled since by a hub with another key, and is ready again once it is gone', async () => {
    const s = await open()
    const { lines, log } = logOf()
    try {
      const health = await watchSecondFactorKey({ store: s.wrong, log, recheckMs: 3_600_000 })
      expect(health.check()).toMatchObject({ ok: true })
      await enrolSecondFactor(s.right, 'ada', 'test-hub', T0)
      const gate = new SecondFactorGate({ policy: 'admins', store: s.wrong, now: () => T0 })
      expect(await gate.check(ada, 'team:operators', {}, undefined)).toMatchObject({ kind: 'second_factor_unavailable' })
      expect(await gate.check(ada, 'team:operators', {}, undefined)).toMatchObject({ kind: 'second_factor_unavailable' })
      expect(health.check()).toMatchObject({ ok: false })
      expect(lines.filter((l) => l.level === 'error').map((l) => l.message)).toEqual([
        expect.stringContaining(`second-factor.key does not open the second factors of ada: ${loadSecondFactorKey(s.wrongDir).file}`)
      ])
      await s.right.remove('ada')
      await health.recheck()
      expect(health.check()).toMatchObject({ ok: true })
      expect(lines.at(-1)).toEqual({ level: 'info', message: 'second-factor.key opens every stored second factor again' })
      health.close()
    } finally {
      await s.close()
    }
  })
  it.skipIf(skip)('stays ready when only some second factors do not open: the log names them, the metric counts them', async () => {
    const s = await open()
    const { lines, log } = logOf()
    try {
      await enrolSecondFactor(s.right, 'ada', 'test-hub', T0)
      await enrolSecondFactor(s.wrong, 'bo', 'test-hub', T0)
      await enrolSecondFactor(s.wrong, 'cy', 'test-hub', T0)
      const health = await watchSecondFactorKey({ store: s.wrong, log, recheckMs: 3_600_000, now: () => T0 })
      const check = health.check()
      expect(check).toMatchObject({ ok: true })
      expect(JSON.stringify(check)).not.toMatch(/ada|second-factor\.key \(|\//)
      expect(health.unopenable()).toBe(1)
      expect(lines).toEqual([
        {
          level: 'error',
          message: expect.stringContaining(
            `second-factor.key does not open the second factors of ada: ${loadSecondFactorKey(s.wrongDir).file}`
          )
        }
      ])
      // The other hub's key opens ada's but neither of the others: still ready, two counted.
      const other = await watchSecondFactorKey({ store: s.right, log, recheckMs: 3_600_000, now: () => T0 })
      expect(other.check()).toMatchObject({ ok: true })
      expect(other.unopenable()).toBe(2)
      health.close()
      other.close()
    } finally {
      await s.close()
    }
  })

  it.skipIf(skip)('drops an expired enrolment under way sealed with another key instead of counting it', async () => {
    const s = await open()
    const { lines, log } = logOf()
    try {
      const pending = { secret: 'JBSWY3DPEHPK3PXP', recoveryHashes: [hashRecoveryCode('abcd-efgh')] }
      await s.right.putPending('ada', { ...pending, expiresAt: T0 - 1 })
      await s.right.putPending('bo', { ...pending, expiresAt: T0 + 60_000 })
      const health = await watchSecondFactorKey({ store: s.wrong, log, recheckMs: 3_600_000, now: () => T0 })
      // bo's enrolment is still under way and does not open: not ready (it is all there is), and logged.
      expect(health.check()).toEqual({ ok: false, detail: KEY_NOT_READY })
      expect(health.unopenable()).toBe(1)
      expect(lines.map((l) => l.message)).toEqual([expect.stringContaining('does not open the second factors of bo:')])
      expect(await s.right.pendingOf('ada')).toBeNull()
      expect(await s.right.pendingOf('bo')).toMatchObject({ expiresAt: T0 + 60_000 })
      await s.right.dropPending('bo')
      await health.recheck()
      expect(health.check()).toMatchObject({ ok: true })
      expect(health.unopenable()).toBe(0)
      health.close()
    } finally {
      await s.close()
    }
  })
})
