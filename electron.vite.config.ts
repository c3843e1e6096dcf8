// Builds the three Electron bundles: main (Node, ESM), preload (sandboxed, so CommonJS
// with every dependency bundled in) and the Svelte renderer.
import { resolve } from 'node:path'
import { defineConfig } from 'electron-vite'
import { svelte } from '@sveltejs/vite-plugin-svelte'

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
    plugins: [svelte()],
    build: {
      rollupOptions: {
        input: { index: resolve('src/renderer/index.html') }
      }
    }
  }
})
