// The team hub's services, headless: one merchant profile's session (one API client and
// so one request budget, one history sync into one database, one config cache), the
// team's tickers, pins per operator, the operators and the audit log in hub.db, the
// public webhook receiver with its optional relay, and the event bus every operator's
// stream reads. Order events carry the id of their row in order_events, which survives
// a restart: a desktop that reconnects says the last id it saw and is sent every order
// change it missed from the database (replay).
import type { IncomingMessage, ServerResponse } from 'node:http'
import { join } from 'node:path'
import { AppSettings } from '../main/app-settings'
import { ProfileSession, tickerHistoryStore, type SandboxOptions } from '../main/profile-session'
import { toContractRow } from '../main/order-rows'
import { startSandbox, type Sandbox } from '../sandbox'
import { statusInfo } from '../shared/domain/status'
import type {
  ContractHandlers,
  EventName,
  Coverage,
  EventPayload,
  OrderRow,
  OrderType,
  Profile,
  Settings,
  SettingsPatch,
  SyncState,
  TeamOperator,
  TickerTick
} from '../shared/ipc/contract'
import { createHubLog, type HubLog, type HubLogOptions, type LogFormat } from './hub-log'
import { HubMetrics } from './hub-metrics'
import { leads, soleHubRole, type HubRoleSource, type RoleState } from './hub-role'
import { readinessProbe, type Readiness } from './readiness'
import { storeCheck } from './store-check'
import type { AuditLog, HubStore, OperatorDirectory } from './hub-store'
import { openSqliteHubStore } from './sqlite-hub-store'
import { openPgHubStore } from './pg/pg-hub-store'
import type { PgTarget } from './pg/pg-connection'
import { startPgElection } from './pg/pg-election'
import type { PgHubStore } from './pg/pg-hub-store'
import { startOrderFeed } from './order-feed'
import { PgWebhookInbox } from './pg/pg-webhook-inbox'
import { startSharedReads } from './pg/pg-shared-reads'
import { PgDeliveryLog } from './pg/pg-delivery-log'
import { PgTeamSettings, teamPart } from './pg/pg-team-settings'
import { PgLeaderCoverage } from './pg/pg-leader-coverage'
import { FollowedSync } from './followed-sync'
import { relaySyncRequest, serveSyncRequests, thisHub, type SyncAction, type SyncRequest } from './pg/pg-sync-requests'
import { ingestInto } from '../main/webhooks/inbox'
import { UpstreamHealth } from './upstream-health'
import { CONFIG_REFRESH_COALESCE_MS, hubHandlers, type HubCore } from './hub-handlers'
import { HubTickers } from './hub-tickers'
import { createHubWebhooks } from './hub-webhooks'
import { hubIdOf } from './hub-paths'
import { SPOOL_DIR } from './backup-command'
import { NO_TRUSTED_PROXIES, type TrustedProxies } from './trusted-proxies'
import { RefusalLog } from './refusal-log'

export type MerchantTarget =
  { kind: 'sandbox'; sandbox?: SandboxOptions } | { kind: 'live'; baseUrl: string; serviceName: string; apiKey: string; apiSecret: string }

export interface HubOptions {
  /** settings.json and store/ (the order database); hub.db too unless `database` is given. */
  dataDir: string
  /** The PostgreSQL database the hub's own tables are in (several hubs may share it); hub.db when absent. */
  database?: PgTarget
  merchant: MerchantTarget
  version: string
  /** Relay every verified webhook delivery (what its signature covers, once) to this receiver. */
  forwardTo?: string
  /** The webhook spool's bound (default SPOOL_MAX_BYTES, 64 MiB). */
  spoolMaxBytes?: number
  /** Reverse proxies whose X-Forwarded-For names a webhook's sender (--trusted-proxy): its per-source limits apply to that sender. */
  trustedProxies?: TrustedProxies
  /** Where log lines go (default stdout); the API secret is scrubbed from every line. */
  logWrite?: HubLogOptions['write']
  /** text (default) or json: one JSON object per line. */
  logFormat?: LogFormat
  /**
   * This hub's role among the hubs on its store (default: the only hub, so the leader).
   * Several hubs on one database give their election here.
   */
  role?: HubRoleSource
  now?: () => number
}

/** How often the audit log is pruned (hub-audit.ts: a year, a million entries). */
const AUDIT_PRUNE_EVERY_MS = 60 * 60_000
/** How old the leader's configuration answers may be for a follower to serve them without asking again. */
const SHARED_CONFIG_FRESH_MS = 60_000

