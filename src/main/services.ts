// The main process's services behind the IPC contract, with no knowledge of Electron:
// the state (profiles, keychain, settings, the active profile's session and, for the
// sandbox profile, the embedded simulator), the profile switch, the event bus and
// shutdown. Each contract namespace's handlers live in src/main/handlers/. Both shells
// (src/main/electron, src/web) serve `handlers` and forward `subscribe`; tests drive it.
import { AppSettings } from './app-settings'
import { ProfileSession, type SandboxOptions } from './profile-session'
import { ProfileStore, SANDBOX_PROFILE_ID } from './profiles/profile-store'
import { SecretStore, type SafeStorageLike } from './secrets/secret-store'
import type { AuditAction } from './store/audit-log-repo'
import { orderNotification } from './notification-policy'
import type { HandlerContext, ShellPort } from './handlers/context'
import { appHandlers } from './handlers/app'
import { profileHandlers } from './handlers/profiles'
import { secretHandlers } from './handlers/secrets'
import { settingsHandlers } from './handlers/settings'
import { configHandlers } from './handlers/config'
import { tickerHandlers } from './handlers/tickers'
import { quoteHandlers } from './handlers/quotes'
import { orderHandlers } from './handlers/orders'
import { syncHandlers } from './handlers/sync'
import { webhookHandlers } from './handlers/webhooks'
import { auditHandlers } from './handlers/audit'
import { teamHandlers } from './handlers/team'
import { TeamSession, type TeamSessionOptions } from './team/team-session'
import { routeTeam } from './team/team-routing'
import { startSandbox, type Sandbox } from '../sandbox'
import type { ContractHandlers, EventName, EventPayload, Profile, ShellKind, TickerView } from '../shared/ipc/contract'
import { ApiError } from '../shared/api/errors'

export interface ServicesOptions {
  dataDir: string
  exportDir: string
  version: string
  shellKind: ShellKind
  safeStorage?: SafeStorageLike
  shell?: Partial<ShellPort>
  sandbox?: SandboxOptions
  now?: () => number
  /** How a Team profile connects to its hub (tests: reconnect pauses, a CA). */
  team?: TeamSessionOptions['connection']
}

export type EventListener = (event: EventName, payload: unknown) => void

export interface Services {
  handlers: ContractHandlers
  subscribe(listener: EventListener): () => void
  start(): Promise<void>
  close(): Promise<void>
  /** The embedded simulator (started with the sandbox profile), for tests and the demo. */
  sandbox(): Sandbox | null
  /** The active profile's session (tests and benchmarks). */
  session(): ProfileSession
  /** The active Team profile's line to its hub, or null (tests). */
  teamSession(): TeamSession | null
  /** URLs the web shell was asked to open (it has no system browser to hand them to). */
  openedUrls: string[]
}

