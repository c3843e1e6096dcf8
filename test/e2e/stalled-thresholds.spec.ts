// The stalled thresholds in Settings, as an operator sets them on a desktop's own profile:
// every row names its status in words with its default; a value that is not whole minutes
// is refused with words and nothing is saved; a saved threshold is what the alerts follow
// (an offramp held for review 20 min is not stalled at the shipped 30 min, and is at 15);
// "Reset" goes back to the default. Looked at 1280x800 and 960x600.
import { mkdir } from 'node:fs/promises'
import { expect, test, type Page } from '@playwright/test'
import { navigate, openView, startApp, type E2eApp } from './harness'

let e: E2eApp
let offset = -20 * 60_000
let held = 0
const session = () => e.app.services.session()

async function snap(page: Page, name: string): Promise<void> {
  await mkdir('test-results/since', { recursive: true })
  await page.screenshot({ path: `test-results/since/${name}.png`, animations: 'disabled' })
}

test.beforeAll(async () => {
  e = await startApp({ orders: 60, now: () => Date.now() + offset })
  e.control.stopGenerator()
  held = e.control.createOrder({ type: 2, fiatType: 1, path: 'over limit, reviewed', hold: true }).orderId
  e.control.advanceOrder(held, 3, 2)
  await expect
    .poll(
      async () => {
        await session().monitor.syncNow()
        return session().store.orders.get(2, held)?.status
      },
      { timeout: 20_000 }
    )
    .toBe(3)
  // Twenty minutes later: held for review 20 min, under the shipped 30.
  offset = 0
  await session().alerts.tick()
})
test.afterAll(async () => {
  await e?.close()
})

test('the thresholds form refuses what is not whole minutes, saves, and the stalled alert follows the new threshold', async ({ page }) => {
  await openView(page, e, 'orders')
  await page.getByRole('tab', { name: /Offramp/ }).click()
  await page.getByTestId('orders-search').fill(String(held))
  const row = page.locator(`tr[data-order="${held}"]`)
  await expect(row).toBeVisible({ timeout: 15_000 })
  await expect(row.getByTestId('stalled-mark')).toHaveCount(0)

  await navigate(page, 'settings')
  const form = page.getByTestId('stalled-form')
  await expect(form.getByRole('heading', { name: 'Stalled orders' })).toBeVisible()
  await expect(form).toContainText('These are this desktop’s own.')
  const review = form.getByRole('textbox', { name: 'Offramp · Held for review' })
  await expect(review).toHaveValue('30')
  await expect(form.locator('tr[data-key="2:3"]')).toContainText('Default 30 min')
  await expect(form.getByRole('textbox', { name: 'Onramp · any other open status' })).toHaveValue('1440')

  await review.fill('15.5')
  await expect(form.locator('tr[data-key="2:3"]')).toContainText(
    'Type whole minutes from 1 to 43,200 (30 days) for Offramp · Held for review.'
  )
  await form.getByRole('button', { name: 'Save thresholds' }).click()
  await expect(form.getByRole('alert')).toContainText('Not saved: Type whole minutes')
  expect((await e.app.services.handlers['settings:get']({})).stalledMinutes['2:3']).toBe(30)

  await review.fill('15')
  await expect(form.locator('tr[data-key="2:3"]').getByRole('button', { name: 'Reset to 30 min' })).toBeVisible()
  await form.getByRole('button', { name: 'Save thresholds' }).click()
  await expect(form.getByRole('status')).toHaveText('Saved.')
  expect((await e.app.services.handlers['settings:get']({})).stalledMinutes['2:3']).toBe(15)
  await page.setViewportSize({ width: 1280, height: 800 })
  await form.scrollIntoViewIfNeeded()
  await snap(page, 'thresholds-1280x800')
  await page.setViewportSize({ width: 960, height: 600 })
  await form.scrollIntoViewIfNeeded()
  const [box, view] = [await form.boundingBox(), page.viewportSize()]
  expect(box!.x + box!.width).toBeLessThanOrEqual(view!.width)
  await snap(page, 'thresholds-960x600')
  await page.setViewportSize({ width: 1280, height: 800 })

  // The alerts follow the saved threshold: held 20 min is stalled at 15.
  await session().alerts.tick()
  await navigate(page, 'orders')
  await page.getByRole('tab', { name: /Offramp/ }).click()
  await page.getByTestId('orders-search').fill(String(held))
  await expect(row.getByTestId('stalled-mark')).toHaveText(/^· 2\d min$/, { timeout: 15_000 })

  // Back to the default: no longer stalled.
  await navigate(page, 'settings')
  await form.locator('tr[data-key="2:3"]').getByRole('button', { name: 'Reset to 30 min' }).click()
  await expect(review).toHaveValue('30')
  await form.getByRole('button', { name: 'Save thresholds' }).click()
  await expect(form.getByRole('status')).toHaveText('Saved.')
  await session().alerts.tick()
  await navigate(page, 'orders')
  await page.getByTestId('orders-search').fill(String(held))
  await expect(row.getByTestId('stalled-mark')).toHaveCount(0, { timeout: 15_000 })
})
