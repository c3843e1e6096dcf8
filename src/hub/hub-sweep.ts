// The hub's sweep, asked every second or so by its server: it prunes what the hub keeps past
// its memory (among it the renewed sessions sealed for refresh tokens whose grace passed), drops the pins of operators revoked from another process, and as the leader
// applies to its orders what reached the store without passing through its monitor.
import type { AppSettings } from '../main/app-settings'
import { ingestInto } from '../main/webhooks/inbox'
import type { ProfileSession } from '../main/profile-session'
import type { DeliveryLog, HubBackend } from './hub-backend'
import type { HubLog } from './hub-log'
import { leads, type HubRoleSource } from './hub-role'
import type { HubStore } from './hub-store'
import type { HubTickers } from './hub-tickers'
import type { HubWebhooks } from './hub-webhooks'

/** How often the audit log is pruned (hub-audit.ts: a year, a million entries). */
const AUDIT_PRUNE_EVERY_MS = 60 * 60_000
/**
 * How often the sealed copies of renewed sessions past their grace are forgotten: a renewal or a
 * sign-in forgets them too, but a quiet team may make neither for hours.
 */
const FORGET_PREVIOUS_EVERY_MS = 15_000
/** How long after a failed sweep of the store the next is tried. */
export const SWEEP_RETRY_MS = 5_000

export interface HubSweepParts {
  backend: Pick<HubBackend, 'leaderSweep'>
  store: Pick<HubStore, 'audit' | 'watches' | 'oidc'>
  role: Pick<HubRoleSource, 'current'>
  session: ProfileSession
  settings: AppSettings
  tickers: HubTickers
  webhooks: HubWebhooks
  deliveryLog: DeliveryLog
  log: HubLog
  now: () => number
}

export interface HubSweep {
  /** One sweep, unless one is still running. */
  sweep(): void
  /** Resolves once the sweep under way (if any) is done. */
  idle(): Promise<unknown>
}

export function hubSweep(p: HubSweepParts): HubSweep {
  const { role, session, now, log } = p
  const { audit, watches } = p.store
  let auditPrunedAt = -Infinity
  let previousForgottenAt = -Infinity
  let sweeping: Promise<unknown> | null = null
  let failing: string | null = null

  async function sweepStore(): Promise<void> {
    if (now() - auditPrunedAt >= AUDIT_PRUNE_EVERY_MS) {
      auditPrunedAt = now()
      await audit.prune()
      if (leads(role)) await p.deliveryLog.prune(p.settings.get().inbox)
    }
    if (now() - previousForgottenAt >= FORGET_PREVIOUS_EVERY_MS) {
      previousForgottenAt = now()
      await p.store.oidc.forgetPrevious(now())
    }
    for (const name of await watches.orphans()) {
      await watches.dropOperator(name, session.monitor)
      p.tickers.forget(name)
    }
    if (leads(role)) {
      // Deliveries any hub kept (or the spool handed over late) reach the leader's orders.
      await p.webhooks.applyPending()
      await p.backend.leaderSweep({
        role,
        monitorPins: () => session.store.watches.list(),
        monitor: session.monitor,
        apply: (w) => void ingestInto(session.monitor, w, log),
        warn: (m) => log.warn(m)
      })
    }
  }

  /** When a failed sweep of the store is tried again. */
  let retryAt = -Infinity
  return {
    sweep() {
      p.webhooks.sweep()
      // A store that failed (hub.db locked by the command line, PostgreSQL away) is not asked
      // every second: on hub.db each write waits out its busy timeout on the event loop, and
      // requests (webhooks answered within the service's 5 s) wait with it.
      if (sweeping || now() < retryAt) return
      sweeping = sweepStore()
        .then(
          () => {
            if (failing !== null) log.info("the hub's sweep works again")
            failing = null
            retryAt = -Infinity
          },
          (e: unknown) => {
            // Once per cause: a store locked for a minute is one line, not twelve.
            const why = e instanceof Error ? e.message : String(e)
            if (why !== failing) log.error(`the hub's sweep failed: ${why}; it is tried again every ${SWEEP_RETRY_MS / 1000} s`)
            failing = why
            retryAt = now() + SWEEP_RETRY_MS
          }
        )
        .finally(() => (sweeping = null))
    },
    idle: () => sweeping ?? Promise.resolve()
  }
}
