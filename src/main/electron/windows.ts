// The app's two windows: the main window and the tray popover, both showing
// app://rampdesk/index.html (the view in the query). Both get the secure preferences, a
// CSP header, denied navigation and denied window.open (http(s) links go to the system
// browser instead), and in a packaged build no DevTools.
import { BrowserWindow, session, shell, type Session, type WebContents } from 'electron'
import { appPageUrl, type AppView } from '../app-scheme'
import { CONTENT_SECURITY_POLICY, isAppUrl, isDevToolsShortcut, isSafeExternalUrl, secureWebPreferences } from './security'

export interface WindowPaths {
  preload: string
  /** The built renderer folder app:// serves. */
  rendererDir: string
  devServerUrl?: string
  icon?: string
  /** Development only: a packaged build leaves this unset, so DevTools are off and locked. */
  devTools?: boolean
}

/** Adds the CSP header to every response of the app's session and denies every permission request. */
export function hardenSession(ses: Session = session.defaultSession, csp: string = CONTENT_SECURITY_POLICY): void {
  ses.webRequest.onHeadersReceived((details, callback) => {
    callback({ responseHeaders: { ...details.responseHeaders, 'Content-Security-Policy': [csp] } })
  })
  ses.setPermissionRequestHandler((_wc, _permission, callback) => callback(false))
  ses.setPermissionCheckHandler(() => false)
}

/**
 * DevTools cannot be opened: the keyboard shortcuts are swallowed, and should anything
 * open them anyway (devTools: false already disables the API), they are closed again.
 */
export function lockDevTools(contents: WebContents): void {
  contents.on('before-input-event', (event, input) => {
    if (isDevToolsShortcut(input)) event.preventDefault()
  })
  contents.on('devtools-opened', () => contents.closeDevTools())
}

/** Navigation away from our pages is refused; window.open never creates a window. */
function guardNavigation(win: BrowserWindow, paths: WindowPaths): void {
  const own = (url: string) => isAppUrl(url, { devServerUrl: paths.devServerUrl })
  win.webContents.on('will-navigate', (event, url) => {
    if (!own(url)) event.preventDefault()
  })
  win.webContents.on('will-redirect', (event, url) => {
    if (!own(url)) event.preventDefault()
  })
  win.webContents.on('will-attach-webview', (event) => event.preventDefault())
  win.webContents.setWindowOpenHandler(({ url }) => {
    if (isSafeExternalUrl(url)) void shell.openExternal(url)
    return { action: 'deny' }
  })
}

function load(win: BrowserWindow, paths: WindowPaths, view: AppView): Promise<void> {
  if (paths.devServerUrl) return win.loadURL(`${paths.devServerUrl}?view=${view}`)
  return win.loadURL(appPageUrl(view))
}

function secureWindow(win: BrowserWindow, paths: WindowPaths): void {
  guardNavigation(win, paths)
  if (!paths.devTools) lockDevTools(win.webContents)
}

export function createMainWindow(paths: WindowPaths): BrowserWindow {
  const win = new BrowserWindow({
    width: 1360,
    height: 880,
    minWidth: 960,
    minHeight: 600,
    show: false,
    title: 'Rampdesk',
    icon: paths.icon,
    autoHideMenuBar: true,
    webPreferences: secureWebPreferences(paths.preload, paths.devTools ?? false)
  })
  secureWindow(win, paths)
  win.once('ready-to-show', () => win.show())
  void load(win, paths, 'main')
  return win
}

export function createTrayWindow(paths: WindowPaths): BrowserWindow {
  const win = new BrowserWindow({
    width: 360,
    height: 480,
    show: false,
    frame: false,
    resizable: false,
    movable: false,
    skipTaskbar: true,
    alwaysOnTop: true,
    fullscreenable: false,
    webPreferences: secureWebPreferences(paths.preload, paths.devTools ?? false)
  })
  secureWindow(win, paths)
  win.on('blur', () => {
    if (!win.webContents.isDevToolsOpened()) win.hide()
  })
  void load(win, paths, 'tray')
  return win
}
