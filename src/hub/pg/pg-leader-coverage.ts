// Whether the team's copy holds every order, for the hubs on one PostgreSQL database. Only
// the leader syncs, probes scopes, audits and sweeps statuses, so only its coverage (scopes,
// readings, freshness, gaps) is true; a follower's own monitor is idle and would show no
// scope and none of the leader's gaps. The leader writes its coverage to the one row of
// leader_coverage whenever it changes (at most once a second) with the database's time
// (written_at), announces it (NOTIFY rampdesk_coverage), and while nothing changes it
// vouches for the row every few seconds (a heartbeat: written_at alone). A follower reads
// the row on the notification and every 2 s and answers sync:coverage with it, or, when
// there is none or it has grown old by the database's clock, with a gap saying whether
// every order is here is not known (followed-coverage.ts); it streams coverage:changed to
// its desktops whenever what it shows changes, and only then. The leader's sync states
// (per scope: when it last synced, its error, its write mark) go in the same row, the same
// way: a follower's own monitor is idle too, and its desktops are shown the leader's. They
// are stamped with the row's version they were written with (statesFor). The leader's writes
// are fenced by its lease (pg-lease.ts): a leader whose lease was taken over writes nothing.
import type pg from 'pg'
import type { Coverage, SyncState } from '../../shared/ipc/contract'
import { followedCoverage, type LeaderReport } from '../followed-coverage'
import { leads, type HubRoleSource } from '../hub-role'
import { DB_NOW_MS, type PgTarget } from './pg-connection'
import { asLeader } from './pg-lease'
import { listen, type PgListener } from './pg-listener'
import { SerialQueries } from './pg-serial'

export const COVERAGE_CHANNEL = 'rampdesk_coverage'

export interface CoverageTiming {
  /** The leader writes a changed coverage at most this often. */
  writeAtMostMs: number
  /** The leader looks for a change, and a follower reads the row, this often. */
  readEveryMs: number
  /** A leader whose coverage did not change vouches for it this often. */
  heartbeatMs: number
  /** A follower whose leader has not written or vouched for this long, by the database's clock, says it does not know. */
  staleAfterMs: number
}

const HEARTBEAT_MS = 5_000
export const COVERAGE_TIMING: CoverageTiming = {
  writeAtMostMs: 1_000,
  readEveryMs: 2_000,
  heartbeatMs: HEARTBEAT_MS,
  staleAfterMs: 3 * HEARTBEAT_MS
}

const WRITE_FAILED = 'could not share this hub’s coverage with the other hubs'
const READ_FAILED = "could not read the leader's coverage"

export interface PgLeaderCoverageOptions {
  pool: pg.Pool
  target: PgTarget
  role: Pick<HubRoleSource, 'current'>
  /** This hub's monitor's coverage (what the leader writes). */
  own(): Coverage
  /** The team's freshness bound (minutes), for a follower that has no report to show. */
  freshnessMinutes(): number
  /** What a follower shows of the leader's coverage changed. */
  onLeaderCoverage(c: Coverage): void
  /** This hub's monitor's sync states (what the leader writes with its coverage). */
  ownStates?(): SyncState[]
  /** A follower read sync states of the leader's other than those it last had (the leader's as written). */
  onLeaderStates?(states: SyncState[]): void
  onError(message: string): void
  timing?: Partial<CoverageTiming>
  now?: () => number
}

/**
 * The leader's states in sync_json, written as "<row version> <JSON>": only when that is the
 * row's version. A hub of an older version leading after a newer one bumps the version and
 * leaves sync_json as the former leader wrote it: its states are then not known (none shown),
 * never that former leader's frozen ones (a lag growing by the minute, a lasting error).
 */
export function statesFor(version: number, syncJson: string | null): SyncState[] | null {
  const space = syncJson?.indexOf(' ') ?? -1
  if (!syncJson || space < 0 || Number(syncJson.slice(0, space)) !== Number(version)) return null
  // States that do not read (a hand edit, a damaged row) are not known: the coverage beside them still is.
  try {
    const states = JSON.parse(syncJson.slice(space + 1)) as unknown
    return Array.isArray(states) ? (states as SyncState[]) : null
  } catch {
    return null
  }
}

interface CoverageRow {
  version: number
  written_at: number | null
  age: number | null
  /** Only when the version is not the one this hub holds. */
  json: string | null
  sync_json: string | null
}

export class PgLeaderCoverage {
  private readonly t: CoverageTiming
  private readonly now: () => number
  private readonly queries: SerialQueries
  private listener: PgListener | null = null
  private timer: NodeJS.Timeout | null = null
  // Following: the leader's report as last read (null: none read since this hub follows), and what its desktops were last sent.
  private report: LeaderReport | null = null
  private reportVersion = 0
  private published: string | null = null
  private leaderStates: SyncState[] | null = null
  private toldStates: string | null = null
  // Leading: what this hub last wrote, the row's version it got, when it wrote or vouched for it.
  private written: string | null = null
  private writtenVersion = 0
  private beatAt = 0
  private writeTimer: NodeJS.Timeout | null = null
  private lastWrite = 0

  constructor(private readonly o: PgLeaderCoverageOptions) {
    this.t = { ...COVERAGE_TIMING, ...o.timing }
    this.now = o.now ?? Date.now
    this.queries = new SerialQueries(o.onError)
  }

