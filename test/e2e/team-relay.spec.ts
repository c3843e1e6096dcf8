// The team hub's relay to the merchant's own receiver, as an admin sees it in the Webhooks
// view: a delivery the receiver refused waits there, not delivered, with the receiver's
// answer; once the receiver is fixed, "Send again" passes it on and the card says every
// delivery went through. Looked at 1280x800 and 960x600.
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { expect, test } from '@playwright/test'
import { navigate, newTeamProfile, openView, shot, startApp, type E2eApp } from './harness'
import { startTeamHub, type E2eTeamHub } from './team-hub'

let e: E2eApp
let team: E2eTeamHub
let receiver: Server
let receiverStatus = 403
const received: string[] = []

test.beforeAll(async () => {
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      if (receiverStatus === 200) received.push(Buffer.concat(chunks).toString('utf8'))
      res.writeHead(receiverStatus, { 'content-type': 'text/plain' }).end(receiverStatus === 200 ? 'credited' : 'Invalid signature passed')
    })
  })
  await new Promise<void>((ok) => receiver.listen(0, '127.0.0.1', ok))
  team = await startTeamHub({
    orders: 50,
    seed: 11,
    hub: { forwardTo: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/merchant/hook` }
  })
  e = await startApp({ orders: 20 })
})
test.afterAll(async () => {
  await e?.close()
  await team?.close()
  await new Promise<void>((ok) => (receiver ? receiver.close(() => ok()) : ok()))
})

test('an admin sees a delivery the receiver refused, and sends it again once the receiver is fixed', async ({ page }) => {
  const admin = await team.hub.operators.add('ada', 'admin')
  const handlers = team.hub.handlersFor(admin.operator)
  await openView(page, e, 'settings')
  await newTeamProfile(page, 'Relay desk', team.server.url)
  await page.getByTestId('secret-input').fill(admin.token)
  await page.getByRole('button', { name: 'Store token' }).click()
  await expect(page.getByTestId('secret-status')).toContainText('The operator token is stored', { timeout: 15_000 })
  await page.getByRole('button', { name: 'Switch to Relay desk' }).click()
  await expect(page.getByTestId('profile-kind')).toHaveText('TEAM', { timeout: 15_000 })

  // The service sends the hub a dummy; the receiver refuses it (a wrong secret on its side).
  await handlers['webhooks:setUrl']({ url: team.hub.webhookUrl()! })
  await handlers['webhooks:sendDummy']({ target: 'inbox' })
  await team.sandbox.control.deliveriesIdle()

  await navigate(page, 'webhooks')
  const card = page.getByTestId('relay-card')
  await expect(card).toBeVisible({ timeout: 15_000 })
  await expect(card.getByTestId('relay-failed')).toHaveText('1 not delivered', { timeout: 15_000 })
  const row = card.locator('tr[data-state="failed"]')
  await expect(row).toContainText('not delivered: the receiver refused it')
  await expect(row).toContainText('“Invalid signature passed” (HTTP 403)')
  await card.scrollIntoViewIfNeeded()
  await shot(page, 'webhooks-relay-failed')
  await page.setViewportSize({ width: 960, height: 600 })
  await card.scrollIntoViewIfNeeded()
  await shot(page, 'webhooks-relay-failed-960')
  await page.setViewportSize({ width: 1280, height: 800 })

  receiverStatus = 200
  await row.getByRole('button', { name: 'Send again' }).click()
  await expect(card).toContainText('One delivery will be sent again now.')
  await expect(card.getByTestId('relay-ok')).toHaveText('every delivery passed on', { timeout: 15_000 })
  expect(received).toHaveLength(1)
})
