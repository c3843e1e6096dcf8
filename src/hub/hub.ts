// The team hub's services, headless: one merchant profile's session (one API client and
// so one request budget, one history sync into one database, one config cache), the
// team's tickers, pins per operator, the operators and the audit log in its store, the
// public webhook receiver with its optional relay, and the event bus every operator's
// stream reads (hub-events.ts). The store is hub.db or a PostgreSQL database several hubs
// share, behind one backend (hub-backend.ts); the rest of the hub is the same on either.
import type { IncomingMessage, ServerResponse } from 'node:http'
import { startAuditCopy } from './audit-copy'
import type { AuditCopyTarget } from './audit-sinks'
import { join } from 'node:path'
import { tickerHistoryStore, type ProfileSession } from '../main/profile-session'
import { ingestInto } from '../main/webhooks/inbox'
import type { Sandbox } from '../sandbox'
import type { ContractHandlers, Profile, TeamOperator } from '../shared/ipc/contract'
import { SPOOL_DIR } from './backup-command'
import type { HubEvent } from './hub-backend'
import { carryBudget } from './hub-budget'
import { hubCore, settingsApplier } from './hub-core'
import { followRole, type HubFollowing } from './hub-following'
import { hubHandlers } from './hub-handlers'
import { createHubLog, type HubLog, type HubLogOptions, type LogFormat } from './hub-log'
import { openMerchant, type MerchantTarget } from './hub-merchant'
import { HubMetrics } from './hub-metrics'
import { openHub } from './hub-open'
import { hubIdOf } from './hub-paths'
import { leads, type HubRoleSource } from './hub-role'
import type { AuditLog, HubStore, OperatorDirectory } from './hub-store'
import { hubSweep } from './hub-sweep'
import { HubTickers } from './hub-tickers'
import { createHubWebhooks } from './hub-webhooks'
import type { PgTarget } from './pg/pg-connection'
import { readinessProbe, type Readiness } from './readiness'
import { watchSecondFactorKey } from './second-factor-health'
import { RefusalLog } from './refusal-log'
import { HubClaims } from './hub-claims'
import { storeCheck } from './store-check'
import { NO_TRUSTED_PROXIES, type TrustedProxies } from './trusted-proxies'
import { hubCompletions } from './unacknowledged'
import { startAlertHooks } from './alert-hooks/alert-hooks'
import { coinName } from '../shared/domain/names'
import { csvNamesOf } from '../shared/domain/csv'
import { withOidcSessions } from './oidc/oidc-sessions'
import { UpstreamHealth } from './upstream-health'

export type { HubEvent } from './hub-backend'
export type { MerchantTarget } from './hub-merchant'

export interface HubOptions {
  /** settings.json and store/ (the order database); hub.db too unless `database` is given. */
  dataDir: string
  /** The PostgreSQL database the hub's own tables are in (several hubs may share it); hub.db when absent. */
  database?: PgTarget
  merchant: MerchantTarget
  version: string
  /** Relay every verified webhook delivery (what its signature covers, once) to this receiver. */
  forwardTo?: string
  /** How long after completing an order's notice may still be on its way before it is raised (default UNACKNOWLEDGED_GRACE_MS). */
  unacknowledgedGraceMs?: number
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
  /** A live copy of the audit log (--audit-log): a file, or syslog. */
  auditLog?: AuditCopyTarget
  /** How often the live copy reads what is new (default a second). */
  auditCopyPollMs?: number
  now?: () => number
}

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
  /** Starts the live copy's file anew where it was (SIGHUP, after logrotate); nothing without one. */
  reopenAuditLog(): Promise<void>
  close(): Promise<void>
}

