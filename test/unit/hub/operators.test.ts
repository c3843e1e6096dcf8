// Operators in hub.db: a token shown once and stored only as its SHA-256, looked up
// afresh on every request, so a revocation written by another connection (the command
// line beside a running hub) is refused on the next request.
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { openHubDatabase } from '../../../src/hub/hub-db'
import { hashToken, OperatorError, OperatorStore, TOKEN_PREFIX } from '../../../src/hub/operators'
import type { Sql } from '../../../src/main/store/sql'

let dir: string
let sql: Sql
let clock = 1_800_000_000_000
let store: OperatorStore

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rampdesk-hub-ops-'))
  sql = openHubDatabase(dir)
  store = new OperatorStore(sql, () => clock)
})
afterEach(async () => {
  sql.close()
  await rm(dir, { recursive: true, force: true })
})

describe('OperatorStore', () => {
  it('issues a 32-byte random token and keeps only its hash', async () => {
    const { operator, token } = store.add('ana', 'viewer')
    expect(operator).toEqual({
      name: 'ana',
      role: 'viewer',
      createdAt: clock,
      lastSeenAt: null,
      expiresAt: clock + 90 * 86_400_000,
      account: 'person'
    })
    expect(token.startsWith(TOKEN_PREFIX)).toBe(true)
    expect(Buffer.from(token.slice(TOKEN_PREFIX.length), 'base64url')).toHaveLength(32)
    expect(store.add('bo', 'viewer').token).not.toBe(token)
    sql.exec('PRAGMA wal_checkpoint(TRUNCATE)')
    for (const f of await readdir(dir)) {
      const bytes = await readFile(join(dir, f))
      expect(bytes.includes(Buffer.from(token))).toBe(false)
    }
    expect(sql.value('SELECT token_hash FROM operators WHERE name = ?', 'ana')).toBe(hashToken(token))
  })

  it('authenticates the token, not a prefix, a variant or another operator’s', () => {
    const { token } = store.add('ana', 'operator')
    store.add('bo', 'admin')
    expect(store.authenticate(token)).toMatchObject({ name: 'ana', role: 'operator' })
    expect(store.authenticate(token.slice(0, -1))).toBeNull()
    expect(store.authenticate(token + 'x')).toBeNull()
    expect(store.authenticate(token.toUpperCase())).toBeNull()
    expect(store.authenticate('')).toBeNull()
  })

  it('records when an operator was last seen, at most once a minute', () => {
    const { token } = store.add('ana', 'viewer')
    expect(store.authenticate(token)?.lastSeenAt).toBe(clock)
    const first = clock
    clock += 30_000
    store.authenticate(token)
    expect(store.list()[0]!.lastSeenAt).toBe(first)
    clock += 31_000
    store.authenticate(token)
    expect(store.list()[0]!.lastSeenAt).toBe(clock)
  })

  it('refuses a revoked token at once, also when another connection revoked it', () => {
    const { token } = store.add('ana', 'viewer')
    store.add('root', 'admin')
    expect(store.authenticate(token)).not.toBeNull()
    const cli = openHubDatabase(dir)
    try {
      new OperatorStore(cli).revoke('ana')
    } finally {
      cli.close()
    }
    expect(store.authenticate(token)).toBeNull()
    expect(store.isActive(hashToken(token))).toBe(false)
    expect(store.list().map((o) => o.name)).toEqual(['root'])
    // The name can be given a new start, with a new token; the old one stays dead.
    const again = store.add('ana', 'operator')
    expect(store.authenticate(again.token)?.role).toBe('operator')
    expect(store.authenticate(token)).toBeNull()
  })

  it('says what is wrong with a name, a role, a duplicate, an unknown operator or the last admin', () => {
    expect(() => store.add('', 'viewer')).toThrow(OperatorError)
    expect(() => store.add('a b', 'viewer')).toThrow(/operator name/)
    expect(() => store.add('ana', 'owner')).toThrow(/role must be one of viewer, operator, admin/)
    store.add('ana', 'admin')
    expect(() => store.add('ANA', 'viewer')).toThrow(/already exists/)
    expect(() => store.revoke('nobody')).toThrow(/no active operator/)
    expect(() => store.revoke('ana')).toThrow(/last admin/)
    expect(store.revoke('ana', { allowLastAdmin: true }).name).toBe('ana')
  })
})

describe('HubAudit.prune', () => {
  it('drops entries past the age, then the oldest past the count', async () => {
    const { mkdtempSync, rmSync } = await import('node:fs')
    const { tmpdir } = await import('node:os')
    const { join } = await import('node:path')
    const { openHubDatabase } = await import('../../../src/hub/hub-db')
    const { HubAudit } = await import('../../../src/hub/hub-audit')
    const dir = mkdtempSync(join(tmpdir(), 'rampdesk-audit-'))
    const sql = openHubDatabase(dir)
    let t = 1_000_000
    const audit = new HubAudit(sql, () => t)
    try {
      for (let i = 0; i < 10; i++) {
        audit.append('ada', 'x', { i })
        t += 1000
      }
      expect(audit.prune(5_500, 100)).toBe(5)
      expect(audit.list(100).map((e) => e.detail.i)).toEqual([9, 8, 7, 6, 5])
      expect(audit.prune(1e9, 2)).toBe(3)
      expect(audit.list(100).map((e) => e.detail.i)).toEqual([9, 8])
    } finally {
      sql.close()
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
