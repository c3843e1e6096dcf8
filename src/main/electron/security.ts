// The security settings every window gets, in one place so tests can assert the real
// options the code passes (Electron security checklist): context isolation, sandbox,
// no Node integration, a strict CSP, navigation and new windows denied, external
// links only for http(s) URLs.
import type { WebPreferences } from 'electron'

export { CONTENT_SECURITY_POLICY, devContentSecurityPolicy } from '../../shared/csp'

export function secureWebPreferences(preloadPath: string): WebPreferences {
  return {
    preload: preloadPath,
    contextIsolation: true,
    sandbox: true,
    nodeIntegration: false,
    nodeIntegrationInWorker: false,
    nodeIntegrationInSubFrames: false,
    webSecurity: true,
    allowRunningInsecureContent: false,
    experimentalFeatures: false,
    webviewTag: false,
    navigateOnDragDrop: false,
    spellcheck: false
  }
}

/** Only http(s) links leave the app, and only through the system browser. */
export function isSafeExternalUrl(url: string): boolean {
  try {
    const u = new URL(url)
    return (u.protocol === 'https:' || u.protocol === 'http:') && u.username === '' && u.password === ''
  } catch {
    return false
  }
}

/**
 * Whether a URL belongs to the app's own pages: the packaged renderer (file:// under
 * rendererDir) or, in development, the electron-vite dev server origin.
 */
export function isAppUrl(url: string, opts: { rendererDir: string; devServerUrl?: string }): boolean {
  let u: URL
  try {
    u = new URL(url)
  } catch {
    return false
  }
  if (opts.devServerUrl) {
    try {
      if (u.origin === new URL(opts.devServerUrl).origin) return true
    } catch {
      /* fall through */
    }
  }
  if (u.protocol !== 'file:') return false
  const dir = opts.rendererDir.replace(/\\/g, '/').replace(/\/+$/, '')
  const path = decodeURIComponent(u.pathname).replace(/^\/([A-Za-z]:)/, '$1')
  return path === dir || path.startsWith(dir + '/')
}
