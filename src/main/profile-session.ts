// Everything that belongs to one active profile: its database, its API client (and so
// its rate budget and clock), the config cache, tickers, the order monitor, the
// optional webhook inbox and the pruning of its delivery log. Closing a session aborts
// whatever it has in flight and waits for it, so after a profile switch nothing of the
// old profile runs or is shown.
import type { SharedReads } from './api/shared-reads'
import type {
  Profile,
  Settings,
  EventName,
  EventPayload,
  BudgetEntry,
  InboxStatus,
  Diagnostics,
  ShellKind,
  SyncState
} from '../shared/ipc/contract'
import { limitedEndpoints } from '../shared/api/endpoints'
import { BudgetCarry } from './api/budget-carry'
import { sqliteCarryTable } from './store/budget-carry-table'
import { ApiClient } from './api/client'
import { ParamEncodings, type LearnedEncoding } from './api/param-encoding'
import { RateBudget, type LearnedLimit } from './api/rate-budget'
import { retryUnreadable } from './monitor/unreadable-retry'
import { ConfigCache } from './config/config-cache'
import { AlertTracker } from './alerts/alert-tracker'
import { inboxCompletions } from './alerts/unacknowledged-source'
import { openOrders } from './store/open-orders'
import { TickerService, type TickerHistoryStore } from './tickers/ticker-service'
import { AUDIT_EVERY_MS, monitorSchedule, OrderMonitor } from './monitor/order-monitor'
import { HistoryReadings } from './monitor/history-readings'
import { fiatIdsNamedBy } from './monitor/scope-discovery'
import { EndpointLog } from './diagnostics/endpoint-log'
import { buildDiagnostics } from './diagnostics/diagnostics'
import { ingestInto, startInbox, type RunningInbox } from './webhooks/inbox'
import { DeliveryLogPruner } from './webhooks/delivery-log-pruner'
import { GRAM_FILL_RETRY_MS, GramFiller } from './store/gram-filler'
import { keepSandboxRunApart } from './store/sandbox-run'
import { openLocalStore, type LocalStore } from './store/local-store'
import type { StartSandboxOptions } from '../sandbox'
import { silentLog, type Log } from './logging/logger'
import { SyncRunLog, logApiCall, logWebhook } from './logging/log-lines'

/** One wake reported by the OS and by every window's online event is refetched once. */
const WAKE_COALESCE_MS = 2_000

export type SandboxOptions = Omit<StartSandboxOptions, 'host' | 'port'>

export interface SessionOptions {
  profile: Profile
  /** The running Rampdesk's version (records an older one could not read are parsed again). */
  appVersion?: string
  dir: string
  settings: Settings
  getSecret: () => Promise<string>
  now: () => number
  emit: <E extends EventName>(event: E, payload: EventPayload<E>) => void
  /** The support log, its lines tagged with the profile. */
  log?: Log
  /** The sandbox profile: the run of the embedded simulator it talks to (a database of another run forgets its orders). */
  sandboxRun?: string
  /** A team hub among several on one database: the configuration and price reads are the leader's. */
  sharedReads?: SharedReads
  /**
   * Whether the request budget is carried over a restart in this profile's database
   * (default yes, but never for the sandbox profile). The hub says no: it carries its budget in its own store (hub.db or
   * PostgreSQL), which its other hubs share.
   */
  carryBudget?: boolean
}

export class ProfileSession {
  private inbox: RunningInbox | null = null
  private inboxError: string | null = null
  /** When the inbox started listening in this run (the completions it should have received are compared from then). */
  private inboxSince: number | null = null
  private readonly disposers: Array<() => void> = []
  /** The last call of each endpoint, for diagnostics. */
  private readonly endpointLog: EndpointLog
  private encodings!: ParamEncodings
  /** The delivery log is trimmed whether or not the inbox runs: it was filled while it did. */
  readonly deliveryPruner: DeliveryLogPruner
  /** Adds the orders held before the search's gram index existed to it (order-grams.ts). */
  readonly gramFiller: GramFiller
  private lastWakeAt: number | null = null