/** One event on the bus: order events carry their order_events id, the rest none. */
export interface HubEvent {
  id: number | null
  event: EventName
  payload: unknown
}

/** Events that never go to desktops: they are about the desktop's own windows. */
const LOCAL_EVENTS = new Set<EventName>(['profile:changed', 'export:progress', 'nav:order', 'team:access'])

export interface Hub {
  readonly log: HubLog
  /** Refusals of strangers' requests, logged first per source and then summarised (refusal-log.ts). */
  readonly refusals: RefusalLog
  readonly operators: OperatorDirectory
  readonly audit: AuditLog
  readonly store: HubStore
  readonly profile: Profile
  readonly metrics: HubMetrics
  readonly role: HubRoleSource
  /** GET /readyz: the store, the service and the role (worked out at most once a second). */
  readiness(): Readiness
  handlersFor(op: TeamOperator): ContractHandlers
  subscribe(listener: (e: HubEvent) => void): () => void
  /** The event as this operator sees it (their pins, their fiat), or null when it is not theirs. */
  shapeFor(operator: string, e: HubEvent): HubEvent | null
  /**
   * The order events among the next `limit` after this id, from the database, oldest first,
   * and the id to continue after (null when these were the last).
   */
  replayPage(afterId: number, limit: number): { events: HubEvent[]; next: number | null }
  /** The newest order event's id (0 when there is none). */
  latestEventId(): number
  /** Called with the name of every operator revoked through this hub. */
  onRevoked(listener: (name: string) => void): () => void
  /** An operator's last event stream closed. */
  operatorLeft(name: string): void
  /** Drops the pins of operators revoked from another process. */
  sweep(): void
  /** POST /webhook: verify, store, answer, push to desktops, relay. */
  webhook(req: IncomingMessage, res: ServerResponse): void
  /** The hub's public address, once it listens (for its webhook URL). */
  setPublicUrl(url: string): void
  webhookUrl(): string | null
  /** The relay to --forward-to: its receiver as it may be shown, and a wait until nothing is due (tests). */
  relay(): { target: string; idle(): Promise<void> } | null
  /** Verified deliveries kept in the spool, not yet in the store. */
  spooled(): { entries: number; bytes: number }
  sandbox(): Sandbox | null
  session(): ProfileSession
  close(): Promise<void>
}