  start(): void {
    this.listener = listen(this.o.target, [COVERAGE_CHANNEL], {
      notify: () => this.follow(),
      connected: () => this.follow(),
      error: (m) => this.o.onError(m)
    })
    this.timer = setInterval(() => {
      if (!leads(this.o.role)) return this.follow()
      // What it read before it led is no report of the leader's it follows next.
      this.report = null
      this.reportVersion = 0
      this.published = null
      this.leaderStates = null
      this.toldStates = null
      this.changed()
    }, this.t.readEveryMs)
    this.timer.unref()
  }

  /** What sync:coverage answers on this hub: null when it leads (its own), the leader's report when it follows. */
  current(): Coverage | null {
    if (leads(this.o.role)) return null
    return followedCoverage(this.report, {
      now: this.now(),
      staleAfterMs: this.t.staleAfterMs,
      freshnessMinutes: this.o.freshnessMinutes()
    })
  }

  /** What sync:state answers on this hub: null when it leads (its own), the leader's states when it follows (none read yet: none). */
  states(): SyncState[] | null {
    if (leads(this.o.role)) return null
    return this.leaderStates ?? []
  }

  /** The leader's coverage changed: written at most once a second (and looked at every 2 s however quiet). */
  changed(): void {
    if (!leads(this.o.role) || this.writeTimer) return
    const wait = Math.max(0, this.lastWrite + this.t.writeAtMostMs - this.now())
    this.writeTimer = setTimeout(() => {
      this.writeTimer = null
      void this.write()
    }, wait)
    this.writeTimer.unref()
  }

  private async write(): Promise<void> {
    if (!leads(this.o.role)) return
    const at = this.now()
    this.lastWrite = at
    const coverage = JSON.stringify(this.o.own())
    // The states without their lag, which grows by the millisecond (a follower works it out).
    const states = this.o.ownStates ? JSON.stringify(this.o.ownStates().map((x) => ({ ...x, lagMs: null }))) : null
    const both = `${coverage}\n${states}`
    // An unchanged coverage is not written again (that would wake every follower's desktops), only vouched for.
    if (both !== this.written) await this.queries.run(() => this.save(coverage, states, both, at), WRITE_FAILED)
    else if (at - this.beatAt >= this.t.heartbeatMs) await this.queries.run(() => this.vouch(at), WRITE_FAILED)
  }

  private async save(coverage: string, states: string | null, both: string, at: number): Promise<void> {
    const r = await asLeader(this.o.pool, this.o.role, 'sharing the coverage', (c) =>
      c.query<{ version: number }>(
        `WITH saved AS (
         INSERT INTO leader_coverage (id, json, sync_json, version, written_at) VALUES (1, $1, '1 ' || $3, 1, ${DB_NOW_MS})
         ON CONFLICT (id) DO UPDATE SET json = EXCLUDED.json,
           sync_json = (leader_coverage.version + 1)::text || ' ' || $3,
           version = leader_coverage.version + 1, written_at = EXCLUDED.written_at
         RETURNING version
       ) SELECT version, pg_notify($2, version::text) FROM saved`,
        [coverage, COVERAGE_CHANNEL, states]
      )
    )
    this.written = both
    this.writtenVersion = r.rows[0]!.version
    this.beatAt = at
  }

  /** The heartbeat: only the row this hub wrote (another hub's is not this one's to vouch for: then it writes its own). */
  private async vouch(at: number): Promise<void> {
    const r = await asLeader(this.o.pool, this.o.role, 'vouching for the coverage', (c) =>
      c.query(`UPDATE leader_coverage SET written_at = ${DB_NOW_MS} WHERE id = 1 AND version = $1`, [this.writtenVersion])
    )
    if (r.rowCount === 0) this.written = null
    else this.beatAt = at
  }

  /** A follower reads the leader's row, then tells its desktops if what it shows changed (the row's age counts). */
  private follow(): void {
    if (leads(this.o.role)) return
    void this.queries.read(() => this.read(), READ_FAILED).then(() => this.tell())
  }

  private async read(): Promise<void> {
    const r = await this.o.pool.query<CoverageRow>(
      `SELECT version, written_at, ${DB_NOW_MS} - written_at AS age, CASE WHEN version <> $1 THEN json END AS json,
         CASE WHEN version <> $1 THEN sync_json END AS sync_json
         FROM leader_coverage WHERE id = 1`,
      [this.reportVersion]
    )
    const row = r.rows[0]
    const readAt = this.now()
    if (!row) {
      this.reportVersion = 0
      this.report = { coverage: null, writtenAt: null, ageMs: null, readAt }
      return
    }
    const coverage = row.json !== null ? (JSON.parse(row.json) as Coverage) : (this.report?.coverage ?? null)
    if (row.json !== null) this.leaderStates = statesFor(row.version, row.sync_json)
    this.reportVersion = coverage ? row.version : 0
    this.report = { coverage, writtenAt: row.written_at, ageMs: row.age, readAt }
  }

  private tell(): void {
    const states = this.states()
    const statesJson = JSON.stringify(states)
    if (states && statesJson !== this.toldStates) {
      this.toldStates = statesJson
      this.o.onLeaderStates?.(states)
    }
    const shown = this.current()
    if (!shown) return
    const json = JSON.stringify(shown)
    if (json === this.published) return
    this.published = json
    this.o.onLeaderCoverage(shown)
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer)
    if (this.writeTimer) clearTimeout(this.writeTimer)
    await this.listener?.close()
    await this.queries.idle()
  }
}
