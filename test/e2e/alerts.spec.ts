// Stalled orders and chain health as an operator sees them: an order parked past its
// threshold is marked in the orders table with how long, told in its detail with what to
// tell the customer, and listed in the tray's "Needs you"; a chain reported out of sync
// flags its open orders in the table and the tray. The app and its sandbox share one clock,
// set three hours back while the orders are parked, then brought to now.
import { mkdir } from 'node:fs/promises'
import { expect, test, type Page } from '@playwright/test'
import { openView, startApp, type E2eApp } from './harness'

let e: E2eApp
let offset = -3 * 60 * 60_000
let held = 0
let bank = 0
let buying = 0

const session = () => e.app.services.session()
async function snap(page: Page, name: string): Promise<void> {
  await mkdir('test-results/alerts', { recursive: true })
  await page.screenshot({ path: `test-results/alerts/${name}.png`, animations: 'disabled' })
}

test.beforeAll(async () => {
  e = await startApp({ orders: 300, now: () => Date.now() + offset })
  e.control.stopGenerator()
  held = e.control.createOrder({ type: 2, fiatType: 1, path: 'over limit, reviewed', hold: true }).orderId
  e.control.advanceOrder(held, 3, 2)
  bank = e.control.createOrder({ type: 2, fiatType: 1, path: 'alternate bank', hold: true }).orderId
  e.control.advanceOrder(bank, 17, 2)
  buying = e.control.createOrder({ type: 1, fiatType: 1, coinCode: 'usdt', chainId: 3, path: 'completed', hold: true }).orderId
  e.control.advanceOrder(buying, 12, 1)
  await expect
    .poll(
      async () => {
        await session().monitor.syncNow()
        return [session().store.orders.get(2, held)?.status, session().store.orders.get(2, bank)?.status]
      },
      { timeout: 20_000 }
    )
    .toEqual([3, 17])
  await session().config.get()
  // Three hours later, with the USDT chain's node out of sync at the service.
  offset = 0
  e.control.setChainHealth({ coinCode: 'usdt', chainId: 3, nodeInSync: 0 })
  await session().alerts.tick()
})
test.afterAll(async () => {
  await e?.close()
})

test('a stalled sale is marked in the table with how long, and its detail says what to tell the customer', async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 800 })
  await openView(page, e, 'orders')
  await page.getByRole('tab', { name: /Offramp/ }).click()
  await expect(page.getByTestId('orders-stalled')).toContainText(/\d+ stalled orders?/)
  const row = page.locator(`tr[data-order="${held}"]`)
  await page.getByTestId('orders-search').fill(String(held))
  await expect(row.getByTestId('stalled-mark')).toHaveText(/^· 3 h( \d+ min)?$/, { timeout: 15_000 })
  await expect(row.getByTestId('stalled-mark')).toHaveAttribute('title', /^Stalled 3 h( \d+ min)? in .+\. .+/)
  await row.getByRole('button', { name: new RegExp(`Order ${held}`) }).click()
  await expect(page.getByTestId('order-stalled')).toContainText(
    /^Stalled 3 h( \d+ min)? in .+ \(raised after 30 min\): tell the customer\s+what is below, and that it is taking longer than usual\./
  )
  await snap(page, 'orders-stalled-1280x800')
})

test('an open order on a chain out of sync is flagged in the table', async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 800 })
  await openView(page, e, 'orders')
  await page.getByRole('tab', { name: /Onramp/ }).click()
  await expect(page.getByTestId('orders-chain').first()).toContainText(/withdrawals? .*of USDT on \S+ while its node is out of sync/)
  await page.getByTestId('orders-search').fill(String(buying))
  await expect(page.locator(`tr[data-order="${buying}"]`).getByTestId('chain-mark')).toHaveText('· chain', { timeout: 15_000 })
  await expect(page.locator(`tr[data-order="${buying}"]`).getByTestId('chain-mark')).toHaveAttribute(
    'title',
    /node out of sync: .*USDT on /
  )
  await snap(page, 'orders-chain-1280x800')
})

test('the tray lists stalled orders and the chain under "Needs you"', async ({ page }) => {
  await page.setViewportSize({ width: 360, height: 480 })
  await openView(page, e, 'tray')
  const needs = page.getByTestId('tray-needs')
  await expect(needs.locator(`[data-testid="tray-stalled"][data-order="${held}"]`)).toContainText(/Stalled 3 h( \d+ min)? in /)
  await expect(needs.locator(`[data-testid="tray-stalled"][data-order="${bank}"]`)).toContainText(/Stalled 3 h( \d+ min)? in /)
  await expect(needs.getByTestId('tray-chain').first()).toContainText(/of USDT on \S+ while its node is out of sync/)
  await expect(needs).not.toContainText('Nothing needs you')
  await snap(page, 'tray-alerts-360x480')

  // The chain recovers: its line goes at the next configuration answer.
  e.control.setChainHealth({ coinCode: 'usdt', chainId: 3, nodeInSync: 1 })
  await session().config.refreshAll()
  await expect(needs.getByTestId('tray-chain')).toHaveCount(0)
})
