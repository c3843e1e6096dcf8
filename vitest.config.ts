// Node-side tests: unit, integration (against the sandbox over loopback), Electron glue
// with 'electron' mocked, and the reliability suite. The renderer is covered by Playwright.
import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    environment: 'node',
    include: ['test/unit/**/*.test.ts', 'test/integration/**/*.test.ts', 'test/electron/**/*.test.ts', 'test/reliability/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    restoreMocks: true
  }
})
