// The PostgreSQL schema's migrations: a fresh database is migrated, a migrated one is left
// as it is, hubs starting together migrate it once between them (the advisory lock), and a
// database a newer hub migrated is refused with both versions named, untouched.
import type pg from 'pg'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { openPool } from '../../../../src/hub/pg/pg-connection'
import { migrate, NewerSchemaError, PG_MIGRATIONS, PG_SCHEMA_VERSION, schemaVersion } from '../../../../src/hub/pg/pg-migrations'
import { postgresUnavailable, startPostgres, type PgCluster } from '../../../support/postgres-cluster'

describe.skipIf(postgresUnavailable !== null)('PostgreSQL migrations', () => {
  let cluster: PgCluster
  let url: string
  const pools: pg.Pool[] = []
  const pool = () => {
    const p = openPool({ url })
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
  beforeEach(async () => {
    url = await cluster.createDatabase()
  })

  it('migrates a fresh database to the latest schema, each version recorded', async () => {
    const p = pool()
    expect(await schemaVersion(p)).toBe(0)
    expect(await migrate(p)).toEqual(PG_MIGRATIONS.map((_, i) => i + 1))
    expect(await schemaVersion(p)).toBe(PG_SCHEMA_VERSION)
    const tables = await p.query<{ t: string }>("SELECT tablename AS t FROM pg_tables WHERE schemaname = 'public' ORDER BY 1")
    expect(tables.rows.map((r) => r.t)).toEqual([
      'alert_episodes',
      'alert_hook_attempts',
      'alert_hook_messages',
      'alert_hooks',
      'audit',
      'audit_chain',
      'budget_carry',
      'budget_sends',
      'hub_lease',
      'kept_deliveries',
      'leader_coverage',
      'leader_sync_position',
      'oidc_identities',
      'oidc_pending',
      'oidc_replaced_refresh',
      'oidc_sessions',
      'operator_watches',
      'operators',
      'order_confirmations',
      'order_events',
      'order_handling',
      'order_rows',
      'rampdesk_hub_schema',
      'recovery_codes',
      'relay_attempts',
      'replaced_tokens',
      'second_factor_pending',
      'second_factor_proofs',
      'second_factor_starts',
      'second_factors',
      'shared_reads',
      'team_settings',
      'webhook_deliveries',
      'webhook_inbox',
      'webhook_relays'
    ])
  })

  it('leaves a migrated database as it is', async () => {
    const p = pool()
    await migrate(p)
    await p.query("INSERT INTO audit (seq, at, operator, action, detail_json, prev_hash, hash) VALUES (1, 1, 'a', 'x', '{}', '', '')")
    expect(await migrate(p)).toEqual([])
    expect((await p.query('SELECT COUNT(*)::int AS n FROM audit')).rows[0].n).toBe(1)
    expect((await p.query('SELECT COUNT(*)::int AS n FROM rampdesk_hub_schema')).rows[0].n).toBe(PG_SCHEMA_VERSION)
  })

  it('migrates once when several hubs start together', async () => {
    const results = await Promise.all(Array.from({ length: 5 }, () => migrate(pool())))
    expect(results.filter((r) => r.length > 0)).toEqual([PG_MIGRATIONS.map((_, i) => i + 1)])
    expect(await schemaVersion(pool())).toBe(PG_SCHEMA_VERSION)
  })

  it('applies only the versions a database lacks', async () => {
    const p = pool()
    const next = [...PG_MIGRATIONS, 'CREATE TABLE later (x INTEGER)']
    await migrate(p)
    expect(await migrate(p, next)).toEqual([PG_SCHEMA_VERSION + 1])
    expect(await schemaVersion(p)).toBe(PG_SCHEMA_VERSION + 1)
  })

  it('versions every order row: those written before versions existed once each, then every insert and update higher', async () => {
    const p = pool()
    const versioning = PG_MIGRATIONS.findIndex((m) => typeof m === 'string' && m.includes('CREATE SEQUENCE order_rows_version'))
    await migrate(p, PG_MIGRATIONS.slice(0, versioning))
    await p.query(`INSERT INTO order_rows (type, order_id, row_json) VALUES (1, 10, '{}'), (1, 11, '{}')`)
    await migrate(p)
    const versions = async () =>
      (await p.query<{ version: string }>('SELECT version FROM order_rows ORDER BY order_id')).rows.map((r) => Number(r.version))
    const [ten, eleven] = await versions()
    expect(new Set([ten, eleven]).size).toBe(2)
    await p.query(`UPDATE order_rows SET row_json = '{"fiat_amount":"1.5"}' WHERE order_id = 10`)
    await p.query(`INSERT INTO order_rows (type, order_id, row_json) VALUES (2, 12, '{}')`)
    const [tenAfter, elevenAfter, twelve] = await versions()
    expect(tenAfter).toBeGreaterThan(Math.max(ten!, eleven!))
    expect(twelve).toBeGreaterThan(tenAfter!)
    expect(elevenAfter).toBe(eleven)
  })

  it('refuses a database a newer hub migrated, naming both versions, and changes nothing', async () => {
    const p = pool()
    await migrate(p, [...PG_MIGRATIONS, 'CREATE TABLE later (x INTEGER)'])
    const err = await migrate(p).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(NewerSchemaError)
    expect((err as Error).message).toBe(
      `the PostgreSQL database was migrated by a newer Rampdesk hub (schema ${PG_SCHEMA_VERSION + 1}; this hub knows ${PG_SCHEMA_VERSION}): upgrade this hub, or point it at another database`
    )
    expect(await schemaVersion(p)).toBe(PG_SCHEMA_VERSION + 1)
  })
})
