// The backend of a hub on the PostgreSQL database several hubs share (hub-backend.ts): its
// tables (pg-hub-store.ts), the election of the one that leads (pg-election.ts), and what the
// leader shares with the others through the database: the team's settings, its coverage and
// sync states, its configuration and price reads, the order events and rows it writes, the
// sync actions a follower hands it, and the delivery log. What only the leader writes or
// spends is fenced by its lease (pg-lease.ts).
import type { SecondFactorKeyOf } from '../second-factor-key'
import type { HubBackend, HubOrderFeed, OrderFeedOptions } from '../hub-backend'
import type { HubLog } from '../hub-log'
import { leads } from '../hub-role'
import type { PgTarget } from './pg-connection'
import { PgDeliveryLog } from './pg-delivery-log'
import { pgHandlingLog } from './pg-handling-log'
import { startPgElection } from './pg-election'
import { openPgHubStore, type PgHubStore } from './pg-hub-store'
import { PgLeaderCoverage } from './pg-leader-coverage'
import { startOrderFeed, type OrderFeedLoop } from './pg-order-feed-loop'
import { startSharedReads } from './pg-shared-reads'
import { relaySyncRequest, serveSyncRequests, thisHub } from './pg-sync-requests'
import { PgTeamSettings } from './pg-team-settings'
import { PgWebhookInbox } from './pg-webhook-inbox'

export interface PgBackendOptions {
  target: PgTarget
  now: () => number
  log: HubLog
  /** The key TOTP secrets are sealed with: second-factor.key in this hub's data directory. */
  secondFactorKey: SecondFactorKeyOf
}

export async function openPgBackend(o: PgBackendOptions): Promise<HubBackend> {
  const { target, now, log } = o
  const store = await openPgHubStore({ target, now, onError: (m) => log.error(m), secondFactorKey: o.secondFactorKey })
  const { pool } = store
  return {
    store,
    startRole: () => startPgElection({ target, now, log }),
    teamSettings() {
      // Hubs on one database poll as the team's settings say, whichever hub an admin changed them on.
      const team = new PgTeamSettings(pool)
      return {
        load: () => team.load(),
        watch: (apply, onError) => team.watch(target, apply, onError),
        save: (s) => team.save(s),
        close: () => team.close()
      }
    },
    sharedReads: (r) =>
      startSharedReads({
        pool,
        target,
        role: r.role,
        log: r.log,
        onError: (m) => r.log.error(m),
        onLeaderAnswer: r.onLeaderAnswer,
        freshMs: r.freshMs
      }),
    leaderView(v) {
      // A follower's monitor is idle, so its desktops are told the leader's coverage and
      // states (or that they are not known), never the follower's own.
      const coverage = new PgLeaderCoverage({ pool, target, ...v })
      coverage.start()
      return {
        coverage: () => coverage.current(),
        states: () => coverage.states(),
        ownChanged() {
          coverage.changed()
          return leads(v.role)
        },
        close: () => coverage.close()
      }
    },
    syncRequests(s) {
      // A follower's sync actions are the leader's to run (pg-sync-requests.ts).
      const listener = serveSyncRequests({ target, role: s.role, run: (r) => s.runHanded(r), onError: s.onError })
      return {
        async ask(action, operator) {
          if (leads(s.role)) return s.runHere(action)
          try {
            await relaySyncRequest(pool, { action, operator, hub: thisHub() })
          } catch (e) {
            throw new Error(`could not hand sync:${action} to the leading hub (it syncs for every hub): ${(e as Error).message}`)
          }
        },
        close: () => listener.close()
      }
    },
    deliveryLog(d) {
      const shared = new PgDeliveryLog(pool, now, d.onError)
      return {
        share: (x) => shared.record(x),
        list: (q) => shared.list(q),
        prune: (r) => shared.prune(r),
        flushed: () => shared.flushed()
      }
    },
    fenceBy(role) {
      // Several hubs spend one API key: what only the leader sends is claimed only under its
      // lease (pg-shared-budget.ts), and kept deliveries are marked applied only under it.
      store.sharedBudget.fenceBy(role)
      store.kept.fenceBy(role)
    },
    orderFeed: (f) => orderFeedOf(store, f),
    async leaderSweep(s) {
      // Pins made on other hubs reach the leader's monitor.
      await store.watches.reconcile(s.monitorPins(), s.monitor)
      // Deliveries a follower of an older version offered its leader (before deliveries were kept).
      await new PgWebhookInbox(pool, now, s.role).drain(s.apply, s.warn)
    },
    handlingLog: (h) => pgHandlingLog(pool, target, h.onError)
  }
}

/** Order events reach desktops through the feed, once they are in the database with the id every hub gives them. */
function orderFeedOf(store: PgHubStore, f: OrderFeedOptions): HubOrderFeed {
  let loop: OrderFeedLoop | null = null
  return {
    ordered: () => void loop?.sync(),
    async start() {
      loop = await startOrderFeed({
        pool: store.pool,
        target: store.target,
        local: f.local,
        role: f.role,
        log: f.log,
        stream: f.stream,
        rowsChanged: f.rowsChanged
      })
    },
    replayUpTo: () => loop?.streamedUpTo() ?? 0,
    latestId: () => loop?.streamedUpTo() ?? 0,
    takeOver: async () => loop?.takeOver(),
    close: async () => loop?.close()
  }
}
