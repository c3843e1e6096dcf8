// Everything that belongs to one active profile: its database, its API client (and so
// its rate budget and clock), the config cache, tickers, the order monitor and the
// optional webhook inbox. Closing a session aborts whatever it has in flight and waits
// for it, so after a profile switch nothing of the old profile runs or is shown.
import type { Profile, Settings, EventName, EventPayload, BudgetEntry, InboxStatus } from '../shared/ipc/contract'
import { limitedEndpoints } from '../shared/api/endpoints'
import { ApiClient } from './api/client'
import { ConfigCache } from './config/config-cache'
import { TickerService, type TickerHistoryStore } from './tickers/ticker-service'
import { OrderMonitor } from './monitor/order-monitor'
import { startInbox, type RunningInbox } from './webhooks/inbox'
import { openLocalStore, type LocalStore } from './store/local-store'
import type { StartSandboxOptions } from '../sandbox'

export type SandboxOptions = Omit<StartSandboxOptions, 'host' | 'port'>

export interface SessionOptions {
  profile: Profile
  dir: string
  settings: Settings
  getSecret: () => Promise<string>
  now: () => number
  emit: <E extends EventName>(event: E, payload: EventPayload<E>) => void
}

export class ProfileSession {
  private inbox: RunningInbox | null = null
  private inboxError: string | null = null
  private readonly disposers: Array<() => void> = []

  private constructor(
    private readonly o: SessionOptions,
    readonly store: LocalStore,
    readonly client: ApiClient,
    readonly config: ConfigCache,
    readonly tickers: TickerService,
    readonly monitor: OrderMonitor
  ) {}

  get profile(): Profile {
    return this.o.profile
  }

  static async open(o: SessionOptions): Promise<ProfileSession> {
    const store = openLocalStore(o.dir, { now: () => new Date(o.now()) })
    const p = o.profile
    const client = new ApiClient({
      profileId: p.id,
      baseUrl: p.baseUrl,
      serviceName: p.serviceName,
      apiKey: p.apiKey,
      getSecret: o.getSecret
    })
    const config = new ConfigCache({
      client,
      now: o.now,
      store: {
        get: (key) => {
          const c = store.configCache.get(key)
          return c ? { json: JSON.stringify(c.value), fetchedAt: Date.parse(c.fetchedAt) } : undefined
        },
        put: (key, json, fetchedAt) => void store.configCache.put(key, JSON.parse(json), { fetchedAt: new Date(fetchedAt).toISOString() })
      },
      onUpdate: (snap) => o.emit('config:updated', snap)
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
      fiatTypes: o.settings.fiatTypes,
      historyPollMs: o.settings.historyPollSeconds * 1000,
      watchPollMs: o.settings.watchPollSeconds * 1000,
      now: o.now,
      onEvent: (event, payload) => o.emit(event, payload as never)
    })
    const s = new ProfileSession(o, store, client, config, tickers, monitor)
    s.disposers.push(client.budget.onChange(() => o.emit('budget:changed', { entries: s.budgetEntries() })))
    return s
  }

  async start(): Promise<void> {
    // Config first (from cache when fresh: no budget spent), then the monitor.
    void this.config.get().catch(() => undefined)
    this.monitor.start()
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
        onVerified: (w) => this.monitor.ingestWebhook(w.type, w.record),
        onDelivery: (d) => this.o.emit('webhook:delivery', d)
      })
      this.inboxError = null
    } catch (e) {
      this.inboxError = `the inbox could not listen on ${settings.inbox.host}:${settings.inbox.port}: ${(e as Error).message}`
    }
  }

  inboxStatus(): InboxStatus {
    const enabled = this.o.settings.inbox.enabled
    return {
      enabled,
      listening: this.inbox !== null,
      url: this.inbox?.url ?? null,
      warning: this.inbox?.warning ?? null,
      error: enabled ? this.inboxError : null
    }
  }

  async applySettings(next: Settings, before: Settings): Promise<void> {
    this.o.settings = next
    if (next.tickerPollSeconds !== before.tickerPollSeconds || next.tickerFiat !== before.tickerFiat) {
      this.tickers.configure({ pollMs: next.tickerPollSeconds * 1000, fiatType: next.tickerFiat })
    }
    if (
      next.historyPollSeconds !== before.historyPollSeconds ||
      next.watchPollSeconds !== before.watchPollSeconds ||
      next.fiatTypes.join() !== before.fiatTypes.join()
    ) {
      this.monitor.configure({
        historyPollMs: next.historyPollSeconds * 1000,
        watchPollMs: next.watchPollSeconds * 1000,
        fiatTypes: next.fiatTypes
      })
    }
    if (JSON.stringify(next.inbox) !== JSON.stringify(before.inbox)) {
      if (next.inbox.enabled) await this.startInbox(next)
      else {
        await this.inbox?.close()
        this.inbox = null
        this.inboxError = null
      }
    }
  }

  async close(): Promise<void> {
    for (const d of this.disposers.splice(0)) d()
    await Promise.allSettled([this.config.close(), this.tickers.close(), this.monitor.stop(), this.inbox?.close()])
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
