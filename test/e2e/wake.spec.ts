// The network coming back refetches at once: the window's online event
// asks main (app:wake), which syncs orders now instead of at the next interval. (Sleep
// and screen unlock reach the same app:wake from powerMonitor: test/electron.)
import { expect, test } from '@playwright/test'
import { openView, startApp, type E2eApp } from './harness'

let e: E2eApp

test.beforeAll(async () => {
  e = await startApp()
})
test.afterAll(async () => {
  await e?.close()
})

test('an order made while the network was down appears as soon as it is back', async ({ page, context }) => {
  // An hour between history syncs: whatever arrives in this test came because of the wake.
  await e.app.services.handlers['settings:update']({ historyPollSeconds: 3600 })
  await openView(page, e, 'orders')
  await expect(page.locator('tbody tr[data-order]').first()).toBeVisible({ timeout: 45_000 })
  await e.app.services.session().monitor.syncNow()

  await context.setOffline(true)
  const order = e.control.createOrder({ type: 1, fiatType: 1, hold: true })
  await page.waitForTimeout(1500)
  expect(e.app.services.session().store.orders.get(1, order.orderId)).toBeUndefined()

  const woke = page.waitForRequest('**/rpc/app:wake')
  await context.setOffline(false)
  await woke
  await expect.poll(() => e.app.services.session().store.orders.get(1, order.orderId)?.orderId, { timeout: 10_000 }).toBe(order.orderId)
  await page.getByRole('searchbox', { name: 'Search' }).fill(String(order.orderId))
  await expect(page.locator(`tbody tr[data-order="${order.orderId}"]`)).toBeVisible({ timeout: 10_000 })
})
