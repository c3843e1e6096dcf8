// The Electron security checklist, asserted on the real options and handlers the code
// passes: context isolation, sandbox, no Node integration, CSP, navigation and
// window.open denied, openExternal restricted, permission requests denied, pages from
// app://rampdesk only, DevTools off and locked in a packaged build.
import { beforeEach, describe, expect, it, vi } from 'vitest'
import { electronMock, FakeBrowserWindow, sessionState, shellOpened, type FakeWebContents } from './electron-mock'

vi.mock('electron', () => electronMock())

const { secureWebPreferences, CONTENT_SECURITY_POLICY, isSafeExternalUrl, isAppUrl, isDevToolsShortcut } =
  await import('../../src/main/electron/security')
const { createMainWindow, createTrayWindow, hardenSession } = await import('../../src/main/electron/windows')

const paths = { preload: '/app/out/preload/index.cjs', rendererDir: '/app/out/renderer' }

beforeEach(() => {
  FakeBrowserWindow.created = []
  shellOpened.length = 0
})

describe('window options', () => {
  it.each([
    ['main', createMainWindow],
    ['tray', createTrayWindow]
  ])('the %s window is isolated, sandboxed and has no Node integration', (_name, create) => {
    create(paths)
    const win = FakeBrowserWindow.created.at(-1)!
    const prefs = win.options.webPreferences as Record<string, unknown>
    expect(prefs).toMatchObject({
      preload: paths.preload,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false
    })
    // The remote module is gone from Electron; nothing may ask for it.
    expect(prefs).not.toHaveProperty('enableRemoteModule')
  })

  it('secureWebPreferences is what every window uses', () => {
    createMainWindow(paths)
    expect(FakeBrowserWindow.created[0]!.options.webPreferences).toEqual(secureWebPreferences(paths.preload))
  })

  it('loads the app:// page, never a file, with the view as a query', () => {
    createMainWindow(paths)
    createTrayWindow(paths)
    expect(FakeBrowserWindow.created.map((w) => w.loaded)).toEqual([
      { url: 'app://rampdesk/index.html?view=main' },
      { url: 'app://rampdesk/index.html?view=tray' }
    ])
  })

  it('loads the dev server only when one is given', () => {
    createMainWindow({ ...paths, devServerUrl: 'http://localhost:5173', devTools: true })
    expect(FakeBrowserWindow.created[0]!.loaded).toEqual({ url: 'http://localhost:5173?view=main' })
  })
})

describe('DevTools', () => {
  const press = (wc: FakeWebContents, input: Record<string, unknown>) => {
    const e = { preventDefault: vi.fn() }
    wc.handlers.get('before-input-event')!(e, { type: 'keyDown', control: false, shift: false, alt: false, meta: false, ...input })
    return e.preventDefault.mock.calls.length > 0
  }

  it.each([
    ['main', createMainWindow],
    ['tray', createTrayWindow]
  ])('a packaged %s window has DevTools off, their shortcuts swallowed, and closes them if opened', (_name, create) => {
    create(paths)
    const win = FakeBrowserWindow.created.at(-1)!
    expect((win.options.webPreferences as Record<string, unknown>).devTools).toBe(false)
    for (const shortcut of [
      { key: 'F12', code: 'F12' },
      { key: 'I', code: 'KeyI', control: true, shift: true },
      { key: 'J', code: 'KeyJ', control: true, shift: true },
      { key: 'C', code: 'KeyC', control: true, shift: true },
      { key: 'i', code: 'KeyI', meta: true, alt: true },
      { key: 'c', code: 'KeyC', meta: true, shift: true }
    ])
      expect(press(win.webContents, shortcut), JSON.stringify(shortcut)).toBe(true)
    // Ordinary typing and the clipboard shortcuts still work.
    for (const ok of [
      { key: 'c', code: 'KeyC', control: true },
      { key: 'v', code: 'KeyV', meta: true },
      { key: 'I', code: 'KeyI', shift: true },
      { key: 'F5', code: 'F5' }
    ])
      expect(press(win.webContents, ok), JSON.stringify(ok)).toBe(false)
    win.webContents.devToolsOpen = true
    win.webContents.handlers.get('devtools-opened')!()
    expect(win.webContents.isDevToolsOpened()).toBe(false)
  })

  it('development keeps DevTools and their shortcuts', () => {
    createMainWindow({ ...paths, devTools: true })
    const win = FakeBrowserWindow.created[0]!
    expect((win.options.webPreferences as Record<string, unknown>).devTools).toBe(true)
    expect(win.webContents.handlers.has('before-input-event')).toBe(false)
  })

  it('isDevToolsShortcut reads the physical key when the layout changes the character', () => {
    expect(isDevToolsShortcut({ key: 'Ш', code: 'KeyI', control: true, shift: true, alt: false, meta: false })).toBe(true)
    expect(isDevToolsShortcut({ key: 'x', code: 'KeyX', control: true, shift: true, alt: false, meta: false })).toBe(false)
  })
})

