// The tray icon variants rendered from resources/tray.svg: one per state and theme at
// 1x and 2x, real PNGs of the right size, the badge of each state in its colour where it
// belongs, and the glyph in the theme's ink.
import { describe, expect, it } from 'vitest'
import { PALETTE, renderTrayIcons, variantSvg } from '../../../scripts/render-tray-icons'
import { trayIconFile } from '../../../src/main/tray-state'

const variants = await renderTrayIcons()
const find = (file: string) => {
  const v = variants.find((x) => x.file === file)
  if (!v) throw new Error(`no ${file}`)
  return v
}
/** The RGBA of one pixel, as #rrggbb and its alpha. */
function pixel(file: string, x: number, y: number): { rgb: string; alpha: number } {
  const v = find(file)
  const i = (y * v.size + x) * 4
  const hex = (n: number) => n.toString(16).padStart(2, '0')
  return { rgb: `#${hex(v.pixels[i]!)}${hex(v.pixels[i + 1]!)}${hex(v.pixels[i + 2]!)}`, alpha: v.pixels[i + 3]! }
}
/** Every opaque colour in a variant. */
function colours(file: string): Set<string> {
  const v = find(file)
  const out = new Set<string>()
  for (let i = 0; i < v.pixels.length; i += 4) {
    if (v.pixels[i + 3] !== 255) continue
    out.add(`#${[0, 1, 2].map((k) => v.pixels[i + k]!.toString(16).padStart(2, '0')).join('')}`)
  }
  return out
}

describe('renderTrayIcons', () => {
  it('renders every state for both themes at 1x and 2x as PNGs of 16 and 32 pixels', () => {
    expect(variants).toHaveLength(16)
    for (const icon of ['idle', 'progress', 'attention', 'error'] as const)
      for (const theme of ['light', 'dark'] as const) {
        expect(find(trayIconFile(icon, theme)).size).toBe(16)
        expect(find(trayIconFile(icon, theme, 2)).size).toBe(32)
      }
    for (const v of variants) {
      expect(Buffer.from(v.png.subarray(0, 8)).toString('hex')).toBe('89504e470d0a1a0a')
      // IHDR width and height, big-endian, right after the signature and chunk header.
      const ihdr = Buffer.from(v.png.subarray(16, 24))
      expect([ihdr.readUInt32BE(0), ihdr.readUInt32BE(4)]).toEqual([v.size, v.size])
      expect(v.pixels).toHaveLength(v.size * v.size * 4)
    }
  })

  it('draws the idle glyph in the theme ink only, with no badge', () => {
    for (const theme of ['light', 'dark'] as const) {
      const file = trayIconFile('idle', theme, 2)
      expect([...colours(file)]).toEqual([PALETTE[theme].ink])
      expect(pixel(file, 24, 24).alpha).toBe(0)
    }
  })

  it("puts each state's badge, in its colour, at the bottom right", () => {
    for (const theme of ['light', 'dark'] as const) {
      const c = PALETTE[theme]
      expect(pixel(trayIconFile('progress', theme, 2), 24, 24)).toEqual({ rgb: c.progress, alpha: 255 })
      expect(pixel(trayIconFile('attention', theme, 2), 19, 24)).toEqual({ rgb: c.attention, alpha: 255 })
      expect(pixel(trayIconFile('attention', theme, 2), 24, 21)).toEqual({ rgb: c.mark, alpha: 255 })
      expect(pixel(trayIconFile('error', theme, 2), 19, 24)).toEqual({ rgb: c.error, alpha: 255 })
      expect(pixel(trayIconFile('error', theme, 2), 24, 24)).toEqual({ rgb: c.mark, alpha: 255 })
    }
  })

  it('takes the artwork from tray.svg and refuses a file without an <svg>', () => {
    const svg = variantSvg('<svg viewBox="0 0 32 32"><circle cx="4" cy="4" r="2" fill="#000"/></svg>', 'attention', 'dark')
    expect(svg).toContain(`<circle cx="4" cy="4" r="2" fill="${PALETTE.dark.ink}"/>`)
    expect(svg).toContain('mask="url(#notch)"')
    expect(() => variantSvg('<png/>', 'idle', 'light')).toThrow(/no <svg>/)
  })
})
