// The system Chromium for the renderer benchmarks, launched through Playwright with the
// same flags as the e2e suite, and the browser harness URL that opens one view directly
// (the launch token is exchanged for the session cookie by a redirect that keeps the
// view and the hash).
import { chromium, type Browser } from '@playwright/test'

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--enable-precise-memory-info'
    ]
  })
}

export function viewUrl(openUrl: string, view: string): string {
  const u = new URL(openUrl)
  u.searchParams.set('view', 'main')
  u.hash = `#/${view}`
  return u.toString()
}

export const VIEWPORT = { width: 1400, height: 900 }
