// The security settings every window gets, in one place so tests can assert the real
// options the code passes (Electron security checklist): context isolation, sandbox,
// no Node integration, no DevTools in a packaged build, a strict CSP, navigation and new
// windows denied, external links only for http(s) URLs, and which pages count as ours.
import type { WebPreferences } from 'electron'
import { isAppOriginUrl } from '../app-scheme'

export { CONTENT_SECURITY_POLICY, devContentSecurityPolicy } from '../../shared/csp'

/** `devTools` is for development only: a packaged build passes false (the default). */
export function secureWebPreferences(preloadPath: string, devTools = false): WebPreferences {
  return {
    preload: preloadPath,
    devTools,
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
 * Whether a URL belongs to the app's own pages: app://rampdesk/ (served only from the
 * built renderer folder) or, in development, the electron-vite dev server's http(s)
 * origin. file:// is never ours, nor is any other opaque origin.
 */
export function isAppUrl(url: string, opts: { devServerUrl?: string } = {}): boolean {
  if (isAppOriginUrl(url)) return true
  if (!opts.devServerUrl) return false
  try {
    const u = new URL(url)
    const dev = new URL(opts.devServerUrl)
    // Opaque origins all serialise as "null": only an http(s) origin may match.
    return (dev.protocol === 'http:' || dev.protocol === 'https:') && u.origin === dev.origin
  } catch {
    return false
  }
}

export interface KeyInput {
  key: string
  code?: string
  control: boolean
  shift: boolean
  alt: boolean
  meta: boolean
}

/**
 * The keyboard shortcuts that open DevTools in Chromium: F12, Ctrl+Shift+I/J/C (Windows,
 * Linux) and Cmd+Option+I/J/C or Cmd+Shift+C (macOS). A packaged build swallows them.
 */
export function isDevToolsShortcut(input: KeyInput): boolean {
  if (input.key === 'F12' || input.code === 'F12') return true
  const letter = (/^Key([A-Z])$/.exec(input.code ?? '')?.[1] ?? input.key).toUpperCase()
  if (!['I', 'J', 'C'].includes(letter)) return false
  return (input.control || input.meta) && (input.shift || input.alt)
}
