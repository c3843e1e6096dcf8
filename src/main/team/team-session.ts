// The active Team profile: this desktop as one operator of a team hub. Every call the
// hub serves goes to it with the operator's token (from the keychain, like a secret);
// the hub's events come back on one stream and are emitted here as if this desktop's own
// services had produced them, so the windows, the tray and notifications work
// unchanged. While the hub cannot be reached, what was last seen is served marked stale
// (configuration, prices, sync states), and the sync states say why, so every view shows
// it is offline instead of failing to load; on reconnect they are refreshed.
import { liveBaseUrlProblem } from '../../shared/loopback'
import {
  channelNames,
  type ChannelName,
  type ChannelOutput,
  type Coverage,
  type ErrorInfo,
  type EventName,
  type EventPayload,
  type Profile,
  type SyncState,
  type TeamAccess,
  type TickerSnapshot,
  type TickerView
} from '../../shared/ipc/contract'
import { channelAccess, channelsOf } from '../../shared/ipc/team-access'
import { trayState } from '../tray-state'
import { offlineCoverage, offlineGapTexts, type OfflineInputs } from './offline-coverage'
import { HubConnection, type HubConnectionOptions } from './hub-connection'

/** A hub's answer that was an error, thrown so the shells answer it as the same envelope. */
export class HubCallError extends Error {
  readonly kind: string
  readonly retryable: boolean
  readonly httpStatus?: number
  constructor(readonly info: ErrorInfo) {
    super(info.message)
    this.name = 'HubCallError'
    this.kind = info.kind
    this.retryable = info.retryable
    this.httpStatus = info.httpStatus
  }

  /** The hub's answer as it came (with why a token was refused), for the envelope. */
  toInfo(): ErrorInfo {
    return this.info
  }
}

export interface TeamSessionOptions {
  profile: Profile
  /** The operator token, from the secret store; throws when none is stored. `refused`: the token a hub just refused. */
  token: (refused?: string) => Promise<string>
  emit: <E extends EventName>(event: E, payload: EventPayload<E>) => void
  /** For tests: an undici dispatcher, extra CA certificates, reconnect pauses. */
  connection?: Partial<
    Pick<
      HubConnectionOptions,
      'dispatcher' | 'ca' | 'minRetryMs' | 'maxRetryMs' | 'idleTimeoutMs' | 'connectTimeoutMs' | 'streamHeadersTimeoutMs'
    >
  >
}

/** Refuses a hub URL the token would travel to in clear. */
export function checkHubUrl(url: string): void {
  const problem = liveBaseUrlProblem(url)
  if (problem)
    throw new HubCallError({
      kind: 'invalid_request',
      message: `the team hub cannot be reached this way (the operator token would cross the network in clear): ${problem}`,
      retryable: false
    })
}

/** A scope the hub has not reported yet: stands in for the offline mark before the first sync:state. */
const NO_SYNC_YET: SyncState = {
  type: 1,
  fiatType: 1,
  cursor: null,
  lastSuccessAt: null,
  nextRunAt: null,
  lagMs: null,
  running: false,
  mode: null,
  progress: null,
  lastError: null,
  lastReconcileAt: null
}

export class TeamSession {
  private access: TeamAccess | null = null
  private readonly views = new Set<TickerView>()
  private readonly syncStates = new Map<string, SyncState>()
  private readonly lastTicks = new Map<number, TickerSnapshot>()
  private readonly cached = new Map<ChannelName, unknown>()
  /** The coverage the hub last reported (sync:coverage, coverage:changed): its gaps stay on show while it is away. */
  private lastCoverage: Coverage | null = null
  /** When the line to the hub was lost. */
  private offlineSince: number | null = null
  /** The fiat this desktop's tickers last asked for: the hub forgets it on a restart. */
  private lastFiat: number | null = null
  private closed = false
  /** Resyncs the hub asked for: each gives the scopes' write marks a new suffix. */
  private resyncs = 0

  private constructor(
    private readonly o: TeamSessionOptions,
    readonly connection: HubConnection
  ) {}

  get profile(): Profile {
    return this.o.profile
  }

  static async open(o: TeamSessionOptions): Promise<TeamSession> {
    for (const url of [o.profile.baseUrl, ...(o.profile.fallbackUrls ?? [])]) checkHubUrl(url)
    // Fails here, before anything connects, when no token is stored.
    await o.token()
    let session: TeamSession | null = null
    const connection = new HubConnection({
      hubUrl: o.profile.baseUrl,
      fallbackUrls: o.profile.fallbackUrls,
      token: o.token,
      ...o.connection,
      // The windows say which hub this desktop is on.
      onHubChange: () => session?.onHubChange(),
      onEvent: (event, payload) => session?.onHubEvent(event, payload),
      onResync: () => session?.onResync(),
      onState: (connected, error) => void session?.onState(connected, error)
    })
    session = new TeamSession(o, connection)
    connection.start()
    return session
  }

