// A recording stand-in for the parts of 'electron' the glue uses, so tests can assert
// the real options and handlers the code registers.
import { vi } from 'vitest'

export class FakeWebContents {
  handlers = new Map<string, (...a: unknown[]) => void>()
  openHandler: ((d: { url: string }) => { action: string }) | null = null
  sent: Array<{ channel: string; payload: unknown }> = []
  destroyed = false
  on(event: string, fn: (...a: unknown[]) => void) {
    this.handlers.set(event, fn)
    return this
  }
  setWindowOpenHandler(fn: (d: { url: string }) => { action: string }) {
    this.openHandler = fn
  }
  send(channel: string, payload: unknown) {
    this.sent.push({ channel, payload })
  }
  isDestroyed() {
    return this.destroyed
  }
  devToolsOpen = false
  isDevToolsOpened() {
    return this.devToolsOpen
  }
  closeDevTools() {
    this.devToolsOpen = false
  }
}

export class FakeBrowserWindow {
  static created: FakeBrowserWindow[] = []
  webContents = new FakeWebContents()
  events = new Map<string, (...a: unknown[]) => void>()
  loaded: { file?: string; url?: string; query?: unknown } = {}
  visible = false
  constructor(readonly options: Record<string, unknown>) {
    FakeBrowserWindow.created.push(this)
  }
  on(e: string, fn: (...a: unknown[]) => void) {
    this.events.set(e, fn)
    return this
  }
  once(e: string, fn: (...a: unknown[]) => void) {
    return this.on(e, fn)
  }
  loadFile(file: string, o?: { query?: unknown }) {
    this.loaded = { file, query: o?.query }
    return Promise.resolve()
  }
  loadURL(url: string) {
    this.loaded = { url }
    return Promise.resolve()
  }
  show() {
    this.visible = true
  }
  hide() {
    this.visible = false
  }
  isVisible() {
    return this.visible
  }
}

export const ipcMainHandlers = new Map<string, (event: unknown, raw: unknown) => unknown>()
export const shellOpened: string[] = []
/** Folders handed to shell.openPath (the file manager). */
export const pathsOpened: string[] = []
/** Files handed to shell.showItemInFolder. */
export const itemsShown: string[] = []
export const sessionState: {
  headersHook: ((d: { responseHeaders: Record<string, string[]> }, cb: (r: unknown) => void) => void) | null
  permissionHandler: ((wc: unknown, p: string, cb: (ok: boolean) => void) => void) | null
  permissionCheck: (() => boolean) | null
} = { headersHook: null, permissionHandler: null, permissionCheck: null }
export const exposed: Record<string, unknown> = {}
export const rendererListeners = new Map<string, Set<(...a: unknown[]) => void>>()
export const invoked: Array<{ channel: string; input: unknown }> = []
/** The order of the calls whose order matters (scheme registration before ready, handler after). */
export const callLog: string[] = []
export const protocolState: {
  privileged: Array<{ scheme: string; privileges?: Record<string, boolean> }>
  handlers: Map<string, (request: Request) => Response | Promise<Response>>
} = { privileged: [], handlers: new Map() }
export const menuState: { set: Array<unknown>; built: unknown[] } = { set: [], built: [] }
/** Native message boxes shown (parent window or null, options) and the button the next one answers with. */
export const dialogState: { shown: Array<{ parent: unknown; options: Record<string, unknown> }>; nextResponse: number } = {
  shown: [],
  nextResponse: 0
}

export function electronMock() {
  return {
    BrowserWindow: FakeBrowserWindow,
    ipcMain: {
      handle: vi.fn((channel: string, fn: (e: unknown, raw: unknown) => unknown) => ipcMainHandlers.set(channel, fn)),
      removeHandler: vi.fn((channel: string) => ipcMainHandlers.delete(channel))
    },
    shell: {
      openExternal: vi.fn(async (url: string) => void shellOpened.push(url)),
      // Electron answers '' on success, else the reason.
      openPath: vi.fn(async (path: string) => (pathsOpened.push(path), '')),
      showItemInFolder: vi.fn((path: string) => void itemsShown.push(path))
    },
    protocol: {
      registerSchemesAsPrivileged: vi.fn((schemes: typeof protocolState.privileged) => {
        callLog.push('protocol.registerSchemesAsPrivileged')
        protocolState.privileged.push(...schemes)
      }),
      handle: vi.fn((scheme: string, fn: (request: Request) => Response | Promise<Response>) => {
        callLog.push(`protocol.handle:${scheme}`)
        protocolState.handlers.set(scheme, fn)
      })
    },
    dialog: {
      showMessageBox: vi.fn(async (...args: unknown[]) => {
        const [parent, options] = args.length > 1 ? args : [null, args[0]]
        dialogState.shown.push({ parent, options: options as Record<string, unknown> })
        return { response: dialogState.nextResponse, checkboxChecked: false }
      })
    },
    Menu: {
      buildFromTemplate: (template: unknown) => {
        menuState.built.push(template)
        return { template }
      },
      setApplicationMenu: vi.fn((menu: unknown) => void menuState.set.push(menu))
    },
    session: {
      defaultSession: {
        webRequest: { onHeadersReceived: (fn: typeof sessionState.headersHook) => (sessionState.headersHook = fn) },
        setPermissionRequestHandler: (fn: typeof sessionState.permissionHandler) => (sessionState.permissionHandler = fn),
        setPermissionCheckHandler: (fn: typeof sessionState.permissionCheck) => (sessionState.permissionCheck = fn)
      }
    },
    contextBridge: { exposeInMainWorld: vi.fn((key: string, api: unknown) => (exposed[key] = api)) },
    ipcRenderer: {
      invoke: vi.fn(async (channel: string, input: unknown) => {
        invoked.push({ channel, input })
        return { ok: true, value: { echoed: channel } }
      }),
      on: vi.fn((channel: string, fn: (...a: unknown[]) => void) => {
        const set = rendererListeners.get(channel) ?? new Set()
        set.add(fn)
        rendererListeners.set(channel, set)
      }),
      removeListener: vi.fn((channel: string, fn: (...a: unknown[]) => void) => rendererListeners.get(channel)?.delete(fn))
    },
    safeStorage: {
      isEncryptionAvailable: () => true,
      encryptString: (s: string) => Buffer.from(`enc:${s}`),
      decryptString: (b: Buffer) => b.toString().slice(4),
      getSelectedStorageBackend: () => 'gnome_libsecret'
    },
    app: { setLoginItemSettings: vi.fn(), getPath: () => '/opt/Rampdesk/rampdesk' },
    Notification: Object.assign(
      class {
        static shown: unknown[] = []
        handlers = new Map<string, () => void>()
        constructor(readonly o: unknown) {}
        on(e: string, fn: () => void) {
          this.handlers.set(e, fn)
        }
        show() {
          ;(this.constructor as unknown as { shown: unknown[] }).shown.push(this)
        }
      },
      { isSupported: () => true }
    )
  }
}
