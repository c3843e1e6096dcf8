// The hub's Prometheus metrics (GET /metrics, metrics-route.ts), with prom-client: one
// registry per hub, so several hubs in one process (the tests) keep theirs apart.
//
// Every label takes its values from a closed set the hub defines (routes, the contract's
// channels, the HTTP statuses the hub answers, the service's endpoints, refusal kinds, relay
// outcomes, the scopes it syncs and how complete each is): nothing a stranger sends becomes a label, so no request
// can grow the registry. What is read from elsewhere (the budget, the sync states, open
// streams, the role) is read when scraped, through `attach`.
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry, type LabelValues } from 'prom-client'
import type { RequestEvent } from '../main/api/client'
import type { EndpointBudget, BudgetSnapshot } from '../main/api/rate-budget'
import type { Coverage, SyncState } from '../shared/ipc/contract'
import type { RoleState } from './hub-role'
import type { RelayCounts } from './kept/kept-store'
import { REFUSAL_KINDS, type RefusalKind } from './refusal-kinds'
import { scopeFamilies, scopeLabels } from './scope-metrics'

/** The routes the hub serves; anything else is `other`. */
export type Route = 'rpc' | 'events' | 'export' | 'webhook' | 'healthz' | 'readyz' | 'metrics' | 'other'

export const RELAY_OUTCOMES = ['relayed', 'retrying', 'failed', 'skipped_already_relayed'] as const
export const KEPT_WHERE = ['store', 'spool', 'refused'] as const
export type KeptWhere = (typeof KEPT_WHERE)[number]
export type RelayOutcomeKind = (typeof RELAY_OUTCOMES)[number]

/** What the metrics read when scraped. */
export interface MetricsSources {
  budget(): BudgetSnapshot
  syncStates(): SyncState[]
  /** Each scope's probe and completeness audit, and the open orders' freshness. */
  coverage(): Coverage
  role(): RoleState
  /** Open event streams. */
  streams(): number
  /** Open connections at the front door. */
  connections(): number
  /** Operators whose stored second factor this hub's second-factor.key does not open. */
  secondFactorUnopenable(): number
  /** Each readiness check: ok or not. */
  ready(): Record<string, boolean>
  /** Verified deliveries in the spool, not yet in the store. */
  spooled(): { entries: number; bytes: number }
  /** The relay queue as the relay last read it (null: no --forward-to, or not read yet). */
  relayQueue(): RelayCounts | null
  /** Completions the merchant's system has not confirmed past the grace period (null: no --forward-to). */
  unacknowledged(): number | null
}

export class HubMetrics {
  readonly registry = new Registry()
  private sources: Partial<MetricsSources> = {}
  private readonly requests: Counter<'route' | 'channel' | 'status'>
  private readonly upstreamCalls: Counter<'endpoint' | 'outcome'>
  private readonly upstream429: Counter<'endpoint'>
  private readonly upstreamSeconds: Histogram<'endpoint'>
  private readonly refusals: Counter<'kind'>
  private readonly relays: Counter<'outcome'>
  private readonly deliveries: Counter<'verified'>
  private readonly keeps: Counter<'where'>
  private readonly auditCopyFailures: Counter
  private readonly oidcProvider: Counter<'stage'>
  private readonly oidcDropped: Counter