export async function createServices(o: ServicesOptions): Promise<Services> {
  const now = o.now ?? Date.now
  const listeners = new Set<EventListener>()
  const openedUrls: string[] = []
  const settings = new AppSettings(o.dataDir)
  const secrets = new SecretStore({
    userDataDir: o.dataDir,
    safeStorage: o.safeStorage ?? null,
    allowPlaintext: () => settings.get().allowPlaintextSecrets
  })
  const profiles = await ProfileStore.open({ dataDir: o.dataDir, secrets })
  const shell: ShellPort = {
    openExternal: async (url) => void openedUrls.push(url),
    showMain: () => undefined,
    notify: () => undefined,
    setStartAtLogin: async () => undefined,
    ...o.shell
  }

  let sandbox: Sandbox | null = null
  let current: ProfileSession | null = null
  // A Team profile has no session of its own: its hub has it.
  let team: TeamSession | null = null
  let generation = 0
  // Profile switches and shutdown run one at a time; calls wait for the switch to finish.
  let switching: Promise<unknown> = Promise.resolve()
  // Windows that show tickers, kept across sessions: a window does not say so again
  // when the profile changes under it, and its prices must keep moving.
  const tickerViews = new Set<TickerView>()

  function emit<E extends EventName>(event: E, payload: EventPayload<E>): void {
    for (const l of listeners) {
      try {
        l(event, payload)
      } catch {
        // A failing listener (a closed window) must not stop the others.
      }
    }
  }

  async function ensureSandbox(): Promise<Sandbox> {
    sandbox ??= await startSandbox({ ...o.sandbox, host: '127.0.0.1', port: 0 })
    return sandbox
  }

  async function secretFor(profile: Profile): Promise<string> {
    if (profile.kind === 'sandbox') return (await ensureSandbox()).apiSecret
    const s = await secrets.get(profile.id)
    if (!s)
      throw new ApiError({ kind: 'missing_secret', message: `no API secret is stored for profile "${profile.name}"`, retryable: false })
    return s
  }

  /** The events of one session: dropped once it has been replaced, so nothing of the old profile is shown. */
  function sessionEmit(gen: number) {
    return <E extends EventName>(event: E, payload: EventPayload<E>): void => {
      if (gen !== generation) return
      emit(event, payload)
      if (event !== 'order:changed') return
      const n = orderNotification(settings.get().notify, payload as EventPayload<'order:changed'>)
      if (n) shell.notify(n)
    }
  }

  async function openSession(profile: Profile): Promise<ProfileSession> {
    const gen = ++generation
    const sb = profile.kind === 'sandbox' ? await ensureSandbox() : null
    return ProfileSession.open({
      profile: sb ? { ...profile, baseUrl: sb.url, apiKey: sb.apiKey, serviceName: sb.serviceName } : profile,
      dir: profiles.databaseDir(profile.id),
      settings: settings.get(),
      getSecret: () => secretFor(profile),
      now,
      emit: sessionEmit(gen)
    })
  }

  async function tokenFor(profile: Profile): Promise<string> {
    const s = await secrets.get(profile.id)
    if (!s)
      throw new ApiError({
        kind: 'missing_secret',
        message: `no operator token is stored for the Team profile "${profile.name}": paste the one the hub's admin gave you under Credentials`,
        retryable: false
      })
    return s
  }

  function active(): ProfileSession {
    if (!current) throw new Error('Rampdesk is not started')
    return current
  }

  async function switchTo(id: string): Promise<Profile> {
    const run = switching.then(async () => {
      const profile = profiles.get(id)
      if (!profile) throw new Error(`no profile ${id}`)
      const old = current
      const oldTeam = team
      current = null
      team = null
      generation++
      await old?.close()
      await oldTeam?.close()
      await profiles.setActive(id)
      let session: ProfileSession | null = null
      try {
        if (profile.kind === 'team')
          team = await TeamSession.open({ profile, token: () => tokenFor(profile), emit: sessionEmit(++generation), connection: o.team })
        else session = current = await openSession(profile)
      } catch (e) {
        // Never leave the app without a session: fall back to the sandbox, then report.
        if (id === SANDBOX_PROFILE_ID) throw e
        await profiles.setActive(SANDBOX_PROFILE_ID)
        current = await openSession(profiles.get(SANDBOX_PROFILE_ID)!)
        await current.start()
        emit('profile:changed', profiles.get(SANDBOX_PROFILE_ID)!)
        throw e
      }
      if (!session) {
        for (const view of tickerViews) void team?.setTickersVisible(view, true).catch(() => undefined)
        emit('profile:changed', profile)
        return profile
      }
      session.store.audit.append('profile.activate', { to: profile.id, name: profile.name })
      await session.start()
      for (const view of tickerViews) session.tickers.setVisible(view, true)
      emit('profile:changed', profile)
      return profile
    })
    switching = run.catch(() => undefined)
    return run
  }

  const context: HandlerContext = {
    ready: () => switching.then(active),
    activeProfile: () => profiles.active(),
    switchTo,
    secretFor,
    profiles,
    secrets,
    settings,
    shell,
    audit: (action: AuditAction, detail: Record<string, unknown> = {}) => void current?.store.audit.append(action, detail),
    emit,
    tickerViews,
    now,
    version: o.version,
    shellKind: o.shellKind,
    exportDir: o.exportDir
  }

  const localHandlers: ContractHandlers = {
    ...appHandlers(context),
    ...profileHandlers(context),
    ...secretHandlers(context),
    ...settingsHandlers(context),
    ...configHandlers(context),
    ...tickerHandlers(context),
    ...quoteHandlers(context),
    ...orderHandlers(context),
    ...syncHandlers(context),
    ...webhookHandlers(context),
    ...auditHandlers(context),
    ...teamHandlers()
  }
  // With a Team profile active, the hub answers what it serves.
  const handlers = routeTeam(localHandlers, {
    team: () => team,
    profiles,
    settings,
    shell,
    tokenFor,
    now,
    exportDir: o.exportDir,
    emit,
    version: o.version,
    shellKind: o.shellKind
  })

  return {
    handlers,
    openedUrls,
    subscribe(listener) {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
    async start() {
      await switchTo(profiles.active().id)
    },
    async close() {
      const run = switching.then(async () => {
        generation++
        const s = current
        const t = team
        current = null
        team = null
        await s?.close()
        await t?.close()
        await sandbox?.close()
        sandbox = null
      })
      switching = run.catch(() => undefined)
      await run
      listeners.clear()
    },
    sandbox: () => sandbox,
    session: active,
    teamSession: () => team
  }
}
