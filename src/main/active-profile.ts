// The active profile and what runs for it: a ProfileSession (sandbox and live profiles,
// with the embedded simulator started for the sandbox one) or, for a Team profile, the
// line to its hub. Switches and shutdown run one at a time, and calls wait for a switch
// to finish; the events of a replaced session are dropped, so nothing of the old profile
// is shown. A profile that cannot open leaves the app on the sandbox profile, then the
// error is reported. Which windows show tickers is kept across switches.
import { randomUUID } from 'node:crypto'
import type { AppSettings } from './app-settings'
import { ProfileSession, type SandboxOptions } from './profile-session'
import { SANDBOX_PROFILE_ID, transportProblem, type ProfileStore } from './profiles/profile-store'
import type { SecretStore } from './secrets/secret-store'
import { orderNotification, stalledNotification } from './notification-policy'
import { StalledNotices } from './alerts/stalled-notices'
import type { ShellPort } from './handlers/context'
import type { EventBus } from './event-bus'
import { logError } from './logging/log-lines'
import type { Log } from './logging/logger'
import { TeamSession, type TeamSessionOptions } from './team/team-session'
import { TeamCredentials } from './team/team-credentials'
import { startSandbox, type Sandbox } from '../sandbox'
import type { EventName, EventPayload, Profile, TickerView } from '../shared/ipc/contract'
import { ApiError } from '../shared/api/errors'

export interface ActiveProfileOptions {
  profiles: ProfileStore
  secrets: SecretStore
  settings: AppSettings
  shell: ShellPort
  emit: EventBus['emit']
  log: Log
  now: () => number
  version: string
  sandbox?: SandboxOptions
  /** How a Team profile connects to its hub (tests: reconnect pauses, a CA). */
  team?: TeamSessionOptions['connection']
}

/** A live or team profile saved over plain http before https was required: nothing of it goes on the wire. */
function assertTransport(profile: Profile): void {
  const problem = transportProblem(profile)
  if (problem)
    throw new ApiError({ kind: 'invalid_request', message: `profile "${profile.name}" cannot connect: ${problem}`, retryable: false })
}

export class ActiveProfile {
  /** Windows that show tickers: a window does not say so again when the profile changes under it. */
  readonly tickerViews = new Set<TickerView>()
  private simulator: Sandbox | null = null
  /** Names the simulator's run: its orders are its own (store/sandbox-run.ts). */
  private sandboxRun = ''
  private current: ProfileSession | null = null
  private hub: TeamSession | null = null
  private generation = 0
  private switching: Promise<unknown> = Promise.resolve()
  /** Team profiles' pasted tokens and sessions from the identity provider (renewed as they lapse). */
  readonly credentials: TeamCredentials

  constructor(private readonly o: ActiveProfileOptions) {
    this.credentials = new TeamCredentials({
      secrets: o.secrets,
      now: o.now,
      dispatcher: o.team?.dispatcher,
      onRenewed: (id) => (this.hub?.profile.id === id ? this.hub.connection.tokenRenewed() : undefined),
      // Left unkept, the next start would present a replaced refresh token and be signed out.
      onSaveFailed: (id, e) => logError(o.log, 'renewed sign-in could not be kept in the secret store', e, { profile: id })
    })
  }

  /** The embedded simulator, once the sandbox profile has started it. */
  sandbox(): Sandbox | null {
    return this.simulator
  }

  /** The active profile's session; throws on a Team profile (its hub has the session) and before the start. */
  session(): ProfileSession {
    if (!this.current) throw new Error('Rampdesk is not started')
    return this.current
  }

  /** The session as it is now: null during a switch and on a Team profile. */
  peek(): ProfileSession | null {
    return this.current
  }

  /** The session once any switch in progress has finished. */
  ready(): Promise<ProfileSession> {
    return this.switching.then(() => this.session())
  }

  /** The active Team profile's line to its hub, or null. */
  team(): TeamSession | null {
    return this.hub
  }

  /** The API secret a profile signs with (the simulator's for the sandbox profile). */
  async secretFor(profile: Profile): Promise<string> {
    if (profile.kind === 'sandbox') return (await this.ensureSandbox()).apiSecret
    assertTransport(profile)
    const s = await this.o.secrets.get(profile.id)
    if (!s)
      throw new ApiError({ kind: 'missing_secret', message: `no API secret is stored for profile "${profile.name}"`, retryable: false })
    return s
  }

