// Builds the three Electron bundles: main (Node, ESM), preload (sandboxed, so CommonJS
// with every dependency bundled in) and the Svelte renderer.
import { resolve } from 'node:path'
import { defineConfig } from 'electron-vite'
import { svelte } from '@sveltejs/vite-plugin-svelte'
import type { Plugin } from 'vite'

/** In dev only: Vite injects styles inline and needs its HMR socket; the built page keeps the strict CSP. */
const devCsp = (): Plugin => ({
  name: 'rampdesk-dev-csp',
  apply: 'serve',
  transformIndexHtml: (html) =>
    html
      .replace("style-src 'self'", "style-src 'self' 'unsafe-inline'")
      .replace("connect-src 'self'", "connect-src 'self' ws: http://localhost:*")
})

export default defineConfig({
  main: {
    build: {
      rollupOptions: {
        input: { index: resolve('src/main/electron/index.ts') }
      }
    }
  },
  preload: {
    build: {
      // A sandboxed preload can only require('electron'): nothing may stay external.
      externalizeDeps: false,
      rollupOptions: {
        input: { index: resolve('src/preload/index.ts') },
        output: { format: 'cjs', entryFileNames: '[name].cjs' }
      }
    }
  },
  renderer: {
    root: 'src/renderer',
    plugins: [svelte(), devCsp()],
    build: {
      rollupOptions: {
        input: { index: resolve('src/renderer/index.html') }
      }
    }
  }
})
