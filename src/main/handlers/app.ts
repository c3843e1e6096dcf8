// app:* — what the window asks of the app itself: version, shell and locale, external
// links, a refetch after sleep or a network outage, bringing the main window forward
// (from the tray), a CSV export opened or shown in its folder, and the support logs' folder.
import { existsSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { ContractError } from '../../shared/ipc/contract'
import type { HandlerContext, HandlerSlice } from './context'

export function appHandlers(
  c: Pick<HandlerContext, 'ready' | 'activeProfile' | 'shell' | 'version' | 'shellKind' | 'logDir' | 'exportDir'>
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
    'app:openExport': async ({ file, action }) => {
      // The contract takes an export's file name only (no separator, no other folder): the
      // window can open nothing but what the export folder holds under an export's name.
      const path = join(c.exportDir, file)
      if (!existsSync(path)) throw new ContractError('invalid_input', `${file} is no longer in the export folder (${c.exportDir})`)
      return { opened: action === 'open' ? await c.shell.openPath(path) : await c.shell.showInFolder(path) }
    },
    'app:openLogs': async () => {
      // With logging off the folder may not exist yet; a file manager cannot open what is not there.
      mkdirSync(c.logDir, { recursive: true, mode: 0o700 })
      return { dir: c.logDir, opened: await c.shell.openPath(c.logDir) }
    }
  }
}
