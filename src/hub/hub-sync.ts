// The history sync as the hub's desktops see it and act on it. A hub that follows another
// has an idle monitor: its desktops are shown the leader's coverage and sync states (the
// backend's leader view), with write marks that also change as this hub applies the leader's
// rows (followed-sync.ts), and the sync actions asked here run on the leader's monitor.
import type { ProfileSession } from '../main/profile-session'
import type { Coverage, SyncState } from '../shared/ipc/contract'
import { FollowedSync } from './followed-sync'
import { OWN_VIEW, type HubBackend, type HubEvent, type LeaderView, type SyncAction, type SyncRequests } from './hub-backend'
import type { HubLog } from './hub-log'
import { leads, type HubRoleSource } from './hub-role'

export interface HubSyncOptions {
  backend: Pick<HubBackend, 'leaderView' | 'syncRequests'>
  role: Pick<HubRoleSource, 'current'>
  log: HubLog
  now: () => number
  session(): ProfileSession
  publish(e: HubEvent): void
  /** The team's freshness bound (minutes). */
  freshnessMinutes(): number
  /** Resolves once the hub has settled into the role it was last given (hub-following.ts). */
  settled(): Promise<void>
}

export class HubSync {
  private readonly followed: FollowedSync
  /** The leader's coverage and states, once this hub reads them; until then its own. */
  private view: LeaderView = OWN_VIEW
  /** Where the actions asked here run: on this hub's monitor until the backend's requests start. */
  private requests: SyncRequests = { ask: async (action) => this.run(action), close: async () => undefined }

  constructor(private readonly o: HubSyncOptions) {
    this.followed = new FollowedSync(o.now)
  }

  /** Starts showing the leader's coverage and states when this hub follows, and serving the sync actions other hubs hand it. */
  start(): void {
    const { o } = this
    this.view = o.backend.leaderView({
      role: o.role,
      own: () => o.session().monitor.coverage(),
      ownStates: () => o.session().monitor.states(),
      freshnessMinutes: o.freshnessMinutes,
      onLeaderCoverage: (c) => o.publish({ id: null, event: 'coverage:changed', payload: c }),
      onLeaderStates: (states) => this.tell(this.followed.news(states)),
      onError: (m) => o.log.warn(m)
    })
    this.requests = o.backend.syncRequests({
      role: o.role,
      runHere: (action) => this.run(action),
      runHanded: (r) => {
        o.log.info(`${r.operator} asked for sync:${r.action} on the hub ${r.hub}: running it here, the leader`, {
          operator: r.operator,
          channel: `sync:${r.action}`
        })
        // After taking the role has settled: a hub that has just become the leader first
        // applies every event the old one published, then starts its monitor.
        void o.settled().then(() => {
          if (leads(o.role)) this.run(r.action)
        })
      },
      onError: (m) => o.log.warn(m)
    })
  }

  /** Whether the team's copy holds every order: the leader's coverage, on a hub that follows. */
  coverage(): Coverage {
    return this.view.coverage() ?? this.o.session().monitor.coverage()
  }

  /** The sync state per scope: the leader's, on a hub that follows (with this hub's write marks). */
  states(): SyncState[] {
    const leader = this.view.states()
    return leader ? this.followed.shown(leader) : this.o.session().monitor.states()
  }

  /** This hub's monitor's coverage or states changed: whether its desktops are shown them (a follower's are not). */
  ownChanged(): boolean {
    return this.view.ownChanged()
  }

  /** This hub applied the leader's rows of orders of these types. */
  rowsApplied(types: readonly number[]): void {
    this.followed.rowsApplied(types)
    this.tell(this.followed.news(this.view.states() ?? []))
  }

  /** This hub leads from now on: its desktops are told its own states, so the leader's are news again when it follows. */
  nowLeading(): void {
    this.followed.forget()
  }

  /** sync:now, sync:audit, sync:resync asked by an operator of this hub: answered at once; progress in sync:state. */
  ask(action: SyncAction, operator: string): Promise<void> {
    return this.requests.ask(action, operator)
  }

  private run(action: SyncAction): void {
    const monitor = this.o.session().monitor
    void (action === 'now' ? monitor.syncNow() : action === 'audit' ? monitor.auditNow() : monitor.resyncAll())
  }

  private tell(states: SyncState[]): void {
    for (const s of states) this.o.publish({ id: null, event: 'sync:state', payload: s })
  }

  async close(): Promise<void> {
    await this.view.close()
    await this.requests.close()
  }
}
