// Start at login. macOS and Windows use Electron's login item settings; Linux has no
// such API, so we write (or remove) an XDG autostart .desktop file.
import { app } from 'electron'
import { mkdir, rm, writeFile } from 'node:fs/promises'
import { homedir } from 'node:os'
import { join } from 'node:path'

export function linuxAutostartPath(home = homedir(), xdgConfig = process.env.XDG_CONFIG_HOME): string {
  return join(xdgConfig || join(home, '.config'), 'autostart', 'rampdesk.desktop')
}

export function desktopEntry(execPath: string): string {
  const quoted = /[\s"'\\]/.test(execPath) ? `"${execPath.replace(/(["\\$`])/g, '\\$1')}"` : execPath
  return [
    '[Desktop Entry]',
    'Type=Application',
    'Name=Rampdesk',
    `Exec=${quoted} --hidden`,
    'X-GNOME-Autostart-enabled=true',
    'Terminal=false',
    ''
  ].join('\n')
}

export async function setStartAtLogin(enabled: boolean): Promise<void> {
  if (process.platform === 'linux') {
    const file = linuxAutostartPath()
    if (enabled) {
      await mkdir(join(file, '..'), { recursive: true })
      await writeFile(file, desktopEntry(process.env.APPIMAGE ?? app.getPath('exe')), { mode: 0o644 })
    } else {
      await rm(file, { force: true })
    }
    return
  }
  app.setLoginItemSettings({ openAtLogin: enabled, args: ['--hidden'] })
}
