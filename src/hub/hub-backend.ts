// Where the hub keeps what it keeps, and what it shares with other hubs through it: one
// interface both stores implement, so the hub runs the same code on either. hub.db
// (sqlite-backend.ts) serves the only hub on its data directory: it leads for good, and each
// part is that hub's own behaviour (its settings file, its monitor's coverage, its own reads,
// its order events as its monitor writes them). A PostgreSQL database (pg/pg-backend.ts) is
// shared by several hubs, one of them leading: each part carries what the leader does to the
// others, and the leader's writes and spends are fenced by its lease.
import type { ApiClient } from '../main/api/client'
import type { SharedReads } from '../main/api/shared-reads'
import type { HandlingEntry } from '../main/store/order-claims-repo'
import type { Sql } from '../main/store/sql'
import type { StoredWebhookDelivery, WebhookDeliveryInput, WebhookDeliveriesRepo } from '../main/store/webhook-deliveries-repo'
import type { WebhookRecord } from '../main/webhooks/delivery-verdict'
import type { EndpointName } from '../shared/api/endpoints'
import type { Coverage, EventName, OrderRef, OrderType, Settings, SyncState } from '../shared/ipc/contract'
import { HUB_SETTING_KEYS, type HubSettingKey } from '../shared/ipc/team-access'
import type { HubLog } from './hub-log'
import type { HubRoleSource } from './hub-role'
import type { HubStore } from './hub-store'
import type { WatchTarget } from './operator-watches'

/** The settings the team shares (the polling keys an admin sets from any desktop). */
export type TeamSettings = Pick<Settings, HubSettingKey>

export function teamPart(s: Settings): TeamSettings {
  return Object.fromEntries(HUB_SETTING_KEYS.map((k) => [k, s[k]])) as TeamSettings
}

/** sync:now, sync:audit, sync:resync. */
export type SyncAction = 'now' | 'audit' | 'resync'

/** One event on the bus: order events carry their order_events id, the rest none. */
export interface HubEvent {
  id: number | null
  event: EventName
  payload: unknown
}

type Role = Pick<HubRoleSource, 'current'>

export interface HubBackend {
  /** The hub's own tables: operators, audit, pins, the budget carried over, kept deliveries. */
  readonly store: HubStore
  /** This hub's role among the hubs on the store. */
  startRole(): Promise<HubRoleSource>
  /** The team's settings, as the hubs on the store share them. */
  teamSettings(): TeamSettingsSync
  /** The configuration and price reads: the leader's, shared with the hubs that follow. */
  sharedReads(o: SharedReadsOptions): SharedReadsPart
  /** What a hub that follows shows of the sync instead of its own idle monitor. */
  leaderView(o: LeaderViewOptions): LeaderView
  /** Where sync:now, sync:audit and sync:resync asked on this hub run. */
  syncRequests(o: SyncRequestsOptions): SyncRequests
  /** The webhook delivery log desktops are shown. */
  deliveryLog(o: DeliveryLogOptions): DeliveryLog
  /** From now on, what only the leader may claim or mark (budget, applied deliveries) is fenced by this role's lease. */
  fenceBy(role: Role): void
  /** How order events reach desktops, and up to where they are replayed. */
  orderFeed(o: OrderFeedOptions): HubOrderFeed
  /** The leader's sweep of what reached the store from other hubs: their pins, and the deliveries older hubs offered. */
  leaderSweep(o: LeaderSweepOptions): Promise<void>
  /** Claims and notes on orders, as every hub on the store shares them. */
  handlingLog(o: { onError(message: string): void }): HandlingLog
}

/** A claim, release, hand-over or note as the store holds it, with its id there (ascending in the order kept). */
export interface StoredHandling {
  id: number
  entry: HandlingEntry
}

export interface HandlingLog {
  /** Keeps an entry for every hub on the store; answers its id. */
  append(e: HandlingEntry): Promise<number>
  /** The entries kept after this id, oldest first. */
  after(id: number, limit: number): Promise<StoredHandling[]>
  /** Calls `changed` whenever another hub may have kept entries (never, where there is no other). */
  watch(changed: () => void): void
  close(): Promise<void>
}

export interface TeamSettingsSync {
  /** The team's settings as a hub saved them, or null when there are none to take. */
  load(): Promise<TeamSettings | null>
  /** Applies every change another hub saves from now on. */
  watch(apply: (s: TeamSettings) => Promise<void>, onError: (m: string) => void): void
  /** Saves a change an admin made on this hub, for the others. */
  save(s: TeamSettings): Promise<void>
  close(): Promise<void>
}

