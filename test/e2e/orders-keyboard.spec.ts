// The orders by keyboard, at 1280x800 and 960x600: `/` and Ctrl+K go to
// the search from anywhere (not while typing in another field); the skip link leads to it;
// the first order is a few Tab stops from it (counted here) and ArrowDown reaches it; the
// dates are one control: one Tab stop, a popover with presets and a from and a to date,
// Escape closing it with the focus back on its button.
import { expect, test, type Page } from '@playwright/test'
import { layoutProblems } from './layout'
import { navigate, openView, startApp, type E2eApp } from './harness'

let e: E2eApp

test.beforeAll(async () => {
  e = await startApp()
  e.control.stopGenerator()
})
test.afterAll(async () => {
  await e?.close()
})

const search = (page: Page) => page.getByRole('searchbox', { name: 'Search' })
const firstRowButton = (page: Page) => page.locator('tbody tr[aria-rowindex="2"] button.oid')

/**
 * A description of the focused element, to say where each Tab went. Plain JavaScript in a
 * string: the Node side of the tests is compiled without the DOM's types.
 */
const focused = (page: Page): Promise<string> =>
  page.evaluate(`(() => {
    const el = document.activeElement
    if (!el) return 'nothing'
    const row = el.closest('tr[aria-rowindex]')?.getAttribute('aria-rowindex')
    const name = (el.getAttribute('aria-label') ?? el.textContent ?? '').trim().slice(0, 30)
    return el.tagName.toLowerCase() + (row ? ' row ' + row : '') + ' "' + name + '"'
  })()`)

/** Whether the element has the focus. */
const hasFocus = (el: { evaluate: (f: (e: unknown) => boolean) => Promise<boolean> }): Promise<boolean> =>
  el.evaluate((e) => e === (globalThis as unknown as { document: { activeElement: unknown } }).document.activeElement)

