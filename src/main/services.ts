// The main process's services behind the IPC contract, with no knowledge of Electron:
// the state (profiles, keychain, settings, the active profile's session and, for the
// sandbox profile, the embedded simulator), the profile switch, the event bus and
// shutdown. Each contract namespace's handlers live in src/main/handlers/. Both shells
// (src/main/electron, src/web) serve `handlers` and forward `subscribe`; tests drive it.
import { AppSettings } from './app-settings'
import { ProfileSession, type SandboxOptions } from './profile-session'
import { ProfileStore, SANDBOX_PROFILE_ID, transportProblem } from './profiles/profile-store'
import { KEYCHAIN_SERVICES, SecretStore, type SafeStorageLike } from './secrets/secret-store'
import type { AuditAction } from './store/audit-log-repo'
import { orderNotification } from './notification-policy'
import { headlessShell, type HandlerContext, type ShellPort } from './handlers/context'
import { appHandlers } from './handlers/app'
import { profileHandlers } from './handlers/profiles'
import { secretHandlers } from './handlers/secrets'
import { settingsHandlers } from './handlers/settings'
import { configHandlers } from './handlers/config'
import { tickerHandlers } from './handlers/tickers'
import { quoteHandlers } from './handlers/quotes'
import { orderHandlers } from './handlers/orders'
import { syncHandlers } from './handlers/sync'
import { diagnosticsHandlers } from './handlers/diagnostics'
import { webhookHandlers } from './handlers/webhooks'
import { auditHandlers } from './handlers/audit'
import { createEventBus, type EventListener } from './event-bus'
import { openServicesLog, type ServicesLogOption } from './logging/services-log'
import { logError } from './logging/log-lines'
import { withErrorLog } from './logging/logged-handlers'
import type { Log } from './logging/logger'
import { trayHandlers } from './handlers/tray'
import { confirmHandlers } from './handlers/confirm'
import { NotConfirmedError, TypedConfirmations, type ConfirmationPrompt } from './confirmations'
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
  /** The support log under <dataDir>/logs (level: RAMPDESK_LOG_LEVEL, else info); false for none. */
  logging?: ServicesLogOption
  /**
   * Where a shell without a native dialog (shell.confirm) shows the one-time codes of
   * typed confirmations: the browser harness prints them in its terminal. With neither,
   * every change that needs confirming is refused.
   */
  confirmationCodes?: { show(line: string): void; shownIn: string }
  /** How a Team profile connects to its hub (tests: reconnect pauses, a CA). */
  team?: TeamSessionOptions['connection']
}

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
  /** The support log (silent when the services run without one). */
  log: Log
}

export async function createServices(o: ServicesOptions): Promise<Services> {
  const now = o.now ?? Date.now
  const bus = createEventBus()
  const openedUrls: string[] = []
  const support = await openServicesLog(o)
  const log = support.log
  const settings = new AppSettings(o.dataDir)
  const secrets = new SecretStore({
    userDataDir: o.dataDir,
    safeStorage: o.safeStorage ?? null,
    allowPlaintext: () => settings.get().allowPlaintextSecrets,
    service: KEYCHAIN_SERVICES[o.shellKind]
  })
  const profiles = await ProfileStore.open({ dataDir: o.dataDir, secrets })
  // Keychain entries of the first naming move to this shell's; in the background, as reads also find them.
  const liveIds = profiles
    .list()
    .filter((p) => p.kind === 'live')
    .map((p) => p.id)
  if (liveIds.length > 0) void secrets.migrateLegacy(liveIds)
  const typedConfirmations = new TypedConfirmations({
    emit: (event, payload) => emit(event, payload),
    show: o.confirmationCodes?.show,
    shownIn: o.confirmationCodes?.shownIn,
    now
  })
  const shell: ShellPort = { ...headlessShell(openedUrls, typedConfirmations.confirm), ...o.shell }

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

  const emit = bus.emit
  async function ensureSandbox(): Promise<Sandbox> {
    sandbox ??= await startSandbox({ ...o.sandbox, host: '127.0.0.1', port: 0 })
    return sandbox
  }

  /** A live profile saved over plain http before https was required: nothing of it goes on the wire. */
  function assertTransport(profile: Profile): void {
    const problem = transportProblem(profile)
    if (problem)
      throw new ApiError({ kind: 'invalid_request', message: `profile "${profile.name}" cannot connect: ${problem}`, retryable: false })
  }

  async function secretFor(profile: Profile): Promise<string> {
    if (profile.kind === 'sandbox') return (await ensureSandbox()).apiSecret
    assertTransport(profile)
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
    assertTransport(profile)
    const gen = ++generation
    const sb = profile.kind === 'sandbox' ? await ensureSandbox() : null
    return ProfileSession.open({
      profile: sb ? { ...profile, baseUrl: sb.url, apiKey: sb.apiKey, serviceName: sb.serviceName } : profile,
      dir: profiles.databaseDir(profile.id),
      settings: settings.get(),
      getSecret: () => secretFor(profile),
      appVersion: o.version,
      now,
      log: log.child({ profile: profile.id }),
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
        logError(log, 'profile could not open', e, { profile: id })
        // Never leave the app without a session: fall back to the sandbox, then report.
        if (id === SANDBOX_PROFILE_ID) throw e
        await profiles.setActive(SANDBOX_PROFILE_ID)
        current = await openSession(profiles.get(SANDBOX_PROFILE_ID)!)
        await current.start()
        emit('profile:changed', profiles.get(SANDBOX_PROFILE_ID)!)
        throw e
      }
      log.info('profile active', { profile: profile.id, kind: profile.kind })
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

  const audit = (action: AuditAction, detail: Record<string, unknown> = {}): void => void current?.store.audit.append(action, detail)

  /** Asks through the shell; the answer, either way, goes to the audit log. */
  async function requireConfirmation(prompt: ConfirmationPrompt): Promise<void> {
    const confirmed = await shell.confirm(prompt).catch(() => false)
    audit('security.confirmation', { change: prompt.change, confirmed, via: o.shell?.confirm ? 'dialog' : 'typed code' })
    if (!confirmed) throw new NotConfirmedError(prompt)
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
    audit,
    requireConfirmation,
    confirmations: typedConfirmations,
    emit,
    tickerViews,
    now,
    version: o.version,
    shellKind: o.shellKind,
    exportDir: o.exportDir,
    logDir: support.dir
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
    ...diagnosticsHandlers(context),
    ...webhookHandlers(context),
    ...auditHandlers(context),
    ...trayHandlers(context),
    ...confirmHandlers(context),
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
    shellKind: o.shellKind,
    requireConfirmation
  })

  return {
    handlers: withErrorLog(handlers, log),
    openedUrls,
    log,
    subscribe: bus.subscribe,
    async start() {
      await switchTo(profiles.active().id)
    },
    async close() {
      typedConfirmations.close()
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
      bus.clear()
      await support.close()
    },
    sandbox: () => sandbox,
    session: active,
    teamSession: () => team
  }
}
