// Start at login. macOS and Windows use Electron's login item settings; Linux has no
// such API, so we write (or remove) an XDG autostart .desktop file, composed and
// escaped by src/main/linux-autostart.ts.
import { app } from 'electron'
import { mkdir, rename, rm, writeFile } from 'node:fs/promises'
import { dirname } from 'node:path'
import { autostartExecutable, desktopEntry, linuxAutostartPath } from '../linux-autostart'

export async function setStartAtLogin(enabled: boolean): Promise<void> {
  if (process.platform === 'linux') {
    const file = linuxAutostartPath()
    if (!enabled) return rm(file, { force: true })
    const { path } = await autostartExecutable(process.env, process.execPath)
    const entry = desktopEntry(path)
    await mkdir(dirname(file), { recursive: true })
    // Written aside (exclusively: never through an existing file or link) and renamed over:
    // never a half-written entry, and a symlink planted at the entry's name is replaced,
    // not followed to wherever it points.
    const partial = `${file}.${process.pid}.partial`
    await rm(partial, { force: true })
    await writeFile(partial, entry, { mode: 0o644, flag: 'wx' })
    await rename(partial, file)
    return
  }
  app.setLoginItemSettings({ openAtLogin: enabled, args: ['--hidden'] })
}