  /**
   * A Team profile's operator token (or its session's access token), stored where a live profile
   * keeps its secret. `refused`: the token a hub just refused (a session's is renewed past it).
   */
  async tokenFor(profile: Profile, refused?: string): Promise<string> {
    const s = await this.credentials.tokenFor(profile, refused)
    if (!s)
      throw new ApiError({
        kind: 'missing_secret',
        message: `no operator token is stored for the Team profile "${profile.name}": paste the one the hub's admin gave you under Credentials`,
        retryable: false
      })
    return s
  }

  switchTo(id: string): Promise<Profile> {
    return this.serially(async () => {
      const { profiles, log, emit } = this.o
      const profile = profiles.get(id)
      if (!profile) throw new Error(`no profile ${id}`)
      await this.closeSessions()
      await profiles.setActive(id)
      let session: ProfileSession | null = null
      try {
        if (profile.kind === 'team') this.hub = await this.openTeam(profile)
        else session = this.current = await this.openSession(profile)
      } catch (e) {
        logError(log, 'profile could not open', e, { profile: id })
        // Never leave the app without a session: fall back to the sandbox, then report.
        if (id === SANDBOX_PROFILE_ID) throw e
        await profiles.setActive(SANDBOX_PROFILE_ID)
        this.current = await this.openSession(profiles.get(SANDBOX_PROFILE_ID)!)
        await this.current.start()
        emit('profile:changed', profiles.get(SANDBOX_PROFILE_ID)!)
        throw e
      }
      log.info('profile active', { profile: profile.id, kind: profile.kind })
      if (session) {
        session.store.audit.append('profile.activate', { to: profile.id, name: profile.name })
        await session.start()
        for (const view of this.tickerViews) session.tickers.setVisible(view, true)
      } else for (const view of this.tickerViews) void this.hub?.setTickersVisible(view, true).catch(() => undefined)
      emit('profile:changed', profile)
      return profile
    })
  }

  /** Closes the session (or the hub's line) and the simulator. */
  close(): Promise<void> {
    return this.serially(async () => {
      await this.closeSessions()
      await this.simulator?.close()
      this.simulator = null
    })
  }

  private serially<T>(step: () => Promise<T>): Promise<T> {
    const run = this.switching.then(step)
    this.switching = run.catch(() => undefined)
    return run
  }

  private async closeSessions(): Promise<void> {
    const old = this.current
    const oldTeam = this.hub
    this.current = null
    this.hub = null
    this.generation++
    await old?.close()
    await oldTeam?.close()
  }

  private async ensureSandbox(): Promise<Sandbox> {
    if (!this.simulator) {
      this.simulator = await startSandbox({ ...this.o.sandbox, host: '127.0.0.1', port: 0 })
      this.sandboxRun = randomUUID()
    }
    return this.simulator
  }

  /** The events of one session: dropped once it has been replaced. Order changes and newly stalled orders may notify. */
  private sessionEmit(gen: number) {
    const stalled = new StalledNotices()
    return <E extends EventName>(event: E, payload: EventPayload<E>): void => {
      if (gen !== this.generation) return
      this.o.emit(event, payload)
      if (event === 'alerts:changed') {
        // Each stalled order once, whether this desktop or its hub raised it.
        const fresh = stalled.take(payload as EventPayload<'alerts:changed'>)
        if (this.o.settings.get().notify.needsAttention) for (const a of fresh) this.o.shell.notify(stalledNotification(a))
        return
      }
      if (event !== 'order:changed') return
      const n = orderNotification(this.o.settings.get().notify, payload as EventPayload<'order:changed'>)
      if (n) this.o.shell.notify(n)
    }
  }

  private openTeam(profile: Profile): Promise<TeamSession> {
    return TeamSession.open({
      profile,
      token: (refused) => this.tokenFor(profile, refused),
      emit: this.sessionEmit(++this.generation),
      connection: this.o.team
    })
  }

  private async openSession(profile: Profile): Promise<ProfileSession> {
    assertTransport(profile)
    const gen = ++this.generation
    const sb = profile.kind === 'sandbox' ? await this.ensureSandbox() : null
    return ProfileSession.open({
      profile: sb ? { ...profile, baseUrl: sb.url, apiKey: sb.apiKey, serviceName: sb.serviceName } : profile,
      dir: this.o.profiles.databaseDir(profile.id),
      settings: this.o.settings.get(),
      getSecret: () => this.secretFor(profile),
      appVersion: this.o.version,
      now: this.o.now,
      log: this.o.log.child({ profile: profile.id }),
      emit: this.sessionEmit(gen),
      ...(sb ? { sandboxRun: this.sandboxRun } : {})
    })
  }
}
