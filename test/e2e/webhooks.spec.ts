// Webhooks end to end: a dummy sent by the sandbox arrives at the local inbox and is
// shown verified; the signature checker (computed in main) accepts the right
// signature and refuses a tampered one; resend and set-URL report in plain words. At both
// window sizes and from the keyboard: the URL now set and the new one side by side before a
// change, the one replaced named after it; an inbox that is off said beside the dummy's
// send button with its switch, and gone once it is on.
import { mkdir } from 'node:fs/promises'
import { resolve } from 'node:path'
import { expect, test, type Page } from '@playwright/test'
import { signPayload } from '../../src/shared/api/signature'
import { layoutProblems } from './layout'
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

/** A screenshot for reading what the view says (test-results only). */
async function look(page: Page, name: string): Promise<void> {
  const dir = resolve('test-results/screenshots/webhooks')
  await mkdir(dir, { recursive: true })
  await page.screenshot({ path: resolve(dir, `${name}.png`), animations: 'disabled', fullPage: true })
}

async function readable(page: Page, what: string): Promise<void> {
  await page.waitForTimeout(200)
  expect(await layoutProblems(page), what).toEqual([])
}

for (const size of [
  { width: 1280, height: 800 },
  { width: 960, height: 600 }
]) {
  test.describe(`at ${size.width}x${size.height}`, () => {
    test.use({ viewport: size })
    const tag = `${size.width}`

    test('the URL now set and the new one side by side, then the one it replaced, from the keyboard', async ({ page }) => {
      const settings = await e.app.services.handlers['settings:get']({})
      if (!settings.inbox.enabled) await e.app.services.handlers['settings:update']({ inbox: { ...settings.inbox, enabled: true } })
      const inbox = await e.app.services.handlers['webhooks:inbox']({})
      // Nothing listens on port 1 of this machine: the sandbox's deliveries there fail at once.
      const first = `http://127.0.0.1:1/hook-${tag}-a`
      const second = `http://127.0.0.1:1/hook-${tag}-b`
      await e.app.services.handlers['webhooks:setUrl']({ url: first })

      await openView(page, e, 'webhooks')
      const form = page.getByRole('form', { name: 'Webhook URL at the service' })
      const urls = form.getByTestId('replaced-url')
      const now = urls.locator('dd').first()
      await expect(urls.locator('dt').first()).toHaveText('Now')
      await expect(now).toContainText(first)
      await expect(form.getByTestId('new-url')).toHaveCount(0)
      const field = form.getByRole('textbox', { name: 'URL' })
      await field.focus()
      await page.keyboard.type(second)
      await expect(form.getByTestId('new-url')).toHaveText(second)
      await readable(page, `old and new at ${tag}`)
      await look(page, `old-and-new-${tag}`)
      await page.keyboard.press('Enter')
      await expect(form.getByRole('status')).toHaveText(`Set to ${second}; it replaced ${first}.`, { timeout: 15_000 })
      await expect(now).toContainText(second)
      await expect(form.getByTestId('new-url')).toHaveCount(0)
      expect(e.control.webhookUrl()).toBe(second)
      await readable(page, `after the change at ${tag}`)
      await look(page, `replaced-${tag}`)

      // An error is about what was given: it goes as the URL is edited.
      await e.app.services.handlers['webhooks:setUrl']({ url: inbox.url! })
      e.control.setFault('setWebhookUrl', { errorRate: 1, errorStatus: 400, remaining: 1 })
      await field.fill(first)
      await page.keyboard.press('Enter')
      await expect(form.getByRole('alert')).toBeVisible({ timeout: 15_000 })
      await field.press('End')
      await page.keyboard.type('x')
      await expect(form.getByRole('alert')).toHaveCount(0)
      e.control.clearFaults()
      await e.app.services.handlers['webhooks:setUrl']({ url: inbox.url! })
    })

    test('an inbox that is off is said beside the dummy’s send button with its switch, and the error goes once it is on', async ({
      page
    }) => {
      const settings = await e.app.services.handlers['settings:get']({})
      await e.app.services.handlers['settings:update']({ inbox: { ...settings.inbox, enabled: false } })
      await openView(page, e, 'webhooks')
      const dummy = page.getByRole('form', { name: 'Send a dummy webhook' })
      await expect(dummy.getByRole('radio', { name: /the local inbox/ })).toBeChecked()
      const off = dummy.getByTestId('inbox-off')
      await expect(off).toContainText('The local inbox is off: a dummy sent to it would not arrive.')
      await expect(dummy.getByRole('button', { name: 'Send dummy' })).toBeDisabled()
      // One switch on the page, where the problem is said.
      await expect(page.getByRole('button', { name: 'Turn the inbox on' })).toHaveCount(1)
      await readable(page, `inbox off at ${tag}`)
      await look(page, `inbox-off-${tag}`)
      await off.getByRole('button', { name: 'Turn the inbox on' }).focus()
      await page.keyboard.press('Enter')
      await expect(off).toHaveCount(0, { timeout: 15_000 })
      await expect(page.getByTestId('inbox-state')).toContainText('listening')

      // The inbox turned off behind the view's back: the refusal is said as the same note, with
      // its switch, and nothing of it stays once the inbox is on again.
      await e.app.services.handlers['settings:update']({ inbox: { ...settings.inbox, enabled: false } })
      await dummy.getByRole('button', { name: 'Send dummy' }).focus()
      await page.keyboard.press('Enter')
      await expect(off).toBeVisible({ timeout: 15_000 })
      await expect(dummy.getByRole('alert')).toHaveCount(0)
      await off.getByRole('button', { name: 'Turn the inbox on' }).press('Enter')
      await expect(off).toHaveCount(0, { timeout: 15_000 })
      await expect(dummy.getByRole('alert')).toHaveCount(0)
      await dummy.getByRole('button', { name: 'Send dummy' }).press('Enter')
      await expect(dummy.getByRole('status')).toBeVisible({ timeout: 15_000 })
    })
  })
}
