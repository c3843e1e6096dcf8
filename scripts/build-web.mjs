#!/usr/bin/env node
// npm's prepare step, which `npm install` and `npm ci` run in a checkout: builds the
// renderer the browser harness serves (out/web) now, so that the first `npm run web`
// starts in seconds instead of building it first. It builds only what changed since the
// last build (src/web/build-renderer.ts), and does nothing where the build tools are not
// installed (`npm ci --omit=dev` beside a built hub, docs/hub.md). npm run web still
// builds a renderer it finds stale (a pull that changed src/renderer, say).
let tsx
try {
  tsx = await import('tsx/esm/api')
  await import('vite')
} catch {
  console.log('rampdesk: no build tools installed (a production install); the browser harness renderer is not built')
  process.exit(0)
}
const t0 = performance.now()
const { buildRenderer, rendererIsFresh } = await tsx.tsImport('../src/web/build-renderer.ts', import.meta.url)
if (rendererIsFresh()) {
  console.log('rampdesk: the browser harness renderer (out/web) is up to date')
} else {
  await buildRenderer({ quiet: true })
  console.log(`rampdesk: built the browser harness renderer (out/web) in ${((performance.now() - t0) / 1000).toFixed(1)} s`)
}
