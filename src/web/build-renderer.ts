// Builds the renderer for the browser harness (out/web) with the same Vite + Svelte
// setup electron-vite uses, and skips the build when nothing under src/renderer or
// src/shared changed since the last one.
import { existsSync, readdirSync, statSync } from 'node:fs'
import { join, resolve } from 'node:path'

const ROOT = resolve(import.meta.dirname, '../..')
const WEB_OUT_DIR = join(ROOT, 'out/web')

function newestMtime(dir: string): number {
  let newest = 0
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name)
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(p) : statSync(p).mtimeMs)
  }
  return newest
}

export function rendererIsFresh(outDir = WEB_OUT_DIR): boolean {
  const index = join(outDir, 'index.html')
  if (!existsSync(index)) return false
  const built = statSync(index).mtimeMs
  return ['src/renderer', 'src/shared', 'svelte.config.js'].every((p) => {
    const full = join(ROOT, p)
    return !existsSync(full) || (statSync(full).isDirectory() ? newestMtime(full) : statSync(full).mtimeMs) <= built
  })
}

/** minify: false keeps the functions' names (a CPU profile of the renderer reads them). */
export async function buildRenderer(opts: { force?: boolean; outDir?: string; quiet?: boolean; minify?: boolean } = {}): Promise<string> {
  const outDir = opts.outDir ?? WEB_OUT_DIR
  if (!opts.force && rendererIsFresh(outDir)) return outDir
  const { build } = await import('vite')
  const { svelte } = await import('@sveltejs/vite-plugin-svelte')
  await build({
    configFile: false,
    root: join(ROOT, 'src/renderer'),
    base: './',
    logLevel: opts.quiet ? 'error' : 'warn',
    plugins: [svelte({ configFile: join(ROOT, 'svelte.config.js') })],
    build: { outDir, emptyOutDir: true, sourcemap: false, reportCompressedSize: false, minify: opts.minify ?? true }
  })
  return outDir
}
