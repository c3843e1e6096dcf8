// What the hub keeps of its own (beside the merchant's order store): operators, the audit
// log, pins, the budget carried over a restart, and the webhook deliveries it accepted with
// their relay. Two kinds: hub.db in
// the data directory (SQLite, sqlite-hub-store.ts) and the PostgreSQL database that several
// hubs share (pg/pg-hub-store.ts). The SQLite classes answer at once; the PostgreSQL ones
// answer what a request must know at once (a token, a pin) from an in-memory copy kept fresh
// through LISTEN/NOTIFY and a poll every second, and the rest with a promise. Callers await
// every Awaitable.
import type { Awaitable } from '../main/api/budget-carry'
import type { RateBudget } from '../main/api/rate-budget'
import type { SharedBudget } from '../main/api/shared-budget'
import type { OrderRef, OrderType, TeamOperator } from '../shared/ipc/contract'
import type { ChainedEntry } from './audit-chain'
import type { ChainBounds, HubAuditEntry } from './hub-audit'
import type { NewTokenOptions, Operator } from './operators'
import type { TokenRefusal } from './token-expiry'
import type { SecondFactorStore } from './second-factor'
import type { WatchTarget } from './operator-watches'
import type { ReadinessCheck } from './readiness'
import type { KeptStore } from './kept/kept-store'
import type { AlertHookStore } from './alert-hooks/hook-store'
import type { OidcStore } from './oidc/oidc-store'

export type { Awaitable }

export type StoreKind = 'sqlite' | 'postgres'

export interface OperatorDirectory {
  add(name: string, role: string, o?: NewTokenOptions): Awaitable<{ operator: TeamOperator; token: string }>
  /** A new token for an active operator; the old one is refused from then on, as replaced. */
  rotate(name: string, o?: Pick<NewTokenOptions, 'lifetimeMs'>): Awaitable<{ operator: TeamOperator; token: string }>
  list(): Awaitable<TeamOperator[]>
  revoke(name: string, opts?: { allowLastAdmin?: boolean }): Awaitable<TeamOperator>
  /** The active operator holding this token, or null: answered at once, on every request. */
  authenticate(token: string): Operator | null
  /** Whether the token behind this hash is still valid (open event streams ask this every second). */
  isActive(tokenHash: string): boolean
  /** Why authenticate() refused a token that once worked (it ended, or was replaced), answered at once; null otherwise. */
  refusalOf(token: string): TokenRefusal | null
}

export interface AuditLog {
  /** Written at once (SQLite) or queued and written in order (PostgreSQL; a failure is logged and retried). */
  append(operator: string, action: string, detail?: Record<string, unknown>): void
  list(limit: number): Awaitable<HubAuditEntry[]>
  /** Drops entries older than keepMs, then the oldest past maxEntries (defaults: a year, a million). */
  prune(keepMs?: number, maxEntries?: number): Awaitable<number>
  /** The chained entries written after this seq, oldest first, from `sinceAt` (epoch ms) on (audit-chain.ts). */
  page(afterSeq: number, limit: number, sinceAt?: number): Awaitable<ChainedEntry[]>
  /** Where the chain starts and its head, as the store recorded them. */
  bounds(): Awaitable<ChainBounds>
  /** Resolves once what was appended so far is written (or its failure reported). */
  flush(): Awaitable<void>
}

export interface PinStore {
  has(operator: string, type: OrderType, orderId: number): boolean
  list(operator: string): Awaitable<OrderRef[]>
  union(): Awaitable<OrderRef[]>
  watch(operator: string, type: OrderType, orderId: number, monitor: WatchTarget): Awaitable<void>
  unwatch(operator: string, type: OrderType, orderId: number, monitor: WatchTarget): Awaitable<void>
  dropOperator(operator: string, monitor: WatchTarget): Awaitable<void>
  orphans(): Awaitable<string[]>
  reconcile(monitorPins: readonly OrderRef[], monitor: WatchTarget): Awaitable<void>
}

export interface BudgetCarryStore {
  restore(budget: RateBudget): Promise<number>
  track(budget: RateBudget): () => void
}

export interface HubStore {
  readonly kind: StoreKind
  /** Where it is, for log lines: the data directory, or the database URL without its password. */
  readonly where: string
  /**
   * What whoever runs the hub is told of the store: its line in the start log (null for hub.db,
   * which is in the data directory the log names already), and how a revoked token stops
   * working (the command line says so).
   */
  readonly notes: { started: string | null; revocation: string }
  readonly operators: OperatorDirectory
  readonly audit: AuditLog
  /** TOTP enrolments and recovery codes (second-factor.ts). */
  readonly secondFactors: SecondFactorStore
  readonly watches: PinStore
  /** Verified webhook deliveries, kept before they are answered, and their relay (kept/). */
  readonly kept: KeptStore
  readonly budgetCarry: BudgetCarryStore
  /** The outbound alert hooks an admin set, and what each was sent (alert-hooks/). */
  readonly alertHooks: AlertHookStore
  /** People signed in through the team's identity provider, and their sessions (oidc/). */
  readonly oidc: OidcStore
  /** The request budget shared with the other hubs on the store (PostgreSQL), or null: this hub's budget is the only one. */
  readonly sharedBudget: SharedBudget | null
  /** The readiness of the hub's own tables (the order database is checked beside it). */
  check(): ReadinessCheck
  close(): Promise<void>
}
