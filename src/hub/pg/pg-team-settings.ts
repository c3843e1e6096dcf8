// The team's settings (the polling keys an admin sets from any desktop: HUB_SETTING_KEYS)
// for the hubs on one PostgreSQL database: a change on any hub is written to the one row
// of team_settings and announced (NOTIFY rampdesk_team_settings); every hub applies it at
// once, and looks every 2 s besides (a notification lost while its listener reconnected).
// A hub that starts takes the team's settings before it syncs anything. Each hub's
// settings.json keeps its copy, so a hub started without the database keeps the last ones.
import type pg from 'pg'
import type { TeamSettings } from '../hub-backend'
import type { PgTarget } from './pg-connection'
import { listen, type PgListener } from './pg-listener'

export const TEAM_SETTINGS_CHANNEL = 'rampdesk_team_settings'

export class PgTeamSettings {
  private version = 0
  private listener: PgListener | null = null
  private timer: NodeJS.Timeout | null = null
  private looking: Promise<void> | null = null

  constructor(private readonly pool: pg.Pool) {}

  /** The team's settings as stored, or null when no hub has written any yet. */
  async load(): Promise<TeamSettings | null> {
    const r = await this.pool.query<{ json: string; version: string }>('SELECT json, version FROM team_settings WHERE id = 1')
    const row = r.rows[0]
    if (!row) return null
    this.version = Number(row.version)
    return JSON.parse(row.json) as TeamSettings
  }

  /** Writes this hub's settings as the team's (after an admin changed them here). */
  async save(s: TeamSettings): Promise<void> {
    const r = await this.pool.query<{ version: string }>(
      `WITH saved AS (
         INSERT INTO team_settings (id, json, version) VALUES (1, $1, 1)
         ON CONFLICT (id) DO UPDATE SET json = EXCLUDED.json, version = team_settings.version + 1 RETURNING version
       ) SELECT version, pg_notify($2, version::text) FROM saved`,
      [JSON.stringify(s), TEAM_SETTINGS_CHANNEL]
    )
    this.version = Number(r.rows[0]?.version ?? this.version)
  }

  /** Applies every change another hub makes from now on. */
  watch(target: PgTarget, apply: (s: TeamSettings) => Promise<void>, onError: (m: string) => void): void {
    const look = () =>
      (this.looking ??= (async () => {
        const before = this.version
        const r = await this.pool.query<{ version: string }>('SELECT version FROM team_settings WHERE id = 1')
        if (Number(r.rows[0]?.version ?? 0) === before) return
        const s = await this.load()
        if (s) await apply(s)
      })()
        .catch((e: unknown) => onError(`could not read the team's settings: ${(e as Error).message}`))
        .finally(() => (this.looking = null)))
    this.listener = listen(target, [TEAM_SETTINGS_CHANNEL], { notify: () => void look(), connected: () => void look(), error: onError })
    this.timer = setInterval(() => void look(), 2_000)
    this.timer.unref()
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer)
    await this.listener?.close()
    await this.looking
  }
}
