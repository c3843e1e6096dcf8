// Whether the team's copy holds every order, for the hubs on one PostgreSQL database. Only
// the leader syncs, probes scopes, audits and sweeps statuses, so only its coverage (scopes,
// readings, freshness, gaps) is true; a follower's own monitor is idle and would show no
// scope and none of the leader's gaps. The leader writes its coverage to the one row of
// leader_coverage whenever it changes (at most once a second, and every 2 s besides) and
// announces it (NOTIFY rampdesk_coverage); a follower reads it on the notification and every
// 2 s, answers sync:coverage with it, and streams coverage:changed to its desktops.
import type pg from 'pg'
import type { Coverage } from '../../shared/ipc/contract'
import type { HubRoleSource } from '../hub-role'
import type { PgTarget } from './pg-connection'
import { listen, type PgListener } from './pg-listener'

export const COVERAGE_CHANNEL = 'rampdesk_coverage'
const WRITE_AT_MOST_MS = 1_000
const READ_EVERY_MS = 2_000

export interface PgLeaderCoverageOptions {
  pool: pg.Pool
  target: PgTarget
  role: Pick<HubRoleSource, 'current'>
  /** This hub's monitor's coverage (what the leader writes). */
  own(): Coverage
  /** A follower read a new coverage of the leader's. */
  onLeaderCoverage(c: Coverage): void
  onError(message: string): void
}

export class PgLeaderCoverage {
  private latest: Coverage | null = null
  /** What this hub last wrote as leader. */
  private written: string | null = null
  private version = 0
  private listener: PgListener | null = null
  private timer: NodeJS.Timeout | null = null
  private writeTimer: NodeJS.Timeout | null = null
  private lastWrite = 0
  private busy: Promise<void> | null = null
  private failing = false

  constructor(private readonly o: PgLeaderCoverageOptions) {}

  private leads(): boolean {
    return this.o.role.current().role === 'leader'
  }

  start(): void {
    this.listener = listen(this.o.target, [COVERAGE_CHANNEL], {
      notify: () => void this.look(),
      connected: () => void this.look(),
      error: (m) => this.o.onError(m)
    })
    this.timer = setInterval(() => void (this.leads() ? this.changed() : this.look()), READ_EVERY_MS)
    this.timer.unref()
  }

  /** What sync:coverage answers on this hub: the leader's when this hub follows (its own until one is read). */
  current(): Coverage | null {
    return this.leads() ? null : this.latest
  }

  /** The leader's coverage changed: written at most once a second (and every 2 s however quiet). */
  changed(): void {
    if (!this.leads() || this.writeTimer) return
    const wait = Math.max(0, this.lastWrite + WRITE_AT_MOST_MS - Date.now())
    this.writeTimer = setTimeout(() => {
      this.writeTimer = null
      void this.write()
    }, wait)
    this.writeTimer.unref()
  }

  private async write(): Promise<void> {
    if (!this.leads()) return
    this.lastWrite = Date.now()
    const json = JSON.stringify(this.o.own())
    // The periodic write of an unchanged coverage would wake every follower's desktops.
    if (json === this.written) return
    await this.serial(async () => {
      await this.o.pool.query(
        `WITH saved AS (
           INSERT INTO leader_coverage (id, json, version) VALUES (1, $1, 1)
           ON CONFLICT (id) DO UPDATE SET json = EXCLUDED.json, version = leader_coverage.version + 1 RETURNING version
         ) SELECT pg_notify($2, version::text) FROM saved`,
        [json, COVERAGE_CHANNEL]
      )
      this.written = json
    }, 'could not share this hub’s coverage with the other hubs')
  }

  private look(): Promise<void> | undefined {
    if (this.leads()) return
    return this.serial(async () => {
      const r = await this.o.pool.query<{ json: string; version: string }>('SELECT json, version FROM leader_coverage WHERE id = 1')
      const row = r.rows[0]
      if (!row || Number(row.version) === this.version) return
      this.version = Number(row.version)
      this.latest = JSON.parse(row.json) as Coverage
      this.o.onLeaderCoverage(this.latest)
    }, "could not read the leader's coverage")
  }

  private serial(fn: () => Promise<void>, what: string): Promise<void> {
    const run = (this.busy ?? Promise.resolve())
      .then(fn)
      .then(() => {
        if (this.failing) this.o.onError(`${what}: the database answers again`)
        this.failing = false
      })
      .catch((e: unknown) => {
        if (!this.failing) this.o.onError(`${what}: ${(e as Error).message}; retrying`)
        this.failing = true
      })
    this.busy = run.finally(() => {
      if (this.busy === run) this.busy = null
    })
    return run
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer)
    if (this.writeTimer) clearTimeout(this.writeTimer)
    await this.listener?.close()
    await this.busy
  }
}
