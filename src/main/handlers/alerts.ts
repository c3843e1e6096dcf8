// alerts:list — what needs a person now in the active profile's orders: stalled orders and
// open orders on an unwell chain (alerts/alert-tracker.ts).
import type { HandlerContext, HandlerSlice } from './context'

export function alertHandlers(c: Pick<HandlerContext, 'ready'>): HandlerSlice<'alerts'> {
  return {
    'alerts:list': async () => (await c.ready()).alerts.refresh()
  }
}
