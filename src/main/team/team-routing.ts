// Which answers a desktop gives itself and which its team hub gives, while a Team profile
// is active. The hub answers every channel it serves (team-access.ts); the desktop keeps
// its own profiles, keychain, windows and CSV files, and composes the few that are both:
// app:info (this app, the hub's clock), settings (the team's polling from the hub, the
// rest this desktop's own) and team:access (the hub's word on the role, plus whether the
// line is open). Outside a team nothing changes: the local handlers answer everything.
import type { AppSettings } from '../app-settings'
import type { HandlerContext, ShellPort } from '../handlers/context'
import type { ProfileStore } from '../profiles/profile-store'
import { explainError, type ApiErrorInfo } from '../../shared/api/errors'
import {
  channelNames,
  type ChannelName,
  type ChannelOutput,
  type ContractHandlers,
  type Envelope,
  type ExportProgress,
  type Profile,
  type Settings,
  type SettingsPatch,
  type ShellKind
} from '../../shared/ipc/contract'
import { channelAccess, HUB_SETTING_KEYS } from '../../shared/ipc/team-access'
import { HubConnection } from './hub-connection'
import { checkHubUrl, type HubCallError, type TeamSession } from './team-session'
import { exportFromHub } from './team-export'

export interface TeamRouterContext {
  /** The active Team profile's session, or null outside a team. */
  team(): TeamSession | null
  profiles: ProfileStore
  settings: AppSettings
  shell: ShellPort
  /** A profile's stored secret: a Team profile's operator token. */
  tokenFor(profile: Profile): Promise<string>
  now(): number
  /** Where CSV exports are written. */
  exportDir: string
  emit(event: 'export:progress', payload: ExportProgress): void
  version: string
  shellKind: ShellKind
  /** Asks the operator of this desktop, outside the window's reach (a native dialog or a typed code). */
  requireConfirmation: HandlerContext['requireConfirmation']
}

const isHubSetting = (k: string): boolean => (HUB_SETTING_KEYS as readonly string[]).includes(k)

function split(patch: SettingsPatch): { hub: SettingsPatch; local: SettingsPatch } {
  const hub: Record<string, unknown> = {}
  const local: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(patch)) (isHubSetting(k) ? hub : local)[k] = v
  return { hub: hub as SettingsPatch, local: local as SettingsPatch }
}

/** secrets:test for a Team profile: asks each of its hubs who the token belongs to. */
export async function testTeamProfile(
  profile: Profile,
  token: () => Promise<string>,
  now: () => number
): Promise<ChannelOutput<'secrets:test'>> {
  const started = now()
  const urls = [profile.baseUrl, ...(profile.fallbackUrls ?? [])]
  try {
    for (const url of urls) checkHubUrl(url)
  } catch (e) {
    const info = (e as HubCallError).info
    return { ok: false, latencyMs: null, message: info.message, error: info }
  }
  const answers: Array<{ url: string; env: Envelope<unknown> }> = []
  for (const url of urls) {
    const connection = new HubConnection({ hubUrl: url, token, onEvent: () => undefined })
    try {
      answers.push({ url, env: await connection.call('team:access', {}) })
    } finally {
      await connection.close()
    }
  }
  const good = answers.find((a) => a.env.ok)
  // With several hubs, each one's answer: an operator sees which of them would not serve.
  const others =
    urls.length > 1
      ? answers
          .filter((a) => a !== good)
          .map((a) => ` The hub at ${a.url} ${a.env.ok ? 'answers too' : `does not: ${a.env.error.message}`}.`)
          .join('')
      : ''
  if (good) {
    const a = good.env.ok ? (good.env.value as ChannelOutput<'team:access'>) : null
    return {
      ok: true,
      latencyMs: now() - started,
      message: `Connected to the team hub at ${good.url} as ${a?.team?.operator} (${a?.team?.role}).${others}`,
      error: null
    }
  }
  const first = answers[0]!.env as Extract<Envelope<unknown>, { ok: false }>
  const message =
    first.error.kind === 'unauthorized'
      ? `The team hub refused this operator token: ${first.error.message}. Ask the hub's admin for a new one.`
      : explainError(first.error as ApiErrorInfo)
  return { ok: false, latencyMs: null, message: message + others, error: first.error }
}