  /** Calls the hub; its error answers are thrown as they came, so the window sees the hub's words. */
  async call<C extends ChannelName>(channel: C, input: unknown): Promise<ChannelOutput<C>> {
    const env = await this.connection.call(channel, input)
    if (env.ok) {
      this.remember(channel, env.value)
      return env.value as ChannelOutput<C>
    }
    if (env.error.kind === 'hub_unreachable' || env.error.kind === 'access_revoked') {
      const offline = this.offlineAnswer(channel, input)
      if (offline !== undefined) return offline as ChannelOutput<C>
    }
    throw new HubCallError(env.error)
  }

  /**
   * Proves this desktop's session with a code the operator typed: sent to the hub in its
   * header on a read that only answers the second factor's state, so the hub's gate checks it
   * (and counts it against the lockout) and holds the session proven. Never kept here.
   */
  async proveSecondFactor(code: string): Promise<ChannelOutput<'team:proveSecondFactor'>> {
    const env = await this.connection.call('team:secondFactor', {}, undefined, code)
    if (!env.ok) throw new HubCallError(env.error)
    const status = env.value as ChannelOutput<'team:secondFactor'>
    // The hub takes six digits as an authenticator's code and anything else as a recovery code.
    return { by: /^\d{6}$/.test(code) ? 'totp' : 'recovery', recoveryCodesLeft: status.recoveryCodesLeft }
  }

  /** This operator on the hub (what was last known while it is unreachable). */
  async teamAccess(): Promise<TeamAccess> {
    const env = await this.connection.call('team:access', {})
    if (env.ok) this.access = env.value as TeamAccess
    return this.currentAccess()
  }

  currentAccess(): TeamAccess {
    const hubUrl = this.connection.hubUrl
    const known = this.access?.team
    return {
      team: {
        hubUrl,
        operator: known?.operator ?? '',
        role: known?.role ?? 'viewer',
        connected: this.connection.connected,
        line: this.connection.connected ? 'connected' : this.connection.refused ? 'revoked' : 'unreachable',
        ...(known?.expiresAt !== undefined ? { expiresAt: known.expiresAt } : {}),
        ...(this.connection.refused && this.connection.refusedReason ? { refusal: this.connection.refusedReason } : {})
      },
      // Until the hub has said, offer what every operator may do: the rest would only be refused.
      channels: [
        ...new Set([...channelNames.filter((c) => channelAccess(c) === 'desktop'), ...(this.access?.channels ?? channelsOf('viewer'))])
      ]
    }
  }

  /** A window shows or hides tickers: remembered, because the hub forgets it when the stream drops. */
  async setTickersVisible(view: TickerView, visible: boolean): Promise<void> {
    if (visible) this.views.add(view)
    else this.views.delete(view)
    await this.call('tickers:visibility', { view, visible })
  }

  private remember(channel: ChannelName, value: unknown): void {
    if (channel === 'tickers:get') {
      this.lastFiat = (value as TickerSnapshot).fiatType
      this.lastTicks.set(this.lastFiat, value as TickerSnapshot)
    } else if (channel === 'sync:state')
      for (const s of (value as { states: SyncState[] }).states) this.syncStates.set(`${s.type}:${s.fiatType}`, s)
    else if (channel === 'sync:coverage') this.lastCoverage = value as Coverage
    else if (channel === 'config:get' || channel === 'bank:get' || channel === 'budget:get' || channel === 'tray:state')
      this.cached.set(channel, value)
  }

  /** What an unreachable hub last said, marked stale; undefined when there is nothing to show. */
  private offlineAnswer(channel: ChannelName, input: unknown): unknown {
    switch (channel) {
      case 'config:get': {
        const c = this.cached.get(channel) as ChannelOutput<'config:get'> | undefined
        return c && { ...c, stale: true }
      }
      case 'bank:get': {
        const b = this.cached.get(channel) as ChannelOutput<'bank:get'> | undefined
        return b && { ...b, stale: true }
      }
      case 'budget:get':
        return this.cached.get(channel)
      case 'tray:state': {
        // Offline from the hub: say so, with the counts it last gave.
        const t = this.cached.get(channel) as ChannelOutput<'tray:state'> | undefined
        const sync = [...this.syncStates.values()].map((s) => this.offlineState(s))
        if (!sync.length) sync.push(this.offlineState(NO_SYNC_YET))
        // The gaps the hub last reported stay, after the one its absence is.
        return trayState({ sync, attention: t?.attention ?? 0, inProgress: t?.inProgress ?? 0, gaps: offlineGapTexts(this.offline()) })
      }
      case 'sync:coverage':
        return offlineCoverage(this.offline())
      case 'sync:state':
        return this.syncStates.size ? { states: [...this.syncStates.values()].map((s) => this.offlineState(s)) } : undefined
      case 'tickers:get': {
        const t = this.lastTicks.get((input as { fiatType: number }).fiatType)
        return t && this.staleTick(t)
      }
      default:
        return undefined
    }
  }

