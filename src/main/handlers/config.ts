// config:* and bank:get — the service's configuration as the config cache holds it
// (stale-while-revalidate), a forced refresh, and the bank and UPI details.
import type { HandlerContext, HandlerSlice } from './context'

export function configHandlers(c: Pick<HandlerContext, 'ready'>): HandlerSlice<'config' | 'bank'> {
  return {
    'config:get': async () => (await c.ready()).config.get(),
    'config:refresh': async () => (await c.ready()).config.refreshAll(),
    'bank:get': async () => {
      const r = await (await c.ready()).config.bank()
      return { ...r, details: r.details as Record<string, unknown> | null }
    }
  }
}
