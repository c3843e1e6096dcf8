// Every view at the sizes the window really has (1280x800, a common laptop, and 960x600,
// the main window's minimum) and the tray popover at its own 360x480: no text spilling out
// of its box, no boxes drawn over one another, no table column under 40 px and nothing
// scrolling sideways (layout.ts). Views are checked as they open and in the states an
// operator spends the day in: the orders with an order's detail beside them, a quote with
// its network comparison.
import { expect, test, type Page } from '@playwright/test'
import { layoutProblems } from './layout'
import { openView, startApp, type E2eApp, type ViewId } from './harness'

let e: E2eApp

test.beforeAll(async () => {
  e = await startApp()
})
test.afterAll(async () => {
  await e?.close()
})

/** What shows once a view has what it loads. */
const READY: Record<ViewId, (page: Page) => Promise<void>> = {
  tickers: (p) => expect(p.locator('tbody tr[data-coin]').first()).toBeVisible({ timeout: 20_000 }),
  quote: (p) => expect(p.getByRole('textbox', { name: /Amount to pay/ })).toBeVisible(),
  address: (p) => expect(p.getByRole('heading', { name: 'Address check' })).toBeVisible(),
  bank: (p) => expect(p.getByRole('heading', { name: 'UPI' })).toBeVisible({ timeout: 20_000 }),
  orders: (p) => expect(p.locator('tbody tr[data-order]').first()).toBeVisible({ timeout: 30_000 }),
  webhooks: (p) => expect(p.getByRole('heading', { name: 'Webhooks' }).first()).toBeVisible(),
  diagnostics: (p) => expect(p.getByRole('heading', { name: 'Endpoints' })).toBeVisible(),
  settings: (p) => expect(p.getByRole('heading', { name: 'Settings' }).first()).toBeVisible()
}

async function expectReadable(page: Page, what: string): Promise<void> {
  // Fonts and late answers settle first: a problem that shows for one frame is not one.
  await page.waitForTimeout(300)
  expect(await layoutProblems(page), what).toEqual([])
}

for (const size of [
  { width: 1280, height: 800 },
  { width: 960, height: 600 }
]) {
  test.describe(`at ${size.width}x${size.height}`, () => {
    test.use({ viewport: size })

    for (const view of Object.keys(READY) as ViewId[]) {
      test(`${view} is readable`, async ({ page }) => {
        await openView(page, e, view)
        await READY[view](page)
        await expectReadable(page, `${view} at ${size.width}x${size.height}`)
      })
    }

    test('orders with an order open beside them are readable', async ({ page }) => {
      await openView(page, e, 'orders')
      await READY.orders(page)
      await page.locator('tbody tr[data-order] button.oid').first().click()
      await expect(page.getByTestId('order-detail').getByRole('heading', { name: /order \d+/ })).toBeVisible()
      await expect(page.getByTestId('timeline')).toBeVisible()
      await expectReadable(page, `orders with the detail at ${size.width}x${size.height}`)
    })

    test('a quote with its network comparison is readable', async ({ page }) => {
      await openView(page, e, 'quote')
      await page.getByRole('textbox', { name: /Amount to pay/ }).fill('5000')
      await expect(page.getByTestId('quote-result')).toBeVisible({ timeout: 20_000 })
      await page.getByRole('button', { name: 'Compare networks' }).click()
      await expect(page.getByTestId('compare-table')).toBeVisible({ timeout: 20_000 })
      await expectReadable(page, `quote at ${size.width}x${size.height}`)
    })
  })
}

test.describe('the tray popover at 360x480', () => {
  test.use({ viewport: { width: 360, height: 480 } })
  test('is readable', async ({ page }) => {
    await openView(page, e, 'tray')
    await expect(page.getByTestId('tray-state')).toBeVisible({ timeout: 20_000 })
    await expect(page.getByTestId('tray-orders').locator('li').first()).toBeVisible()
    await expectReadable(page, 'tray at 360x480')
  })
})
