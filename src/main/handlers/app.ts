// app:* — what the window asks of the app itself: version, shell and locale, external
// links, a refetch after sleep or a network outage, bringing the main window forward
// (from the tray), and the support logs' folder.
import { mkdirSync } from 'node:fs'
import type { HandlerContext, HandlerSlice } from './context'

export function appHandlers(
  c: Pick<HandlerContext, 'ready' | 'activeProfile' | 'shell' | 'version' | 'shellKind' | 'logDir'>
): HandlerSlice<'app'> {
  return {
    'app:info': async () => {
      const s = await c.ready()
      return {
        version: c.version,
        platform: process.platform,
        shell: c.shellKind,
        profile: c.activeProfile(),
        clockSkewMs: s.client.clock.skewMs ?? null,
        locale: c.shell.locale?.() ?? null
      }
    },
    'app:openExternal': async ({ url }) => {
      await c.shell.openExternal(url)
      return { ok: true }
    },
    'app:wake': async () => ({ refetched: (await c.ready()).wake() }),
    'app:showMain': async ({ order }) => {
      c.shell.showMain(order)
      return { ok: true }
    },
    'app:openLogs': async () => {
      // With logging off the folder may not exist yet; a file manager cannot open what is not there.
      mkdirSync(c.logDir, { recursive: true, mode: 0o700 })
      return { dir: c.logDir, opened: await c.shell.openPath(c.logDir) }
    }
  }
}
