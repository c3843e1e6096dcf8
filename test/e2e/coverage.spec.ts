// Every order, or a visible reason why not, quiet until it matters,
// as the operator sees it in the browser harness: the orders view says in one line that
// every order is here, each fiat's completeness on demand (Details), and the fiat filter
// which fiats hold orders and how many; orders removed from the local database behind
// the app's back are found by the completeness check, and while the audit repairs them
// the orders view and the tray say in one line what may be missing and that it is read
// again, with progress, then "All orders here" with every order back (and nothing in the
// tray). Screenshots at 1280x800 and 960x600 (tray 360x480).
import { join } from 'node:path'
import Database from 'libsql'
import { expect, test, type Page } from '@playwright/test'
import { openView, shot, startApp, type E2eApp } from './harness'

let e: E2eApp

test.beforeAll(async () => {
  // Onramp in INR, TRY, AED and BRL, offramp in INR and TRY, numbered apart.
  e = await startApp({ orders: 1500, sandbox: { orderIds: 'perType', orderFiats: { onramp: [1, 2, 3, 7], offramp: [1, 2] } } })
  // No new orders while counts are compared.
  e.control.stopGenerator()
})
test.afterAll(async () => {
  await e?.close()
})

const inr = (page: Page) => page.getByTestId('orders-coverage').locator('li[data-scope="1:1"]')
/** The per-fiat detail, opened as the operator does (Details). */
async function details(page: Page): Promise<void> {
  const toggle = page.getByTestId('proof-details')
  if ((await toggle.getAttribute('aria-expanded')) !== 'true') await toggle.click()
  await expect(page.getByTestId('orders-coverage')).toBeVisible()
}

