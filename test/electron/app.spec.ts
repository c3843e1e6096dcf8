// The real desktop app through Playwright's _electron: the built main process
// (out/main/index.js) starts on a fresh user data dir, its main window is served from
// app://rampdesk with the CSP as a response header (a traversal from the page is
// refused), and it shows the SANDBOX badge of the first-run profile. Where no Electron binary exists (it is only
// downloaded on first use) or the app is not built, the spec skips and says why.
import { _electron as electron, expect, test, type Page } from '@playwright/test'
import { existsSync, readFileSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { CONTENT_SECURITY_POLICY } from '../../src/shared/csp'
import { metaContentSecurityPolicy } from '../support/meta-csp'

const require = createRequire(import.meta.url)
const appEntry = fileURLToPath(new URL('../../out/main/index.js', import.meta.url))

/**
 * The Electron binary, or why there is none. Since Electron 42 the package downloads its
 * binary lazily the first time require('electron') runs, so the spec reads the install's
 * path.txt instead of requiring the package: a skipped run must not start a download.
 */
function electronBinary(): { path: string | null; reason: string } {
  const pkgDir = dirname(require.resolve('electron/package.json'))
  const pathFile = join(pkgDir, 'path.txt')
  if (!existsSync(pathFile))
    return {
      path: null,
      reason: `no Electron binary: ${pathFile} is missing (the binary was never downloaded; run npm run electron:install to fetch it)`
    }
  const found = join(process.env.ELECTRON_OVERRIDE_DIST_PATH ?? join(pkgDir, 'dist'), readFileSync(pathFile, 'utf8').trim())
  if (!existsSync(found)) return { path: null, reason: `no Electron binary at ${found} (run npm run electron:install to fetch it)` }
  return { path: found, reason: '' }
}

const binary = electronBinary()
const skipReason = !binary.path
  ? binary.reason
  : !existsSync(appEntry)
    ? `the app is not built: ${appEntry} is missing (run npm run build)`
    : ''
if (skipReason) console.log(`[electron spec skipped] ${skipReason}`)

test.describe('desktop app', () => {
  test.skip(skipReason !== '', skipReason)

  test('the main window opens from app://rampdesk with the CSP header and the SANDBOX badge', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'rampdesk-electron-'))
    const app = await electron.launch({
      executablePath: binary.path!,
      args: [appEntry, `--user-data-dir=${dataDir}`, '--no-sandbox'],
      // userData lives under XDG_CONFIG_HOME on Linux: keep the operator's own profile untouched.
      env: { ...process.env, XDG_CONFIG_HOME: dataDir, ELECTRON_ENABLE_LOGGING: '1' }
    })
    try {
      await app.firstWindow()
      // The tray popup is a window too: the main window is the one with the header badge.
      let main: Page | undefined
      await expect
        .poll(
          async () => {
            for (const w of app.windows()) {
              if ((await w.getByTestId('profile-kind').count()) > 0) {
                main = w
                return true
              }
            }
            return false
          },
          { timeout: 30_000 }
        )
        .toBe(true)
      await expect(main!.getByTestId('profile-kind')).toHaveText('SANDBOX')
      expect(await main!.title()).toMatch(/Rampdesk/)
      // Served from app://rampdesk, not file://; the CSP reaches the page as a header (not only
      // the meta tag), and the page cannot read a file outside the renderer folder.
      expect(main!.url()).toBe('app://rampdesk/index.html?view=main')
      const probe = await main!.evaluate(async (href) => {
        const page = await fetch(href)
        const escape = await fetch('app://rampdesk/..%2F..%2Fpackage.json')
        return {
          csp: page.headers.get('content-security-policy'),
          nosniff: page.headers.get('x-content-type-options'),
          escape: escape.status
        }
      }, main!.url())
      const meta = await main!.locator('meta[http-equiv="Content-Security-Policy"]').getAttribute('content')
      expect({ ...probe, meta }).toEqual({
        csp: CONTENT_SECURITY_POLICY,
        nosniff: 'nosniff',
        escape: 403,
        meta: metaContentSecurityPolicy(CONTENT_SECURITY_POLICY)
      })
    } finally {
      await app.close()
      await rm(dataDir, { recursive: true, force: true })
    }
  })
})
