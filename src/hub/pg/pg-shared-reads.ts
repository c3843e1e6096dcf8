// The reads every hub shares (the configuration endpoints and priceTicker; the list is
// src/main/api/shared-reads.ts), sent by the leader alone and handed to the other hubs
// through the shared_reads table. A follower's client reads the leader's latest answer
// when it is fresh enough (a poll interval for prices, a minute for the configuration);
// otherwise it asks (asked_at, NOTIFY rampdesk_shared_reads) and waits for the leader to
// fetch it, within its own budget, and write the answer or the service's error. A follower
// that becomes leader sends its next reads itself. Times are the database's clock, which
// every hub shares. The leader's writes are fenced by its lease (pg-lease.ts), and its
// fetches by the shared budget's: a leader whose lease was taken over answers nothing.
import type pg from 'pg'
import { ApiError, toErrorInfo, type ApiErrorInfo } from '../../shared/api/errors'
import type { EndpointName } from '../../shared/api/endpoints'
import type { ApiClient } from '../../main/api/client'
import type { SharedReads } from '../../main/api/shared-reads'
import { leads, type HubRoleSource } from '../hub-role'
import { DB_NOW_MS as DB_NOW, type PgTarget } from './pg-connection'
import { asLeader, refusedAsLeader } from './pg-lease'
import { listen, type PgListener } from './pg-listener'
import { SerialQueries } from './pg-serial'

export const SHARED_READS_CHANNEL = 'rampdesk_shared_reads'
/** How long a follower waits for the leader's answer before it reports the read failed. */
export const SHARED_READ_WAIT_MS = 15_000

export interface PgSharedReadsOptions {
  pool: pg.Pool
  role: Pick<HubRoleSource, 'current'>
  /** How old the leader's answer may be for a follower to take it without asking again. */
  freshMs: (name: EndpointName) => number
  onError: (message: string) => void
  waitMs?: number
  pollMs?: number
  /** A follower was served the leader's answer (failure null: the service answered it) or none came: for /readyz. */
  onLeaderAnswer?(name: EndpointName, failure: string | null): void
}

interface Row {
  answer: string | null
  error: string | null
  age: string | null
  failed_after_ask: boolean
  answered_after_ask: boolean
}

const keyOf = (name: EndpointName, input: unknown) => `${name} ${JSON.stringify(input ?? {})}`
const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((ok) => {
    const t = setTimeout(ok, ms)
    signal?.addEventListener('abort', () => (clearTimeout(t), ok()), { once: true })
  })

export class PgSharedReads implements SharedReads {
  private readonly inflight = new Set<string>()
  private serving: ApiClient | null = null
  /** The leader's writes of its answers, in order, and its reads of the asks: each failure said once. */
  private readonly queries: SerialQueries

  constructor(private readonly o: PgSharedReadsOptions) {
    this.queries = new SerialQueries(o.onError)
  }

  async read(name: EndpointName, input: unknown, signal?: AbortSignal): Promise<unknown> {
    if (leads(this.o.role)) return null
    const key = keyOf(name, input)
    const fresh = this.o.freshMs(name)
    const row = await this.row(key)
    if (row?.answer && row.age !== null && Number(row.age) < fresh) return this.answered(name, row.answer)
    await this.o.pool.query(
      `WITH asked AS (
         INSERT INTO shared_reads (key, name, input, asked_at) VALUES ($1, $2, $3, ${DB_NOW})
         ON CONFLICT (key) DO UPDATE SET asked_at = ${DB_NOW} RETURNING key
       ) SELECT pg_notify($4, key) FROM asked`,
      [key, name, JSON.stringify(input ?? {}), SHARED_READS_CHANNEL]
    )
    const end = Date.now() + (this.o.waitMs ?? SHARED_READ_WAIT_MS)
    while (Date.now() < end) {
      await sleep(this.o.pollMs ?? 100, signal)
      if (signal?.aborted) throw new ApiError({ kind: 'aborted', endpoint: name, message: 'cancelled' })
      // Promoted meanwhile: this hub sends it.
      if (leads(this.o.role)) return null
      const r = await this.row(key)
      if (r?.answered_after_ask && r.answer) return this.answered(name, r.answer)
      if (r?.failed_after_ask && r.error) {
        const info = JSON.parse(r.error) as ApiErrorInfo
        // A 4xx or a 429 is the service answering; a 5xx or no answer is the service failing.
        this.o.onLeaderAnswer?.(name, info.httpStatus !== undefined && info.httpStatus < 500 ? null : `${name}: ${info.message}`)
        throw new ApiError(info)
      }
    }
    this.o.onLeaderAnswer?.(name, `${name}: the leading hub did not answer`)
    throw new ApiError({
      kind: 'timeout',
      endpoint: name,
      message: `the leading hub did not fetch ${name} for this hub within ${Math.round((this.o.waitMs ?? SHARED_READ_WAIT_MS) / 1000)} s (another hub leads within 15 s of a leader's loss)`
    })
  }

