// The audit chain where several writers share one PostgreSQL database (hubs and the command
// line): concurrent appends keep one chain, none chained onto an entry another already took;
// and the migration chains a log written before the chain existed, so an upgraded hub's old
// log verifies. hub.db's migration likewise.
import Database from 'libsql'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { storeSource } from '../../../src/hub/audit-command'
import { verifyChain } from '../../../src/hub/audit-verify'
import { chainSqliteAudit, HubAudit } from '../../../src/hub/hub-audit'
import { MIGRATIONS, openHubDatabase } from '../../../src/hub/hub-db'
import { PgAudit } from '../../../src/hub/pg/pg-audit'
import { openPool } from '../../../src/hub/pg/pg-connection'
import { migrate, PG_MIGRATIONS } from '../../../src/hub/pg/pg-migrations'
import { chainPgAudit } from '../../../src/hub/pg/pg-audit-chain'
import { postgresUnavailable, startPostgres, type PgCluster } from '../../support/postgres-cluster'

describe.skipIf(postgresUnavailable !== null)('the audit chain on a shared PostgreSQL database', () => {
  let cluster: PgCluster
  const pools: pg.Pool[] = []
  const poolOn = (url: string) => {
    const p = openPool({ url }, 'audit-chain-test')
    pools.push(p)
    return p
  }

  beforeAll(async () => {
    cluster = await startPostgres()
  })
  afterAll(async () => {
    for (const p of pools) await p.end()
    await cluster?.stop()
  })

  it('keeps one chain when four writers on their own connections append at once', async () => {
    const url = await cluster.createDatabase()
    await migrate(poolOn(url))
    const errors: string[] = []
    const writers = Array.from({ length: 4 }, (_, w) => ({ w, audit: new PgAudit(poolOn(url), Date.now, (m) => errors.push(m)) }))
    // Each writer appends in small bursts, flushing between them, so their transactions overlap.
    await Promise.all(
      writers.map(async ({ w, audit }) => {
        for (let burst = 0; burst < 15; burst++) {
          for (let i = 0; i < 5; i++) audit.append(`hub${w}`, 'x', { burst, i })
          await audit.flush()
        }
      })
    )
    expect(errors).toEqual([])
    const audit = new PgAudit(poolOn(url))
    const r = await verifyChain(await storeSource(audit))
    expect(r).toMatchObject({ ok: true, entries: 300, first: 1, head: { seq: 300 } })
    const per = await poolOn(url).query<{ operator: string; n: number }>(
      'SELECT operator, COUNT(*)::int AS n FROM audit GROUP BY 1 ORDER BY 1'
    )
    expect(per.rows).toEqual(writers.map(({ w }) => ({ operator: `hub${w}`, n: 75 })))
  })

  it('chains, on migrating, the entries an older hub wrote, in the order of their ids', async () => {
    const url = await cluster.createDatabase()
    const p = poolOn(url)
    // The schema as it stood before the chain, whatever migrations came after it.
    const chainAt = PG_MIGRATIONS.indexOf(chainPgAudit)
    await migrate(p, PG_MIGRATIONS.slice(0, chainAt))
    for (let i = 0; i < 5; i++)
      await p.query('INSERT INTO audit (at, operator, action, detail_json) VALUES ($1, $2, $3, $4)', [
        1_700_000_000_000 + i,
        'ada',
        'team:addOperator',
        JSON.stringify({ name: `op${i}` })
      ])
    expect(await migrate(p)).toEqual(Array.from({ length: PG_MIGRATIONS.length - chainAt }, (_, i) => chainAt + 1 + i))
    const audit = new PgAudit(p)
    expect(await verifyChain(await storeSource(audit))).toMatchObject({ ok: true, entries: 5, head: { seq: 5 } })
    expect((await audit.page(0, 10)).map((e) => e.detail.name)).toEqual(['op0', 'op1', 'op2', 'op3', 'op4'])
    audit.append('bo', 'after the upgrade')
    await audit.flush()
    expect(await verifyChain(await storeSource(audit))).toMatchObject({ ok: true, entries: 6, head: { seq: 6 } })
    await audit.close()
  })
})

describe("hub.db's migration to the chained log", () => {
  it('chains the entries a hub.db of the schema before the chain holds, in the order of their ids', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rampdesk-audit-migrate-'))
    try {
      // hub.db as a hub before the chain left it: every migration before the chain's.
      const chainAt = MIGRATIONS.indexOf(chainSqliteAudit)
      const old = new Database(join(dir, 'hub.db'))
      for (const m of MIGRATIONS.slice(0, chainAt)) {
        if (typeof m !== 'string') throw new Error('a migration before the chain is SQL')
        old.exec(m)
      }
      for (const [id, name] of [
        [3, 'c'],
        [1, 'a'],
        [2, 'b']
      ] as const)
        old.prepare('INSERT INTO audit VALUES (?, ?, ?, ?, ?)').run(id, 1_700_000_000_000 + id, 'ada', 'x', JSON.stringify({ name }))
      old.exec(`PRAGMA user_version = ${chainAt}`)
      old.close()
      const sql = openHubDatabase(dir)
      try {
        const audit = new HubAudit(sql)
        expect(await verifyChain(await storeSource(audit))).toMatchObject({ ok: true, entries: 3, head: { seq: 3 } })
        expect(audit.page(0, 10).map((e) => [e.seq, e.detail.name])).toEqual([
          [1, 'a'],
          [2, 'b'],
          [3, 'c']
        ])
        audit.append('bo', 'after the upgrade')
        expect(await verifyChain(await storeSource(audit))).toMatchObject({ ok: true, entries: 4 })
      } finally {
        sql.close()
      }
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
