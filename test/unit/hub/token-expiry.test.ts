// Tokens that end: 90 days unless asked otherwise, never "never"; a rotation gives a new token
// and refuses the old one at once, as replaced; an ended token is refused as expired, each
// with the words and the moment; an upgrade gives the tokens already there 90 days from then.
import Database from 'libsql'
import { mkdir, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { HUB_DATABASE_FILE, MIGRATIONS, openHubDatabase } from '../../../src/hub/hub-db'
import { hashToken, OperatorStore } from '../../../src/hub/operators'
import { DAY_MS, parseExpiresIn, refusalMessage } from '../../../src/hub/token-expiry'
import { Sql as SqlOf, type Sql } from '../../../src/main/store/sql'

let dir: string
let sql: Sql
let clock = Date.UTC(2026, 10, 28, 12, 0)
let store: OperatorStore

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rampdesk-hub-expiry-'))
  sql = openHubDatabase(dir)
  clock = Date.UTC(2026, 10, 28, 12, 0)
  store = new OperatorStore(sql, () => clock)
})
afterEach(async () => {
  sql.close()
  await rm(dir, { recursive: true, force: true })
})

describe('--expires-in', () => {
  it('takes days and weeks up to a year, and refuses never, zero, over a year and junk', () => {
    expect(parseExpiresIn('90d')).toBe(90 * DAY_MS)
    expect(parseExpiresIn('12w')).toBe(84 * DAY_MS)
    expect(parseExpiresIn('365d')).toBe(365 * DAY_MS)
    expect(() => parseExpiresIn('never')).toThrow(/every hub token ends/)
    for (const bad of ['0d', '366d', '53w', '90', '1y', '-1d', '']) expect(() => parseExpiresIn(bad), bad).toThrow(/--expires-in/)
  })
})

describe('tokens that end', () => {
  it('lasts 90 days by default, then is refused as expired on the day it ended', () => {
    const { token, operator } = store.add('ana', 'viewer')
    expect(operator.expiresAt).toBe(clock + 90 * DAY_MS)
    clock += 90 * DAY_MS - 1
    expect(store.authenticate(token)?.name).toBe('ana')
    expect(store.refusalOf(token)).toBeNull()
    clock += 1
    expect(store.authenticate(token)).toBeNull()
    expect(store.isActive(hashToken(token))).toBe(false)
    expect(store.refusalOf(token)).toEqual({ kind: 'expired', at: Date.UTC(2027, 1, 26, 12, 0) })
    expect(refusalMessage(store.refusalOf(token)!)).toBe('this token expired on 26 Feb 2027 12:00 UTC; ask your team lead for a new one')
    // Still listed, so an admin sees it ended and rotates it.
    expect(store.list()).toMatchObject([{ name: 'ana', expiresAt: clock }])
  })

  it('rotates: a new token with a new lifetime, the old one refused at once as replaced, role and account kept', () => {
    const old = store.add('bot', 'operator', { account: 'service', lifetimeMs: 30 * DAY_MS })
    clock += DAY_MS
    const rotated = store.rotate('bot', { lifetimeMs: 7 * DAY_MS })
    expect(rotated.token).not.toBe(old.token)
    expect(rotated.operator).toMatchObject({ name: 'bot', role: 'operator', account: 'service', expiresAt: clock + 7 * DAY_MS })
    expect(store.authenticate(old.token)).toBeNull()
    expect(store.refusalOf(old.token)).toEqual({ kind: 'replaced', at: clock })
    expect(refusalMessage(store.refusalOf(old.token)!)).toBe('this token was replaced on 29 Nov 2026 12:00 UTC; ask for the new one')
    expect(store.authenticate(rotated.token)).toMatchObject({ name: 'bot', account: 'service' })
  })

  it('renews an expired token by rotation, and has nothing to say of an unknown or revoked one', () => {
    const { token } = store.add('cy', 'viewer', { lifetimeMs: DAY_MS })
    store.add('root', 'admin')
    clock += 2 * DAY_MS
    expect(store.refusalOf(token)?.kind).toBe('expired')
    const renewed = store.rotate('cy')
    expect(store.authenticate(renewed.token)?.name).toBe('cy')
    expect(store.refusalOf(token)?.kind).toBe('replaced')
    store.revoke('cy')
    expect(store.refusalOf(renewed.token)).toBeNull()
    expect(store.refusalOf('rdh_' + 'x'.repeat(43))).toBeNull()
    expect(() => store.rotate('cy')).toThrow(/no active operator named "cy" to rotate/)
  })

  it('gives the tokens already there 90 days from the upgrade, never an end that has passed', async () => {
    sql.close()
    // A hub.db as the release before token expiry left it, with an operator in it.
    const oldDir = join(dir, 'before')
    await mkdir(oldDir)
    const db = new Database(join(oldDir, HUB_DATABASE_FILE))
    const upTo = MIGRATIONS.findIndex((m) => typeof m === 'string' && m.includes('CREATE TABLE replaced_tokens'))
    for (const m of MIGRATIONS.slice(0, upTo)) {
      if (typeof m === 'string') db.exec(m)
      else m(new SqlOf(db), oldDir)
    }
    db.exec(`PRAGMA user_version = ${upTo}`)
    db.prepare('INSERT INTO operators (name, role, token_hash, created_at) VALUES (?, ?, ?, ?)').run(
      'old',
      'admin',
      hashToken('rdh_old'),
      1
    )
    db.close()
    const before = Date.now()
    sql = openHubDatabase(oldDir)
    const after = Date.now()
    const expiresAt = sql.value<number>('SELECT expires_at FROM operators WHERE name = ?', 'old')!
    // strftime('%s') is whole seconds.
    expect(expiresAt).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000 + 90 * DAY_MS)
    expect(expiresAt).toBeLessThanOrEqual(after + 90 * DAY_MS)
    expect(new OperatorStore(sql).authenticate('rdh_old')?.name).toBe('old')
  })
})