  constructor(o: { version: string; store: string }) {
    const registers = [this.registry]
    collectDefaultMetrics({ register: this.registry })
    const src = () => this.sources
    new Gauge({
      name: 'rampdesk_hub_info',
      help: 'The hub: its version and store (always 1).',
      labelNames: ['version', 'store'],
      registers
    }).set({ version: o.version, store: o.store }, 1)
    /** A counter; `zeros` are series shown at 0 from the start (a closed set, so a dashboard sees every kind). */
    const counter = <L extends string>(name: string, help: string, labelNames: readonly L[], zeros: readonly string[] = []) => {
      const c = new Counter<L>({ name, help, labelNames, registers })
      for (const v of zeros) c.inc({ [labelNames[0]!]: v } as LabelValues<L>, 0)
      return c
    }
    this.requests = counter('rampdesk_hub_requests_total', 'Requests answered, by route, contract channel (rpc only) and HTTP status.', [
      'route',
      'channel',
      'status'
    ])
    this.upstreamCalls = counter(
      'rampdesk_hub_upstream_requests_total',
      "Requests to the merchant's service, by endpoint and outcome (ok, expected_refusal, or the kind of failure).",
      ['endpoint', 'outcome']
    )
    this.upstream429 = counter(
      'rampdesk_hub_upstream_429_total',
      "The service's 429 answers, by endpoint (the budget should keep the documented ones at 0).",
      ['endpoint']
    )
    this.upstreamSeconds = new Histogram({
      name: 'rampdesk_hub_upstream_request_duration_seconds',
      help: "Time from sending a request to the service's answer, by endpoint.",
      labelNames: ['endpoint'],
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers
    })
    this.refusals = counter(
      'rampdesk_hub_refusals_total',
      'Requests and connections refused, by kind (docs/hub-reference.md, "What the hub refuses").',
      ['kind'],
      REFUSAL_KINDS
    )
    this.relays = counter(
      'rampdesk_hub_webhook_relays_total',
      'Verified webhook deliveries and their relay to --forward-to, by outcome.',
      ['outcome'],
      RELAY_OUTCOMES
    )
    this.auditCopyFailures = new Counter({
      name: 'rampdesk_hub_audit_copy_failures_total',
      help: 'Attempts to write an audit entry to the live copy (--audit-log) that failed; the entry stays in the database and is copied again.',
      registers
    })
    this.oidcProvider = counter(
      'rampdesk_hub_oidc_provider_failures_total',
      'Times the identity provider did not answer the hub or answered nonsense, by stage (discovery at a sign-in start, sign_in, renewal).',
      ['stage'],
      ['discovery', 'sign_in', 'renewal']
    )
    this.oidcDropped = new Counter({
      name: 'rampdesk_hub_oidc_pending_dropped_total',
      help: 'Sign-ins under way dropped, oldest first, to keep them at their cap (a flood of /auth/oidc/start).',
      registers
    })
    this.keeps = counter(
      'rampdesk_hub_webhook_kept_total',
      'Verified webhook deliveries kept before they were answered 2xx, by where (store, spool), and those neither could keep (refused: answered 503).',
      ['where'],
      KEPT_WHERE
    )
    this.deliveries = counter(
      'rampdesk_hub_webhook_deliveries_total',
      'Webhook deliveries received at POST /webhook, verified or refused.',
      ['verified'],
      ['true', 'false']
    )

    const gauge = <L extends string>(name: string, help: string, labelNames: readonly L[], collect: (g: Gauge<L>) => void) => {
      const g: Gauge<L> = new Gauge<L>({
        name,
        help,
        labelNames,
        registers,
        collect() {
          g.reset()
          collect(g)
        }
      })
    }
    const budget = () => src().budget?.().endpoints ?? []
    const budgetGauges: Array<[string, string, (e: EndpointBudget) => number]> = [
      ['rampdesk_hub_budget_used', "Requests the hub's budget counts in the current window, by endpoint.", (e) => e.usedInWindow],
      ['rampdesk_hub_budget_limit', 'Requests the budget allows per window, by endpoint.', (e) => e.limit],
      ['rampdesk_hub_budget_queued', 'Requests waiting for a slot of the budget, by endpoint.', (e) => e.queued],
      ['rampdesk_hub_budget_blocked', '1 while the service has an endpoint blocked after a 429.', (e) => (e.blockedUntil !== null ? 1 : 0)]
    ]
    for (const [name, help, read] of budgetGauges)
      gauge(name, help, ['endpoint'], (g) => {
        for (const e of budget()) g.set({ endpoint: e.endpoint }, read(e))
      })
    const states = () => src().syncStates?.() ?? []
    gauge(
      'rampdesk_hub_sync_lag_seconds',
      'Time since the last complete sync of each scope (absent before the first).',
      ['type', 'fiat'],
      (g) => {
        for (const s of states()) if (s.lagMs !== null) g.set(scopeLabels(s), s.lagMs / 1000)
      }
    )
    gauge('rampdesk_hub_sync_last_success_timestamp_seconds', "When each scope's last sync completed.", ['type', 'fiat'], (g) => {
      for (const s of states()) if (s.lastSuccessAt !== null) g.set(scopeLabels(s), s.lastSuccessAt / 1000)
    })
    gauge('rampdesk_hub_sync_running', '1 while a sync of the scope runs.', ['type', 'fiat'], (g) => {
      for (const s of states()) g.set(scopeLabels(s), s.running ? 1 : 0)
    })
    for (const family of scopeFamilies)
      gauge(family.name, family.help, ['type', 'fiat', 'state'], (g) => {
        for (const s of states()) {
          const now = family.of(s)
          for (const state of family.states) g.set({ ...scopeLabels(s), state }, state === now ? 1 : 0)
        }
      })
    const coverage = () => src().coverage?.()
    const coverageStates: Array<[string, string, readonly string[], (c: Coverage['scopes'][number]) => string]> = [
      [
        'rampdesk_hub_scope_probe_state',
        "Whether each scope the service may hold orders in was probed and holds any (1 for the state it is in; only 'active' scopes are synced).",
        ['unprobed', 'probing', 'active', 'empty', 'refused', 'failed'],
        (c) => c.probe
      ],
      [
        'rampdesk_hub_scope_completeness',
        "Each scope's completeness audit against the service's own count: unchecked, checking, complete, incomplete or repairing (1 for the state it is in).",
        ['unchecked', 'checking', 'complete', 'incomplete', 'repairing'],
        (c) => c.audit.state
      ]
    ]
    for (const [name, help, all, of] of coverageStates)
      gauge(name, help, ['type', 'fiat', 'state'], (g) => {
        for (const c of coverage()?.scopes ?? []) {
          const now = of(c)
          for (const state of all) g.set({ ...scopeLabels(c), state }, state === now ? 1 : 0)
        }
      })
    gauge('rampdesk_hub_scope_orders', 'Orders the hub holds in each scope.', ['type', 'fiat'], (g) => {
      for (const c of coverage()?.scopes ?? []) g.set(scopeLabels(c), c.orders)
    })
    gauge(
      'rampdesk_hub_scope_service_orders',
      'Orders the service held in each scope at the last audit (absent before it).',
      ['type', 'fiat'],
      (g) => {
        for (const c of coverage()?.scopes ?? []) if (c.audit.serviceOrders !== null) g.set(scopeLabels(c), c.audit.serviceOrders)
      }
    )
    gauge('rampdesk_hub_open_orders_stale', 'Open orders whose status was not confirmed within the freshness bound.', [], (g) => {
      const f = coverage()?.freshness
      if (f) g.set(f.stale)
    })
    gauge('rampdesk_hub_event_streams', 'Open event streams (GET /events) of every operator.', [], (g) => {
      const n = src().streams?.()
      if (n !== undefined) g.set(n)
    })
    gauge('rampdesk_hub_open_connections', 'Open connections at the front door.', [], (g) => {
      const n = src().connections?.()
      if (n !== undefined) g.set(n)
    })
    gauge('rampdesk_hub_leader', '1 while this hub leads (runs the sync and the polls), 0 while it follows.', [], (g) => {
      const r = src().role?.()
      if (r) g.set(r.role === 'leader' ? 1 : 0)
    })
    gauge(
      'rampdesk_hub_webhook_spool_entries',
      "Verified deliveries kept in the spool on this hub's disk, waiting for the store.",
      [],
      (g) => {
        const s = src().spooled?.()
        if (s) g.set(s.entries)
      }
    )
    gauge(
      'rampdesk_hub_webhook_relay_queue',
      'Relays to --forward-to by state: waiting (or being sent), and failed (waiting for an admin).',
      ['state'],
      (g) => {
        const q = src().relayQueue?.()
        if (!q) return
        g.set({ state: 'waiting' }, q.waiting + q.sending)
        g.set({ state: 'failed' }, q.failed)
      }
    )
    gauge(
      'rampdesk_hub_webhook_relay_oldest_waiting_seconds',
      'Age of the oldest delivery still waiting for its relay (0: none waits).',
      [],
      (g) => {
        const q = src().relayQueue?.()
        if (q) g.set(q.oldestWaitingAt === null ? 0 : Math.max(0, (Date.now() - q.oldestWaitingAt) / 1000))
      }
    )
    gauge(
      'rampdesk_hub_unacknowledged_completions',
      "Orders completed at the service whose notice the merchant's receiver has not answered 2xx, past the grace period (0 without --forward-to).",
      [],
      (g) => {
        const n = src().unacknowledged?.()
        if (n !== undefined && n !== null) g.set(n)
      }
    )
    gauge(
      'rampdesk_hub_second_factor_unopenable',
      "Operators whose stored second factor this hub's second-factor.key does not open (the hub's log names them).",
      [],
      (g) => {
        const n = src().secondFactorUnopenable?.()
        if (n !== undefined) g.set(n)
      }
    )
    gauge('rampdesk_hub_ready', "Each readiness check of /readyz (1 ok, 0 not), and 'all'.", ['check'], (g) => {
      const checks = src().ready?.()
      if (!checks) return
      for (const [check, ok] of Object.entries(checks)) g.set({ check }, ok ? 1 : 0)
    })
  }