  private constructor(
    private readonly o: SessionOptions,
    private readonly log: Log,
    private readonly syncRuns: SyncRunLog,
    readonly store: LocalStore,
    readonly client: ApiClient,
    readonly config: ConfigCache,
    readonly tickers: TickerService,
    readonly monitor: OrderMonitor,
    readonly alerts: AlertTracker
  ) {
    this.endpointLog = new EndpointLog(o.now)
    this.deliveryPruner = new DeliveryLogPruner({
      repo: store.webhookDeliveries,
      retention: () => this.o.settings.inbox,
      now: o.now
    })
    this.gramFiller = new GramFiller({
      sql: store.database.sql,
      onFilled: ({ orders, ms }) => log.info(`search index: the ${orders} orders held before it were added in ${Math.round(ms / 1000)} s`),
      onError: (error) =>
        log.warn(`search index: a step of adding the orders held failed; trying again in ${GRAM_FILL_RETRY_MS / 1000} s`, {
          error: String(error)
        })
    })
  }

  get profile(): Profile {
    return this.o.profile
  }

  static async open(o: SessionOptions): Promise<ProfileSession> {
    const log = o.log ?? silentLog
    const syncRuns = new SyncRunLog(log, o.now)
    const store = openLocalStore(o.dir, { now: () => new Date(o.now()), appVersion: o.appVersion })
    if (o.sandboxRun !== undefined && keepSandboxRunApart(store, o.sandboxRun))
      log.info('the sandbox database held the orders of an earlier sandbox run: forgotten, this run syncs its own')
    const p = o.profile
    // What earlier sessions learned of this service (parameter typing, unknown limits) is
    // where this one starts.
    const facts = store.serviceFacts
    const encodings = new ParamEncodings(
      { load: () => facts.all<LearnedEncoding>('param'), save: (k, v) => facts.put('param', k, v) },
      o.now
    )
    const budget = new RateBudget({
      profileId: p.id,
      limits: { load: () => facts.all<LearnedLimit>('limit'), save: (k, v) => facts.put('limit', k, v) }
    })
    // Before anything is sent: what the last run spent within the minute still counts at
    // the service, so a restart soon after heavy use does not earn a 429.
    // (Not for the sandbox: its simulator starts afresh with the app and counts nothing.)
    let untrackBudget: (() => void) | null = null
    if (o.carryBudget !== false && o.sandboxRun === undefined) {
      const carry = new BudgetCarry(sqliteCarryTable(store.database.sql), o.now)
      const carried = await carry.restore(budget)
      if (carried) log.info(`carried ${carried} request slot${carried === 1 ? '' : 's'} of the last minute over from the previous run`)
      untrackBudget = carry.track(budget)
    }
    const client = new ApiClient({
      profileId: p.id,
      baseUrl: p.baseUrl,
      serviceName: p.serviceName,
      apiKey: p.apiKey,
      getSecret: o.getSecret,
      encodings,
      budget,
      sharedReads: o.sharedReads
    })
    retryUnreadable(store)
    let monitorRef: OrderMonitor | null = null
    let alertsRef: AlertTracker | null = null
    const config = new ConfigCache({
      client,
      now: o.now,
      store: store.configCache.forConfigCache(),
      onUpdate: (snap) => {
        o.emit('config:updated', snap)
        // A chain reported unwell or recovered flags or clears its open orders at once.
        alertsRef?.refresh()
        // New fiat ids in the configuration are probed for orders.
        monitorRef?.configChanged()
      },
      // The quote form's pre-check reads them for the fiat types the operator follows.
      coinLimitFiats: () => [...o.settings.fiatTypes, o.settings.tickerFiat]
    })
    const tickers = new TickerService({
      client,
      now: o.now,
      pollMs: o.settings.tickerPollSeconds * 1000,
      fiatType: o.settings.tickerFiat,
      store: tickerHistoryStore(store),
      onTick: (t) => o.emit('ticker:tick', t)
    })
    const monitor = new OrderMonitor({
      client,
      store,
      ...monitorSchedule(o.settings),
      // Every scope the service holds orders in, found, checked, audited and kept fresh: an order
      // missing from the table must be one the app can name as possibly missing.
      discover: { fiats: () => fiatIdsNamedBy(config.snapshot()) },
      auditEveryMs: AUDIT_EVERY_MS,
      readings: new HistoryReadings({ load: () => facts.all('history'), save: (k, v) => facts.put('history', k, v) }, o.now),
      probes: true,
      now: o.now,
      serviceNow: () => client.clock.now(),
      onEvent: (event, payload) => {
        if (event === 'sync:state') syncRuns.observe(payload as SyncState)
        o.emit(event, payload as never)
      }
    })
    monitorRef = monitor
    const alerts = new AlertTracker({
      openOrders: () => openOrders(store.database.sql),
      config: () => config.snapshot(),
      thresholds: () => o.settings.stalledMinutes,
      coverage: () => monitor.coverage(),
      now: o.now,
      changed: (list) => o.emit('alerts:changed', list),
      poll: () => config.revalidate()
    })
    alertsRef = alerts
    const s = new ProfileSession(o, log, syncRuns, store, client, config, tickers, monitor, alerts)
    // A team hub gives its own (its relay's log) in place of this one.
    alerts.useUnacknowledged(inboxCompletions({ sql: () => store.database.sql, listeningSince: () => s.inboxSince, now: o.now }))
    s.encodings = encodings
    s.disposers.push(client.onRequest((e) => s.endpointLog.record(e)))
    s.disposers.push(client.budget.onChange(() => o.emit('budget:changed', { entries: s.budgetEntries() })))
    s.disposers.push(client.onRequest((e) => logApiCall(log, e)))
    if (untrackBudget) s.disposers.push(untrackBudget)
    return s
  }

