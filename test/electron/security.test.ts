// The Electron security checklist, asserted on the real options and handlers the code
// passes: context isolation, sandbox, no Node integration, CSP, navigation and
// window.open denied, openExternal restricted, permission requests denied.
import { beforeEach, describe, expect, it, vi } from 'vitest'
import { electronMock, FakeBrowserWindow, sessionState, shellOpened } from './electron-mock'

vi.mock('electron', () => electronMock())

const { secureWebPreferences, CONTENT_SECURITY_POLICY, isSafeExternalUrl, isAppUrl } = await import('../../src/main/electron/security')
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

  it('loads the packaged page by file with the view as a query', () => {
    createTrayWindow(paths)
    expect(FakeBrowserWindow.created[0]!.loaded).toEqual({ file: '/app/out/renderer/index.html', query: { view: 'tray' } })
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
    nav(own, 'file:///app/out/renderer/index.html?view=main')
    expect(own.preventDefault).not.toHaveBeenCalled()
    const sibling = { preventDefault: vi.fn() }
    nav(sibling, 'file:///app/out/renderer-evil/index.html')
    expect(sibling.preventDefault).toHaveBeenCalled()
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
    expect(isAppUrl('http://localhost:5173/?view=main', { rendererDir: '/r', devServerUrl: 'http://localhost:5173' })).toBe(true)
    expect(isAppUrl('http://localhost:5173/', { rendererDir: '/r' })).toBe(false)
    expect(isAppUrl('http://localhost:5174/', { rendererDir: '/r', devServerUrl: 'http://localhost:5173' })).toBe(false)
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
