// The Electron entry: the app:// scheme (registered before ready), single-instance lock,
// the hardened session, the packaged build's menu, the services (which know nothing of
// Electron), the IPC registration, the main window, the tray and its popover,
// notifications, start at login, the wake events and native confirmation dialogs. Closing
// the main window keeps the app in the tray; Quit lives in the tray menu.
import type { BrowserWindow } from 'electron'
import { app, shell, type WebContents } from 'electron'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createServices, type Services } from '../services'
import { registerIpc, sendEvent } from './ipc'
import { createMainWindow, createTrayWindow, hardenSession, lockDevTools, type WindowPaths } from './windows'
import { registerAppScheme, serveAppScheme } from './app-protocol'
import { installApplicationMenu } from './menu'
import { createTray } from './tray'
import { onWake } from './power'
import { followTrayState, type TrayFollower } from '../tray-follower'
import { notify } from './notifications'
import type { OrderRef } from '../../shared/ipc/contract'
import { setStartAtLogin } from './autostart'
import { confirmWithDialog } from './confirm-dialog'
import { electronSafeStorage } from './safe-storage'
import { CONTENT_SECURITY_POLICY, devContentSecurityPolicy, isAppUrl, isSafeExternalUrl } from './security'

const here = dirname(fileURLToPath(import.meta.url))
const resources = app.isPackaged ? join(process.resourcesPath, 'resources') : join(app.getAppPath(), 'resources')
const paths: WindowPaths = {
  preload: join(here, '../preload/index.cjs'),
  rendererDir: join(here, '../renderer'),
  devServerUrl: !app.isPackaged ? process.env.ELECTRON_RENDERER_URL : undefined,
  icon: join(resources, 'icon.png'),
  devTools: !app.isPackaged
}

// Scheme privileges are fixed when Electron starts: before ready, or never.
registerAppScheme()

let mainWindow: BrowserWindow | null = null
let trayWindow: BrowserWindow | null = null
let services: Services | null = null
let trayFollower: TrayFollower | null = null
let quitting = false

function ourWebContents(): WebContents[] {
  return [mainWindow, trayWindow].filter((w): w is BrowserWindow => !!w && !w.isDestroyed()).map((w) => w.webContents)
}

function showMain(order?: OrderRef): void {
  if (!mainWindow || mainWindow.isDestroyed()) {
    mainWindow = createMainWindow(paths)
    mainWindow.on('close', (e) => {
      if (!quitting) {
        e.preventDefault()
        mainWindow?.hide()
      }
    })
  }
  if (mainWindow.isMinimized()) mainWindow.restore()
  mainWindow.show()
  mainWindow.focus()
  if (order) sendEvent([mainWindow.webContents], 'nav:order', order)
}

function popover(): BrowserWindow {
  if (!trayWindow || trayWindow.isDestroyed()) trayWindow = createTrayWindow(paths)
  return trayWindow
}

if (!app.requestSingleInstanceLock()) {
  app.quit()
} else {
  app.on('second-instance', () => showMain())

  // Belt and braces: every webContents, even one we did not create, is guarded.
  app.on('web-contents-created', (_e, contents) => {
    if (app.isPackaged) lockDevTools(contents)
    contents.on('will-navigate', (event, url) => {
      if (!isAppUrl(url, paths)) event.preventDefault()
    })
    contents.setWindowOpenHandler(({ url }) => {
      if (isSafeExternalUrl(url)) void shell.openExternal(url)
      return { action: 'deny' }
    })
  })

  app.whenReady().then(async () => {
    hardenSession(undefined, paths.devServerUrl ? devContentSecurityPolicy(paths.devServerUrl) : CONTENT_SECURITY_POLICY)
    serveAppScheme(paths.rendererDir, CONTENT_SECURITY_POLICY)
    installApplicationMenu(app.isPackaged)
    services = await createServices({
      dataDir: app.getPath('userData'),
      exportDir: app.getPath('downloads'),
      version: app.getVersion(),
      shellKind: 'electron',
      safeStorage: electronSafeStorage,
      shell: {
        openExternal: async (url) => {
          if (!isSafeExternalUrl(url)) throw new Error('only http(s) links can be opened')
          await shell.openExternal(url)
        },
        showMain: (order) => showMain(order),
        notify: (n) => notify(n, (o) => showMain(o)),
        setStartAtLogin,
        openPath: async (path) => {
          const failure = await shell.openPath(path)
          if (failure) throw new Error(`the folder could not be opened: ${failure}`)
          return true
        },
        showInFolder: async (path) => {
          shell.showItemInFolder(path)
          return true
        },
        locale: () => app.getLocale(),
        confirm: (prompt) => confirmWithDialog(mainWindow && !mainWindow.isDestroyed() ? mainWindow : null, prompt)
      }
    })
    registerIpc(services.handlers, {
      isOurWebContents: (wc) => ourWebContents().includes(wc),
      isAppUrl: (url) => isAppUrl(url, paths)
    })
    services.subscribe((event, payload) => sendEvent(ourWebContents(), event, payload as never))
    await services.start()
    if (!process.argv.includes('--hidden')) showMain()
    const tray = createTray({
      iconDir: join(resources, 'tray'),
      fallbackIcon: join(resources, 'trayTemplate.png'),
      popover,
      showMain: () => showMain(),
      quit: () => app.quit()
    })
    const s = services
    trayFollower = followTrayState({
      subscribe: (l) => s.subscribe(l),
      get: () => s.handlers['tray:state']({}),
      show: (state) => tray.show(state)
    })
    // After sleep, an unlock or an outage, refetch now rather than at the next interval.
    onWake(() => void services?.handlers['app:wake']({}).catch(() => undefined))
  })

  // Keep running in the tray when every window is closed.
  app.on('window-all-closed', () => undefined)

  app.on('before-quit', (e) => {
    if (quitting || !services) return
    quitting = true
    e.preventDefault()
    trayFollower?.stop()
    const s = services
    services = null
    void s.close().finally(() => app.quit())
  })
}