test('the orders view names each fiat with its orders, finds orders removed behind its back and repairs them, saying so', async ({
  page
}) => {
  test.setTimeout(120_000)
  await page.setViewportSize({ width: 1280, height: 800 })
  await openView(page, e, 'orders')
  const truth = e.control.groundTruth({ type: 1 })
  await expect(page.getByTestId('orders-total')).toHaveText(`${truth.length.toLocaleString('en-US')} orders`, { timeout: 60_000 })
  // Which fiats hold orders, and how many.
  const counts = new Map<number, number>()
  for (const o of truth) counts.set(o.fiatType, (counts.get(o.fiatType) ?? 0) + 1)
  const fiat = page.getByRole('combobox', { name: 'Fiat' })
  await expect(fiat.locator('option', { hasText: `TRY (${counts.get(2)!.toLocaleString('en-US')})` })).toHaveCount(1)
  await expect(fiat.locator('option', { hasText: 'MXN (no orders)' })).toHaveCount(1)

  // A first check: every fiat complete, said in one line; each fiat on demand.
  await details(page)
  await page.getByTestId('coverage-check').click()
  await expect(inr(page)).toHaveAttribute('data-state', 'complete', { timeout: 30_000 })
  await expect(inr(page)).toContainText(`${counts.get(1)!.toLocaleString('en-US')} orders · complete, checked`)
  await expect(page.getByTestId('orders-proof')).toHaveAttribute('data-proof', 'complete', { timeout: 30_000 })
  await expect(page.getByTestId('orders-proof')).toContainText(/All orders here · checked \d/)
  await shot(page, 'orders-coverage')
  await page.setViewportSize({ width: 960, height: 600 })
  await shot(page, 'orders-coverage-960')
  await page.setViewportSize({ width: 1280, height: 800 })

  // Behind the app's back: 400 old INR onramp orders gone from its database.
  const db = new Database(join(e.app.dataDir, 'profiles', 'sandbox', 'rampdesk.db'))
  db.exec('PRAGMA busy_timeout = 5000')
  const removed = db
    .prepare('DELETE FROM orders WHERE rowid IN (SELECT rowid FROM orders WHERE type = 1 AND fiat_type = 1 ORDER BY updated_at LIMIT 400)')
    .run().changes
  db.close()
  expect(removed).toBe(400)
  // Slow answers, so the repair can be watched.
  e.control.setFault('merchantHistory', { latencyMs: 1500 })
  await page.getByTestId('coverage-check').click()
  // One line: what may be missing, what is done about it, with progress.
  const proof = page.getByTestId('orders-proof')
  await expect(proof).toHaveAttribute('data-proof', 'repairing', { timeout: 30_000 })
  await expect(proof).toContainText(/INR orders may be missing: reading them again from the service, \d+ of \d+ pages?/)
  await expect(inr(page)).toContainText(/reading again, \d+ of \d+ pages?/)
  await expect(inr(page)).toHaveAttribute('data-state', 'repairing')
  // The header names it among the known gaps, wherever the operator is.
  await expect(page.getByTestId('sync-gaps')).toContainText(/known gaps?/)
  await expect(page.getByTestId('sync-gaps')).toHaveAttribute('title', /Onramp INR: incomplete: repairing/)
  await shot(page, 'orders-coverage-repairing')

  const tray = await page.context().newPage()
  await tray.setViewportSize({ width: 360, height: 480 })
  await openView(tray, e, 'tray')
  await expect(tray.getByTestId('tray-proof')).toContainText(/onramp INR orders may be missing: reading them again/i, { timeout: 20_000 })
  await expect(tray.getByTestId('tray-proof')).toHaveCount(1)
  await shot(tray, 'tray-coverage-repairing')

  e.control.clearFaults()
  await expect(inr(page)).toHaveAttribute('data-state', 'complete', { timeout: 60_000 })
  await expect(page.getByTestId('orders-total')).toHaveText(`${truth.length.toLocaleString('en-US')} orders`, { timeout: 20_000 })
  // Every order back: the tray says nothing of it.
  await expect(tray.getByTestId('tray-proof')).toHaveCount(0, { timeout: 20_000 })
  await tray.close()

  // The service fails every listing; a search for an order not held probes the empty fiats at once:
  // each that cannot be probed is listed in the orders view, and counted in the header.
  e.control.setFault('merchantHistory', { errorRate: 1, errorStatus: 500 })
  await page.getByRole('searchbox', { name: 'Search' }).fill('98765432')
  await expect(proof).toContainText(/MXN.*may be missing: the service could not be asked/, { timeout: 20_000 })
  await expect(inr(page)).toBeVisible()
  await expect(page.getByTestId('orders-coverage').locator('li[data-scope="1:4"]')).toContainText(
    'the service could not be asked whether it holds any'
  )
  await expect(proof).not.toContainText(/probed|api|500/)
  await expect(page.getByTestId('sync-gaps')).toHaveAttribute('title', /Onramp MXN: could not be probed/)
  await shot(page, 'orders-coverage-probe-gaps')
  e.control.clearFaults()
  await page.getByRole('searchbox', { name: 'Search' }).fill('')
})

test('diagnostics show the scopes, the readings of merchantHistory, freshness and what checking them cost', async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 800 })
  await openView(page, e, 'diagnostics')
  await expect(page.getByTestId('diag-coverage').locator('tr[data-scope="2:2"]')).toContainText('Offramp TRY', { timeout: 30_000 })
  await expect(page.getByTestId('diag-readings').locator('tr[data-reading="sinceField"]')).toContainText('checked')
  await expect(page.getByTestId('diag-readings').locator('tr[data-reading="firstPage"]')).toContainText('checked')
  // "1 open order", "2 open orders".
  await expect(page.getByTestId('diag-freshness')).toContainText(/\d+ open orders?;/)
  await page.getByTestId('diag-coverage').scrollIntoViewIfNeeded()
  await shot(page, 'diagnostics-coverage')
  await page.setViewportSize({ width: 960, height: 600 })
  await shot(page, 'diagnostics-coverage-960')
})