  private offline(): OfflineInputs {
    return { refused: this.connection.refused, since: this.offlineSince, last: this.lastCoverage }
  }

  private offlineError(): ErrorInfo {
    if (this.connection.refused)
      return {
        kind: 'access_revoked',
        message: this.connection.lastError ?? 'the team hub refused this operator token',
        retryable: false,
        ...(this.connection.refusedReason ? { reason: this.connection.refusedReason } : {})
      }
    return {
      kind: 'hub_unreachable',
      message: this.connection.lastError ?? `the team hub at ${this.connection.hubUrl} is unreachable`,
      retryable: true
    }
  }

  private offlineState(s: SyncState): SyncState {
    return { ...s, running: false, nextRunAt: null, mode: null, progress: null, lastError: this.offlineError() }
  }

  private staleTick(t: TickerSnapshot): TickerSnapshot {
    return { ...t, nextRefreshAt: null, error: this.offlineError(), rows: t.rows.map((r) => ({ ...r, stale: true })) }
  }

  private onHubEvent(event: EventName, payload: unknown): void {
    if (this.closed) return
    if (event === 'sync:state') {
      const s = payload as SyncState
      this.syncStates.set(`${s.type}:${s.fiatType}`, s)
    } else if (event === 'ticker:tick') {
      const t = payload as EventPayload<'ticker:tick'>
      this.lastTicks.set(t.fiatType, { ...t, error: null })
    } else if (event === 'config:updated') this.cached.set('config:get', payload)
    else if (event === 'budget:changed') this.cached.set('budget:get', payload)
    else if (event === 'coverage:changed') this.lastCoverage = payload as Coverage
    this.o.emit(event, payload as never)
  }

  /**
   * The hub sent `resync` instead of the order changes this desktop missed: every scope is
   * announced again with a write mark of its own, which makes each orders window read its
   * rows afresh (lib/sync-writes.ts), and the tray reads its counts again.
   */
  private onResync(): void {
    if (this.closed) return
    this.resyncs++
    for (const s of this.syncStates.values()) this.o.emit('sync:state', { ...s, writeMark: `${s.writeMark ?? ''}~resync${this.resyncs}` })
  }

  private onHubChange(): void {
    if (!this.closed) this.o.emit('team:access', this.currentAccess())
  }

  private async onState(connected: boolean, _error: string | null): Promise<void> {
    if (this.closed) return
    if (!connected) {
      this.offlineSince ??= Date.now()
      // Offline marks: every scope says why it is not syncing, every price is stale, and
      // the coverage says its completeness cannot be known (with the hub's last gaps).
      for (const s of this.syncStates.values()) this.o.emit('sync:state', this.offlineState(s))
      const coverage = offlineCoverage(this.offline())
      if (coverage) this.o.emit('coverage:changed', coverage)
      for (const t of this.lastTicks.values()) this.o.emit('ticker:tick', this.staleTick(t))
      this.o.emit('team:access', this.currentAccess())
      return
    }
    this.offlineSince = null
    // Back: the hub forgot this desktop's windows when the stream dropped; say them again,
    // then bring the marks up to date.
    for (const view of this.views) void this.connection.call('tickers:visibility', { view, visible: true })
    if (this.lastFiat !== null) {
      const t = await this.connection.call('tickers:get', { fiatType: this.lastFiat })
      if (t.ok && !this.closed) this.onHubEvent('ticker:tick', t.value)
    }
    this.o.emit('team:access', await this.teamAccess())
    const states = await this.connection.call('sync:state', {})
    if (states.ok && !this.closed) for (const s of (states.value as { states: SyncState[] }).states) this.onHubEvent('sync:state', s)
    const budget = await this.connection.call('budget:get', {})
    if (budget.ok && !this.closed) this.onHubEvent('budget:changed', budget.value)
    const coverage = await this.connection.call('sync:coverage', {})
    if (coverage.ok && !this.closed) this.onHubEvent('coverage:changed', coverage.value)
  }

  async close(): Promise<void> {
    this.closed = true
    await this.connection.close()
  }
}