  /** Gives the metrics what they read when scraped. */
  attach(sources: Partial<MetricsSources>): void {
    this.sources = { ...this.sources, ...sources }
  }

  request(route: Route, channel: string, status: number): void {
    this.requests.inc({ route, channel, status: String(status) })
  }

  upstream(e: RequestEvent): void {
    // A refusal the hub asked for (page 0, to learn how pages are numbered) is no failure to alert on.
    this.upstreamCalls.inc({ endpoint: e.endpoint, outcome: e.expected ? 'expected_refusal' : e.outcome })
    if (e.httpStatus === 429) this.upstream429.inc({ endpoint: e.endpoint })
    if (e.httpStatus !== undefined) this.upstreamSeconds.observe({ endpoint: e.endpoint }, e.durationMs / 1000)
  }

  refusal(kind: RefusalKind): void {
    this.refusals.inc({ kind })
  }

  relay(outcome: RelayOutcomeKind): void {
    this.relays.inc({ outcome })
  }

  kept(where: KeptWhere): void {
    this.keeps.inc({ where })
  }

  auditCopyFailed(): void {
    this.auditCopyFailures.inc()
  }

  oidcProviderFailed(stage: 'discovery' | 'sign_in' | 'renewal'): void {
    this.oidcProvider.inc({ stage })
  }

  oidcPendingDropped(count: number): void {
    this.oidcDropped.inc(count)
  }

  delivery(verified: boolean): void {
    this.deliveries.inc({ verified: String(verified) })
  }

  /** The Prometheus text format. */
  render(): Promise<string> {
    return this.registry.metrics()
  }

  get contentType(): string {
    return this.registry.contentType
  }
}
