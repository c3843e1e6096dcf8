// sync:* and budget:get — the order monitor's state per (type, fiat), a sync on demand
// (answered at once; progress arrives as sync:state events), the operator's "Re-sync
// everything" (the same, reading every scope's whole history), whether the local copy
// holds every order (coverage) and a completeness check on demand, and the request budget.
import type { HandlerContext, HandlerSlice } from './context'

/** budget:get: the request budget's lanes (a team hub answers the sync channels itself and takes only this). */
export function budgetHandlers(c: Pick<HandlerContext, 'ready'>): HandlerSlice<'budget'> {
  return { 'budget:get': async () => ({ entries: (await c.ready()).budgetEntries() }) }
}

export function syncHandlers(c: Pick<HandlerContext, 'ready' | 'audit'>): HandlerSlice<'sync' | 'budget'> {
  return {
    ...budgetHandlers(c),
    'sync:state': async () => ({ states: (await c.ready()).monitor.states() }),
    'sync:now': async () => {
      void (await c.ready()).monitor.syncNow()
      return { ok: true }
    },
    'sync:resync': async () => {
      const s = await c.ready()
      c.audit('sync.resync')
      void s.monitor.resyncAll()
      return { ok: true }
    },
    'sync:coverage': async () => (await c.ready()).monitor.coverage(),
    'sync:audit': async () => {
      void (await c.ready()).monitor.auditNow()
      return { ok: true }
    }
  }
}
