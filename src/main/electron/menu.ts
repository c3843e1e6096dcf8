// The application menu of a packaged build. Electron's default menu offers View > Reload
// and Toggle Developer Tools; a packaged build has no menu on Windows and Linux, and on
// macOS (where the menu bar holds Quit and the clipboard shortcuts) a minimal one without
// the View menu. Development keeps the default menu.
import { Menu, type MenuItemConstructorOptions } from 'electron'

export function packagedMenuTemplate(platform: NodeJS.Platform): MenuItemConstructorOptions[] | null {
  if (platform !== 'darwin') return null
  return [{ role: 'appMenu' }, { role: 'editMenu' }, { role: 'windowMenu' }]
}

export function installApplicationMenu(packaged: boolean, platform: NodeJS.Platform = process.platform): void {
  if (!packaged) return
  const template = packagedMenuTemplate(platform)
  Menu.setApplicationMenu(template ? Menu.buildFromTemplate(template) : null)
}
