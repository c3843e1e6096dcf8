// settings:* — the app-wide settings: read, and change (start at login goes to the shell,
// the rest to the active session, which applies new intervals and the inbox at once). A
// change that weakens security is confirmed by the operator, in main, before it is saved.
import { Settings } from '../../shared/ipc/contract'
import { weakeningPrompts } from '../security-switches'
import type { HandlerContext, HandlerSlice } from './context'

export function settingsHandlers(
  c: Pick<HandlerContext, 'settings' | 'shell' | 'ready' | 'audit' | 'requireConfirmation'>
): HandlerSlice<'settings'> {
  return {
    'settings:get': async () => c.settings.get(),
    'settings:update': async (patch) => {
      const asked = c.settings.get()
      for (const prompt of weakeningPrompts(asked, Settings.parse({ ...asked, ...patch }))) await c.requireConfirmation(prompt)
      // Read again: a confirmation can take a while, and the session compares with what is in force now.
      const before = c.settings.get()
      const next = c.settings.update(patch)
      if (patch.startAtLogin !== undefined && patch.startAtLogin !== before.startAtLogin) await c.shell.setStartAtLogin(next.startAtLogin)
      await (await c.ready()).applySettings(next, before)
      c.audit('settings.change', { fields: Object.keys(patch) })
      return next
    }
  }
}
