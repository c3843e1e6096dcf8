// The tray icon: a click toggles the compact popover window next to the icon; the
// context menu opens the main window or quits (the only way to quit: closing the main
// window keeps Rampdesk running in the tray). show() puts a tray state on it: the icon
// variant for the OS theme, the title beside it on macOS and the tooltip; what the state
// says is decided in main (tray-state.ts), not here.
import { join } from 'node:path'
import { Menu, Tray, nativeImage, nativeTheme, screen, type BrowserWindow } from 'electron'
import { trayIconFile } from '../tray-state'
import type { TrayState } from '../../shared/ipc/contract'

export interface TrayDeps {
  /** The rendered icon variants (resources/tray, made by scripts/render-tray-icons.ts). */
  iconDir: string
  /** The template icon shown before the first state, and if a variant file is missing. */
  fallbackIcon: string
  popover: () => BrowserWindow
  showMain: () => void
  quit: () => void
  platform?: NodeJS.Platform
}

export interface AppTray {
  tray: Tray
  show(state: TrayState): void
}

export function popoverPosition(
  trayBounds: { x: number; y: number; width: number; height: number },
  size: { width: number; height: number },
  workArea: { x: number; y: number; width: number; height: number }
): { x: number; y: number } {
  let x = Math.round(trayBounds.x + trayBounds.width / 2 - size.width / 2)
  // Tray at the top of the screen: open below it; at the bottom: open above it.
  let y = trayBounds.y < workArea.y + workArea.height / 2 ? trayBounds.y + trayBounds.height + 4 : trayBounds.y - size.height - 4
  x = Math.min(Math.max(x, workArea.x), workArea.x + workArea.width - size.width)
  y = Math.min(Math.max(y, workArea.y), workArea.y + workArea.height - size.height)
  return { x, y }
}

export function createTray(deps: TrayDeps): AppTray {
  const fallback = nativeImage.createFromPath(deps.fallbackIcon)
  fallback.setTemplateImage(true)
  const tray = new Tray(fallback)
  tray.setToolTip('Rampdesk')
  let last: TrayState | null = null
  const apply = () => {
    if (!last || tray.isDestroyed()) return
    // A light menu bar or panel gets the dark glyph, a dark one the light glyph.
    const image = nativeImage.createFromPath(
      join(deps.iconDir, trayIconFile(last.icon, nativeTheme.shouldUseDarkColors ? 'dark' : 'light'))
    )
    tray.setImage(image.isEmpty() ? fallback : image)
    tray.setToolTip(last.tooltip)
    if ((deps.platform ?? process.platform) === 'darwin') tray.setTitle(last.title)
  }
  nativeTheme.on('updated', apply)
  tray.setContextMenu(
    Menu.buildFromTemplate([
      { label: 'Open Rampdesk', click: () => deps.showMain() },
      { type: 'separator' },
      { label: 'Quit Rampdesk', click: () => deps.quit() }
    ])
  )
  tray.on('click', () => {
    const win = deps.popover()
    if (win.isVisible()) return win.hide()
    const bounds = tray.getBounds()
    const display = screen.getDisplayNearestPoint({ x: bounds.x, y: bounds.y })
    const { x, y } = popoverPosition(bounds, win.getBounds(), display.workArea)
    win.setPosition(x, y, false)
    win.show()
    win.focus()
  })
  return {
    tray,
    show(state) {
      last = state
      apply()
    }
  }
}
