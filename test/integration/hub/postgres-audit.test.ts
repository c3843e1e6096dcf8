// The audit log on PostgreSQL when the database refuses the writes for a while: entries are
// held in order and written when it answers again, nothing dropped; and entries that still
// cannot be written when the hub stops go to the hub's log, one line each.
import type pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openPool } from '../../../src/hub/pg/pg-connection'
import { migrate } from '../../../src/hub/pg/pg-migrations'
import { PgAudit } from '../../../src/hub/pg/pg-audit'
import { postgresUnavailable, startPostgres, type PgCluster } from '../../support/postgres-cluster'
import { waitUntil } from './support'

describe.skipIf(postgresUnavailable !== null)('the audit log on PostgreSQL when writes fail', () => {
  let cluster: PgCluster
  let pool: pg.Pool

  beforeAll(async () => {
    cluster = await startPostgres()
    pool = openPool({ url: await cluster.createDatabase() }, 'audit-test')
    await migrate(pool)
  })
  afterAll(async () => {
    await pool?.end()
    await cluster?.stop()
  })

  it('holds the entries while the table cannot be written, then writes them all, in order, once', async () => {
    const errors: string[] = []
    const audit = new PgAudit(pool, Date.now, (m) => errors.push(m))
    audit.append('ada', 'before')
    await audit.flush()
    await pool.query('ALTER TABLE audit RENAME TO audit_away')
    for (let i = 0; i < 150; i++) audit.append('ada', `held ${i}`, { i })
    await waitUntil(() => errors.length > 0, 3_000, 'the failure said')
    expect(errors).toHaveLength(1)
    expect(errors[0]).toMatch(/could not write the audit log: .*audit.*; \d+ entries held, retrying every second/)
    expect(audit.pending).toBe(150)
    await new Promise((r) => setTimeout(r, 1_500))
    // Still failing: said once, nothing dropped.
    expect(errors).toHaveLength(1)
    expect(audit.pending).toBe(150)
    await pool.query('ALTER TABLE audit_away RENAME TO audit')
    await waitUntil(() => audit.pending === 0, 5_000, 'the held entries written')
    expect(errors.at(-1)).toMatch(/the audit log is written again/)
    const rows = await pool.query<{ action: string }>('SELECT action FROM audit ORDER BY id')
    expect(rows.rows.map((r) => r.action)).toEqual(['before', ...Array.from({ length: 150 }, (_, i) => `held ${i}`)])
    await audit.close()
  })

  it('writes to the hub log, one line each, the entries it still cannot write when the hub stops', async () => {
    const errors: string[] = []
    const audit = new PgAudit(pool, Date.now, (m) => errors.push(m))
    await pool.query('ALTER TABLE audit RENAME TO audit_away')
    try {
      audit.append('bo', 'operator.revoke', { name: 'cy' })
      audit.append('bo', 'export.start', { rows: 3 })
      await audit.close()
    } finally {
      await pool.query('ALTER TABLE audit_away RENAME TO audit')
    }
    expect(errors.some((m) => /2 audit entries could not be written to the database before the hub stopped/.test(m))).toBe(true)
    const lines = errors.filter((m) => m.startsWith('unwritten audit entry: '))
    expect(lines).toHaveLength(2)
    expect(lines[0]).toMatch(/ bo operator\.revoke \{"name":"cy"\}$/)
    expect(lines[1]).toMatch(/ bo export\.start \{"rows":3\}$/)
  })
})