export function routeTeam(local: ContractHandlers, r: TeamRouterContext): ContractHandlers {
  const routed: Record<string, (input: never) => Promise<unknown>> = {}
  for (const channel of channelNames) {
    const own = local[channel] as (input: unknown) => Promise<unknown>
    const access = channelAccess(channel)
    routed[channel] = async (input: unknown) => {
      const team = r.team()
      if (!team) return own(input)
      if (access === 'desktop') return own(input)
      return team.call(channel as ChannelName, input)
    }
  }
  const h = routed as unknown as ContractHandlers

  const composed: Partial<ContractHandlers> = {
    'app:info': async (input) => {
      const team = r.team()
      if (!team) return local['app:info'](input)
      // This app's version and shell, the Team profile, and the skew of the hub's clock to the service's.
      const hub = await team.call('app:info', {}).catch(() => null)
      return {
        version: r.version,
        platform: process.platform,
        shell: r.shellKind,
        profile: team.profile,
        clockSkewMs: hub?.clockSkewMs ?? null,
        locale: r.shell.locale?.() ?? null
      }
    },
    'settings:get': async (input) => {
      const team = r.team()
      const mine = r.settings.get()
      if (!team) return local['settings:get'](input)
      const hub = await team.call('settings:get', {}).catch(() => null)
      if (!hub) return mine
      return { ...mine, ...Object.fromEntries(HUB_SETTING_KEYS.map((k) => [k, hub[k]])) } as Settings
    },
    'settings:update': async (patch) => {
      const team = r.team()
      if (!team) return local['settings:update'](patch)
      const { hub, local: own } = split(patch)
      // The team's half first: a role that may not change it changes nothing.
      const hubNext = Object.keys(hub).length ? await team.call('settings:update', hub) : null
      const before = r.settings.get()
      const next = Object.keys(own).length ? r.settings.update(own) : before
      if (own.startAtLogin !== undefined && own.startAtLogin !== before.startAtLogin) await r.shell.setStartAtLogin(next.startAtLogin)
      return hubNext ? ({ ...next, ...Object.fromEntries(HUB_SETTING_KEYS.map((k) => [k, hubNext[k]])) } as Settings) : next
    },
    'tickers:get': async (input) => {
      const team = r.team()
      if (!team) return local['tickers:get'](input)
      const snap = await team.call('tickers:get', input)
      // The fiat the windows open on next time, as outside a team.
      if (r.settings.get().tickerFiat !== input.fiatType) r.settings.update({ tickerFiat: input.fiatType })
      return snap
    },
    'tickers:visibility': async (input) => {
      const team = r.team()
      if (!team) return local['tickers:visibility'](input)
      await team.setTickersVisible(input.view, input.visible)
      return { ok: true }
    },
    'webhooks:setUrl': async (input) => {
      const team = r.team()
      if (!team) return local['webhooks:setUrl'](input)
      // The hub's receiver is the whole team's (and, on a live service, the merchant's
      // production webhooks): its admin confirms here, on this desktop, where the window
      // cannot answer for them, whatever service the hub runs on; the hub then checks the
      // role. (A role without the channel is not asked: the hub refuses it, and says which role may.)
      if (!(await team.teamAccess()).channels.includes('webhooks:setUrl')) return team.call('webhooks:setUrl', input)
      const [info, previous] = await Promise.all([team.call('app:info', {}), team.call('webhooks:lastUrl', {}).catch(() => null)])
      const live = info.profile.kind !== 'sandbox'
      await r.requireConfirmation({
        change: 'webhookUrl',
        title: live ? 'Change the production webhook URL' : "Change the team hub's webhook URL",
        message: `The ${live ? 'live service' : 'sandbox'} behind the team hub at ${team.profile.baseUrl} will send the webhooks of every order to ${input.url}.`,
        detail: previous?.url
          ? `It replaces ${previous.url}, set through the hub on ${new Date(previous.at ?? 0).toISOString()}.`
          : 'The URL it replaces is not known: none was set through the hub.',
        confirmLabel: live ? 'Set the production URL' : 'Set the URL'
      })
      const done = await team.call('webhooks:setUrl', input)
      // A hub of an older version does not say which URL it replaced: the one it named before.
      return done.replaced ? done : { ...done, replaced: previous ?? { url: null, at: null } }
    },
    'app:wake': async (input) => {
      const team = r.team()
      if (!team) return local['app:wake'](input)
      // The hub polls for the team; what this desktop can do on waking is reopen its line at once.
      const wasDown = !team.connection.connected
      team.connection.reconnectNow()
      return { refetched: wasDown }
    },
    'team:access': async (input) => {
      const team = r.team()
      return team ? team.teamAccess() : local['team:access'](input)
    },
    'team:proveSecondFactor': async (input) => {
      const team = r.team()
      return team ? team.proveSecondFactor(input.code) : local['team:proveSecondFactor'](input)
    },
    'profiles:create': async (input) => {
      // Refused before it is saved: a token must not travel to a hub in clear.
      if (input.kind === 'team') for (const url of [input.baseUrl, ...(input.fallbackUrls ?? [])]) checkHubUrl(url)
      return local['profiles:create'](input)
    },
    'secrets:test': async (input) => {
      const profile = r.profiles.get(input.profileId)
      if (profile?.kind !== 'team') return local['secrets:test'](input)
      return testTeamProfile(profile, () => r.tokenFor(profile), r.now)
    },
    'orders:export': async (input) => {
      const team = r.team()
      if (!team) return local['orders:export'](input)
      return exportFromHub({
        connection: team.connection,
        input,
        dir: r.exportDir,
        at: r.now(),
        onProgress: (p) => r.emit('export:progress', p)
      })
    }
  }
  return { ...h, ...composed }
}
