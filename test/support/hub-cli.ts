// How tests start the hub's command line. npm test builds the hub once as it is deployed
// (`npm run build:hub`: one bundle run by plain node, docs/hub.md) and names the bundle in
// RAMPDESK_TEST_HUB_CLI, so each of the suite's hundreds of hub processes starts without
// compiling TypeScript; a test file run on its own (npx vitest run …) runs the checkout's
// source through tsx, as `npm run hub` does. Either way it is the same code.
import { existsSync } from 'node:fs'

/** The hub bundle npm test built, when there is one. */
export const HUB_BUNDLE: string | undefined = (() => {
  const f = process.env.RAMPDESK_TEST_HUB_CLI
  return f && existsSync(f) ? f : undefined
})()

/** node's arguments for the hub's CLI with `args` (run from the checkout's root). */
export function hubCliArgs(args: readonly string[]): string[] {
  return HUB_BUNDLE ? ['--enable-source-maps', HUB_BUNDLE, ...args] : ['--import', 'tsx', 'src/hub/cli.ts', ...args]
}
