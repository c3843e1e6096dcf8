// A completion the merchant's system never confirmed, on a Team profile: the hub relays the
// service's notice of a completed order to the merchant's receiver, which refuses it; after the
// (compressed) grace period the orders view lists the order with how long ago it completed and
// a Resend button, the row is marked, the detail says why and what to tell the customer, and
// the tray counts it. With the receiver fixed, Resend sends it again and the alert clears
// everywhere. Looked at 1280x800, 960x600 and the 360x480 tray.
import { mkdir } from 'node:fs/promises'
import { expect, test } from '@playwright/test'
import { navigate, newTeamProfile, openView, startApp, type E2eApp } from './harness'
import { startTeamHub, type E2eTeamHub } from './team-hub'
import { startMerchantReceiver, type MerchantReceiver } from '../support/merchant-receiver'

let e: E2eApp
let team: E2eTeamHub
let receiver: MerchantReceiver

test.beforeAll(async () => {
  receiver = await startMerchantReceiver()
  // Refused outright: the hub stops trying, and only a resend sends it again.
  receiver.set({ status: 403 })
  team = await startTeamHub({ orders: 20, seed: 17, hub: { forwardTo: receiver.url, unacknowledgedGraceMs: 1_000 } })
  e = await startApp({ orders: 20 })
})
test.afterAll(async () => {
  await e?.close()
  await team?.close()
  await receiver?.close()
})

test("an unconfirmed completion is listed with Resend, and a resend the merchant's system takes clears it", async ({ page, context }) => {
  const { hub, server, sandbox } = team
  const ada = await hub.operators.add('ada', 'admin')
  const oli = await hub.operators.add('oli', 'operator')
  await hub.handlersFor(ada.operator)['webhooks:setUrl']({ url: `${server.url}/webhook` })
  const orderId = sandbox.control.createOrder({ type: 1, fiatType: 1, hold: true, churn: false }).orderId
  sandbox.control.advanceOrder(orderId, 15, 1)
  await expect.poll(() => receiver.received.length, { timeout: 15_000 }).toBeGreaterThan(0)
  await hub.session().monitor.syncNow()

  await openView(page, e, 'settings')
  await newTeamProfile(page, 'Relay desk', server.url)
  await page.getByTestId('secret-input').fill(oli.token)
  await page.getByRole('button', { name: 'Store token' }).click()
  await expect(page.getByTestId('secret-status')).toContainText('The operator token is stored', { timeout: 15_000 })
  await page.getByRole('button', { name: 'Switch to Relay desk' }).click()
  await expect(page.getByTestId('profile-kind')).toHaveText('TEAM', { timeout: 15_000 })

  await navigate(page, 'orders')
  const note = page.getByTestId('orders-unacknowledged')
  await expect(note).toBeVisible({ timeout: 30_000 })
  await expect(note.getByTestId('unacknowledged-count')).toContainText("1 completion the merchant's system has not confirmed")
  const item = note.getByTestId('unacknowledged-order')
  await expect(item).toHaveAttribute('data-order', String(orderId))
  await expect(item).toContainText(
    new RegExp(`Order ${orderId}: Completed (just now|\\d+ min ago); the merchant's system has not confirmed it`)
  )
  const row = page.getByRole('table').locator(`tbody tr[data-order="${orderId}"]`)
  await expect(row.getByTestId('unacknowledged-mark')).toHaveText('· resend')

  await row.getByRole('button', { name: new RegExp(`^Order ${orderId}`) }).click()
  const detail = page.getByTestId('order-detail').getByTestId('order-unacknowledged')
  await expect(detail).toContainText('did not accept it and the hub stopped trying')
  await expect(detail).toContainText('Tell the customer: Their purchase is complete and the crypto was sent.')
  await mkdir('test-results', { recursive: true })
  await page.screenshot({ path: 'test-results/unacknowledged-1280.png' })
  await page.setViewportSize({ width: 960, height: 600 })
  await page.screenshot({ path: 'test-results/unacknowledged-960.png' })
  await page.setViewportSize({ width: 1280, height: 800 })

  const tray = await context.newPage()
  await tray.setViewportSize({ width: 360, height: 480 })
  await openView(tray, e, 'tray')
  await expect(tray.getByTestId('tray-unacknowledged')).toHaveText('1 completion the merchant has not confirmed', { timeout: 20_000 })
  await tray.screenshot({ path: 'test-results/unacknowledged-tray.png' })

  receiver.set({ status: 200 })
  await item.getByTestId('resend-completion').click()
  await expect(note).toBeHidden({ timeout: 20_000 })
  await expect(row.getByTestId('unacknowledged-mark')).toHaveCount(0)
  await expect(tray.getByTestId('tray-unacknowledged')).toHaveCount(0, { timeout: 20_000 })
  expect(receiver.received.length).toBe(2)
})
