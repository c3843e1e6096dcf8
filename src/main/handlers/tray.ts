// tray:state — what the tray icon, its title or tooltip and the popover tell at a glance:
// the sync states and how many orders need attention or are in progress, in the local
// database, put in order by trayState(), with whether every order is here in one plain
// line (shared/domain/proof.ts) when it is not simply so.
import { trayState } from '../tray-state'
import { proofStates, proofText } from '../../shared/domain/proof'
import { fiatName } from '../../shared/domain/names'
import type { Coverage, SyncState } from '../../shared/ipc/contract'
import type { HandlerContext, HandlerSlice, ShellPort } from './context'

/** The tray's one line on the orders being here, or null when they are (or when only the hub's absence, said by the headline, is known). */
export function trayProof(coverage: Coverage, sync: readonly SyncState[], now: number, locale?: string): string | null {
  const first = proofStates({ coverage, sync, type: null, now })[0]!
  if (first.kind === 'complete' || first.kind === 'none-held' || first.kind === 'unknown' || first.kind === 'hub') return null
  const n = new Intl.NumberFormat(safeLocale(locale), { maximumFractionDigits: 0 })
  // The tray's host may not be in the operator's time zone (a team hub answers for it): times say UTC.
  const time = (ms: number) => `${new Date(ms).toISOString().slice(11, 16)} UTC`
  return proofText(first, { time, count: (x) => n.format(x), fiat: (id) => fiatName(id) }, { both: true, now }).text
}

function safeLocale(locale: string | undefined): string {
  try {
    return new Intl.NumberFormat(locale).resolvedOptions().locale
  } catch {
    return 'en-US'
  }
}

export function trayHandlers(c: Pick<HandlerContext, 'ready'> & { shell: Pick<ShellPort, 'locale'> }): HandlerSlice<'tray'> {
  return {
    'tray:state': async () => {
      const s = await c.ready()
      // One statement over order_counts for both groups of both types.
      const counts = s.store.orders.openGroupCounts()
      const coverage = s.monitor.coverage()
      const sync = s.monitor.states()
      const locale = c.shell.locale?.()
      const alerts = s.alerts.list().alerts
      return trayState({
        stalled: alerts.filter((a) => a.kind === 'stalled').length,
        chains: alerts.flatMap((a) => (a.kind === 'chain' ? [a.text] : [])),
        gaps: coverage.gaps.map((g) => g.text),
        proof: trayProof(coverage, sync, Date.now(), locale),
        sync,
        attention: counts['needs attention'],
        inProgress: counts['in progress'],
        locale
      })
    }
  }
}
