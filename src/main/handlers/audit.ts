// audit:* — the active profile's log of operator actions, newest first.
import type { HandlerContext, HandlerSlice } from './context'

export function auditHandlers(c: Pick<HandlerContext, 'ready'>): HandlerSlice<'audit'> {
  return {
    'audit:list': async ({ limit }) => {
      const r = (await c.ready()).store.audit.list({ limit })
      return { rows: r.rows.map((e) => ({ id: e.id, at: Date.parse(e.at), action: e.action, detail: e.detail })) }
    }
  }
}
