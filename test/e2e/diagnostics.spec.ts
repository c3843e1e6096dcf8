// The service diagnostics view through the browser harness against the embedded sandbox:
// the endpoints the app called with their answers and limits, the clock and its source,
// sync per scope; "Re-sync everything" reads the whole history again with progress and
// ends with the same orders; the copied text carries no secret or key.
import { expect, test } from '@playwright/test'
import { openView, shot, startApp, type E2eApp } from './harness'

let e: E2eApp

test.beforeAll(async () => {
  e = await startApp({ orders: 1500 })
})
test.afterAll(async () => {
  await e?.close()
})

test('diagnostics show per endpoint, the clock and sync; re-sync everything keeps every order', async ({ page }) => {
  await openView(page, e, 'orders')
  await expect(page.getByTestId('orders-total')).not.toHaveText('0 orders', { timeout: 30_000 })
  await page.goto(`${e.base}/?view=main#/diagnostics`)
  const endpoints = page.getByTestId('diag-endpoints')
  const history = endpoints.locator('tr[data-endpoint="merchantHistory"]')
  await expect(history).toBeVisible({ timeout: 20_000 })
  await expect(history).toContainText('ok')
  await expect(endpoints.locator('tr[data-endpoint="priceTicker"]')).toContainText('documented')
  await expect(page.getByTestId('diag-clock')).toContainText(/currentTimestamp|Date header/)
  await expect(page.getByTestId('diag-sync').locator('tbody tr').first()).toBeVisible()

  const before = await e.app.services.handlers['orders:query']({ filter: { type: 1 }, sort: 'updatedAt:desc', offset: 0, limit: 1 })
  await page.getByTestId('resync').click()
  // The pass runs with progress, then the button comes back.
  await expect(page.getByTestId('resync')).toBeEnabled({ timeout: 60_000 })
  const after = await e.app.services.handlers['orders:query']({ filter: { type: 1 }, sort: 'updatedAt:desc', offset: 0, limit: 1 })
  expect(after.total).toBeGreaterThanOrEqual(before.total)
  const audit = await e.app.services.handlers['audit:list']({ limit: 20 })
  expect(audit.rows.map((r) => r.action)).toContain('sync.resync')

  const text = (await e.app.services.handlers['diagnostics:text']({})).text
  expect(text).toContain('merchantHistory:')
  expect(text).not.toContain(e.apiSecret)
  await expect(page.getByRole('button', { name: 'Copy diagnostics' })).toBeVisible()
  await shot(page, 'diagnostics')
})