export async function createHub(o: HubOptions): Promise<Hub> {
  const now = o.now ?? Date.now
  let sandbox: Sandbox | null = null
  let secret: string
  let profile: Profile
  if (o.merchant.kind === 'sandbox') {
    sandbox = await startSandbox({ ...o.merchant.sandbox, host: '127.0.0.1', port: 0 })
    secret = sandbox.apiSecret
    profile = {
      id: 'hub',
      name: 'Team hub (sandbox)',
      kind: 'sandbox',
      baseUrl: sandbox.url,
      serviceName: sandbox.serviceName,
      apiKey: sandbox.apiKey
    }
  } else {
    secret = o.merchant.apiSecret
    const { baseUrl, serviceName, apiKey } = o.merchant
    profile = { id: 'hub', name: 'Team hub', kind: 'live', baseUrl, serviceName, apiKey }
  }
  // The secret, and the password of a --forward-to URL, never appear in a log line even if quoted by an error.
  const relayPassword = o.forwardTo ? decodeURIComponent(new URL(o.forwardTo).password) : ''
  const log = createHubLog({ write: o.logWrite, format: o.logFormat, redact: () => [secret, relayPassword], now })
  const refusals = new RefusalLog(log)
  let store: HubStore
  try {
    store = o.database
      ? await openPgHubStore({ target: o.database, now, onError: (m) => log.error(m) })
      : openSqliteHubStore(o.dataDir, { now, busyTimeoutMs: 250, onError: (m) => log.error(m) })
  } catch (e) {
    await sandbox?.close()
    throw e
  }
  const metrics = new HubMetrics({ version: o.version, store: store.kind })
  let role: HubRoleSource
  try {
    role = o.role ?? (o.database ? await startPgElection({ target: o.database, now, log }) : soleHubRole(now))
  } catch (e) {
    await store.close()
    await sandbox?.close()
    throw e
  }
  const { operators, audit, watches } = store
  const settings = new AppSettings(o.dataDir)
  // Hubs on one database poll as the team's settings say, whichever hub an admin changed them on.
  const teamSettings = store.kind === 'postgres' ? new PgTeamSettings((store as PgHubStore).pool) : null
  try {
    const team = await teamSettings?.load()
    if (team) settings.update(team)
  } catch (e) {
    await role.close()
    await store.close()
    await sandbox?.close()
    throw e
  }
  const listeners = new Set<(e: HubEvent) => void>()
  const revokedListeners = new Set<(name: string) => void>()
  let publicUrl: string | null = null

  function publish(e: HubEvent): void {
    for (const l of listeners) {
      try {
        l(e)
      } catch (err) {
        log.error(`an event listener failed: ${(err as Error).message}`)
      }
    }
  }

  let session: ProfileSession
  // The row in order_events each event reports: the first sighting for order:created, the
  // latest matching transition for order:changed (written just before the event).
  const createdEventId = (type: OrderType, orderId: number): number | null =>
    session.store.database.sql.value<number>(
      'SELECT MIN(id) FROM order_events WHERE type = ? AND order_id = ? AND old_status IS NULL',
      type,
      orderId
    ) ?? null
  const changedEventId = (p: EventPayload<'order:changed'>): number | null =>
    session.store.database.sql.value<number>(
      'SELECT MAX(id) FROM order_events WHERE type = ? AND order_id = ? AND new_status = ?',
      p.row.type,
      p.row.orderId,
      p.newStatus
    ) ?? null

  // On a PostgreSQL store order events reach desktops through the feed (below), once they
  // are in the database with the id every hub gives them.
  const feedsOrders = o.database !== undefined
  let nudgeFeed: () => unknown = () => undefined
  // Hubs on one database: a follower's monitor is idle, so its desktops are told the leader's
  // coverage (or that it is not known), never the follower's own.
  let leaderCoverage: PgLeaderCoverage | null = null
  const coverage = (): Coverage => leaderCoverage?.current() ?? session.monitor.coverage()
  // And the leader's sync states, with write marks that also change as it applies the leader's rows.
  const followed = new FollowedSync(now)
  const syncStates = (): SyncState[] => {
    const leader = leaderCoverage?.states()
    return leader ? followed.shown(leader) : session.monitor.states()
  }
  const tellStates = (states: SyncState[]) => {
    for (const s of states) publish({ id: null, event: 'sync:state', payload: s })
  }
  function emit<E extends EventName>(event: E, payload: EventPayload<E>): void {
    if (LOCAL_EVENTS.has(event)) return
    if ((event === 'coverage:changed' || event === 'sync:state') && leaderCoverage) {
      leaderCoverage.changed()
      // A follower's own (idle) monitor is not what its desktops are shown.
      if (!leads(role)) return
    }
    if (feedsOrders && (event === 'order:created' || event === 'order:changed')) return void nudgeFeed()
    let id: number | null = null
    if (event === 'order:created') id = createdEventId((payload as OrderRow).type, (payload as OrderRow).orderId)
    else if (event === 'order:changed') id = changedEventId(payload as EventPayload<'order:changed'>)
    publish({ id, event, payload })
  }

  let upstreamRef: UpstreamHealth | null = null
  // Hubs on one database: the configuration and price reads are the leader's, shared with the others.
  const shared =
    o.database && store.kind === 'postgres'
      ? startSharedReads({
          pool: (store as PgHubStore).pool,
          target: o.database,
          role,
          log,
          onError: (m) => log.error(m),
          onLeaderAnswer: (_name, failure) => upstreamRef?.observeViaLeader(failure),
          freshMs: (name) =>
            name === 'priceTicker' ? Math.max(1_000, settings.get().tickerPollSeconds * 1000 - 1_000) : SHARED_CONFIG_FRESH_MS
        })
      : null
  try {
    session = await ProfileSession.open({
      profile,
      dir: join(o.dataDir, 'store'),
      settings: settings.get(),
      getSecret: async () => secret,
      now,
      emit,
      sharedReads: shared?.reads,
      // The hub carries its budget in its own store (below), shared by its other hubs.
      carryBudget: false
    })
    shared?.serve(session.client)
  } catch (e) {
    await shared?.close()
    await role.close()
    await store.close()
    await sandbox?.close()
    throw e
  }
  const tickers = new HubTickers({
    client: session.client,
    store: tickerHistoryStore(session.store),
    pollMs: settings.get().tickerPollSeconds * 1000,
    defaultFiat: settings.get().tickerFiat,
    now,
    onTick: (t) => emit('ticker:tick', t)
  })

  // Deliveries a follower of an older version offered its leader (before deliveries were kept).
  const inbox = store.kind === 'postgres' ? new PgWebhookInbox((store as PgHubStore).pool, now, role) : null
  const deliveryLog = store.kind === 'postgres' ? new PgDeliveryLog((store as PgHubStore).pool, now, (m) => log.error(m)) : null
  const webhooks = await createHubWebhooks({
    session,
    serviceName: profile.serviceName,
    secret: async () => secret,
    store: store.kept,
    spoolDir: join(o.dataDir, SPOOL_DIR),
    spoolMaxBytes: o.spoolMaxBytes,
    sourceOf: (req) => (o.trustedProxies ?? NO_TRUSTED_PROXIES).sourceOf(req),
    hubId: hubIdOf(o.dataDir),
    log,
    refusals,
    forwardTo: o.forwardTo,
    now,
    // Only the leader writes orders: it applies what any hub kept.
    leads: () => leads(role),
    apply: (w) => ingestInto(session.monitor, w, log),
    onDelivery: (d) => {
      metrics.delivery(d.verified)
      emit('webhook:delivery', d)
    },
    onRelay: (outcome) => metrics.relay(outcome),
    onKept: (where) => metrics.kept(where),
    shareDelivery: deliveryLog ? (d) => deliveryLog.record(d) : undefined
  })

  /** Applies a settings change to this hub: its file, its monitor's schedule, its ticker polls. */
  async function applySettings(patch: SettingsPatch): Promise<Settings> {
    const before = settings.get()
    const next = settings.update(patch)
    await session.applySettings(next, before)
    if (next.tickerPollSeconds !== before.tickerPollSeconds) tickers.configure({ pollMs: next.tickerPollSeconds * 1000 })
    return next
  }
  if (teamSettings && o.database)
    teamSettings.watch(
      o.database,
      async (s) => void (await applySettings(s)),
      (m) => log.warn(m)
    )

  let configRun: ReturnType<HubCore['refreshConfig']> | null = null
  let configAt = -Infinity
  if (store.kind === 'postgres' && o.database) {
    leaderCoverage = new PgLeaderCoverage({
      pool: (store as PgHubStore).pool,
      target: o.database,
      role,
      own: () => session.monitor.coverage(),
      ownStates: () => session.monitor.states(),
      freshnessMinutes: () => settings.get().freshnessMinutes,
      onLeaderCoverage: (c) => publish({ id: null, event: 'coverage:changed', payload: c }),
      onLeaderStates: (states) => tellStates(followed.news(states)),
      onError: (m) => log.warn(m)
    })
    leaderCoverage.start()
  }
  /** Runs sync:now, sync:audit or sync:resync on this hub's monitor (answered at once; progress in sync:state). */
  function runSync(action: SyncAction): void {
    const monitor = session.monitor
    void (action === 'now' ? monitor.syncNow() : action === 'audit' ? monitor.auditNow() : monitor.resyncAll())
  }
  // Hubs on one database: a follower's sync actions are the leader's to run (pg-sync-requests.ts).
  const syncRequests =
    store.kind === 'postgres' && o.database
      ? serveSyncRequests({
          target: o.database,
          role,
          run: (r: SyncRequest) => {
            log.info(`${r.operator} asked for sync:${r.action} on the hub ${r.hub}: running it here, the leader`, {
              operator: r.operator,
              channel: `sync:${r.action}`
            })
            // After taking the role has settled: a hub that has just become the leader first
            // applies every event the old one published, then starts its monitor (follow()).
            void leading.then(() => {
              if (leads(role)) runSync(r.action)
            })
          },
          onError: (m) => log.warn(m)
        })
      : null
  async function sync(action: SyncAction, operator: string): Promise<void> {
    if (!syncRequests || leads(role)) return runSync(action)
    try {
      await relaySyncRequest((store as PgHubStore).pool, { action, operator, hub: thisHub() })
    } catch (e) {
      throw new Error(`could not hand sync:${action} to the leading hub (it syncs for every hub): ${(e as Error).message}`)
    }
  }

  const core: HubCore = {
    session,
    coverage,
    syncStates,
    sync,
    profile,
    secret: async () => secret,
    settings,
    tickers,
    watches,
    operators,
    audit,
    webhookRefusals: () => webhooks.refusals(),
    webhookUrl: () => (publicUrl ? new URL('webhook', publicUrl.endsWith('/') ? publicUrl : publicUrl + '/').toString() : null),
    publicUrl: () => publicUrl,
    async revoke(name) {
      const op = await operators.revoke(name)
      await watches.dropOperator(op.name, session.monitor)
      tickers.forget(op.name)
      for (const l of revokedListeners) l(op.name)
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
    kept: store.kept,
    relayTarget: () => webhooks.relayTarget,
    relayNow: () => webhooks.relay?.wake(),
    deliveryLog: deliveryLog ?? undefined,
    async updateSettings(patch) {
      const next = await applySettings(patch)
      await teamSettings?.save(teamPart(next))
      return next
    },
    version: o.version,
    now
  }

  // Before anything is sent: what the previous run spent still counts at the service.
  const carry = store.budgetCarry
  const carried = await carry.restore(session.client.budget)
  if (carried) log.info(`carried ${carried} request slot${carried === 1 ? '' : 's'} of the last minute over from the previous run`)
  const untrack = carry.track(session.client.budget)
  // Several hubs spend one API key: every send is claimed in the budget they share, and
  // what only the leader sends is claimed only under its lease (pg-shared-budget.ts).
  if (store.kind === 'postgres') {
    const shared = store as PgHubStore
    shared.sharedBudget.fenceBy(role)
    shared.kept.fenceBy(role)
  }
  if (store.sharedBudget) {
    let loggedAt = -Infinity
    session.client.budget.share(store.sharedBudget, (e) => {
      if (now() - loggedAt < 60_000) return
      loggedAt = now()
      log.error(`the request budget shared with the other hubs does not answer: ${(e as Error).message}; requests wait for it`)
    })
  }
  const unmeter = session.client.onRequest((e) => metrics.upstream(e))
  const upstream = new UpstreamHealth(session.client, now)
  upstreamRef = upstream
  const readiness = readinessProbe({
    store: storeCheck(
      store.kind,
      () => store.check(),
      () => session.store.database.sql
    ),
    upstream: () => upstream.check(),
    role,
    now
  })
  metrics.attach({
    spooled: () => webhooks.keeper.spooled(),
    relayQueue: () => webhooks.relay?.counts() ?? null,
    budget: () => session.client.budget.snapshot(),
    syncStates: () => session.monitor.states(),
    coverage,
    role: () => role.current(),
    ready: () => {
      const r = readiness()
      return { all: r.ok, store: r.checks.store.ok, upstream: r.checks.upstream.ok }
    }
  })
  // Only the leader syncs the history, polls pins and checks completeness; a follower starts
  // the monitor when it is promoted, from the cursors in its order database.
  const feed =
    store.kind === 'postgres'
      ? await startOrderFeed({
          store: store as PgHubStore,
          local: () => session.store.database.sql,
          role,
          log,
          stream: (afterId, upTo) => {
            for (let at: number | null = afterId; at !== null;) {
              const page = eventsAfter(at, 250, upTo)
              for (const e of page.events) publish(e)
              at = page.next
            }
          },
          rowsChanged: (types) => {
            followed.rowsApplied(types)
            tellStates(followed.news(leaderCoverage?.states() ?? []))
          }
        })
      : null
  nudgeFeed = () => feed?.sync()
  await session.start({ monitor: false })
  let leading: Promise<void> = Promise.resolve()
  const follow = async (s: RoleState) => {
    if (s.role === 'leader') {
      followed.forget()
      // Every event and row the old leader published is applied first (new ids go on after
      // its), and its sync position taken: the first sync reads on from its cursors.
      await feed?.takeOver()
      await watches.reconcile(session.store.watches.list(), session.monitor)
      session.monitor.start()
    } else await session.monitor.stop()
  }
  const unfollow = role.onChange((s) => {
    leading = leading.then(() => follow(s)).catch((e: unknown) => log.error(`taking the role ${s.role} failed: ${(e as Error).message}`))
  })
  if (leads(role)) await follow(role.current())
  /** The order events after this id (up to `upTo`) from the order database, oldest first, and the id to continue after. */
  function eventsAfter(afterId: number, limit: number, upTo: number): { events: HubEvent[]; next: number | null } {
    const sql = session.store.database.sql
    const rows = sql.all<{ id: number; type: number; order_id: number; old_status: number | null; new_status: number }>(
      'SELECT id, type, order_id, old_status, new_status FROM order_events WHERE id > ? AND id <= ? ORDER BY id LIMIT ?',
      afterId,
      Number.isFinite(upTo) ? upTo : Number.MAX_SAFE_INTEGER,
      limit
    )
    const out: HubEvent[] = []
    for (const r of rows) {
      const type = r.type as OrderType
      const stored = session.store.orders.get(type, r.order_id)
      if (!stored) continue
      const row = toContractRow(stored, false)
      if (r.old_status === null) out.push({ id: r.id, event: 'order:created', payload: row })
      else
        out.push({
          id: r.id,
          event: 'order:changed',
          payload: { row, oldStatus: r.old_status, newStatus: r.new_status, terminal: statusInfo(type, r.new_status).terminal }
        })
    }
    return { events: out, next: rows.length < limit ? null : rows[rows.length - 1]!.id }
  }
  const handlerCache = new Map<string, ContractHandlers>()
  let auditPrunedAt = -Infinity
  let sweeping: Promise<unknown> | null = null
  /** Prunes the audit log hourly; drops the pins of operators revoked elsewhere. */
  async function sweepStore(): Promise<void> {
    if (now() - auditPrunedAt >= AUDIT_PRUNE_EVERY_MS) {
      auditPrunedAt = now()
      await audit.prune()
      if (leads(role)) await deliveryLog?.prune(settings.get().inbox)
    }
    for (const name of await watches.orphans()) {
      await watches.dropOperator(name, session.monitor)
      tickers.forget(name)
    }
    if (leads(role)) {
      // Deliveries any hub kept (or the spool handed over late) reach the leader's orders.
      await webhooks.applyPending()
      if (store.kind === 'postgres') {
        // Pins made on other hubs reach the leader's monitor.
        await watches.reconcile(session.store.watches.list(), session.monitor)
        await inbox?.drain(
          (w) => ingestInto(session.monitor, w, log),
          (m) => log.warn(m)
        )
      }
    }
  }

  return {
    log,
    refusals,
    operators,
    audit,
    store,
    profile,
    metrics,
    role,
    readiness,
    handlersFor(op) {
      const key = `${op.name}\u0000${op.role}`
      let h = handlerCache.get(key)
      if (!h) handlerCache.set(key, (h = hubHandlers(core, op)))
      return h
    },
    subscribe(listener) {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
    shapeFor(operator, e) {
      const mine = (row: OrderRow): OrderRow => ({ ...row, watched: watches.has(operator, row.type, row.orderId) })
      switch (e.event) {
        case 'ticker:tick':
          return (e.payload as TickerTick).fiatType === tickers.fiatFor(operator) ? e : null
        case 'order:created':
          return { ...e, payload: mine(e.payload as OrderRow) }
        case 'order:changed': {
          const p = e.payload as EventPayload<'order:changed'>
          return { ...e, payload: { ...p, row: mine(p.row) } }
        }
        default:
          return e
      }
    },
    replayPage(afterId, limit) {
      return eventsAfter(afterId, limit, feed ? feed.streamedUpTo() : Infinity)
    },
    latestEventId() {
      return feed ? feed.streamedUpTo() : (session.store.database.sql.value<number>('SELECT MAX(id) FROM order_events') ?? 0)
    },
    onRevoked(listener) {
      revokedListeners.add(listener)
      return () => revokedListeners.delete(listener)
    },
    operatorLeft(name) {
      tickers.forget(name)
    },
    sweep() {
      webhooks.sweep()
      if (sweeping) return
      sweeping = sweepStore()
        .catch((e: unknown) => log.error(`the hub's sweep failed: ${e instanceof Error ? e.message : String(e)}`))
        .finally(() => (sweeping = null))
    },
    webhook(req, res) {
      webhooks.handle(req, res)
    },
    setPublicUrl(url) {
      publicUrl = url
    },
    webhookUrl: core.webhookUrl,
    relay: () => (webhooks.relay && webhooks.relayTarget ? { target: webhooks.relayTarget, idle: () => webhooks.relay!.idle() } : null),
    spooled: () => webhooks.keeper.spooled(),
    sandbox: () => sandbox,
    session: () => session,
    async close() {
      listeners.clear()
      await webhooks.close()
      await deliveryLog?.flushed()
      refusals.close()
      await tickers.close()
      await shared?.close()
      await teamSettings?.close()
      await leaderCoverage?.close()
      await syncRequests?.close()
      unfollow()
      await leading
      await feed?.close()
      await session.close()
      await sandbox?.close()
      await role.close()
      unmeter()
      upstream.close()
      untrack()
      await sweeping
      await store.close()
    }
  }
}
