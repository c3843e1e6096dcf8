// Connections to the PostgreSQL database several hubs share (node-postgres). The URL names
// the server, the user and the database; the password comes from a file
// (--database-password-file), or from the URL itself (discouraged: it shows in `ps`). The
// URL is never logged or shown with its password: displayUrl() removes it.
import pg from 'pg'

export interface PgTarget {
  url: string
  /** The password, when it is not in the URL (read from --database-password-file). */
  password?: string
}

/** The URL as it may be printed: without its password. */
export function displayUrl(url: string): string {
  try {
    const u = new URL(url)
    if (u.password) u.password = ''
    return u.toString()
  } catch {
    return '(an unreadable database URL)'
  }
}

/** Whether this is a PostgreSQL URL (postgres:// or postgresql://). */
export function isPostgresUrl(url: string): boolean {
  try {
    const u = new URL(url)
    return (u.protocol === 'postgres:' || u.protocol === 'postgresql:') && u.hostname !== '' && u.pathname.length > 1
  } catch {
    return false
  }
}

/** Now by the database's clock, epoch ms: the one clock every hub on the database shares. */
export const DB_NOW_MS = '(extract(epoch from clock_timestamp()) * 1000)::bigint'

/** Epoch milliseconds, ids and counts are BIGINTs: read as numbers (all below 2^53). */
const types = {
  getTypeParser: ((oid: number, format?: string) =>
    oid === pg.types.builtins.INT8
      ? (v: string) => Number(v)
      : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser
}

export function clientConfig(t: PgTarget, applicationName: string): pg.ClientConfig {
  return {
    connectionString: t.url,
    ...(t.password !== undefined ? { password: t.password } : {}),
    application_name: applicationName,
    types,
    connectionTimeoutMillis: 5_000,
    keepAlive: true
  }
}

export function openPool(
  t: PgTarget,
  applicationName = 'rampdesk-hub',
  max = 8,
  timeouts?: { connectMs: number; queryMs: number; idleInTransactionMs?: number }
): pg.Pool {
  const config = clientConfig(t, applicationName)
  if (timeouts) {
    config.connectionTimeoutMillis = timeouts.connectMs
    config.query_timeout = timeouts.queryMs
    // A process paused inside a transaction (SIGSTOP, a stalled VM) holds its locks only this long.
    if (timeouts.idleInTransactionMs) config.options = `-c idle_in_transaction_session_timeout=${timeouts.idleInTransactionMs}`
  }
  const pool = new pg.Pool({ ...config, max, idleTimeoutMillis: 30_000 })
  // The pool listens for an idle connection's errors and the caller for a checked-out one's,
  // but between the two a connection has no listener: handed out inside the read that also
  // carries the server's "terminating connection" (a restart, a shutdown), its error would be
  // an uncaught exception that ends the hub. This listener keeps it heard for the connection's
  // whole life; the error still reaches the pool's or the caller's listener, and a connection
  // that failed is dropped at its release.
  pool.on('connect', (c) => c.on('error', () => undefined))
  return pool
}

/**
 * Runs fn in one transaction on a connection of the pool; rolled back when it throws. While
 * a connection is checked out the pool no longer listens for its errors: one lost mid
 * transaction (a database restart, pg_terminate_backend) would be an uncaught exception
 * that ends the hub, and the dead connection would go back to the pool for the next
 * caller ("not queryable"). So the error is heard here, and a connection that failed
 * (or could not roll back) is destroyed, not returned.
 */
export async function inTransaction<T>(pool: pg.Pool, fn: (c: pg.PoolClient) => Promise<T>): Promise<T> {
  let broken: Error | undefined
  const onError = (e: Error): void => {
    broken ??= e
  }
  // Listening from the moment the pool hands the connection over (its callback runs then; an
  // awaited promise would resume only after the rest of the read that handed it over, which may
  // carry the connection's own error).
  const c = await new Promise<pg.PoolClient>((ok, fail) =>
    pool.connect((e, client) => {
      if (e || !client) return fail(e ?? new Error('the database gave no connection'))
      client.on('error', onError)
      ok(client)
    })
  )
  try {
    await c.query('BEGIN')
    const out = await fn(c)
    await c.query('COMMIT')
    return out
  } catch (e) {
    if (!broken) await c.query('ROLLBACK').catch((r: unknown) => (broken = r instanceof Error ? r : new Error(String(r))))
    throw e
  } finally {
    c.off('error', onError)
    c.release(broken)
  }
}

/** A database error's message, with the password (if the URL carried one) never in it. */
export function pgErrorText(e: unknown, t?: PgTarget): string {
  let m = e instanceof Error ? e.message : String(e)
  for (const secret of [t?.password, t ? safePassword(t.url) : undefined]) if (secret) m = m.split(secret).join('***')
  return m
}

function safePassword(url: string): string | undefined {
  try {
    return decodeURIComponent(new URL(url).password) || undefined
  } catch {
    return undefined
  }
}
