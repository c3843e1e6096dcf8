// Webhooks end to end: a dummy sent by the sandbox arrives at the local inbox and is
// shown verified; the signature checker (computed in main) accepts the right
// signature and refuses a tampered one; resend and set-URL report in plain words.
import { expect, test } from '@playwright/test'
import { signPayload } from '../../src/shared/api/signature'
import { openView, shot, startApp, type E2eApp } from './harness'

let e: E2eApp

test.beforeAll(async () => {
  e = await startApp()
})
test.afterAll(async () => {
  await e?.close()
})

test('a dummy webhook arrives verified in the inbox log', async ({ page }) => {
  await openView(page, e, 'webhooks')
  const inboxState = page.getByTestId('inbox-state')
  await expect(inboxState).toBeVisible()
  const turnOn = page.getByRole('button', { name: 'Turn the inbox on' })
  if (await turnOn.isVisible()) await turnOn.click()
  await expect(inboxState).toContainText('listening', { timeout: 15_000 })
  const log = page.getByRole('table', { name: 'Webhook deliveries' })
  const before = await log.locator('tbody tr[data-delivery]').count()
  await page.getByRole('radio', { name: /the local inbox/ }).check()
  await page.getByRole('button', { name: 'Send dummy' }).click()
  await expect(log.locator('tbody tr[data-delivery]')).toHaveCount(before + 1, { timeout: 20_000 })
  const row = log.locator('tbody tr[data-delivery]').first()
  await expect(row).toHaveAttribute('data-verified', 'true')
  await expect(row.locator('.pill').first()).toHaveText('verified')
  await shot(page, 'webhooks')
})

test('the signature checker accepts the right signature and refuses a tampered one', async ({ page }) => {
  const settings = await e.app.services.handlers['settings:get']({})
  if (!settings.inbox.enabled) await e.app.services.handlers['settings:update']({ inbox: { ...settings.inbox, enabled: true } })
  const { rows } = await e.app.services.handlers['webhooks:deliveries']({ offset: 0, limit: 10 })
  let payload = rows[0]?.payload
  if (!payload) {
    await e.app.services.handlers['webhooks:sendDummy']({ target: 'inbox' })
    await expect
      .poll(async () => (await e.app.services.handlers['webhooks:deliveries']({ offset: 0, limit: 10 })).rows.length, { timeout: 20_000 })
      .toBeGreaterThan(0)
    payload = (await e.app.services.handlers['webhooks:deliveries']({ offset: 0, limit: 10 })).rows[0]?.payload
  }
  if (!payload) throw new Error('no delivery to check')
  const signature = signPayload(payload, e.apiSecret)

  await openView(page, e, 'webhooks')
  await page.getByRole('textbox', { name: 'Payload header' }).fill(payload)
  await page.getByRole('textbox', { name: 'Signature header' }).fill(signature)
  await page.getByRole('button', { name: 'Check signature' }).click()
  await expect(page.getByTestId('verify-result')).toContainText('Signature matches')

  const tampered = (signature[0] === 'a' ? 'b' : 'a') + signature.slice(1)
  await page.getByRole('textbox', { name: 'Signature header' }).fill(tampered)
  await page.getByRole('button', { name: 'Check signature' }).click()
  await expect(page.getByTestId('verify-result')).toContainText('Signature does not match')
})

test('set URL and resend say what the service did, and the resent delivery arrives', async ({ page }) => {
  const settings = await e.app.services.handlers['settings:get']({})
  if (!settings.inbox.enabled) await e.app.services.handlers['settings:update']({ inbox: { ...settings.inbox, enabled: true } })
  await openView(page, e, 'webhooks')
  const inbox = await e.app.services.handlers['webhooks:inbox']({})
  expect(inbox.url).toBeTruthy()
  await page.getByRole('textbox', { name: 'URL' }).fill(inbox.url!)
  await page.getByRole('button', { name: 'Set URL' }).click()
  const setForm = page.getByRole('form', { name: 'Webhook URL at the service' })
  // Success is the service's own confirmation naming the URL, never an error note.
  await expect(setForm.getByRole('status')).toContainText(inbox.url!, { timeout: 15_000 })
  await expect(setForm.getByRole('alert')).toHaveCount(0)

  // An order completed now, whose webhook the service sends again on request.
  const order = e.control.createOrder({ type: 1, fiatType: 1, path: 'completed', hold: true })
  let last = order
  while (![4, 5, 15, 16].includes(last.status)) last = e.control.advanceOrder(order.orderId)
  const delivered = async () =>
    (await e.app.services.handlers['webhooks:deliveries']({ offset: 0, limit: 100 })).rows.filter((d) => d.orderId === order.orderId).length
  await expect.poll(delivered, { timeout: 20_000 }).toBeGreaterThan(0)
  const before = await delivered()
  await page.getByRole('textbox', { name: 'Order id' }).fill(String(order.orderId))
  await page.getByRole('button', { name: 'Resend' }).click()
  const resendForm = page.getByRole('form', { name: "Resend an order's webhook" })
  await expect(resendForm.getByRole('status')).toBeVisible({ timeout: 15_000 })
  await expect(resendForm.getByRole('alert')).toHaveCount(0)
  await expect.poll(delivered, { timeout: 20_000 }).toBeGreaterThan(before)
})
