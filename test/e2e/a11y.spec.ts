// Accessibility checks that hold for every view in both themes: axe-core's WCAG 2.1 A
// and AA rules find no serious or critical violation (views with their content loaded,
// a quote and the connect flow shown, the tray popover); each control has an accessible
// name, and the status tones, badges and body text keep WCAG AA contrast (4.5:1).
import AxeBuilder from '@axe-core/playwright'
import { expect, test, type Page } from '@playwright/test'
import { openView, startApp, type E2eApp } from './harness'
import { VIEWS } from '../../src/renderer/src/lib/views'

let e: E2eApp

test.beforeAll(async () => {
  e = await startApp()
})
test.afterAll(async () => {
  await e?.close()
})

/** Controls with no name from a label, aria-label(ledby), title or their own text. */
function unnamedControls(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const doc = (globalThis as unknown as { document: { querySelectorAll(s: string): ArrayLike<unknown> } }).document
    type El = {
      tagName: string
      outerHTML: string
      textContent: string | null
      getAttribute(n: string): string | null
      labels?: ArrayLike<unknown> | null
      type?: string
    }
    const out: string[] = []
    for (const el of Array.from(
      doc.querySelectorAll('button, input, select, textarea, a[href], [role="tab"], [role="option"], meter, progress')
    ) as El[]) {
      if (el.type === 'hidden') continue
      const named =
        (el.getAttribute('aria-label') ?? '').trim() !== '' ||
        (el.getAttribute('aria-labelledby') ?? '').trim() !== '' ||
        (el.labels?.length ?? 0) > 0 ||
        (el.getAttribute('title') ?? '').trim() !== '' ||
        (['BUTTON', 'A'].includes(el.tagName) && (el.textContent ?? '').trim() !== '')
      if (!named) out.push(el.outerHTML.slice(0, 120))
    }
    return out
  })
}

/** Pairs of (text colour, background) for tone pills, badges and body text, as contrast ratios. */
function lowContrast(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const g = globalThis as unknown as {
      document: { querySelectorAll(s: string): ArrayLike<{ textContent: string | null; className: unknown }>; body: unknown }
      getComputedStyle(el: unknown): { color: string; backgroundColor: string }
    }
    const rgb = (c: string): number[] => (c.match(/[\d.]+/g) ?? []).slice(0, 3).map(Number)
    const lum = (c: number[]): number => {
      const [r, gg, b] = c.map((v) => {
        const s = v / 255
        return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4
      }) as [number, number, number]
      return 0.2126 * r + 0.7152 * gg + 0.0722 * b
    }
    const ratio = (a: string, b: string): number => {
      const [x, y] = [lum(rgb(a)), lum(rgb(b))].sort((p, q) => q - p) as [number, number]
      return (x + 0.05) / (y + 0.05)
    }
    const out: string[] = []
    const body = g.getComputedStyle(g.document.body)
    if (ratio(body.color, body.backgroundColor) < 4.5) out.push(`body ${body.color} on ${body.backgroundColor}`)
    for (const el of Array.from(
      g.document.querySelectorAll('.pill, .badge, .tone-success, .tone-failure, .tone-progress, .tone-attention')
    )) {
      const s = g.getComputedStyle(el)
      if (s.backgroundColor === 'rgba(0, 0, 0, 0)') continue
      const r = ratio(s.color, s.backgroundColor)
      if (r < 4.5) out.push(`${String(el.className)} "${(el.textContent ?? '').trim().slice(0, 30)}" ${r.toFixed(2)}`)
    }
    return out
  })
}

for (const scheme of ['light', 'dark'] as const) {
  test(`every control is named and tones keep contrast (${scheme})`, async ({ page }) => {
    await page.emulateMedia({ colorScheme: scheme })
    await openView(page, e, 'tickers')
    for (const v of VIEWS) {
      await page.goto(`${e.base}/?view=main#/${v}`)
      await expect(page.getByRole('heading', { level: 1 })).toBeVisible()
      if (v === 'orders') await expect(page.locator('tbody tr[data-order]').first()).toBeVisible({ timeout: 30_000 })
      if (v === 'tickers') await expect(page.locator('tbody tr[data-coin]').first()).toBeVisible({ timeout: 15_000 })
      expect(await unnamedControls(page), `unnamed controls in ${v}`).toEqual([])
      expect(await lowContrast(page), `low contrast in ${v}`).toEqual([])
    }
    await page.goto(`${e.base}/?view=tray`)
    await expect(page.getByRole('button', { name: 'Open Rampdesk' })).toBeVisible()
    expect(await unnamedControls(page)).toEqual([])
    expect(await lowContrast(page)).toEqual([])
  })
}

const WCAG_21_AA = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']

/** axe-core's serious and critical WCAG 2.1 AA violations on the page as it is, one line each with where. */
async function axeViolations(page: Page): Promise<string[]> {
  const r = await new AxeBuilder({ page }).withTags(WCAG_21_AA).analyze()
  return r.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)
}

for (const scheme of ['light', 'dark'] as const) {
  test(`axe finds no serious WCAG 2.1 AA violation in any view (${scheme})`, async ({ page }) => {
    await page.emulateMedia({ colorScheme: scheme })
    await openView(page, e, 'tickers')
    for (const v of VIEWS) {
      await page.goto(`${e.base}/?view=main#/${v}`)
      await expect(page.getByRole('heading', { level: 1 })).toBeVisible()
      if (v === 'orders') {
        await expect(page.locator('tbody tr[data-order]').first()).toBeVisible({ timeout: 30_000 })
        // The detail panel of an order is part of the view.
        await page.locator('tbody tr[data-order] button.oid').first().click()
      }
      if (v === 'tickers') await expect(page.locator('tbody tr[data-coin]').first()).toBeVisible({ timeout: 15_000 })
      if (v === 'quote') {
        await page.getByRole('textbox', { name: /Amount to pay/ }).fill('5000')
        await expect(page.getByTestId('quote-for')).toBeVisible({ timeout: 15_000 })
        await page.getByRole('button', { name: 'Compare networks' }).click()
        await expect(page.getByTestId('compare-table')).toBeVisible({ timeout: 15_000 })
      }
      if (v === 'bank') await expect(page.getByRole('heading', { name: 'UPI' })).toBeVisible({ timeout: 15_000 })
      expect(await axeViolations(page), `axe in ${v}`).toEqual([])
      if (v === 'settings') {
        await page.getByRole('button', { name: 'Connect to the live service' }).click()
        await expect(page.getByRole('form', { name: 'Connect to the live service' })).toBeVisible()
        expect(await axeViolations(page), 'axe in the connect flow').toEqual([])
      }
    }
    await page.goto(`${e.base}/?view=tray`)
    await expect(page.getByTestId('tray-state')).toBeVisible({ timeout: 15_000 })
    expect(await axeViolations(page), 'axe in the tray popover').toEqual([])
  })
}