describe('navigation and new windows', () => {
  it('denies navigation away from the app and allows its own pages', () => {
    createMainWindow(paths)
    const nav = FakeBrowserWindow.created[0]!.webContents.handlers.get('will-navigate')!
    const away = { preventDefault: vi.fn() }
    nav(away, 'https://evil.example/')
    expect(away.preventDefault).toHaveBeenCalled()
    const own = { preventDefault: vi.fn() }
    nav(own, 'app://rampdesk/index.html?view=main')
    expect(own.preventDefault).not.toHaveBeenCalled()
    // file:// is no longer ours, not even the renderer folder itself.
    for (const url of [
      'file:///app/out/renderer/index.html?view=main',
      'file:///app/out/renderer-evil/index.html',
      'app://evil/index.html'
    ]) {
      const e = { preventDefault: vi.fn() }
      nav(e, url)
      expect(e.preventDefault, url).toHaveBeenCalled()
    }
  })

  it('denies window.open and sends only http(s) links to the system browser', () => {
    createMainWindow(paths)
    const open = FakeBrowserWindow.created[0]!.webContents.openHandler!
    expect(open({ url: 'https://etherscan.io/tx/0xabc' })).toEqual({ action: 'deny' })
    expect(open({ url: 'file:///etc/passwd' })).toEqual({ action: 'deny' })
    expect(open({ url: 'javascript:alert(1)' })).toEqual({ action: 'deny' })
    expect(shellOpened).toEqual(['https://etherscan.io/tx/0xabc'])
  })

  it('refuses webviews', () => {
    createMainWindow(paths)
    const attach = FakeBrowserWindow.created[0]!.webContents.handlers.get('will-attach-webview')!
    const e = { preventDefault: vi.fn() }
    attach(e)
    expect(e.preventDefault).toHaveBeenCalled()
  })

  it('isSafeExternalUrl accepts only http(s) without credentials', () => {
    expect(isSafeExternalUrl('https://tronscan.org/#/transaction/abc')).toBe(true)
    expect(isSafeExternalUrl('http://explorer.local/tx/1')).toBe(true)
    for (const bad of [
      'file:///etc/passwd',
      'smb://host/share',
      'javascript:alert(1)',
      'https://user:pw@host/',
      'not a url',
      'data:text/html,hi'
    ]) {
      expect(isSafeExternalUrl(bad), bad).toBe(false)
    }
  })

  it('isAppUrl accepts the dev server origin only when one is set', () => {
    expect(isAppUrl('http://localhost:5173/?view=main', { devServerUrl: 'http://localhost:5173' })).toBe(true)
    expect(isAppUrl('http://localhost:5173/', {})).toBe(false)
    expect(isAppUrl('http://localhost:5174/', { devServerUrl: 'http://localhost:5173' })).toBe(false)
  })

  it('isAppUrl trusts app://rampdesk/ and nothing that merely resembles it', () => {
    expect(isAppUrl('app://rampdesk/index.html?view=tray')).toBe(true)
    expect(isAppUrl('app://rampdesk/')).toBe(true)
    for (const url of [
      'app://rampdesk.evil/index.html',
      'app://evil/index.html',
      'app://rampdesk@evil/index.html',
      'app://user:pw@rampdesk/index.html',
      'app://rampdesk:8080/index.html',
      'apps://rampdesk/index.html',
      'file:///app/out/renderer/index.html',
      'https://rampdesk/index.html',
      'devtools://devtools/bundled/inspector.html',
      'about:blank',
      'not a url'
    ])
      expect(isAppUrl(url), url).toBe(false)
    // Opaque origins all read "null": a non-http dev server URL must not make them equal.
    expect(isAppUrl('data:text/html,x', { devServerUrl: 'file:///tmp/x' })).toBe(false)
  })
})

describe('session', () => {
  it('adds a strict CSP to every response and denies permissions', () => {
    hardenSession()
    let headers: Record<string, string[]> = {}
    sessionState.headersHook!(
      { responseHeaders: { 'X-Other': ['1'] } },
      (r) => (headers = (r as { responseHeaders: Record<string, string[]> }).responseHeaders)
    )
    expect(headers['Content-Security-Policy']).toEqual([CONTENT_SECURITY_POLICY])
    expect(headers['X-Other']).toEqual(['1'])
    let granted: boolean | undefined
    sessionState.permissionHandler!({}, 'media', (ok) => (granted = ok))
    expect(granted).toBe(false)
    expect(sessionState.permissionCheck!()).toBe(false)
  })

  it('the CSP allows no inline or remote script, no eval, no framing', () => {
    const d = Object.fromEntries(CONTENT_SECURITY_POLICY.split('; ').map((p) => [p.split(' ')[0], p]))
    expect(d['default-src']).toBe("default-src 'none'")
    expect(d['script-src']).toBe("script-src 'self'")
    expect(CONTENT_SECURITY_POLICY).not.toMatch(/unsafe-inline|unsafe-eval/)
    expect(d['frame-ancestors']).toBe("frame-ancestors 'none'")
    expect(d['object-src']).toBe("object-src 'none'")
  })
})
