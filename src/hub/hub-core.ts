// What every operator's handlers share (hub-handlers.ts's HubCore), put together from the
// hub's parts: its session, settings, tickers and store, the sync as its desktops see it,
// its webhooks, and the team's settings it shares with other hubs.
import { SecondFactorEnrolments } from './second-factor-enrolment'
import type { AppSettings } from '../main/app-settings'
import type { ProfileSession } from '../main/profile-session'
import type { Profile, Settings, SettingsPatch } from '../shared/ipc/contract'
import { teamPart, type DeliveryLog, type TeamSettingsSync } from './hub-backend'
import { CONFIG_REFRESH_COALESCE_MS, type HubCore } from './hub-handlers'
import type { HubStore } from './hub-store'
import type { HubSync } from './hub-sync'
import type { HubTickers } from './hub-tickers'
import type { HubWebhooks } from './hub-webhooks'
import { resendCompletion } from './unacknowledged'

/** Applies a settings change to this hub: its file, its monitor's schedule, its ticker polls. */
export function settingsApplier(
  settings: AppSettings,
  session: ProfileSession,
  tickers: HubTickers
): (patch: SettingsPatch) => Promise<Settings> {
  return async (patch) => {
    const before = settings.get()
    const next = settings.update(patch)
    await session.applySettings(next, before)
    if (next.tickerPollSeconds !== before.tickerPollSeconds) tickers.configure({ pollMs: next.tickerPollSeconds * 1000 })
    return next
  }
}

export interface HubCoreParts {
  session: ProfileSession
  profile: Profile
  secret: string
  settings: AppSettings
  applySettings(patch: SettingsPatch): Promise<Settings>
  teamSettings: Pick<TeamSettingsSync, 'save'>
  tickers: HubTickers
  store: Pick<HubStore, 'operators' | 'audit' | 'watches' | 'kept' | 'secondFactors'>
  claims: HubCore['claims']
  sync: HubSync
  webhooks: HubWebhooks
  deliveryLog: DeliveryLog
  /** The hub's own URL as operators reach it (null until it listens). */
  publicUrl(): string | null
  /** Called with the name of every operator revoked through this hub. */
  onRevoked(name: string): void
  version: string
  now: () => number
}

export function hubCore(p: HubCoreParts): HubCore {
  const { session, tickers, now } = p
  const { operators, audit, watches } = p.store
  let configRun: ReturnType<HubCore['refreshConfig']> | null = null
  let configAt = -Infinity
  return {
    session,
    coverage: () => p.sync.coverage(),
    syncStates: () => p.sync.states(),
    sync: (action, operator) => p.sync.ask(action, operator),
    profile: p.profile,
    secret: async () => p.secret,
    settings: p.settings,
    tickers,
    watches,
    claims: p.claims,
    operators,
    audit,
    secondFactors: new SecondFactorEnrolments(p.store.secondFactors, now),
    webhookRefusals: () => p.webhooks.refusals(),
    webhookUrl() {
      const url = p.publicUrl()
      return url ? new URL('webhook', url.endsWith('/') ? url : url + '/').toString() : null
    },
    publicUrl: p.publicUrl,
    async revoke(name) {
      const op = await operators.revoke(name)
      await watches.dropOperator(op.name, session.monitor)
      tickers.forget(op.name)
      p.onRevoked(op.name)
      return op
    },
    refreshConfig() {
      if (configRun) return configRun
      if (now() - configAt < CONFIG_REFRESH_COALESCE_MS) return session.config.get()
      configRun = session.config.refreshAll().finally(() => {
        configAt = now()
        configRun = null
      })
      return configRun
    },
    kept: p.store.kept,
    relayTarget: () => p.webhooks.relayTarget,
    relayNow: () => p.webhooks.relay?.wake(),
    resendCompletion: (ref) => resendCompletion({ kept: p.store.kept, relay: p.webhooks.relay, session }, ref),
    deliveryLog: p.deliveryLog,
    async updateSettings(patch) {
      const next = await p.applySettings(patch)
      await p.teamSettings.save(teamPart(next))
      return next
    },
    version: p.version,
    now
  }
}
