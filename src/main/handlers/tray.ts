// tray:state — what the tray icon, its title or tooltip and the popover tell at a glance:
// the sync states and how many orders need attention or are in progress, in the local
// database, put in order by trayState().
import { toStoreFilter } from '../order-rows'
import { trayState } from '../tray-state'
import type { StatusGroup } from '../../shared/ipc/contract'
import type { HandlerContext, HandlerSlice, ShellPort } from './context'

export function trayHandlers(c: Pick<HandlerContext, 'ready'> & { shell: Pick<ShellPort, 'locale'> }): HandlerSlice<'tray'> {
  return {
    'tray:state': async () => {
      const s = await c.ready()
      const count = (group: StatusGroup) =>
        ([1, 2] as const).reduce(
          (n, type) => n + s.store.orders.query({ ...toStoreFilter({ type, statusGroup: group }), limit: 1 }).total,
          0
        )
      return trayState({
        gaps: s.monitor.coverage().gaps.map((g) => g.text),
        sync: s.monitor.states(),
        attention: count('needs attention'),
        inProgress: count('in progress'),
        locale: c.shell.locale?.()
      })
    }
  }
}
