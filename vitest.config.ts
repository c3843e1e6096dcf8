// Node-side tests: unit, integration (against the sandbox over loopback), Electron glue
// with 'electron' mocked, and the reliability suite. The renderer's plain logic
// (src/renderer/src/lib) is unit-tested here too, its runes compiled by the Svelte plugin;
// its pages are covered by Playwright.
import { defineConfig } from 'vitest/config'
import { svelte } from '@sveltejs/vite-plugin-svelte'

export default defineConfig({
  plugins: [svelte()],
  test: {
    environment: 'node',
    include: [
      'test/unit/**/*.test.ts',
      'test/integration/**/*.test.ts',
      'test/electron/**/*.test.ts',
      'test/reliability/**/*.test.ts',
      'test/attack/**/*.test.ts',
      'test/fault/**/*.test.ts'
    ],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // One test file at a time unless told otherwise: the real-time suites (the hub's failover,
    // the soak, the attacks' latency bounds) are calibrated for the machine's two cores shared
    // with the processes they start. `npm test` (scripts/test.mjs) runs those in a lane of
    // their own and the rest two files at a time. Vitest's default follows the CPUs the
    // machine reports, which a container may report more of than it gives.
    maxWorkers: 1,
    restoreMocks: true
  }
})
