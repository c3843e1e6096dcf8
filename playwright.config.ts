// Playwright: the renderer driven through the browser harness (src/web) on the system
// Chromium, and the real Electron app through _electron where a binary exists.
import { defineConfig } from '@playwright/test'

export const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'

export default defineConfig({
  testDir: 'test',
  testMatch: ['e2e/**/*.spec.ts', 'electron/**/*.spec.ts'],
  outputDir: 'test-results/playwright',
  timeout: 60_000,
  // Two spec files at a time: each starts its own harness, sandbox and hub on port 0 with
  // its own data directory, so none shares state with another.
  workers: 2,
  retries: 0,
  use: {
    launchOptions: {
      executablePath: chromiumPath,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        // A container's /dev/shm may be small (64 MB under Docker): shared memory goes to /tmp.
        '--disable-dev-shm-usage',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync'
      ]
    },
    // A common laptop: the size the README's screenshots are taken at (test/e2e/layout.spec.ts checks 960x600 too).
    viewport: { width: 1280, height: 800 }
  }
})
