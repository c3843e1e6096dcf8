// The first steps of starting a hub, each undone if a later one fails: its backend (the
// store), its role among the hubs on it, the team's settings, the reads it shares, and the
// merchant's session, which emits onto the hub's event bus from the moment it opens.
import { secondFactorKeyIn } from './second-factor-key'
import { join } from 'node:path'
import { AppSettings } from '../main/app-settings'
import { ProfileSession } from '../main/profile-session'
import type { HubBackend, SharedReadsPart, TeamSettingsSync } from './hub-backend'
import { HubEvents } from './hub-events'
import type { HubLog } from './hub-log'
import type { HubRoleSource } from './hub-role'
import { HubSync } from './hub-sync'
import type { Merchant } from './hub-merchant'
import type { PgTarget } from './pg/pg-connection'
import { openPgBackend } from './pg/pg-backend'
import { openSqliteBackend } from './sqlite-backend'

/** How old the leader's configuration answers may be for a follower to serve them without asking again. */
const SHARED_CONFIG_FRESH_MS = 60_000

export interface OpenHubOptions {
  dataDir: string
  database?: PgTarget
  role?: HubRoleSource
  merchant: Merchant
  log: HubLog
  now: () => number
  /** The hub's upstream health, once it watches it: told what the leader's shared reads answered. */
  onLeaderAnswer(name: string, failure: string | null): void
  /** Resolves once the hub has settled into the role it was last given. */
  settled(): Promise<void>
}

export interface OpenedHub {
  backend: HubBackend
  role: HubRoleSource
  settings: AppSettings
  teamSettings: TeamSettingsSync
  shared: SharedReadsPart
  events: HubEvents
  sync: HubSync
  session: ProfileSession
}

export async function openHub(o: OpenHubOptions): Promise<OpenedHub> {
  const { log, now } = o
  const { sandbox } = o.merchant
  let backend: HubBackend
  try {
    backend = o.database
      ? await openPgBackend({ target: o.database, now, log, secondFactorKey: secondFactorKeyIn(o.dataDir) })
      : openSqliteBackend({ dataDir: o.dataDir, now, log })
  } catch (e) {
    await sandbox?.close()
    throw e
  }
  const { store } = backend
  let role: HubRoleSource
  try {
    role = o.role ?? (await backend.startRole())
  } catch (e) {
    await store.close()
    await sandbox?.close()
    throw e
  }
  const settings = new AppSettings(o.dataDir)
  const teamSettings = backend.teamSettings()
  try {
    const team = await teamSettings.load()
    if (team) settings.update(team)
  } catch (e) {
    await role.close()
    await store.close()
    await sandbox?.close()
    throw e
  }

  let session: ProfileSession | null = null
  const opened = (): ProfileSession => {
    if (!session) throw new Error('the hub asked its session before it opened')
    return session
  }
  const events: HubEvents = new HubEvents({
    backend,
    role,
    log,
    session: opened,
    ownSyncChanged: () => sync.ownChanged(),
    rowsChanged: (types) => sync.rowsApplied(types)
  })
  const sync: HubSync = new HubSync({
    backend,
    role,
    log,
    now,
    session: opened,
    publish: (e) => events.publish(e),
    freshnessMinutes: () => settings.get().freshnessMinutes,
    settled: o.settled
  })
  // Hubs on one database: the configuration and price reads are the leader's, shared with the others.
  const shared = backend.sharedReads({
    role,
    log,
    onLeaderAnswer: o.onLeaderAnswer,
    freshMs: (name) => (name === 'priceTicker' ? Math.max(1_000, settings.get().tickerPollSeconds * 1000 - 1_000) : SHARED_CONFIG_FRESH_MS)
  })
  try {
    session = await ProfileSession.open({
      profile: o.merchant.profile,
      dir: join(o.dataDir, 'store'),
      settings: settings.get(),
      getSecret: async () => o.merchant.secret,
      now,
      emit: events.emit,
      sharedReads: shared.reads,
      // The hub carries its budget in its own store, shared by its other hubs.
      carryBudget: false
    })
    shared.serve(session.client)
  } catch (e) {
    await shared.close()
    await role.close()
    await store.close()
    await sandbox?.close()
    throw e
  }
  return { backend, role, settings, teamSettings, shared, events, sync, session }
}
