// The tray icon: a click toggles the compact popover window next to the icon; the
// context menu opens the main window or quits (the only way to quit: closing the main
// window keeps Rampdesk running in the tray).
import { Menu, Tray, nativeImage, screen, type BrowserWindow } from 'electron'

export interface TrayDeps {
  iconPath: string
  popover: () => BrowserWindow
  showMain: () => void
  quit: () => void
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

export function createTray(deps: TrayDeps): Tray {
  const image = nativeImage.createFromPath(deps.iconPath)
  image.setTemplateImage(true)
  const tray = new Tray(image)
  tray.setToolTip('Rampdesk')
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
  return tray
}