export interface SharedReadsOptions {
  role: Role
  log: HubLog
  /** How old the leader's answer may be for a hub that follows to take it without asking again. */
  freshMs(name: EndpointName): number
  /** A hub that follows was served the leader's answer (failure null) or none came: for /readyz. */
  onLeaderAnswer(name: EndpointName, failure: string | null): void
}

export interface SharedReadsPart {
  /** What the session reads through before it sends a read itself (undefined: it always sends its own). */
  readonly reads: SharedReads | undefined
  /** Starts answering the other hubs' reads with this client (the leader's). */
  serve(client: ApiClient): void
  close(): Promise<void>
}

export interface LeaderViewOptions {
  role: Role
  /** This hub's monitor's coverage and sync states. */
  own(): Coverage
  ownStates(): SyncState[]
  /** The team's freshness bound (minutes). */
  freshnessMinutes(): number
  /** What this hub shows of the leader's coverage changed. */
  onLeaderCoverage(c: Coverage): void
  /** This hub read sync states of the leader's other than those it last had. */
  onLeaderStates(states: SyncState[]): void
  onError(message: string): void
}

export interface LeaderView {
  /** What sync:coverage answers when it is not this hub's own monitor's (it follows), else null. */
  coverage(): Coverage | null
  /** What sync:state answers when it is not this hub's own monitor's (it follows), else null. */
  states(): SyncState[] | null
  /** This hub's monitor's coverage or sync states changed: answers whether its desktops are shown them. */
  ownChanged(): boolean
  close(): Promise<void>
}

/** The view of the only hub there is: its own monitor's, always. */
export const OWN_VIEW: LeaderView = {
  coverage: () => null,
  states: () => null,
  ownChanged: () => true,
  close: async () => undefined
}

/** A sync action asked on one hub and run on another: what, who asked, on which hub. */
export interface SyncRequest {
  action: SyncAction
  operator: string
  hub: string
}

export interface SyncRequestsOptions {
  role: Role
  /** Runs an action on this hub's monitor. */
  runHere(action: SyncAction): void
  /** Runs an action another hub handed to this one, the leader. */
  runHanded(r: SyncRequest): void
  onError(message: string): void
}

export interface SyncRequests {
  /** An action asked on this hub: run here, or handed to the leading hub (answered once it is handed over). */
  ask(action: SyncAction, operator: string): Promise<void>
  close(): Promise<void>
}

export interface DeliveryLogOptions {
  /** This hub's own delivery log, in its order database. */
  local(): Pick<WebhookDeliveriesRepo, 'list'>
  onError(message: string): void
}

export interface DeliveryLog {
  /** A delivery this hub stored and did not keep (an unverified one), for the log the hubs share. */
  share(d: WebhookDeliveryInput): void
  list(q: { offset: number; limit: number }): Promise<{ total: number; rows: StoredWebhookDelivery[] }>
  /** Drops deliveries past the team's retention. */
  prune(r: { keepDays: number; keepDeliveries: number }): Promise<void>
  /** Resolves once every delivery shared so far is written (or its failure reported). */
  flushed(): Promise<unknown>
}

export interface OrderFeedOptions {
  /** This hub's order database. */
  local(): Sql
  role: Role
  log: HubLog
  /** Sends an event to desktops. */
  publish(e: HubEvent): void
  /** Sends desktops the order events after `afterId` up to `upTo`, from the order database. */
  stream(afterId: number, upTo: number): void
  /** The leader's rows of orders of these types were applied here without an event. */
  rowsChanged(types: OrderType[]): void
}

export interface HubOrderFeed {
  /** This hub's monitor wrote an order event (its row is in order_events). */
  ordered(event: 'order:created' | 'order:changed', payload: unknown): void
  /** Catches up with the events the other hubs published, before any desktop connects. */
  start(): Promise<void>
  /** The newest event id replay and resync may send now. */
  replayUpTo(): number
  /** The newest event id desktops have been sent (0: none). */
  latestId(): number
  /** This hub has just become the leader: it takes up where the last one stopped, before its monitor starts. */
  takeOver(): Promise<void>
  close(): Promise<void>
}

export interface LeaderSweepOptions {
  role: Role
  /** The pins this hub's monitor polls, and the monitor. */
  monitorPins(): readonly OrderRef[]
  monitor: WatchTarget
  /** Applies a verified delivery's order to this hub's monitor. */
  apply(w: WebhookRecord): void
  warn(message: string): void
}
