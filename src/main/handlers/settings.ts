// settings:* — the app-wide settings: read, and change (start at login goes to the shell,
// the rest to the active session, which applies new intervals and the inbox at once).
import type { HandlerContext, HandlerSlice } from './context'

export function settingsHandlers(c: Pick<HandlerContext, 'settings' | 'shell' | 'ready' | 'audit'>): HandlerSlice<'settings'> {
  return {
    'settings:get': async () => c.settings.get(),
    'settings:update': async (patch) => {
      const before = c.settings.get()
      const next = c.settings.update(patch)
      if (patch.startAtLogin !== undefined && patch.startAtLogin !== before.startAtLogin) await c.shell.setStartAtLogin(next.startAtLogin)
      await (await c.ready()).applySettings(next, before)
      c.audit('settings.change', { fields: Object.keys(patch) })
      return next
    }
  }
}