  private answered(name: EndpointName, answer: string): unknown {
    this.o.onLeaderAnswer?.(name, null)
    return JSON.parse(answer)
  }

  private async row(key: string): Promise<Row | undefined> {
    const r = await this.o.pool.query<Row>(
      `SELECT answer, error, ${DB_NOW} - fetched_at AS age,
              COALESCE(failed_at >= asked_at, false) AS failed_after_ask,
              COALESCE(fetched_at >= asked_at, false) AS answered_after_ask
         FROM shared_reads WHERE key = $1`,
      [key]
    )
    return r.rows[0]
  }

  publish(name: EndpointName, input: unknown, data: unknown): void {
    if (!leads(this.o.role)) return
    void this.queries.run(
      () =>
        asLeader(this.o.pool, this.o.role, `sharing the answer of ${name}`, (c) =>
          c.query(
            `INSERT INTO shared_reads (key, name, input, answer, fetched_at) VALUES ($1, $2, $3, $4, ${DB_NOW})
             ON CONFLICT (key) DO UPDATE SET answer = EXCLUDED.answer, fetched_at = EXCLUDED.fetched_at`,
            [keyOf(name, input), name, JSON.stringify(input ?? {}), JSON.stringify(data)]
          )
        ),
      `could not share the answer of ${name} with the other hubs`
    )
  }

  /** The leader's client, which fetches what the followers ask for (serveAsked, on NOTIFY and every second). */
  serve(client: ApiClient): void {
    this.serving = client
  }

  /** serveAsked in turn, on NOTIFY and every second: a database that does not answer is said once, not every second. */
  answerAsks(): Promise<void> {
    return this.queries.read(() => this.serveAsked(), "could not read the other hubs' asks")
  }

  /** Resolves once the writes and reads queued so far ended. */
  idle(): Promise<void> {
    return this.queries.idle()
  }

  /** Leader: fetches every read a follower asked for since its last answer (each once at a time). */
  async serveAsked(): Promise<void> {
    const client = this.serving
    if (!client || !leads(this.o.role)) return
    const r = await this.o.pool.query<{ key: string; name: EndpointName; input: string }>(
      `SELECT key, name, input FROM shared_reads
        WHERE asked_at IS NOT NULL AND asked_at > GREATEST(COALESCE(fetched_at, 0), COALESCE(failed_at, 0))`
    )
    for (const w of r.rows) {
      if (this.inflight.has(w.key)) continue
      this.inflight.add(w.key)
      void client
        .fetchShared(w.name, JSON.parse(w.input))
        .catch((e: unknown) =>
          asLeader(this.o.pool, this.o.role, `sharing the failure of ${w.name}`, (c) =>
            c.query(`UPDATE shared_reads SET error = $2, failed_at = ${DB_NOW} WHERE key = $1`, [w.key, JSON.stringify(toErrorInfo(e))])
          )
        )
        .catch((e: unknown) => {
          if (!refusedAsLeader(e)) this.o.onError(`could not fetch ${w.name} for the other hubs: ${(e as Error).message}`)
        })
        .finally(() => this.inflight.delete(w.key))
    }
  }
}

export interface SharedReadsService {
  reads: PgSharedReads
  /** Starts answering the followers' asks with this client (the leader's). */
  serve(client: ApiClient): void
  close(): Promise<void>
}

/** The shared reads of a hub on PostgreSQL: asks heard on NOTIFY and looked for every second. */
export function startSharedReads(o: PgSharedReadsOptions & { target: PgTarget; log: { warn(m: string): void } }): SharedReadsService {
  const reads = new PgSharedReads(o)
  const answer = () => void reads.answerAsks()
  let listener: PgListener | null = null
  let timer: NodeJS.Timeout | null = null
  return {
    reads,
    serve(client) {
      reads.serve(client)
      listener = listen(o.target, [SHARED_READS_CHANNEL], { notify: answer, connected: answer, error: (m) => o.log.warn(m) })
      timer = setInterval(answer, 1_000)
      timer.unref()
    },
    async close() {
      if (timer) clearInterval(timer)
      await listener?.close()
      await reads.idle()
    }
  }
}
