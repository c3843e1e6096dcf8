// What needs a person now, for one profile's store: open orders stalled past their
// threshold (shared/domain/stalled.ts), open orders on a chain the configuration reports
// unwell (shared/domain/chain-health.ts), scopes whose completeness check found orders
// missing from the copy (monitor/completeness-audit.ts), and, where notices reach a hub that
// relays or a desktop inbox, completions the merchant's system has not confirmed
// (shared/domain/unacknowledged.ts, through an UnacknowledgedSource). Looked at on a timer and whenever the
// configuration changes; 'alerts:changed' is emitted only when an alert is raised or
// cleared or a chain's orders change, not as minutes pass (the views count from `since`).
import type { Alert, AlertList, ConfigSnapshot, Coverage, GapAlert } from '../../shared/ipc/contract'
import { chainFlags } from '../../shared/domain/chain-health'
import { scopeName } from '../../shared/domain/coverage-text'
import { stalledOrder, stalledText } from '../../shared/domain/stalled'
import { statusInfo } from '../../shared/domain/status'
import type { OpenOrder } from '../store/open-orders'
import type { UnacknowledgedSource } from './unacknowledged-source'

export interface AlertTrackerOptions {
  openOrders(): OpenOrder[]
  /** The configuration as last read, or null before any. */
  config(): ConfigSnapshot | null
  thresholds(): Readonly<Record<string, number>>
  /** The monitor's coverage, whose scopes say where orders are missing (absent: no gap alerts). */
  coverage?(): Coverage
  now(): number
  changed(list: AlertList): void
  /** Asks the configuration again where it is due (its own time to live decides), before each timed look. */
  poll?(): Promise<void>
}

/**
 * The scopes whose completeness check found the copy short of the service (a missing range:
 * checked incomplete, or being read again to repair it). Their text names no time, so it
 * changes only with the count.
 */
function gapsOf(c: Coverage | undefined): Array<Omit<GapAlert, 'since'>> {
  const out: Array<Omit<GapAlert, 'since'>> = []
  for (const s of c?.scopes ?? []) {
    if (s.audit.state !== 'incomplete' && s.audit.state !== 'repairing') continue
    const missing = s.audit.serviceOrders !== null && s.audit.serviceOrders > s.orders ? s.audit.serviceOrders - s.orders : null
    const what =
      missing === null ? 'orders missing here' : `${missing.toLocaleString('en-US')} order${missing === 1 ? '' : 's'} missing here`
    const doing = s.audit.state === 'repairing' ? 'being read again' : 'found by the completeness check'
    out.push({
      kind: 'gap',
      id: `gap:${s.type}:${s.fiatType}`,
      type: s.type,
      fiatType: s.fiatType,
      missing,
      text: `${scopeName(s.type, s.fiatType)}: ${what}, ${doing}`
    })
  }
  return out
}

/** How often the alerts are looked at: a stalled order is raised at most this late. */
export const ALERT_EVERY_MS = 15_000

export class AlertTracker {
  /** When each chain or gap alert was first seen, by its id: kept while it stands. */
  private readonly seenSince = new Map<string, number>()
  private lastKey = ''
  private timer: NodeJS.Timeout | null = null
  private unacknowledged: UnacknowledgedSource | null = null

  constructor(private readonly o: AlertTrackerOptions) {}

  /** Where the completions the merchant's system has not confirmed come from (a hub that relays, a desktop inbox). */
  useUnacknowledged(source: UnacknowledgedSource | null): void {
    this.unacknowledged = source
  }

  /** The alerts now, stalled orders first (longest first), then chains, then unconfirmed completions (longest first). */
  list(): AlertList {
    const now = this.o.now()
    const open = this.o.openOrders()
    const thresholds = this.o.thresholds()
    const alerts: Alert[] = []
    for (const o of open) {
      const s = stalledOrder(thresholds, o, now)
      if (!s) continue
      alerts.push({
        kind: 'stalled',
        id: `stalled:${o.type}:${o.orderId}`,
        order: { type: o.type, orderId: o.orderId },
        status: o.status,
        since: o.since,
        thresholdMinutes: s.thresholdMinutes,
        text: stalledText(s),
        tell: statusInfo(o.type, o.status).tell
      })
    }
    alerts.sort((a, b) => a.since - b.since)
    const config = this.o.config()
    const seen = new Set<string>()
    for (const f of config ? chainFlags(config, open) : []) {
      const id = `chain:${f.coinId}:${f.chainId}:${f.problem}`
      seen.add(id)
      if (!this.seenSince.has(id)) this.seenSince.set(id, now)
      alerts.push({
        kind: 'chain',
        id,
        coinId: f.coinId,
        chainId: f.chainId,
        problem: f.problem,
        orders: f.orders,
        since: this.seenSince.get(id)!,
        text: f.text
      })
    }
    for (const g of gapsOf(this.o.coverage?.())) {
      seen.add(g.id)
      if (!this.seenSince.has(g.id)) this.seenSince.set(g.id, now)
      alerts.push({ ...g, since: this.seenSince.get(g.id)! })
    }
    for (const id of [...this.seenSince.keys()]) if (!seen.has(id)) this.seenSince.delete(id)
    alerts.push(...(this.unacknowledged?.current(now) ?? []))
    return { alerts, at: now }
  }

  /** Looks again; emits 'alerts:changed' when what stands differs from the last look. */
  refresh(): AlertList {
    const list = this.list()
    const key = JSON.stringify(
      list.alerts.map((a) =>
        a.kind === 'stalled' ? [a.id, a.since, a.status] : a.kind === 'unacknowledged' ? [a.id, a.since, a.delivery.kind] : [a.id, a.text]
      )
    )
    if (key !== this.lastKey) {
      this.lastKey = key
      this.o.changed(list)
    }
    return list
  }

  /** Reads what the unconfirmed completions depend on again, then looks (alerts:list, and after a relay was answered). */
  async look(): Promise<AlertList> {
    await this.unacknowledged?.refresh()
    return this.refresh()
  }

  /** One timed look: the configuration where due, the completions' notices, then the alerts. */
  async tick(): Promise<AlertList> {
    await this.o.poll?.().catch(() => undefined)
    return this.look()
  }

  start(): void {
    this.timer ??= setInterval(() => {
      // A database closed while the session closes: the next session starts its own tracker.
      this.tick().catch(() => undefined)
    }, ALERT_EVERY_MS)
    this.timer.unref()
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer)
    this.timer = null
  }
}
