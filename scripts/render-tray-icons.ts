// Renders the tray icon variants from resources/tray.svg at build time: one per tray
// state (idle, progress, attention, error) for a light and a dark menu bar or panel, at
// 1x and 2x, into resources/tray/ (named by trayIconFile, which the Electron tray reads).
// The glyph is the tray.svg artwork in the theme's ink with a notch cut where the state's
// badge sits. Rasterised by resvg compiled to WebAssembly: no GPU, no browser, no network.
// Run by `npm run icons` (and so by dev, build, start and dist).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Resvg, initWasm } from '@resvg/resvg-wasm'
import { trayIconFile, type TrayTheme } from '../src/main/tray-state'
import { TrayIcon } from '../src/shared/ipc/contract'

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..')
export const TRAY_SVG = join(ROOT, 'resources/tray.svg')
export const TRAY_OUT_DIR = join(ROOT, 'resources/tray')

/** Glyph ink and badge colours per theme: each badge keeps 3:1 against the bar it sits on. */
export const PALETTE: Record<TrayTheme, { ink: string; progress: string; attention: string; error: string; mark: string }> = {
  light: { ink: '#1f2328', progress: '#0969da', attention: '#9a6700', error: '#cf222e', mark: '#ffffff' },
  dark: { ink: '#f0f3f6', progress: '#4493f8', attention: '#d29922', error: '#f85149', mark: '#0d1117' }
}

/** The badge, in the glyph's 32-unit box, bottom right. */
const BADGE = { cx: 24, cy: 24, r: 7.5, notch: 9.5 }

function badge(icon: TrayIcon, theme: TrayTheme): string {
  const c = PALETTE[theme]
  const { cx, cy, r } = BADGE
  switch (icon) {
    case 'idle':
      return ''
    case 'progress':
      // A dot: something is moving, nothing is wrong.
      return `<circle cx="${cx}" cy="${cy}" r="${r - 2}" fill="${c.progress}"/>`
    case 'attention':
      // "!" on amber: the operator is needed.
      return (
        `<circle cx="${cx}" cy="${cy}" r="${r}" fill="${c.attention}"/>` +
        `<rect x="${cx - 1.25}" y="${cy - 5}" width="2.5" height="6" rx="1" fill="${c.mark}"/>` +
        `<circle cx="${cx}" cy="${cy + 3.5}" r="1.4" fill="${c.mark}"/>`
      )
    case 'error':
      // "×" on red: offline or sync failing.
      return (
        `<circle cx="${cx}" cy="${cy}" r="${r}" fill="${c.error}"/>` +
        `<path d="M${cx - 3} ${cy - 3} L${cx + 3} ${cy + 3} M${cx + 3} ${cy - 3} L${cx - 3} ${cy + 3}" stroke="${c.mark}" stroke-width="2.2" stroke-linecap="round"/>`
      )
  }
}

/** The variant's SVG: tray.svg's artwork in the theme's ink, notched under the badge. */
export function variantSvg(traySvg: string, icon: TrayIcon, theme: TrayTheme): string {
  const inner = /<svg[^>]*>([\s\S]*)<\/svg>/.exec(traySvg)?.[1]
  if (!inner) throw new Error('resources/tray.svg has no <svg> element')
  const ink = PALETTE[theme].ink
  const art = inner.replace(/#000000|#000\b|black/g, ink)
  const mark = badge(icon, theme)
  const notch = mark
    ? `<mask id="notch"><rect width="32" height="32" fill="#fff"/><circle cx="${BADGE.cx}" cy="${BADGE.cy}" r="${BADGE.notch}" fill="#000"/></mask>`
    : ''
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32" width="32" height="32">` +
    `${notch}<g${mark ? ' mask="url(#notch)"' : ''}>${art}</g>${mark}</svg>`
  )
}

export interface RenderedVariant {
  file: string
  icon: TrayIcon
  theme: TrayTheme
  size: number
  png: Uint8Array
  /** RGBA, row by row. */
  pixels: Uint8Array
}

let wasmReady: Promise<void> | null = null
function loadWasm(): Promise<void> {
  const require = createRequire(import.meta.url)
  wasmReady ??= initWasm(readFileSync(require.resolve('@resvg/resvg-wasm/index_bg.wasm')))
  return wasmReady
}

/** Every variant, rendered in memory. */
export async function renderTrayIcons(traySvg = readFileSync(TRAY_SVG, 'utf8')): Promise<RenderedVariant[]> {
  await loadWasm()
  const out: RenderedVariant[] = []
  for (const icon of TrayIcon.options) {
    for (const theme of ['light', 'dark'] as const) {
      const svg = variantSvg(traySvg, icon, theme)
      for (const scale of [1, 2] as const) {
        const size = 16 * scale
        const image = new Resvg(svg, { fitTo: { mode: 'width', value: size } }).render()
        out.push({ file: trayIconFile(icon, theme, scale), icon, theme, size, png: image.asPng(), pixels: new Uint8Array(image.pixels) })
        image.free()
      }
    }
  }
  return out
}

export async function writeTrayIcons(dir = TRAY_OUT_DIR): Promise<string[]> {
  mkdirSync(dir, { recursive: true })
  const files: string[] = []
  for (const v of await renderTrayIcons()) {
    writeFileSync(join(dir, v.file), v.png)
    files.push(v.file)
  }
  return files
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const files = await writeTrayIcons()
  console.log(`tray icons: ${files.length} files in ${TRAY_OUT_DIR}`)
}
