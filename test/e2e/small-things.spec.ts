// The small things an operator trips over, at 1280x800 and 960x600:
// "1 order", not "1 orders"; a quote's limits written as amounts ("100 – 200,000 INR", not
// "100 – 200000 INR"); the tickers' next refresh never stuck at "0 s" on first load.
import { expect, test } from '@playwright/test'
import { openView, startApp, type E2eApp } from './harness'

let e: E2eApp

test.beforeAll(async () => {
  e = await startApp()
  e.control.stopGenerator()
})
test.afterAll(async () => {
  await e?.close()
})

for (const size of [
  { width: 1280, height: 800 },
  { width: 960, height: 600 }
]) {
  test.describe(`at ${size.width}x${size.height}`, () => {
    test.use({ viewport: size })

    test('one order found is "1 order"', async ({ page }) => {
      await openView(page, e, 'orders')
      const first = page.locator('tbody tr[data-order]').first()
      await expect(first).toBeVisible({ timeout: 30_000 })
      const id = (await first.getAttribute('data-order'))!
      await page.getByRole('searchbox', { name: 'Search' }).fill(id)
      await expect(page.getByTestId('orders-total')).toHaveText('1 order', { timeout: 10_000 })
      await page.getByRole('searchbox', { name: 'Search' }).fill('')
      await expect(page.getByTestId('orders-total')).toHaveText(/^[\d,]+ orders$/)
    })

    test("a quote's limits are amounts, with their digits grouped", async ({ page }) => {
      await openView(page, e, 'quote')
      const limits = page.locator('#limits-text')
      await expect(limits).toContainText(/Limits [\d,.]+ – [\d,.]+ INR/, { timeout: 20_000 })
      const text = await limits.innerText()
      console.log(`quote limits: "${text}"`)
      // Every amount of four digits or more is grouped.
      expect(text).not.toMatch(/\b\d{4,}\b/)
      expect(text).toMatch(/\d{1,3}(,\d{3})+/)
    })

    test('the next refresh of the prices is never "in 0 s" while the first prices load', async ({ page }) => {
      await openView(page, e, 'tickers')
      const next = page.getByTestId('next-refresh')
      const seen: string[] = []
      for (let i = 0; i < 12; i++) {
        seen.push((await next.innerText()).trim())
        await page.waitForTimeout(250)
      }
      await expect(page.locator('tbody tr[data-coin]').first()).toBeVisible({ timeout: 20_000 })
      seen.push((await next.innerText()).trim())
      console.log(`next refresh, as the tickers load: ${[...new Set(seen)].join(' / ')}`)
      for (const s of seen) expect(s).not.toMatch(/in 0 s/)
      await expect(next).toHaveText(/^next refresh in \d+ s$/)
    })
  })
}
