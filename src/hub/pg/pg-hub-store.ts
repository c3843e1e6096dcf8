// The hub's own tables in the PostgreSQL database several hubs share (hub-store.ts). Opening
// it migrates the schema (pg-migrations.ts), loads the operators and pins into memory, and
// gives the request budget all its hubs share (pg-shared-budget.ts), and
// keeps them fresh: a poll every second, and at once on NOTIFY from another hub or the
// command line (pg-listener.ts). Its readiness is the latest answer of a check run every
// second in the background (a readiness probe must answer at once).
import type pg from 'pg'
import { BudgetCarry } from '../../main/api/budget-carry'
import type { HubStore } from '../hub-store'
import type { ReadinessCheck } from '../readiness'
import { PgAudit } from './pg-audit'
import { pgCarryTable } from './pg-budget-carry'
import { displayUrl, openPool, pgErrorText, type PgTarget } from './pg-connection'
import { listen, type PgListener } from './pg-listener'
import { migrate, PG_MIGRATIONS, PG_SCHEMA_VERSION, schemaVersion } from './pg-migrations'
import { NO_SECOND_FACTOR_KEY, type SecondFactorKeyOf } from '../second-factor-key'
import { OPERATORS_CHANNEL, PgOperators } from './pg-operators'
import { PgKeptStore } from './pg-kept-store'
import { PgSecondFactors } from './pg-second-factor'
import { PgSharedBudget } from './pg-shared-budget'
import { PgWatches, WATCHES_CHANNEL } from './pg-watches'
import { AlertHookStore, type HookSql } from '../alert-hooks/hook-store'
import { PgOidcStore } from './pg-oidc-store'

/** How often the in-memory copies and the readiness are read again without a notification. */
export const PG_REFRESH_MS = 1_000

export interface PgHubStore extends HubStore {
  readonly kind: 'postgres'
  readonly pool: pg.Pool
  readonly target: PgTarget
  readonly operators: PgOperators
  readonly audit: PgAudit
  readonly watches: PgWatches
  readonly kept: PgKeptStore
  readonly sharedBudget: PgSharedBudget
  readonly oidc: PgOidcStore
  /** Reads operators and pins again now (tests; the poll does it every second). */
  refresh(): Promise<void>
}

export interface PgHubStoreOptions {
  target: PgTarget
  now?: () => number
  onError?: (message: string) => void
  /** Poll and listen for other hubs' changes (a hub); the command line does neither. */
  live?: boolean
  refreshMs?: number
  /** The key TOTP secrets are sealed with (second-factor-key.ts); without one, enrolling fails in words. */
  secondFactorKey?: SecondFactorKeyOf
}

export async function openPgHubStore(o: PgHubStoreOptions): Promise<PgHubStore> {
  const now = o.now ?? Date.now
  const onError = o.onError ?? (() => undefined)
  const pool = openPool(o.target)
  const key = o.secondFactorKey ?? NO_SECOND_FACTOR_KEY
  // Webhook deliveries are kept on connections of their own that give up quickly: a delivery
  // the database cannot take within a second or so goes to the spool, and a stalled database
  // must not hold the connections everything else needs.
  // A hub paused inside one of these transactions holds an order's keep lock or a relay's row
  // lock for 5 s at most, not for as long as it stays paused.
  const keptPool = openPool(o.target, 'rampdesk-hub-webhooks', 4, { connectMs: 1_000, queryMs: 3_000, idleInTransactionMs: 5_000 })
  keptPool.on('error', (e) => onError(`a database connection for webhook deliveries was lost: ${pgErrorText(e, o.target)}`))
  // An idle connection the server dropped is replaced on the next query; say why meanwhile.
  pool.on('error', (e) => onError(`a database connection was lost: ${pgErrorText(e, o.target)}`))
  try {
    await migrate(pool, PG_MIGRATIONS, { secondFactorKey: key })
  } catch (e) {
    await pool.end().catch(() => undefined)
    await keptPool.end().catch(() => undefined)
    throw new Error(`cannot open the database ${displayUrl(o.target.url)}: ${pgErrorText(e, o.target)}`, { cause: e })
  }
  const operators = new PgOperators(pool, now, onError)
  const watches = new PgWatches(pool, now)
  const audit = new PgAudit(pool, now, onError)
  const carry = pgCarryTable(pool, onError)
  const oidc = new PgOidcStore(pool, now, onError)

  let health: ReadinessCheck = { ok: false, detail: 'not checked yet' }
  let failing = false
  async function refresh(): Promise<void> {
    try {
      const [version] = await Promise.all([schemaVersion(pool), operators.refresh(), watches.refresh(), oidc.refresh()])
      health =
        version === PG_SCHEMA_VERSION
          ? { ok: true, detail: 'the PostgreSQL database answers, migrated', hubSchema: version }
          : {
              ok: false,
              detail: `the PostgreSQL database is at schema ${version}, this hub expects ${PG_SCHEMA_VERSION}`,
              hubSchema: version
            }
      if (failing) onError('the PostgreSQL database answers again')
      failing = false
    } catch (e) {
      health = { ok: false, detail: `the PostgreSQL database does not answer: ${pgErrorText(e, o.target)}` }
      if (!failing) onError(health.detail)
      failing = true
    }
  }
  await refresh()

  let closed = false
  let timer: NodeJS.Timeout | null = null
  let listener: PgListener | null = null
  // One refresh at a time; one asked for while another runs starts after it, never joins it:
  // the running one may have read before the change its caller wants to see was committed.
  let refreshing: Promise<void> | null = null
  let queued: Promise<void> | null = null
  const refreshOnce = (): Promise<void> => {
    if (!refreshing) return (refreshing = refresh().finally(() => (refreshing = null)))
    return (queued ??= refreshing.then(() => {
      queued = null
      return refreshOnce()
    }))
  }
  if (o.live ?? true) {
    timer = setInterval(() => void refreshOnce(), o.refreshMs ?? PG_REFRESH_MS)
    timer.unref()
    listener = listen(o.target, [OPERATORS_CHANNEL, WATCHES_CHANNEL], {
      notify: () => void refreshOnce(),
      connected: () => void refreshOnce(),
      error: onError
    })
  }

  return {
    kind: 'postgres',
    where: displayUrl(o.target.url),
    notes: {
      started: `PostgreSQL at ${displayUrl(o.target.url)}`,
      revocation: 'every hub on this database refuses the token within a second'
    },
    pool,
    target: o.target,
    operators,
    audit,
    secondFactors: new PgSecondFactors(pool, key),
    watches,
    kept: new PgKeptStore(keptPool),
    budgetCarry: new BudgetCarry(carry, now),
    sharedBudget: new PgSharedBudget(pool),
    alertHooks: new AlertHookStore(pgHookSql(pool)),
    oidc,
    refresh: refreshOnce,
    check: () => ({ ...health, database: displayUrl(o.target.url) }),
    async close() {
      if (closed) return
      closed = true
      if (timer) clearInterval(timer)
      await listener?.close()
      await audit.close()
      await carry.flush()
      await pool.end()
      await keptPool.end()
    }
  }
}

/** The alert hooks' queries on PostgreSQL: their `?` placeholders numbered. */
function pgHookSql(pool: pg.Pool): HookSql {
  const numbered = (text: string) => {
    let i = 0
    return text.replace(/\?/g, () => `$${++i}`)
  }
  return {
    all: async <T>(text: string, params: Array<string | number | null>) => (await pool.query(numbered(text), params)).rows as T[],
    run: async (text, params) => (await pool.query(numbered(text), params)).rowCount ?? 0
  }
}
