// The main process's services behind the IPC contract, with no knowledge of Electron:
// the state (settings, keychain, profiles, the active profile in active-profile.ts), the
// confirmations, the event bus and shutdown. Each contract namespace's handlers live in
// src/main/handlers/ (handlers/all.ts puts them together); a Team profile's channels go to
// its hub (team/team-routing.ts). Both shells (src/main/electron, src/web) serve
// `handlers` and forward `subscribe`; tests drive it.
import { LastLooked } from './activity/last-looked'
import { AppSettings } from './app-settings'
import type { SandboxOptions, ProfileSession } from './profile-session'
import { ProfileStore } from './profiles/profile-store'
import { KEYCHAIN_SERVICES, SecretStore, type SafeStorageLike } from './secrets/secret-store'
import type { AuditAction } from './store/audit-log-repo'
import { headlessShell, type HandlerContext, type ShellPort } from './handlers/context'
import { allHandlers } from './handlers/all'
import { ActiveProfile } from './active-profile'
import { createEventBus, type EventListener } from './event-bus'
import { openServicesLog, type ServicesLogOption } from './logging/services-log'
import { withErrorLog } from './logging/logged-handlers'
import type { Log } from './logging/logger'
import { NotConfirmedError, TypedConfirmations, type ConfirmationPrompt } from './confirmations'
import type { TeamSession, TeamSessionOptions } from './team/team-session'
import { routeTeam } from './team/team-routing'
import type { RedirectOutcome } from './team/team-credentials'
import type { Sandbox } from '../sandbox'
import type { ContractHandlers, ShellKind } from '../shared/ipc/contract'

export interface ServicesOptions {
  dataDir: string
  exportDir: string
  version: string
  shellKind: ShellKind
  safeStorage?: SafeStorageLike
  /** false: never use an OS keychain (a machine without a Secret Service, for tests). */
  keychain?: false
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
  /** A shell without a system browser (the harness): where a sign-in's page comes back, and its return. */
  signInReturn: {
    setRedirectUri(uri: string | null): void
    finish(query: URLSearchParams): Promise<RedirectOutcome>
  }
}

export async function createServices(o: ServicesOptions): Promise<Services> {
  const now = o.now ?? Date.now
  const bus = createEventBus()
  const emit = bus.emit
  const openedUrls: string[] = []
  const support = await openServicesLog(o)
  const log = support.log
  const settings = new AppSettings(o.dataDir)
  const secrets = new SecretStore({
    userDataDir: o.dataDir,
    safeStorage: o.safeStorage ?? null,
    allowPlaintext: () => settings.get().allowPlaintextSecrets,
    service: KEYCHAIN_SERVICES[o.shellKind],
    ...(o.keychain === false ? { keytar: null } : {})
  })
  const profiles = await ProfileStore.open({ dataDir: o.dataDir, secrets })
  // Keychain entries of the first naming move to this shell's; in the background, as reads also find them.
  const keyedIds = profiles
    .list()
    .filter((p) => p.kind !== 'sandbox')
    .map((p) => p.id)
  if (keyedIds.length > 0) void secrets.migrateLegacy(keyedIds)
  const typedConfirmations = new TypedConfirmations({
    emit,
    show: o.confirmationCodes?.show,
    shownIn: o.confirmationCodes?.shownIn,
    now
  })
  const shell: ShellPort = { ...headlessShell(openedUrls, typedConfirmations.confirm, emit), ...o.shell }

  const active = new ActiveProfile({
    profiles,
    secrets,
    settings,
    shell,
    emit,
    log,
    now,
    version: o.version,
    sandbox: o.sandbox,
    team: o.team
  })

  const audit = (action: AuditAction, detail: Record<string, unknown> = {}): void => void active.peek()?.store.audit.append(action, detail)

  /** Asks through the shell; the answer, either way, goes to the audit log. */
  async function requireConfirmation(prompt: ConfirmationPrompt): Promise<void> {
    const confirmed = await shell.confirm(prompt).catch(() => false)
    audit('security.confirmation', { change: prompt.change, confirmed, via: o.shell?.confirm ? 'dialog' : 'typed code' })
    if (!confirmed) throw new NotConfirmedError(prompt)
  }

  let signInRedirect: string | null = null
  const context: HandlerContext = {
    ready: () => active.ready(),
    activeProfile: () => profiles.active(),
    switchTo: (id) => active.switchTo(id),
    secretFor: (p) => active.secretFor(p),
    profiles,
    secrets,
    settings,
    shell,
    audit,
    requireConfirmation,
    confirmations: typedConfirmations,
    emit,
    tickerViews: active.tickerViews,
    now,
    version: o.version,
    shellKind: o.shellKind,
    exportDir: o.exportDir,
    logDir: support.dir,
    lastLooked: new LastLooked(o.dataDir),
    teamSignIn: { credentials: active.credentials, redirectUri: () => signInRedirect, dispatcher: o.team?.dispatcher }
  }

  // With a Team profile active, the hub answers what it serves.
  const handlers = routeTeam(allHandlers(context), {
    team: () => active.team(),
    profiles,
    settings,
    shell,
    tokenFor: (p) => active.tokenFor(p),
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
      await active.switchTo(profiles.active().id)
    },
    async close() {
      typedConfirmations.close()
      await active.close()
      bus.clear()
      await support.close()
    },
    sandbox: () => active.sandbox(),
    session: () => active.session(),
    teamSession: () => active.team(),
    signInReturn: {
      setRedirectUri: (uri) => void (signInRedirect = uri),
      async finish(query) {
        const r = await active.credentials.finishRedirect(query, (id) => profiles.get(id))
        if (r.kind === 'signed-in') {
          audit('secret.set', { profileId: r.profileId, via: 'sign-in through the identity provider' })
          await active.switchTo(r.profileId)
        }
        return r
      }
    }
  }
}
