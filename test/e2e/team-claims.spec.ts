// Who is handling what, on a Team profile: an operator claims an order in its detail ("Handled
// by you (ana) since 10:42"), adds a note, and sees the row marked in the orders table ("AN",
// titled and named "handled by ana"); a note another operator adds through the hub appears in the open detail by
// itself; the search finds the order by a note's text. Looked at 1280x800.
import { mkdir } from 'node:fs/promises'
import { expect, test } from '@playwright/test'
import { navigate, newTeamProfile, openView, startApp, type E2eApp } from './harness'
import { startTeamHub, type E2eTeamHub } from './team-hub'

let e: E2eApp
let team: E2eTeamHub
let hub: E2eTeamHub['hub']
let server: E2eTeamHub['server']

test.beforeAll(async () => {
  team = await startTeamHub({ orders: 40, seed: 13 })
  ;({ hub, server } = team)
  e = await startApp({ orders: 20 })
})
test.afterAll(async () => {
  await e?.close()
  await team?.close()
})

test('an operator claims an order, notes it, sees the mark; a teammate’s note arrives live; the search finds it', async ({ page }) => {
  const ana = await hub.operators.add('ana', 'operator')
  const ben = await hub.operators.add('ben', 'operator')
  await openView(page, e, 'settings')
  await newTeamProfile(page, 'Claims desk', server.url)
  await page.getByTestId('secret-input').fill(ana.token)
  await page.getByRole('button', { name: 'Store token' }).click()
  await expect(page.getByTestId('secret-status')).toContainText('The operator token is stored', { timeout: 15_000 })
  await page.getByRole('button', { name: 'Switch to Claims desk' }).click()
  await expect(page.getByTestId('profile-kind')).toHaveText('TEAM', { timeout: 15_000 })

  await navigate(page, 'orders')
  const table = page.getByRole('table')
  const first = table.locator('tbody tr[data-order]').first()
  await expect(first).toBeVisible({ timeout: 20_000 })
  const orderId = Number(await first.getAttribute('data-order'))
  await first.getByRole('button', { name: new RegExp(`^Order ${orderId}`) }).click()
  const detail = page.getByTestId('order-detail')
  await expect(detail.getByTestId('claim-line')).toHaveText('Nobody is handling this order.')

  await detail.getByTestId('claim-button').click()
  await expect(detail.getByTestId('claim-line')).toContainText(/Handled by you \(ana\) since \d{1,2}:\d{2}/)
  await detail.getByTestId('note-text').fill('Customer called: the bank says the payment is pending')
  await detail.getByTestId('note-add').click()
  const notes = detail.getByTestId('notes')
  await expect(notes).toContainText('ana')
  await expect(notes).toContainText('Customer called: the bank says the payment is pending')
  await expect(detail.getByTestId('note-text')).toHaveValue('')

  // A teammate's note through the hub reaches the open detail without a reload.
  const type = (await page.getByRole('tab', { selected: true }).textContent())?.includes('Offramp') ? 2 : 1
  await hub.handlersFor(ben.operator)['orders:note']({ type, orderId, text: 'Asked them for the UTR by e-mail' })
  await expect(notes).toContainText('Asked them for the UTR by e-mail', { timeout: 5_000 })
  await expect(notes.locator('li')).toHaveCount(2)

  const row = table.locator(`tbody tr[data-order="${orderId}"]`)
  await expect(row.getByTestId('handled-by')).toHaveAttribute('title', 'Handled by ana')
  await expect(row.getByTestId('handled-by').getByText('AN', { exact: true })).toBeVisible()
  await mkdir('test-results', { recursive: true })
  await page.screenshot({ path: 'test-results/claims-detail-1280.png' })
  // At 960x600 the claim, its buttons and the note form stay inside the detail.
  await page.setViewportSize({ width: 960, height: 600 })
  const handling = detail.getByTestId('order-handling')
  await handling.scrollIntoViewIfNeeded()
  const [box, panel] = [await handling.boundingBox(), await detail.boundingBox()]
  expect(box!.x + box!.width).toBeLessThanOrEqual(panel!.x + panel!.width)
  await page.screenshot({ path: 'test-results/claims-detail-960.png' })
  await page.setViewportSize({ width: 1280, height: 800 })

  // The search finds the order by its note.
  await detail.getByRole('button', { name: 'Close order details' }).click()
  await page.getByRole('searchbox', { name: 'Search' }).fill('the UTR by')
  await expect(table.locator('tbody tr[data-order]')).toHaveCount(1, { timeout: 10_000 })
  await expect(row.getByTestId('handled-by')).toHaveAttribute('title', 'Handled by ana')
  await expect(row.getByTestId('handled-by')).toContainText('handled by ana')
  await page.screenshot({ path: 'test-results/claims-table-1280.png' })
})