  /**
   * Starts the session's work. `monitor: false` leaves the order monitor (history sync,
   * watched-order polls, completeness work) stopped: a team hub that follows another starts
   * it only once it leads.
   */
  async start(o: { monitor?: boolean } = {}): Promise<void> {
    // Config first (from cache when fresh: no budget spent), then the monitor.
    void this.config.get().catch(() => undefined)
    if (o.monitor ?? true) this.monitor.start()
    this.deliveryPruner.start()
    this.gramFiller.start()
    this.alerts.start()
    if (this.o.settings.inbox.enabled) await this.startInbox(this.o.settings)
  }

  /**
   * The header's budget list: the six limited endpoints always, and any other endpoint
   * while the service has it blocked (a 429) or callers queue for it, so a storm on
   * order history is visible rather than a sync that looks merely slow.
   */
  budgetEntries(): BudgetEntry[] {
    const limited = new Set<string>(limitedEndpoints)
    return this.client.budget
      .snapshot()
      .endpoints.filter((e) => limited.has(e.endpoint) || e.blockedUntil !== null || e.queued > 0)
      .map((e) => ({ ...e, nextSlotAt: e.nextSlotAt ?? null }))
  }

  /** What the app knows of the service this profile talks to (the diagnostics view). */
  diagnostics(app: { version: string; platform: string; shell: ShellKind }): Diagnostics {
    return buildDiagnostics({
      now: this.o.now(),
      app,
      profile: this.o.profile,
      log: this.endpointLog,
      encodings: this.encodings.snapshot(),
      budget: this.client.budget.snapshot(),
      clock: this.client.clock.info(),
      serverTimeAvailable: this.client.serverTimeAvailable,
      sync: this.monitor.states(),
      unreadableOrders: this.store.unreadableOrders.count(),
      coverage: this.monitor.coverage()
    })
  }

  /**
   * The machine woke from sleep, the screen was unlocked or the network came back: what
   * the operator sees may be minutes old, so orders, watched orders, shown prices and stale
   * configuration are fetched at once. Several windows and OS events report one wake:
   * calls within WAKE_COALESCE_MS of the last are one.
   */
  wake(): boolean {
    const now = this.o.now()
    if (this.lastWakeAt !== null && now - this.lastWakeAt < WAKE_COALESCE_MS) return false
    this.lastWakeAt = now
    // The network may be back: what waits for the service finds out at once.
    this.client.probeNow()
    this.monitor.wake()
    this.tickers.wake()
    void this.config.revalidate().catch(() => undefined)
    return true
  }

  private async startInbox(settings: Settings): Promise<void> {
    await this.inbox?.close()
    this.inbox = null
    try {
      this.inbox = await startInbox({
        serviceName: this.o.profile.serviceName,
        host: settings.inbox.host,
        port: settings.inbox.port,
        getSecret: this.o.getSecret,
        deliveries: this.store.webhookDeliveries,
        now: this.o.now,
        // Payload timestamps are the service's time: check them against our estimate of its clock.
        serviceNow: () => this.client.clock.now(),
        onVerified: (w) => ingestInto(this.monitor, w, this.log),
        onDelivery: (d) => {
          logWebhook(this.log, d)
          this.o.emit('webhook:delivery', d)
        }
      })
      this.inboxError = null
      this.inboxSince ??= this.o.now()
      this.log.info('webhook inbox listening', { url: this.inbox.url, warning: this.inbox.warning })
    } catch (e) {
      this.inboxError = `the inbox could not listen on ${settings.inbox.host}:${settings.inbox.port}: ${(e as Error).message}`
      this.log.error('webhook inbox failed', { error: this.inboxError })
    }
  }