export async function createHub(o: HubOptions): Promise<Hub> {
  const now = o.now ?? Date.now
  const merchant = await openMerchant(o.merchant)
  const { profile, secret, sandbox } = merchant
  // The secret, and the password of a --forward-to URL, never appear in a log line even if quoted by an error.
  const relayPassword = o.forwardTo ? decodeURIComponent(new URL(o.forwardTo).password) : ''
  const log = createHubLog({ write: o.logWrite, format: o.logFormat, redact: () => [secret, relayPassword], now })
  const refusals = new RefusalLog(log)
  let upstream: UpstreamHealth | null = null
  let following: HubFollowing | null = null
  const { backend, role, settings, teamSettings, shared, events, sync, session } = await openHub({
    dataDir: o.dataDir,
    database: o.database,
    role: o.role,
    merchant,
    log,
    now,
    onLeaderAnswer: (_name, failure) => upstream?.observeViaLeader(failure),
    settled: () => following?.settled() ?? Promise.resolve()
  })
  const { store } = backend
  const { operators, audit, watches } = store
  const metrics = new HubMetrics({ version: o.version, store: store.kind })
  const auditCopy = o.auditLog
    ? await startAuditCopy({ audit, target: o.auditLog, log, onFailure: () => metrics.auditCopyFailed(), pollMs: o.auditCopyPollMs, now })
    : null
  const tickers = new HubTickers({
    client: session.client,
    store: tickerHistoryStore(session.store),
    pollMs: settings.get().tickerPollSeconds * 1000,
    defaultFiat: settings.get().tickerFiat,
    now,
    onTick: (t) => events.emit('ticker:tick', t)
  })

  const deliveryLog = backend.deliveryLog({ local: () => session.store.webhookDeliveries, onError: (m) => log.error(m) })
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
      events.emit('webhook:delivery', d)
    },
    onRelay: (outcome) => {
      metrics.relay(outcome)
      // A notice the merchant's system took clears its order's alert now, not at the next look.
      if (outcome === 'relayed') void session.alerts.look().catch(() => undefined)
    },
    onKept: (where) => metrics.kept(where),
    shareDelivery: (d) => deliveryLog.share(d)
  })

  const completions = hubCompletions({
    kept: store.kept,
    session,
    relaying: webhooks.relay !== null,
    startedAt: now(),
    now,
    graceMs: o.unacknowledgedGraceMs,
    log
  })
  session.alerts.useUnacknowledged(completions)

  const claims = new HubClaims({
    log: backend.handlingLog({ onError: (m) => log.error(m) }),
    local: () => session.store.claims,
    publish: (e) => events.publish(e),
    now,
    onError: (m) => log.error(m)
  })

  const applySettings = settingsApplier(settings, session, tickers)
  teamSettings.watch(
    async (s) => void (await applySettings(s)),
    (m) => log.warn(m)
  )
  sync.start()
  const revokedListeners = new Set<(name: string) => void>()
  let publicUrl: string | null = null
  const core = hubCore({
    session,
    profile,
    secret,
    settings,
    applySettings,
    teamSettings,
    tickers,
    store,
    claims,
    sync,
    webhooks,
    deliveryLog,
    publicUrl: () => publicUrl,
    onRevoked: (name) => {
      for (const l of revokedListeners) l(name)
    },
    version: o.version,
    now
  })

  const untrack = await carryBudget({ backend, role, client: session.client, log, now })
  const unmeter = session.client.onRequest((e) => metrics.upstream(e))
  const health = new UpstreamHealth(session.client, now)
  upstream = health
  const secondFactorKey = await watchSecondFactorKey({ store: store.secondFactors, log })
  const readiness = readinessProbe({
    store: storeCheck(
      store.kind,
      () => store.check(),
      () => session.store.database.sql
    ),
    upstream: () => health.check(),
    role,
    secondFactorKey: () => secondFactorKey.check(),
    now
  })
  metrics.attach({
    spooled: () => webhooks.keeper.spooled(),
    relayQueue: () => webhooks.relay?.counts() ?? null,
    unacknowledged: () => (webhooks.relay ? completions.current(now()).length : null),
    budget: () => session.client.budget.snapshot(),
    syncStates: () => session.monitor.states(),
    coverage: () => sync.coverage(),
    role: () => role.current(),
    secondFactorUnopenable: () => secondFactorKey.unopenable(),
    ready: () => {
      const r = readiness()
      return { all: r.ok, store: r.checks.store.ok, upstream: r.checks.upstream.ok, secondFactorKey: r.checks.secondFactorKey?.ok ?? true }
    }
  })
  await events.feed.start()
  await claims.start()
  await session.start({ monitor: false })
  const follower = await followRole({ role, log, session, feed: events.feed, watches, onLeading: () => sync.nowLeading() })
  following = follower
  // Alerts to the hooks an admin set (alert-hooks/): the leader raises and sends them.
  const alertHooks = startAlertHooks({
    store: store.alertHooks,
    hub: hubIdOf(o.dataDir),
    log,
    now,
    leads: () => leads(role),
    alerts: () => session.alerts.list().alerts,
    coinOf: (r) => {
      const row = session.store.orders.get(r.type, r.orderId)
      // By the configuration's codes: without them a coin is only its number ("#54").
      return row ? coinName(row.coinId, csvNamesOf(session.config.snapshot()).coin) : null
    }
  })
  const unhook = events.subscribe((e) => {
    if (e.event === 'alerts:changed') alertHooks.changed()
  })
  const sweeper = hubSweep({ backend, store, role, session, settings, tickers, webhooks, deliveryLog, log, now })
  const handlerCache = new Map<string, ContractHandlers>()

  return {
    log,
    refusals,
    operators: withOidcSessions(operators, store.oidc),
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
    subscribe: (listener) => events.subscribe(listener),
    shapeFor: (operator, e) => events.shapeFor(operator, e, watches, tickers),
    replayPage: (afterId, limit) => events.replayPage(afterId, limit),
    latestEventId: () => events.latestEventId(),
    onRevoked(listener) {
      revokedListeners.add(listener)
      return () => revokedListeners.delete(listener)
    },
    operatorLeft(name) {
      tickers.forget(name)
    },
    sweep: () => sweeper.sweep(),
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
    reopenAuditLog: async () => auditCopy?.reopen(),
    // The receiver first, and what it shared with the other hubs written; then what talks to
    // them, the role's last change and the order feed it uses, the session and its service,
    // the role itself; the store, which all of these use, last.
    async close() {
      events.clear()
      await webhooks.close()
      await deliveryLog.flushed()
      refusals.close()
      await tickers.close()
      await shared.close()
      await teamSettings.close()
      await sync.close()
      unhook()
      await alertHooks.close()
      await follower.stop()
      await events.feed.close()
      await claims.close()
      await session.close()
      await sandbox?.close()
      await role.close()
      unmeter()
      health.close()
      secondFactorKey.close()
      untrack()
      await sweeper.idle()
      // The last entries written first, so the copy has them before it closes.
      await audit.flush()
      await auditCopy?.close()
      await store.close()
    }
  }
}
