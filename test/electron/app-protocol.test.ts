// The Electron glue of app:// and of a packaged build, with 'electron' mocked: the scheme's
// privileges, the registered handler answering real Requests from a real folder (CSP
// header included), and the menu a packaged build installs (none, or on macOS one
// without View and its DevTools item).
import { mkdtempSync, realpathSync } from 'node:fs'
import { mkdir, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { electronMock, menuState, protocolState } from './electron-mock'
import { CONTENT_SECURITY_POLICY } from '../../src/shared/csp'

vi.mock('electron', () => electronMock())

const { APP_SCHEME_PRIVILEGES, registerAppScheme, serveAppScheme } = await import('../../src/main/electron/app-protocol')
const { installApplicationMenu, packagedMenuTemplate } = await import('../../src/main/electron/menu')

const base = realpathSync(mkdtempSync(join(tmpdir(), 'rd-app-protocol-')))
const root = join(base, 'renderer')

beforeAll(async () => {
  await mkdir(join(root, 'assets'), { recursive: true })
  await writeFile(join(root, 'index.html'), '<!doctype html><title>Rampdesk</title>')
  await writeFile(join(root, 'assets', 'app.js'), 'export {}')
  await writeFile(join(base, 'secret.txt'), 'secret')
  await symlink(join(base, 'secret.txt'), join(root, 'link.txt'))
})

afterAll(async () => {
  await rm(base, { recursive: true, force: true })
})

describe('the app:// scheme', () => {
  it('is privileged as standard, secure and fetchable, and nothing more', () => {
    registerAppScheme()
    expect(protocolState.privileged.at(-1)).toEqual({ scheme: 'app', privileges: { standard: true, secure: true, supportFetchAPI: true } })
    const privileges = APP_SCHEME_PRIVILEGES as Record<string, boolean>
    for (const never of ['bypassCSP', 'corsEnabled', 'allowServiceWorkers', 'stream']) expect(privileges[never], never).toBeUndefined()
  })

  it('the registered handler answers Requests from the folder, with the CSP header on each', async () => {
    serveAppScheme(root, CONTENT_SECURITY_POLICY)
    const handler = protocolState.handlers.get('app')!
    const page = await handler(new Request('app://rampdesk/index.html?view=main'))
    expect(page.status).toBe(200)
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8')
    expect(page.headers.get('content-security-policy')).toBe(CONTENT_SECURITY_POLICY)
    expect(await page.text()).toContain('<title>Rampdesk</title>')
    const script = await handler(new Request('app://rampdesk/assets/app.js'))
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8')
    expect(script.headers.get('content-security-policy')).toBe(CONTENT_SECURITY_POLICY)
    for (const url of ['app://rampdesk/..%2Fsecret.txt', 'app://rampdesk/link.txt', 'app://rampdesk/..%5Csecret.txt']) {
      const refused = await handler(new Request(url))
      expect(refused.status, url).toBe(403)
      expect(await refused.text()).not.toContain('secret\n')
      expect(refused.headers.get('content-security-policy')).toBe(CONTENT_SECURITY_POLICY)
    }
    const missing = await handler(new Request('app://rampdesk/nope.js'))
    expect(missing.status).toBe(404)
    expect(missing.headers.get('content-security-policy')).toBe(CONTENT_SECURITY_POLICY)
  })

  it('the handler refuses a request Electron reports as issued by another origin', async () => {
    serveAppScheme(root, CONTENT_SECURITY_POLICY)
    const handler = protocolState.handlers.get('app')!
    const foreign = Object.assign(new Request('app://rampdesk/index.html'), { initiatorOrigin: 'https://evil.example' })
    expect((await handler(foreign)).status).toBe(403)
    const own = Object.assign(new Request('app://rampdesk/assets/app.js'), { initiatorOrigin: 'app://rampdesk' })
    expect((await handler(own)).status).toBe(200)
  })
})

describe('the menu of a packaged build', () => {
  beforeEach(() => {
    menuState.set.length = 0
  })

  it.each(['linux', 'win32'] as const)('%s: no application menu at all', (platform) => {
    installApplicationMenu(true, platform)
    expect(menuState.set).toEqual([null])
  })

  it('macOS: app, edit and window menus only (no View, so no Reload or Toggle Developer Tools)', () => {
    installApplicationMenu(true, 'darwin')
    expect(menuState.set).toHaveLength(1)
    const template = packagedMenuTemplate('darwin')!
    expect(menuState.set[0]).toEqual({ template })
    const roles = JSON.stringify(template)
    for (const role of ['viewMenu', 'toggleDevTools', 'reload', 'forceReload']) expect(roles).not.toContain(role)
    expect(template.map((i) => i.role)).toEqual(['appMenu', 'editMenu', 'windowMenu'])
  })

  it('development keeps the default menu', () => {
    installApplicationMenu(false, 'linux')
    installApplicationMenu(false, 'darwin')
    expect(menuState.set).toEqual([])
  })
})