  inboxStatus(): InboxStatus {
    const enabled = this.o.settings.inbox.enabled
    return {
      enabled,
      listening: this.inbox !== null,
      url: this.inbox?.url ?? null,
      warning: this.inbox?.warning ?? null,
      error: enabled ? this.inboxError : null,
      refused: this.inbox?.refusals() ?? { rate: 0, connections: 0, origin: 0 }
    }
  }

  async applySettings(next: Settings, before: Settings): Promise<void> {
    this.o.settings = next
    // New thresholds raise or clear stalled orders now, not at the next look.
    if (JSON.stringify(next.stalledMinutes) !== JSON.stringify(before.stalledMinutes)) this.alerts.refresh()
    if (next.tickerPollSeconds !== before.tickerPollSeconds || next.tickerFiat !== before.tickerFiat) {
      this.tickers.configure({ pollMs: next.tickerPollSeconds * 1000, fiatType: next.tickerFiat })
    }
    if (
      next.historyPollSeconds !== before.historyPollSeconds ||
      next.watchPollSeconds !== before.watchPollSeconds ||
      next.reconcileHours !== before.reconcileHours ||
      next.freshnessMinutes !== before.freshnessMinutes ||
      next.fiatTypes.join() !== before.fiatTypes.join()
    ) {
      this.monitor.configure(monitorSchedule(next))
    }
    if (next.inbox.keepDays !== before.inbox.keepDays || next.inbox.keepDeliveries !== before.inbox.keepDeliveries) {
      void this.deliveryPruner.runNow().catch(() => undefined)
    }
    // Only the address restarts the receiver; the retention does not.
    const { enabled, host, port } = next.inbox
    if (enabled !== before.inbox.enabled || host !== before.inbox.host || port !== before.inbox.port) {
      if (next.inbox.enabled) await this.startInbox(next)
      else {
        await this.inbox?.close()
        this.inbox = null
        this.inboxError = null
        this.inboxSince = null
      }
      // The inbox started or stopped receiving: its completions are compared, or no longer.
      void this.alerts.look().catch(() => undefined)
    }
  }

  async close(): Promise<void> {
    this.syncRuns.stop()
    this.alerts.stop()
    for (const d of this.disposers.splice(0)) d()
    await Promise.allSettled([
      this.config.close(),
      this.tickers.close(),
      this.monitor.stop(),
      this.inbox?.close(),
      this.deliveryPruner.stop(),
      this.gramFiller.stop()
    ])
    this.inbox = null
    await this.client.close()
    this.store.close()
  }
}

/** The ticker service's history, kept in the profile database's ticker_history table. */
export function tickerHistoryStore(store: LocalStore): TickerHistoryStore {
  return {
    append: (fiatType, points) => {
      store.tickers.append(
        points.flatMap((pt) => {
          const at = new Date(pt.at).toISOString()
          const out = []
          if (pt.buy !== null) out.push({ fiatType, coinId: pt.coinId, side: 'buy' as const, price: pt.buy, at })
          if (pt.sell !== null) out.push({ fiatType, coinId: pt.coinId, side: 'sell' as const, price: pt.sell, at })
          return out
        })
      )
    },
    range: (fiatType, since) => {
      // Buy and sell samples of one fetch share their instant: fold them back into points.
      const byKey = new Map<string, { at: number; coinId: number; buy: string | null; sell: string | null }>()
      for (const smp of store.tickers.since(fiatType, new Date(since).toISOString())) {
        const key = `${smp.coinId}@${smp.at}`
        const pt = byKey.get(key) ?? { at: Date.parse(smp.at), coinId: smp.coinId, buy: null, sell: null }
        pt[smp.side] = smp.price
        byKey.set(key, pt)
      }
      return [...byKey.values()]
    }
  }
}