for (const size of [
  { width: 1280, height: 800 },
  { width: 960, height: 600 }
]) {
  test.describe(`at ${size.width}x${size.height}`, () => {
    test.use({ viewport: size })

    test('`/` and Ctrl+K go to the search from anywhere, not while typing in another field', async ({ page }) => {
      await openView(page, e, 'orders')
      await expect(page.locator('tbody tr[data-order]').first()).toBeVisible({ timeout: 30_000 })
      // From the navigation.
      await page.getByRole('link', { name: 'Orders', exact: true }).focus()
      await page.keyboard.press('/')
      await expect(search(page)).toBeFocused()
      await expect(search(page)).toHaveValue('')
      // Typing "/" in the search is text.
      await page.keyboard.type('0x/')
      await expect(search(page)).toHaveValue('0x/')
      await search(page).fill('')
      // Ctrl+K from the table: back to the search with its text selected, to type a new one.
      await search(page).fill('1012')
      await page.getByRole('button', { name: 'Clear' }).focus()
      await page.keyboard.press('Control+k')
      await expect(search(page)).toBeFocused()
      const selection = await search(page).evaluate((el) => {
        const input = el as unknown as { selectionStart: number | null; selectionEnd: number | null }
        return [input.selectionStart, input.selectionEnd]
      })
      expect(selection).toEqual([0, 4])
      await search(page).fill('')
      // Ctrl+K from another view: Orders opens with the search focused.
      await navigate(page, 'tickers')
      await expect(page.getByRole('heading', { name: 'Tickers' })).toBeVisible()
      await page.keyboard.press('Control+k')
      await expect(search(page)).toBeFocused()
      // Not while typing in another field: "/" in the quote's amount stays there.
      await navigate(page, 'quote')
      const amount = page.getByRole('textbox', { name: /Amount to pay/ })
      await amount.click()
      await page.keyboard.press('/')
      await page.keyboard.press('Control+k')
      await expect(amount).toBeFocused()
      await expect(page.getByRole('heading', { name: 'Quote' })).toBeVisible()
    })

    test('the skip link leads to the search; the first order is at most 5 Tab stops on, and ArrowDown reaches it', async ({ page }) => {
      await openView(page, e, 'orders')
      await expect(page.locator('tbody tr[data-order]').first()).toBeVisible({ timeout: 30_000 })
      await page.keyboard.press('Tab')
      await expect(page.getByTestId('skip-link')).toBeFocused()
      await expect(page.getByTestId('skip-link')).toHaveText('Skip to the orders search')
      await page.keyboard.press('Enter')
      await expect(search(page)).toBeFocused()

      const path: string[] = []
      for (let stops = 1; stops <= 10; stops++) {
        await page.keyboard.press('Tab')
        path.push(await focused(page))
        if (await hasFocus(firstRowButton(page))) break
      }
      console.log(`${size.width}x${size.height}: Tab stops from the search to the first order: ${path.length} (${path.join(' → ')})`)
      await expect(firstRowButton(page)).toBeFocused()
      expect(path.length).toBeLessThanOrEqual(5)

      // ArrowDown from the search: the first order, with nothing opened; Enter opens it.
      await search(page).focus()
      await search(page).fill('')
      await page.keyboard.press('ArrowDown')
      await expect(firstRowButton(page)).toBeFocused()
      await expect(page.getByTestId('order-detail')).toHaveCount(0)
      const id = await page.locator('tbody tr[aria-rowindex="2"]').getAttribute('data-order')
      await page.keyboard.press('Enter')
      await expect(page.getByTestId('order-detail').getByRole('heading', { name: new RegExp(`order ${id}`) })).toBeVisible()
      // And Shift+Tab from the first order back to the search: the same few stops.
      await page.keyboard.press('Escape')
      await expect(firstRowButton(page)).toBeFocused()
      for (let i = 0; i < path.length; i++) await page.keyboard.press('Shift+Tab')
      await expect(search(page)).toBeFocused()
    })

    test('the dates are one control: one Tab stop, presets, from and to, Escape closes with the focus back', async ({ page }) => {
      await openView(page, e, 'orders')
      await expect(page.locator('tbody tr[data-order]').first()).toBeVisible({ timeout: 30_000 })
      const dates = page.getByTestId('dates')
      await expect(dates).toHaveAccessibleName('Dates Any time')
      // One Tab stop between the network and the search.
      await page.getByRole('combobox', { name: 'Network' }).focus()
      await page.keyboard.press('Tab')
      await expect(dates).toBeFocused()
      await page.keyboard.press('Tab')
      await expect(search(page)).toBeFocused()

      // Open, pick a preset by keyboard: it applies, closes, and the focus is back on the button.
      const total = page.getByTestId('orders-total')
      const before = await total.innerText()
      await dates.focus()
      await page.keyboard.press('Enter')
      const dialog = page.getByRole('dialog', { name: 'Dates' })
      await expect(dialog).toBeVisible()
      await expect(dates).toHaveAttribute('aria-expanded', 'true')
      await expect(dialog.getByRole('button', { name: 'Today' })).toBeFocused()
      expect(await layoutProblems(page), 'the dates popover open').toEqual([])
      await page.keyboard.press('Tab')
      await expect(dialog.getByRole('button', { name: 'Last 7 days' })).toBeFocused()
      await page.keyboard.press('Enter')
      await expect(dialog).toHaveCount(0)
      await expect(dates).toBeFocused()
      await expect(dates).toHaveText(/Last 7 days/)
      await expect(total).not.toHaveText(before, { timeout: 10_000 })

      // A range of its own, typed; Escape closes and gives the focus back.
      await page.keyboard.press('Enter')
      await dialog.getByLabel('From').fill('2020-01-01')
      await dialog.getByLabel('To').fill('2020-01-31')
      await page.keyboard.press('Escape')
      await expect(dialog).toHaveCount(0)
      await expect(dates).toBeFocused()
      await expect(dates).toHaveText(/Jan 1, 2020 – Jan 31, 2020/)
      await expect(total).toHaveText('0 orders', { timeout: 10_000 })
      // Any time again.
      await page.keyboard.press('Enter')
      await dialog.getByRole('button', { name: 'Any time' }).click()
      await expect(dates).toHaveText(/Any time/)
      await expect(total).toHaveText(before, { timeout: 10_000 })
    })
  })
}
